"""``python -m sealed_trace``: the same program as the ``sealed-trace`` console script."""

import sys

from sealed_trace.cli import main

if __name__ == "__main__":  # not when a worker process of the lint re-imports it
    sys.exit(main())
