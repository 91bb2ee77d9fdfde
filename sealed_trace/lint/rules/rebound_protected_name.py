"""ST203 rebound-protected-name (ADR-0230 §15.2)."""

from __future__ import annotations

from typing import ClassVar

from sealed_trace.lint.facts import DynamicFact, DynamicKind
from sealed_trace.lint.rules.base import FactRule, Messages, Role, RuleContext

__all__ = ["ReboundProtectedName"]


class ReboundProtectedName(FactRule):
    """A module-scope binding of a banned builtin name that does not hide the builtin at every
    use (conditional, undone, repeated, or used before it runs), or any write to
    ``TYPE_CHECKING``."""

    code = "ST203"
    roles = frozenset({Role.BOUNDARY})
    messages: ClassVar[Messages] = {
        DynamicKind.REBIND: (
            "rebinds banned builtin {name!r} at module scope where the builtin stays reachable "
            "(conditional, undone, repeated or used before it runs)"
        ),
        DynamicKind.TYPE_CHECKING_WRITE: (
            "writes TYPE_CHECKING: imports under `if TYPE_CHECKING:` would run"
        ),
    }

    def applies(self, ctx: RuleContext, fact: DynamicFact) -> bool:
        """A rebinding counts only for a builtin the boundary bans."""
        return fact.kind != DynamicKind.REBIND or ctx.boundary.is_banned(fact.callee)
