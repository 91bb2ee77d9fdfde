"""ST203 rebound-protected-name (ADR-0230 §15.2)."""

from __future__ import annotations

from typing import ClassVar

from sealed_trace.lint.facts import DynamicFact, DynamicKind
from sealed_trace.lint.rules.base import FactRule, Messages, Role, RuleContext, Snippet

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
    valid = (
        # one unconditional binding before every use hides the builtin
        Snippet("open = None\nhandle = open\n"),
        Snippet("def f():\n    open = None\n    return open\n"),
        # len is not banned: rebinding it is no concern of the policy
        Snippet("if DEBUG:\n    len = None\n"),
        Snippet(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import values\n"
        ),
    )
    invalid = (
        Snippet("if False:\n    open = None\n"),
        Snippet("open = 1\ndel open\n"),
        Snippet("for eval in ():\n    pass\n"),
        Snippet("import typing\ntyping.TYPE_CHECKING = True\n"),
        Snippet("TYPE_CHECKING = True\n"),
    )

    def applies(self, ctx: RuleContext, fact: DynamicFact) -> bool:
        """A rebinding counts only for a builtin the boundary bans."""
        return fact.kind != DynamicKind.REBIND or ctx.boundary.is_banned(fact.callee)
