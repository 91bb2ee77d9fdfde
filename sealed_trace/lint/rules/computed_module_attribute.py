"""ST303 computed-module-attribute (ADR-0230 §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import RuleContext

__all__ = ["ComputedModuleAttribute"]

_INFO = RULES["ST303"]


class ComputedModuleAttribute:
    """``getattr(obj, computed)`` on any object, ``getattr`` passed as a value, and
    ``attrgetter``/``methodcaller`` with a computed name, in the boundary module."""

    code, name, summary, explanation = _INFO.code, _INFO.name, _INFO.summary, _INFO.explanation
    roles = frozenset({"boundary"})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST303 findings of ``ctx``'s file (see the class docstring)."""
        for fact in ctx.facts.dynamics:
            if fact.kind == "computed-getattr":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    f"getattr on {fact.callee} with a computed attribute name",
                    fact.callee,
                )
            elif fact.kind == "getattr-value":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    "getattr used as a value (map, reduce, ...) fetches "
                    "attributes under names that cannot be checked",
                    fact.callee,
                )
