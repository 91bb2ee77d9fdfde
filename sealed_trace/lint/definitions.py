"""What a first-party name is defined as (what ST104 asks of a sealed module's imports).

``from pkg.helpers import normalise`` takes a function, a class, a value or a module; ST104
reports a function taken from a first-party module the boundary allows (it may produce
records), unless ``allowed_callables`` lists it. The answer follows re-exports, star imports
and aliases through first-party modules, parsing them as needed (standard-library pass).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sealed_trace.lint.graph import longest_module

if TYPE_CHECKING:
    from sealed_trace.lint.store import FactStore

__all__ = ["Definitions"]

#: The most names one answer follows (a cycle of re-exports ends there).
_MAX_NAMES = 500


class Definitions:
    """What the first-party names of ``store``'s tree are defined as (answers cached)."""

    def __init__(self, store: FactStore) -> None:
        self.store = store
        self._kinds: dict[str, str] = {}

    def kind_of(self, qname: str) -> str:
        """What ``qname`` (``module.name`` of a first-party module) is defined as there:
        ``function``, ``class``, ``value``, ``module``, ``external:<name>`` (re-exported
        from a module outside the source roots) or ``unknown``; re-exports and aliases are
        followed through first-party modules (parsed as needed)."""
        known = self._kinds.get(qname)
        if known is None:
            known = self._kinds[qname] = self._kind_of(qname)
        return known

    def trail(self, qname: str) -> frozenset[str]:
        """Every name ``qname`` is bound through, itself included: the re-exports, star
        imports and aliases followed through first-party modules (``pkg.seal`` bound by
        ``from pkg.sealed import seal`` in ``pkg``: ``{pkg.seal, pkg.sealed.seal}``)."""
        return frozenset(self._follow(qname)[1])

    def _follow(self, qname: str) -> tuple[set[str], set[str]]:
        """The kinds ``qname`` is defined as along its trail, and the trail."""
        kinds: set[str] = set()
        seen: set[str] = set()
        work = [qname]
        while work and len(seen) < _MAX_NAMES:
            name = work.pop()
            if name not in seen:
                seen.add(name)
                found, more = self._definition(name)
                kinds |= found
                work.extend(more)
        return kinds, seen

    def _kind_of(self, qname: str) -> str:
        kinds = self._follow(qname)[0]
        for kind in ("function", "external:", "class", "value", "module"):
            match = sorted(k for k in kinds if k.startswith(kind))
            if match:
                return match[0]
        return "unknown"

    def _definition(self, name: str) -> tuple[set[str], list[str]]:
        """What ``name`` is bound to in its first-party module: the kinds found there, and
        the names it is bound through (re-exports, star imports, aliases) to follow."""
        if name in self.store.modules:
            return {"module"}, []
        module = longest_module(name, self.store.modules)
        if module is None:
            return {f"external:{name}"}, []
        first, _, rest = name[len(module) + 1 :].partition(".")
        tail = f".{rest}" if rest else ""
        path = self.store.modules[module]
        self.store.parse([path])
        facts = self.store.facts.get(path)
        if facts is None or facts.error is not None:
            return {"unknown"}, []
        defs: dict[str, list[str]] = facts.extra.get("defs", {})
        bindings = defs.get(first)
        if not bindings:  # perhaps bound by a star import
            stars = [b[5:] for b in defs.get("*", ()) if b.startswith("star:")]
            return (set() if stars else {"unknown"}), [f"{s}.{first}{tail}" for s in stars]
        kinds: set[str] = set()
        more: list[str] = []
        for binding in bindings:
            tag, _, value = binding.partition(":")
            if tag in ("function", "class", "value"):
                # an attribute of one of those is no name the rule can judge
                kinds.add(tag if not rest else "unknown")
            elif tag in ("import", "module"):
                more.append(value + tail)
            elif tag == "alias":
                head, _, after = value.partition(".")
                # the alias's head is a name of this same module
                more.append(f"{module}.{head}" + (f".{after}" if after else "") + tail)
        return kinds, more
