"""Text format: one ``path:line:col CODE message`` line per finding.

For a person at a terminal the command line adds, through :func:`render_text`: paths relative
to the current directory (absolute outside it), the offending line with a caret under the column
(``--show-source``), and colour (on a terminal, unless ``NO_COLOR`` is set; ``FORCE_COLOR``
turns it on anywhere).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from sealed_trace._colour import use_colour
from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.findings import Finding

__all__ = ["grouped", "render", "render_text", "use_colour"]

_BOLD, _RED, _CYAN, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[0m"


def render(result: LintResult, tool_version: str) -> str:
    """Return the findings as lines (empty string when clean)."""
    return render_text(result)


def _source_line(path: str, line: int) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            for number, text in enumerate(handle, 1):
                if number == line:
                    return text.rstrip("\r\n")
    except OSError:
        return None
    return None


def _shown(path: str) -> str:
    """``path`` relative to the current directory when it lies below it, else absolute (a
    ``../../`` chain is harder to read than the path itself)."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # another drive
        return absolute
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return absolute.replace(os.sep, "/")
    return relative.replace(os.sep, "/")


def render_text(
    result: LintResult, *, root: str | None = None, show_source: bool = False, colour: bool = False
) -> str:
    """The text report. ``root``: the project root the findings' paths are relative to; when
    given, paths are shown relative to the current directory (absolute when the file is not
    below it). ``show_source``: each finding
    is followed by its line and a caret under its column (tabs kept, so the caret lines up).
    ``colour``: ANSI bold path and red code."""
    out: list[str] = []
    named = len({f.boundary for f in result.findings if f.boundary}) > 1
    for f, boundaries in grouped(result.findings):
        full = f.path if root is None or os.path.isabs(f.path) else os.path.join(root, f.path)
        shown = f.path if root is None else _shown(full)
        out.append(_finding_line(f, shown, colour, boundaries if named else ()))
        if show_source:
            out.append(_excerpt(full, f, colour))
    return "".join(out)


def grouped(findings: Sequence[Finding]) -> list[tuple[Finding, list[str]]]:
    """Each finding once with the boundaries it is reported for: the same finding of several
    boundaries (an upstream module shared by them) is one line."""
    groups: dict[tuple[str, int, int, str, str], tuple[Finding, list[str]]] = {}
    for f in findings:
        key = (f.path, f.line, f.column, f.code, f.message)
        groups.setdefault(key, (f, []))[1].append(f.boundary)
    return list(groups.values())


def _finding_line(finding: Finding, path: str, colour: bool, boundaries: Sequence[str]) -> str:
    """``path:line:col CODE message``, the place bold and the code bold red with ``colour``;
    ``[boundary, ...]`` after it when the run reports for several boundaries."""
    where = f"{path}:{finding.line}:{finding.column}"
    code = finding.code
    if colour:
        where, code = f"{_BOLD}{where}{_RESET}", f"{_BOLD}{_RED}{code}{_RESET}"
    named = f" [{', '.join(sorted(b for b in boundaries if b))}]" if any(boundaries) else ""
    return f"{where} {code} {finding.message}{named}\n"


def _excerpt(path: str, finding: Finding, colour: bool) -> str:
    """The finding's source line and a caret under its column (tabs kept, so the caret lines
    up), or nothing when the line cannot be read."""
    text = _source_line(path, finding.line)
    if text is None:
        return ""
    pad = "".join(c if c == "\t" else " " for c in text[: max(0, finding.column - 1)])
    caret = f"{_CYAN}^{_RESET}" if colour else "^"
    return f"    {text}\n    {pad}{caret}\n"
