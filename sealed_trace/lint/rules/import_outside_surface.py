"""ST101 import-outside-surface (ADR-0230 §15.1)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.config import Boundary
from sealed_trace.lint.facts import ImportFact
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.banned_import import import_is_banned
from sealed_trace.lint.rules.base import CatalogRule, Role, RuleContext, Snippet

__all__ = ["ImportOutsideSurface"]


class ImportOutsideSurface(CatalogRule):
    """Every import of the boundary module must lie in its allowed surface.

    ``import a.b`` needs ``a.b`` allowed (or a parent of it); ``from a import b`` needs ``a``
    or ``a.b`` allowed; relative imports are resolved first. Imports of the sealed module's own
    submodules are allowed. Banned imports are left to ST102 so one import gives one finding.
    """

    code = "ST101"
    roles = frozenset({Role.BOUNDARY})
    valid = (
        Snippet(
            "import json\nfrom collections.abc import Mapping\nfrom dataclasses import dataclass\n"
        ),
        Snippet("from pkg import values\nfrom .values import X\nimport collections.abc\n"),
        Snippet(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import decimal\n",
            policy='type_checking_imports = "ignore"',
        ),
    )
    invalid = (
        Snippet("import decimal\n"),
        # a parent of an allowed module is not allowed
        Snippet("import collections\n"),
        Snippet("from . import other\n"),
        Snippet("from .. import x\n"),
        Snippet("def f():\n    import fractions\n"),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST101 findings of ``ctx``'s file (see the class docstring)."""
        for fact in ctx.facts.imports:
            if not ctx.counts(fact.type_checking) or import_is_banned(ctx.boundary, fact):
                continue
            outside = _outside_surface(fact, ctx.boundary)
            if outside is not None:
                message, anchor = outside
                yield ctx.finding(fact.line, fact.column, self.code, message, anchor)


def _outside_surface(fact: ImportFact, b: Boundary) -> tuple[str, str] | None:
    """``(message, anchor)`` for an import outside the allowed surface of ``b`` (a relative
    import above the top-level package included), or None."""
    if not fact.module:
        return f"`{fact.text}` leaves the top-level package", fact.text
    full = f"{fact.module}.{fact.name}" if fact.name and fact.name != "*" else fact.module
    if b.allows_import(fact.module) or b.allows_import(full) or b.seals(fact.module):
        return None
    return (
        f"`{fact.text}` imports {full}, outside the allowed surface of boundary {b.name!r}",
        full,
    )
