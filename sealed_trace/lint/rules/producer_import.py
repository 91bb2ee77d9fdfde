"""ST104 producer-import (ADR-0230 §15.1)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.config import name_is_banned
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import RuleContext

__all__ = ["ProducerImport"]

_INFO = RULES["ST104"]


class ProducerImport:
    """A function the boundary takes from a first-party module of its allowed surface.

    Names come from ``from M import n`` (and literal dynamic ``fromlist`` imports) and from
    references ``M.n`` through an imported ``M``; ``M`` is first-party, allowed, and not the
    sealed module itself. What ``n`` is comes from the engine (``ctx.kind_of``), which follows
    re-exports and aliases through first-party modules. One finding per import site (two
    imports of one function are two findings, so a suppression of one hides only it); a
    reference ``M.n`` is reported once per name, unless an import site reports that name.
    """

    code, name, summary, explanation = _INFO.code, _INFO.name, _INFO.summary, _INFO.explanation
    roles = frozenset({"boundary"})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST104 findings of ``ctx``'s file (see the class docstring)."""
        if ctx.kind_of is None:
            return
        b = ctx.boundary
        seen: set[str] = set()
        candidates: list[tuple[int, int, str, str, bool]] = []
        for fact in ctx.facts.imports:
            if fact.name and fact.name != "*" and fact.module and ctx.counts(fact.type_checking):
                target = f"{fact.module}.{fact.name}"
                candidates.append((fact.line, fact.column, target, fact.text, True))
        for ref in ctx.facts.refs:
            if (ref.via in ("", "getattr") or ref.via.startswith("alias")) and ctx.counts(
                ref.type_checking
            ):
                candidates.append((ref.line, ref.column, ref.qname, ref.qname, False))
        for line, col, target, text, site in candidates:
            owner = _module_of(target, ctx.first_party)
            if owner is None or owner == target or b.seals(owner) or not b.allows_import(owner):
                continue
            if (not site and target in seen) or name_is_banned(target, b.allowed_callables):
                continue
            kind = ctx.kind_of(target)
            external = kind[9:] if kind.startswith("external:") else ""
            if kind == "function":
                what = "defined there as a function"
            elif (
                external
                and (b.is_banned(external) or b.module_is_banned(external))
                and not any(
                    b.module_is_banned(part) for part in target[len(owner) + 1 :].split(".")
                )
            ):
                # a chain spelling a banned module's own name (``values.os.system``) is
                # ST102/ST201's already
                what = f"a re-export of banned {external}"
            else:
                continue
            seen.add(target)
            yield ctx.finding(
                line,
                col,
                self.code,
                f"`{text}` takes {target}, {what}: the sealed module may take value types "
                "only (ADR-0230 §15.1; list pure helpers in allowed_callables)",
                target,
            )


def _module_of(qname: str, first_party: frozenset[str]) -> str | None:
    """The longest first-party module ``qname`` starts with."""
    name = qname
    while name:
        if name in first_party:
            return name
        name = name.rpartition(".")[0]
    return None
