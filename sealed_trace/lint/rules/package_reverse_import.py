"""ST403 package-reverse-import (ADR-0230 §5, §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import (
    PACKAGE,
    UPSTREAM,
    CatalogRule,
    Role,
    RuleContext,
    Snippet,
    listed,
    marked_chain,
)

__all__ = ["PackageReverseImport"]


class PackageReverseImport(CatalogRule):
    """A package whose ``__init__`` runs before upstream modules below it and imports the
    sealed module (one finding per import statement, naming the upstream modules it
    affects)."""

    code = "ST403"
    roles = frozenset({Role.ANCESTOR})
    valid = (
        Snippet("from pkg import values\n", PACKAGE),
        Snippet(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import sealed\n",
            PACKAGE,
            policy='type_checking_imports = "ignore"',
        ),
        # a package above no upstream module
        Snippet("from pkg.sealed import Thing\n", "src/pkg/other/__init__.py"),
    )
    invalid = (
        Snippet(
            "from pkg.sealed import Thing\n", PACKAGE, files={UPSTREAM: "from pkg import Thing\n"}
        ),
        Snippet("from . import sealed\n", PACKAGE, files={UPSTREAM: "import pkg.up.a\n"}),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST403 finding of ``ctx``'s package (see the class docstring)."""
        shown = listed(ctx.affected)
        for edge in ctx.reverse_edges:  # one per import statement, each with its own label
            chain = marked_chain((ctx.module or ctx.path, *edge.chain), edge.kinds)
            yield ctx.finding(
                edge.line,
                edge.column,
                self.code,
                f"package {ctx.module} reaches the sealed module through `{edge.text}` "
                f"({chain}); importing upstream module{'s' if len(ctx.affected) > 1 else ''} "
                f"{shown} runs it first",
                f"{edge.text}|{edge.chain[0]}",
                edge.chains,
            )
