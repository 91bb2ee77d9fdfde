"""ST203 rebound-protected-name (ADR-0230 §15.2)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import RuleContext

__all__ = ["ReboundProtectedName"]

_INFO = RULES["ST203"]


class ReboundProtectedName:
    """A module-scope binding of a banned builtin name that does not hide the builtin at every
    use (conditional, undone, repeated, or used before it runs), or any write to
    ``TYPE_CHECKING``."""

    code, name, summary, explanation = _INFO.code, _INFO.name, _INFO.summary, _INFO.explanation
    roles = frozenset({"boundary"})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST203 findings of ``ctx``'s file (see the class docstring)."""
        for fact in ctx.facts.dynamics:
            if fact.kind == "rebind" and ctx.boundary.is_banned(fact.callee):
                builtin = fact.callee.rpartition(".")[2]
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    f"rebinds banned builtin {builtin!r} at module scope where the builtin "
                    "stays reachable (conditional, undone, repeated or used before it runs)",
                    fact.callee,
                )
            elif fact.kind == "type-checking-write":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    "writes TYPE_CHECKING: imports under `if TYPE_CHECKING:` would run",
                    fact.callee,
                )
