"""ST401 reverse-import (ADR-0230 §5, §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.findings import Finding
from sealed_trace.lint.graph import EdgeKind
from sealed_trace.lint.rules.base import UPSTREAM, CatalogRule, Role, RuleContext, Snippet, through

__all__ = ["ReverseImport"]


class ReverseImport(CatalogRule):
    """An upstream module whose own import statement reaches the sealed module directly: one
    finding per statement, the first naming how many other upstream modules reach the sealed
    module through it (JSON and SARIF carry the chain of each)."""

    code = "ST401"
    roles = frozenset({Role.UPSTREAM})
    valid = (
        Snippet("from pkg import values\nx = 'pkg.sealed'  # import pkg.sealed\n", UPSTREAM),
        # a module that is not upstream may import the sealed module
        Snippet("from pkg import sealed\n", "src/pkg/cli.py"),
        Snippet(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import sealed\n",
            UPSTREAM,
            policy='type_checking_imports = "ignore"',
        ),
    )
    invalid = (
        Snippet("import pkg.sealed\n", UPSTREAM),
        Snippet("from .. import sealed\n", UPSTREAM),
        Snippet("def f():\n    from pkg.sealed import thing\n", UPSTREAM),
        Snippet("import importlib\nimportlib.import_module('pkg.sealed')\n", UPSTREAM),
        Snippet("import pkg\nx = pkg.sealed.thing\n", UPSTREAM),
    )

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
