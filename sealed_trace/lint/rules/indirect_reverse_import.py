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
    listed,
    marked_chain,
    through,
)

__all__ = ["IndirectReverseImport"]


class IndirectReverseImport(CatalogRule):
    """Upstream modules reaching the sealed module through a first-party module that is
    neither upstream nor a package above them: one finding, on that module's import of the
    sealed module (the one fix), naming the upstream modules that reach it through it (JSON
    and SARIF carry the chain of each); and an upstream module naming the sealed module's
    objects through a module that re-exports them: one finding where it first names one."""

    code = "ST402"
    roles = frozenset({Role.UPSTREAM, Role.HELPER})
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
        # a module importing the sealed module that no upstream module imports
        Snippet("import pkg.sealed\n", "src/pkg/helper.py"),
    )
    invalid = (
        # the helper's import of the sealed module: the one fix for the upstream module
        Snippet(
            "import json\nimport pkg.sealed\n",
            "src/pkg/helpers/c.py",
            files={"src/pkg/helpers/__init__.py": "", UPSTREAM: "from pkg.helpers import c\n"},
        ),
        # a cycle on the way does not hide the chain
        Snippet(
            "import pkg.x\nimport pkg.sealed\n",
            "src/pkg/y.py",
            files={"src/pkg/x.py": "import pkg.y\n", UPSTREAM: "import pkg.x\n"},
        ),
        # naming the sealed module's object through a module re-exporting it
        Snippet(
            "from pkg.reexport import Thing\n",
            UPSTREAM,
            files={"src/pkg/reexport.py": "from pkg.sealed import Thing\n"},
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST402 findings of ``ctx``'s file (see the class docstring)."""
        if ctx.role is Role.HELPER:
            yield from self._helper(ctx)
            return
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

    def _helper(self, ctx: RuleContext) -> Iterator[Finding]:
        """A helper's imports of the sealed module, each naming the upstream modules that
        reach the sealed module through it."""
        upstream = [m for m in ctx.affected if m != ctx.module]
        shown = listed(upstream)
        for edge in ctx.reverse_edges:
            chain = marked_chain((ctx.module or ctx.path, *edge.chain), edge.kinds)
            yield ctx.finding(
                edge.line,
                edge.column,
                self.code,
                f"module {ctx.module} reaches the sealed module through `{edge.text}` "
                f"({chain}); upstream module{'s' if len(upstream) > 1 else ''} {shown} "
                f"reach{'' if len(upstream) > 1 else 'es'} it through this import",
                f"{edge.text}|{edge.chain[0]}",
                edge.chains,
            )
