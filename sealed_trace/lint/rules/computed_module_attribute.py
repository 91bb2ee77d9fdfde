"""ST303 computed-module-attribute (ADR-0230 §15.2)."""

from __future__ import annotations

from typing import ClassVar

from sealed_trace.lint.facts import DynamicKind
from sealed_trace.lint.rules.base import UPSTREAM, FactRule, Messages, Role, Snippet

__all__ = ["ComputedModuleAttribute"]


class ComputedModuleAttribute(FactRule):
    """``getattr(obj, computed)`` on any object, ``getattr`` passed as a value, and
    ``attrgetter``/``methodcaller`` with a computed name, in the boundary module."""

    code = "ST303"
    roles = frozenset({Role.BOUNDARY})
    messages: ClassVar[Messages] = {
        DynamicKind.COMPUTED_GETATTR: "getattr on {callee} with a computed attribute name",
        DynamicKind.GETATTR_VALUE: (
            "getattr used as a value (map, reduce, ...) fetches attributes under names that "
            "cannot be checked"
        ),
    }
    valid = (
        Snippet("import json\ngetattr(json, 'dumps')({})\n"),
        Snippet("def f(obj):\n    return getattr(obj, 'name', None)\n"),
        Snippet("def f(obj, name):\n    return getattr(obj, name)\n", UPSTREAM),
    )
    invalid = (
        Snippet("import json\nname = 'dum' + 'ps'\ngetattr(json, name)\n"),
        # fail closed: the name may be an escape (``__globals__``) whatever the object
        Snippet("def f(obj, name):\n    return getattr(obj, name)\n"),
        Snippet("def f(objs, names):\n    return list(map(getattr, objs, names))\n"),
    )
