"""ST404 closure-import (ADR-0230 §15.2), for boundaries with ``closure = true``."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import (
    VALUES,
    CatalogRule,
    Role,
    RuleContext,
    Snippet,
    marked_chain,
)

__all__ = ["ClosureImport"]


class ClosureImport(CatalogRule):
    """What the sealed module's first-party import closure loads against the policy: one
    finding per banned module (whole modules) or upstream module, on the sealed module's
    import that starts its shortest chain, each step that does not run on import marked."""

    code = "ST404"
    roles = frozenset({Role.BOUNDARY})
    valid = (
        # what a function imports does not load on import (by default)
        Snippet(
            "from pkg import values\n",
            files={VALUES: "def spawn():\n    import subprocess\n"},
            policy="closure = true",
        ),
        Snippet(
            "from pkg import values\n",
            files={VALUES: "from types import FunctionType\nfrom typing import Any\n"},
            policy="closure = true",
        ),
        # the closure is checked only when the boundary asks
        Snippet("from pkg import values\n", files={VALUES: "import subprocess\n"}),
    )
    invalid = (
        Snippet(
            "from pkg import values\n",
            files={VALUES: "import subprocess\n"},
            policy="closure = true",
        ),
        Snippet(
            "from pkg import values\n",
            files={VALUES: "from pkg import state\n", "src/pkg/state.py": "import socket\n"},
            policy="closure = true",
        ),
        Snippet(
            "from pkg import values\n",
            files={VALUES: "from datetime import datetime, timezone\n"},
            policy="closure = true",
        ),
        Snippet(
            "from pkg import values\n",
            files={VALUES: "import pkg.up.a\n"},
            policy="closure = true",
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST404 findings computed for ``ctx``'s boundary (see the class docstring)."""
        for edge in ctx.closure:
            yield ctx.finding(
                edge.line,
                edge.column,
                self.code,
                f"importing sealed module {edge.chain[0]} loads {edge.what}: "
                + marked_chain(edge.chain, edge.kinds),
                # what is loaded and through which import: not the chain, which another
                # module's edit can change
                f"{edge.what}|{edge.text}",
            )
