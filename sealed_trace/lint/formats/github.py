"""GitHub Actions workflow commands, as ruff writes them:
``::error title=sealed-trace (CODE),file=P,line=L,col=C,endLine=L,endColumn=C::message``.

Property values escape ``%``, CR, LF, ``:`` and ``,``; the message escapes ``%``, CR and LF.
"""

from __future__ import annotations

from sealed_trace.lint.engine import LintResult

__all__ = ["render"]


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: LintResult, tool_version: str) -> str:
    """Return one annotation line per finding."""
    return "".join(
        f"::error title={_prop(f'sealed-trace ({f.code})')},file={_prop(f.path)},"
        f"line={f.line},col={f.column},endLine={f.line},endColumn={f.column}::"
        f"{_data(f'{f.code} {f.rule_name}: {f.message}')}\n"
        for f in result.findings
    )
