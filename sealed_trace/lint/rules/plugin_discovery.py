"""ST302 plugin-discovery (ADR-0230 §15.2, §5)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import RuleContext

__all__ = ["PluginDiscovery"]

_INFO = RULES["ST302"]


class PluginDiscovery:
    """Entry-point discovery in the boundary or an upstream module."""

    code, name, summary, explanation = _INFO.code, _INFO.name, _INFO.summary, _INFO.explanation
    roles = frozenset({"boundary", "upstream"})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST302 findings of ``ctx``'s file (see the class docstring)."""
        for fact in ctx.facts.dynamics:
            if fact.kind == "plugin-discovery":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    f"plugin discovery through {fact.callee}()",
                    fact.callee,
                )
