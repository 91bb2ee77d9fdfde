"""ST202 banned-attribute (ADR-0230 §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.banned_call import banned_ref_message
from sealed_trace.lint.rules.base import CatalogRule, Role, RuleContext, Snippet

__all__ = ["BannedAttribute"]


class BannedAttribute(CatalogRule):
    """A reference, not a call, that resolves to a banned qualified name."""

    code = "ST202"
    roles = frozenset({Role.BOUNDARY})
    valid = (
        Snippet("environ = {}\nx = environ.get('A')\n"),
        Snippet("def f(os):\n    return os.environ\n"),
        Snippet("import json\nfn = json.dumps\n"),
    )
    invalid = (
        Snippet("f = open\n"),
        Snippet("import time\nclk = time.time\n"),
        Snippet("def f(reader=print):\n    pass\n"),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST202 findings of ``ctx``'s file (see the class docstring)."""
        for ref in ctx.facts.refs:
            if ref.call or not ctx.counts(ref.type_checking):
                continue
            message = banned_ref_message(ctx.boundary, ref.qname, ref.via, ctx.first_party)
            if message is not None:
                yield ctx.finding(
                    ref.line, ref.column, self.code, f"reference to {message}", ref.qname
                )
