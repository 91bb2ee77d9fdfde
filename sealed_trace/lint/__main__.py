"""``python -m sealed_trace.lint [PATH...] [options]``: the lint without the other commands."""

from __future__ import annotations

import sys

from sealed_trace.lint.cli import main

if __name__ == "__main__":
    sys.exit(main())
