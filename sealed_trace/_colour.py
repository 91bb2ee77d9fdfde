"""Whether text for a person gets colour, one rule for every report (https://no-color.org).

Shared by ``sealed-trace show`` and the lint's text report; importing it loads nothing else.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["stream_is_tty", "use_colour"]


def use_colour(stream_is_tty: bool, environ: Mapping[str, str] | None = None) -> bool:
    """Colour or not: ``NO_COLOR`` (any non-empty value) wins, then ``FORCE_COLOR``, then
    whether the stream is a terminal (and ``TERM`` is not ``dumb``)."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    return stream_is_tty and env.get("TERM") != "dumb"


def stream_is_tty(stream: object) -> bool:
    """Whether ``stream`` is a terminal; False for anything that cannot say."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False
