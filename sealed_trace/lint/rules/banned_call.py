"""ST201 banned-call (ADR-0230 §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import RuleContext

__all__ = ["BannedCall"]

_INFO = RULES["ST201"]


def describe(via: str) -> str:
    """A suffix saying how a name was resolved (``" (through alias clk)"``)."""
    if via.startswith("alias "):
        return f" (through local name {via[6:]!r})"
    if via == "getattr":
        return " (through getattr)"
    return ""


class BannedCall:
    """A call whose callee resolves to a banned qualified name."""

    code, name, summary, explanation = _INFO.code, _INFO.name, _INFO.summary, _INFO.explanation
    roles = frozenset({"boundary"})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST201 findings of ``ctx``'s file (see the class docstring)."""
        for ref in ctx.facts.refs:
            if ref.call and ctx.counts(ref.type_checking) and ctx.boundary.is_banned(ref.qname):
                yield ctx.finding(ref.line, ref.column, self.code,
                                  f"call of banned {ref.qname}{describe(ref.via)}", ref.qname)
