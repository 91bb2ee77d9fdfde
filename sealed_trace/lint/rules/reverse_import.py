"""ST401 reverse-import (ADR-0230 §5, §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.findings import Finding
from sealed_trace.lint.graph import EdgeKind
from sealed_trace.lint.rules.base import CatalogRule, Role, RuleContext, through

__all__ = ["ReverseImport"]


class ReverseImport(CatalogRule):
    """An upstream module whose own import statement reaches the sealed module directly: one
    finding per statement, the first naming how many other upstream modules reach the sealed
    module through it (JSON and SARIF carry the chain of each)."""

    code = "ST401"
    roles = frozenset({Role.UPSTREAM})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST401 findings of ``ctx``'s file (see the class docstring)."""
        for edge in ctx.reverse_edges:
            if len(edge.chain) == 1:
                note = EdgeKind(edge.kinds[0]).note if edge.kinds else ""
                yield ctx.finding(
                    edge.line,
                    edge.column,
                    self.code,
                    f"upstream module {ctx.module} imports sealed module {edge.chain[0]} "
                    f"(`{edge.text}`{', ' + note if note else ''})"
                    + through(ctx.module, edge.affected),
                    edge.text,
                    edge.chains,
                )
