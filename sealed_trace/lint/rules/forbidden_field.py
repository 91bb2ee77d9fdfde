"""ST501 forbidden-field (ADR-0230 §7.3)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import RuleContext

__all__ = ["ForbiddenField"]

_INFO = RULES["ST501"]


class ForbiddenField:
    """A record-like class of the boundary module declaring a forbidden field.

    A field list the lint cannot read (computed ``__slots__``, ``__annotations__``, record
    call forms, ``setattr(self, name, ...)``) is a finding in itself. Names compare
    case-insensitively with leading underscores removed, so ``_Answer`` is
    ``answer``: a private spelling of a forbidden field is still emitted by ``asdict``.
    """

    code, name, summary, explanation = _INFO.code, _INFO.name, _INFO.summary, _INFO.explanation
    roles = frozenset({"boundary"})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST501 findings of ``ctx``'s file (see the class docstring)."""
        forbidden = {f.lower() for f in ctx.boundary.forbidden_fields}
        for fact in ctx.facts.dynamics:
            if fact.kind == "computed-fields":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    f"computed field list of {fact.callee} cannot be checked for forbidden "
                    "fields (ADR-0230 §7.3); spell the fields out",
                    f"computed:{fact.callee}",
                )
        for field in ctx.facts.fields:
            if field.name.lstrip("_").lower() in forbidden:
                yield ctx.finding(
                    field.line,
                    field.column,
                    self.code,
                    f"{field.record_kind} {field.record} declares forbidden field "
                    f"{field.name!r} (ADR-0230 §7.3)",
                    f"{field.record}.{field.name}",
                )
