"""ST402 indirect-reverse-import (ADR-0230 §5, §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import (
    UPSTREAM,
    CatalogRule,
    Role,
    RuleContext,
    Snippet,
    marked_chain,
    through,
)

__all__ = ["IndirectReverseImport"]


class IndirectReverseImport(CatalogRule):
    """An upstream module reaching the sealed module through other first-party modules, when
    no upstream module or package nearer to the sealed module on its chain causes it: one
    finding, on the import that starts the shortest chain, naming how many other upstream
    modules reach the sealed module through it (JSON and SARIF carry the chain of each)."""

    code = "ST402"
    roles = frozenset({Role.UPSTREAM})
    valid = (
        Snippet("import pkg.x\n", UPSTREAM, files={"src/pkg/x.py": "import pkg.values\n"}),
        Snippet(
            "import pkg.x\n",
            UPSTREAM,
            files={
                "src/pkg/x.py": "import typing\nif typing.TYPE_CHECKING:\n    import pkg.sealed\n"
            },
            policy='type_checking_imports = "ignore"',
        ),
    )
    invalid = (
        Snippet(
            "from pkg.reexport import Thing\n",
            UPSTREAM,
            files={"src/pkg/reexport.py": "from pkg.sealed import Thing\n"},
        ),
        Snippet(
            "import json\nfrom pkg.helpers import b\n",
            UPSTREAM,
            files={
                "src/pkg/helpers/__init__.py": "",
                "src/pkg/helpers/b.py": "from pkg.helpers import c\n",
                "src/pkg/helpers/c.py": "import pkg.sealed\n",
            },
        ),
        # a cycle on the way does not hide the chain
        Snippet(
            "import pkg.x\n",
            UPSTREAM,
            files={
                "src/pkg/x.py": "import pkg.y\n",
                "src/pkg/y.py": "import pkg.x\nimport pkg.sealed\n",
            },
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST402 findings of ``ctx``'s file (see the class docstring)."""
        for edge in ctx.reverse_edges:
            if len(edge.chain) > 1:
                chain = marked_chain((ctx.module or ctx.path, *edge.chain), edge.kinds)
                others = (
                    f" ({edge.others} other imported module"
                    f"{'s' if edge.others > 1 else ''} reach{'' if edge.others > 1 else 'es'}"
                    " it too)"
                    if edge.others
                    else ""
                )
                yield ctx.finding(
                    edge.line,
                    edge.column,
                    self.code,
                    f"upstream module {ctx.module} reaches the sealed module through "
                    f"`{edge.text}`: {chain}{others}" + through(ctx.module, edge.affected),
                    # the import and its target: a shorter chain found elsewhere keeps it
                    f"{edge.text}|{edge.chain[0]}",
                    edge.chains,
                )
