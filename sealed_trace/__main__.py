"""``python -m sealed_trace``: the same program as the ``sealed-trace`` console script."""

import sys

from sealed_trace.cli import main

sys.exit(main())
