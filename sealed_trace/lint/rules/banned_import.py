"""ST102 banned-import (ADR-0230 §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.config import Boundary
from sealed_trace.lint.facts import ImportFact
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import RuleContext

__all__ = ["BannedImport", "import_is_banned"]

_INFO = RULES["ST102"]


def import_is_banned(boundary: Boundary, fact: ImportFact) -> bool:
    """True when the import binds a banned name (or star-imports a module with one)."""
    if not fact.module:
        return False
    if fact.name == "*":
        return boundary.star_is_banned(fact.module)
    if fact.name is not None and boundary.is_banned(f"{fact.module}.{fact.name}"):
        return True
    return boundary.module_is_banned(fact.module)


class BannedImport:
    """An import in the boundary module that binds a banned qualified name."""

    code, name, summary, explanation = _INFO.code, _INFO.name, _INFO.summary, _INFO.explanation
    roles = frozenset({"boundary"})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST102 findings of ``ctx``'s file (see the class docstring)."""
        for fact in ctx.facts.imports:
            if ctx.counts(fact.type_checking) and import_is_banned(ctx.boundary, fact):
                what = (
                    f"star-imports {fact.module}, which has banned names" if fact.name == "*"
                    else "imports a banned name"
                )
                yield ctx.finding(fact.line, fact.column, self.code, f"`{fact.text}` {what}",
                                  fact.text)
