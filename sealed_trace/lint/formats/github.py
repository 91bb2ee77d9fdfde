"""GitHub Actions workflow commands: ``::error file=P,line=L,col=C,title=T::message``.

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
        f"::error file={_prop(f.path)},line={f.line},col={f.column},"
        f"title={_prop(f'{f.code} {f.rule_name}')}::{_data(f.message)}\n"
        for f in result.findings
    )
