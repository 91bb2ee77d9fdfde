"""Internal errors: one line that says what failed and how to see the traceback.

A bug in sealed-trace must not look like a finding (exit 1) or a wall of traceback: the command
line exits 2 with one line, and the pytest plugin stops with one line. Setting
``SEALED_TRACE_TRACEBACK=1`` (or ``sealed-trace --traceback``) lets the exception through.

Public, so that the pytest plugin words its internal errors as the command line does.
"""

from __future__ import annotations

import os
from typing import Final

__all__ = ["TRACEBACK_ENV", "internal_error", "wants_traceback"]

#: Set to a non-empty value to get the traceback of an internal error.
TRACEBACK_ENV: Final = "SEALED_TRACE_TRACEBACK"


def wants_traceback() -> bool:
    """Whether the environment asks for tracebacks of internal errors."""
    return bool(os.environ.get(TRACEBACK_ENV))


def internal_error(what: str, error: BaseException, how: str = "") -> str:
    """The one line for ``error`` raised while ``what`` (``"running seal"``); ``how`` names
    another way to get the traceback (``" or pass --traceback"``)."""
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return (
        f"internal error while {what}: {detail} (a bug in sealed-trace; set "
        f"{TRACEBACK_ENV}=1{how} to see the traceback)"
    )
