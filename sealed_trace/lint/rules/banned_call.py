"""ST201 banned-call (ADR-0230 §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.config import Boundary
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.banned_import import reexported_module
from sealed_trace.lint.rules.base import CatalogRule, Role, RuleContext, Snippet

__all__ = ["BannedCall", "banned_ref_message", "describe"]


def describe(via: str) -> str:
    """A suffix saying how a name was resolved (``" (through alias clk)"``)."""
    if via.startswith("alias "):
        return f" (through local name {via[6:]!r})"
    if via == "getattr":
        return " (through getattr)"
    if via == "string":
        return " (named by a string literal)"
    if via == "rebound":
        return " (the module's rebinding of the name does not hide the builtin everywhere)"
    return ""


def banned_ref_message(
    boundary: Boundary, qname: str, via: str, first_party: frozenset[str] = frozenset()
) -> str | None:
    """What is banned about a reference to ``qname`` (a message tail), or None."""
    if boundary.is_banned(qname):
        return f"banned {qname}{describe(via)}"
    module = reexported_module(boundary, qname, first_party)
    if module is not None:
        kind = "name" if "." in module else "module"
        return (
            f"{qname}{describe(via)}, which reaches banned {kind} {module} through another module"
        )
    return None


class BannedCall(CatalogRule):
    """A call whose callee resolves to a banned qualified name."""

    code = "ST201"
    roles = frozenset({Role.BOUNDARY})
    valid = (
        Snippet("def f(open):\n    return open('x')\n"),
        Snippet("import json\njson.dumps({})\njson.loads('1')\n"),
        Snippet("x = 'time.time()'  # time.time()\n"),
    )
    invalid = (
        Snippet("open('f')\n"),
        Snippet("eval('1')\n"),
        Snippet("import time as t\nclk = t.monotonic\nclk()\n"),
        Snippet(
            "from pkg import values\nvalues.run_search()\n", policy='banned = ["pkg.values.run_*"]'
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST201 findings of ``ctx``'s file (see the class docstring)."""
        for ref in ctx.facts.refs:
            if not ref.call or not ctx.counts(ref.type_checking):
                continue
            message = banned_ref_message(ctx.boundary, ref.qname, ref.via, ctx.first_party)
            if message is not None:
                yield ctx.finding(ref.line, ref.column, self.code, f"call of {message}", ref.qname)
