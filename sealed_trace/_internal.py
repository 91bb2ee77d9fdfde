"""Internal errors, under the module's former private name: see :mod:`sealed_trace.errors`."""

from __future__ import annotations

from sealed_trace.errors import TRACEBACK_ENV, internal_error, wants_traceback

__all__ = ["TRACEBACK_ENV", "internal_error", "wants_traceback"]
