"""ST501 forbidden-field (ADR-0230 §7.3)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from sealed_trace.lint.facts import DynamicKind
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import UPSTREAM, FactRule, Messages, Role, RuleContext, Snippet

__all__ = ["ForbiddenField"]


class ForbiddenField(FactRule):
    """A record-like class of the boundary module declaring a forbidden field.

    A field list the lint cannot read (computed ``__slots__``, ``__annotations__``, record
    call forms, ``setattr(self, name, ...)``) is a finding in itself. Names compare
    case-insensitively with leading underscores removed, so ``_Answer`` is
    ``answer``: a private spelling of a forbidden field is still emitted by ``asdict``.
    """

    code = "ST501"
    roles = frozenset({Role.BOUNDARY})
    messages: ClassVar[Messages] = {
        DynamicKind.COMPUTED_FIELDS: (
            "computed field list of {callee} cannot be checked for forbidden fields "
            "(ADR-0230 §7.3); spell the fields out"
        ),
    }
    anchor = "computed:{callee}"
    valid = (
        Snippet(
            "from dataclasses import dataclass\n@dataclass\nclass T:\n    answers_seen: int\n"
            "    explanation: str\n"
        ),
        Snippet("def f(answer: int) -> int:\n    return answer\n"),
        Snippet("class T:\n    answer: int\n", UPSTREAM),
        Snippet("class T:\n    verdict: str\n"),
    )
    invalid = (
        Snippet(
            "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass T:\n"
            "    answer: int\n"
        ),
        Snippet("from typing import NamedTuple\nclass T(NamedTuple):\n    rank: int\n"),
        Snippet("class T:\n    __slots__ = ('a', 'workbench_state')\n"),
        Snippet("class T:\n    _Answer: int\n"),
        Snippet("class T:\n    __slots__ = tuple(NAMES)\n"),
        Snippet("class T:\n    verdict: str\n", policy='forbidden_fields = ["verdict"]'),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST501 findings of ``ctx``'s file (see the class docstring)."""
        yield from super().check(ctx)
        forbidden = {f.lower() for f in ctx.boundary.forbidden_fields}
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
