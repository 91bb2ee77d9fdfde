"""Generic checks of policy values and the words problems use for them.

:func:`type_name` shows a bad value (``a string ("4")``), :func:`suggest` the closest known
key, :func:`str_list` reads an array of strings entry by entry; the ``check_*`` functions
judge one entry (None when it is good, else what is wrong with it).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable
from typing import Final, TypeAlias

from sealed_trace.lint.catalog import RULES, is_selector

__all__ = [
    "DOTTED",
    "ItemCheck",
    "check_dotted",
    "check_identifier",
    "check_pattern",
    "check_selector",
    "str_list",
    "suggest",
    "type_name",
]

#: A dotted module name: ``pkg.mod``.
DOTTED: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_PATTERN: Final = re.compile(r"^[A-Za-z0-9_.*]+$")
_TOML_TYPES: Final[dict[type, str]] = {
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    str: "a string",
    list: "an array",
    dict: "a table",
}

#: Judges one string entry: None when it is good, else the end of the problem's sentence.
ItemCheck: TypeAlias = Callable[[str], str | None]


def suggest(key: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the known name closest to ``key``; empty when none is."""
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def type_name(value: object) -> str:
    """``value`` as a problem shows it: its TOML type and (shortened) the value itself."""
    kind = _TOML_TYPES.get(type(value), type(value).__name__)
    if isinstance(value, dict):
        return kind
    shown = json.dumps(value, default=str) if not isinstance(value, (int, float)) else repr(value)
    if isinstance(value, bool):
        shown = "true" if value else "false"
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"{kind} ({shown})"


def str_list(
    value: object, where: str, problems: list[str], check: ItemCheck | None = None
) -> tuple[str, ...]:
    """The strings of the array ``value`` that pass ``check``. A problem is appended (about
    ``where``) when ``value`` is not an array, and for each entry that is not a string or
    fails ``check``; the other entries are kept."""
    if not isinstance(value, list):
        problems.append(f"{where} must be an array of strings, not {type_name(value)}")
        return ()
    out: list[str] = []
    for index, item in enumerate(value):
        message = (
            f"must be a string, not {type_name(item)}"
            if not isinstance(item, str)
            else _checked(item, check)
        )
        if message is None:
            out.append(item)
        else:
            problems.append(f"{where}[{index}] {message}")
    return tuple(out)


def _checked(item: str, check: ItemCheck | None) -> str | None:
    message = check(item) if check is not None else None
    return None if message is None else f"{item!r} {message}"


def check_dotted(item: str) -> str | None:
    """A dotted module name (``pkg.mod``)."""
    return None if DOTTED.match(item) else "is not a dotted module name"


def check_pattern(item: str) -> str | None:
    """A qualified-name pattern: dotted names whose parts may hold ``*``."""
    if not _PATTERN.match(item) or item.startswith(".") or item.endswith(".") or ".." in item:
        return "is not a qualified-name pattern (letters, digits, _, dots and *)"
    return None


def check_selector(item: str) -> str | None:
    """A rule selector: a code (``ST201``), a prefix (``ST2``) or a rule name."""
    if is_selector(item):
        return None
    names = [*RULES, *(info.name for info in RULES.values())]
    return f"names no lint rule{suggest(item, names)} (a code, a prefix such as 'ST2', or a name)"


def check_identifier(item: str) -> str | None:
    """A Python identifier (a record field name)."""
    return None if item.isidentifier() else "is not an identifier"
