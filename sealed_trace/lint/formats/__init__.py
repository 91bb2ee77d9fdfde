"""Report formats of the boundary lint: ``text``, ``json``, ``sarif`` and ``github``.

Each format module exposes ``render(result, tool_version) -> str``.
"""

from __future__ import annotations

from collections.abc import Callable

from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.formats import github, json_format, sarif, text

__all__ = ["FORMATS", "render"]

FORMATS: dict[str, Callable[[LintResult, str], str]] = {
    "text": text.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}


def render(name: str, result: LintResult, tool_version: str) -> str:
    """Render ``result`` in format ``name``; raises ``KeyError`` for an unknown format."""
    return FORMATS[name](result, tool_version)
