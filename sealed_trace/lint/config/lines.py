"""Which line of the policy file a problem is about.

:func:`key_lines` maps the policy's keys to their lines, read from the text (TOML parsers
keep no positions); :func:`line_of` finds the key a problem names (``jobs must be ...``,
``boundary[0].module ...``, ``boundary[1]: unknown key 'x'``) among them.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["key_lines", "line_of"]

_KEY_LINE: Final = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")
_HEADER: Final = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")
_TABLE: Final = "tool.sealed_trace"
_PROBLEM_KEY: Final = re.compile(
    r"^(?:unknown key '([^']+)'|([a-z_]+\[\d+\])(?:\.([a-z_]+))?"
    r"(?:: unknown key '([^']+)')?|([a-z_]+))"
)


def key_lines(text: str) -> dict[str, int]:
    """Lines of the policy's keys: ``{"jobs": 4, "boundary[0]": 9, "boundary[0].module": 11}``
    (the first line of each; only what the headers ``[tool.sealed_trace]`` and
    ``[[tool.sealed_trace.<array>]]`` open)."""
    out: dict[str, int] = {}
    prefix: str | None = None
    counts: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            prefix = _opened(header, counts)
            if prefix:
                out.setdefault(prefix, number)
            continue
        key = _KEY_LINE.match(line)
        if key and prefix is not None:
            out.setdefault(f"{prefix}.{key.group(1)}" if prefix else key.group(1), number)
    return out


def _opened(header: re.Match[str], counts: dict[str, int]) -> str | None:
    """The key prefix of the table ``header`` opens: ``""`` for ``[tool.sealed_trace]``,
    ``"boundary[1]"`` for the second ``[[tool.sealed_trace.boundary]]`` (counted in
    ``counts``), None for any other table."""
    name = header.group(2).replace(" ", "").replace('"', "")
    if name == _TABLE:
        return ""
    if not (name.startswith(_TABLE + ".") and header.group(1) == "[["):
        return None
    array = name[len(_TABLE) + 1 :]
    index = counts.get(array, 0)
    counts[array] = index + 1
    return f"{array}[{index}]"


def line_of(problem: str, lines: dict[str, int]) -> int | None:
    """The line (from :func:`key_lines`) of the key ``problem`` is about, or None."""
    match = _PROBLEM_KEY.match(problem)
    if match is None:
        return None
    top, table, key, unknown, word = match.groups()
    if top:
        return lines.get(top)
    if table:
        inner = key or unknown
        if inner and f"{table}.{inner}" in lines:
            return lines[f"{table}.{inner}"]
        return lines.get(table)
    return lines.get(word or "")
