"""Text format: one ``path:line:col CODE message`` line per finding."""

from __future__ import annotations

from sealed_trace.lint.engine import LintResult

__all__ = ["render"]


def render(result: LintResult, tool_version: str) -> str:
    """Return the findings as lines (empty string when clean)."""
    return "".join(
        f"{f.path}:{f.line}:{f.column} {f.code} {f.message}\n" for f in result.findings
    )
