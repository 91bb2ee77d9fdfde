"""ST104 producer-import (ADR-0230 §15.1)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sealed_trace.lint.config import Boundary, name_is_banned
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import VALUES, CatalogRule, Role, RuleContext, Snippet

__all__ = ["ProducerImport"]


class ProducerImport(CatalogRule):
    """A function the boundary takes from a first-party module of its allowed surface.

    Names come from ``from M import n`` (and literal dynamic ``fromlist`` imports) and from
    references ``M.n`` through an imported ``M``; ``M`` is first-party, allowed, and not the
    sealed module itself. What ``n`` is comes from the engine (``ctx.kind_of``), which follows
    re-exports and aliases through first-party modules. One finding per import site (two
    imports of one function are two findings, so a suppression of one hides only it); a
    reference ``M.n`` is reported once per name, unless an import site reports that name.
    """

    code = "ST104"
    roles = frozenset({Role.BOUNDARY})
    valid = (
        Snippet(
            "from pkg.values import LIMIT, Mode, Record\n",
            files={
                VALUES: "import enum\nfrom dataclasses import dataclass\nLIMIT = 3\n"
                "class Mode(enum.Enum):\n    A = 'a'\n"
                "@dataclass(frozen=True)\nclass Record:\n    name: str\n"
            },
        ),
        Snippet(
            "from pkg.values import canonical\n",
            files={VALUES: "def canonical(x):\n    return x\n"},
            policy='allowed_callables = ["pkg.values.canonical"]',
        ),
    )
    invalid = (
        Snippet(
            "from pkg.values import classify\n",
            files={VALUES: "def classify(x):\n    return x\n"},
        ),
        Snippet(
            "from pkg import values\nvalues.classify(1)\n",
            files={VALUES: "classify = lambda x: x\n"},
        ),
        Snippet(
            "from pkg.values import classify\n",
            files={
                VALUES: "from pkg.impl import classify_replay as classify\n",
                "src/pkg/impl.py": "def classify_replay(x):\n    return x\n",
            },
        ),
        Snippet(
            "from pkg import values\nvalues.run('x')\n",
            files={VALUES: "from os import system as run\n"},
        ),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST104 findings of ``ctx``'s file (see the class docstring)."""
        kind_of = ctx.kind_of
        if kind_of is None:
            return
        seen: set[str] = set()
        for line, col, target, text, site in _candidates(ctx):
            if not site and target in seen:
                continue  # a reference to a name reported already
            what = _producer(target, ctx, kind_of)
            if what is None:
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


def _producer(target: str, ctx: RuleContext, kind_of: Callable[[str], str]) -> str | None:
    """What makes ``target`` a producer, when it is taken from a first-party module of the
    allowed surface other than the sealed module and ``allowed_callables`` does not list it;
    else None."""
    b = ctx.boundary
    owner = _module_of(target, ctx.first_party)
    if owner is None or owner == target or b.seals(owner) or not b.allows_import(owner):
        return None
    if name_is_banned(target, b.allowed_callables):
        return None
    return _what(kind_of(target), target, owner, b)


#: ``(line, column, qualified name, spelling, is an import site)`` of a name taken from a module.
_Candidate = tuple[int, int, str, str, bool]


def _candidates(ctx: RuleContext) -> list[_Candidate]:
    """Every name the file takes from a module: from-imports first, then references."""
    return [*_imported_names(ctx), *_referenced_names(ctx)]


def _imported_names(ctx: RuleContext) -> Iterator[_Candidate]:
    """The names of ``from M import n`` (not ``*``) that count."""
    for fact in ctx.facts.imports:
        if fact.name and fact.name != "*" and fact.module and ctx.counts(fact.type_checking):
            yield fact.line, fact.column, f"{fact.module}.{fact.name}", fact.text, True


def _referenced_names(ctx: RuleContext) -> Iterator[_Candidate]:
    """The references ``M.n`` (directly, through ``getattr`` or an alias) that count."""
    for ref in ctx.facts.refs:
        taken = ref.via in ("", "getattr") or ref.via.startswith("alias")
        if taken and ctx.counts(ref.type_checking):
            yield ref.line, ref.column, ref.qname, ref.qname, False


def _what(kind: str, target: str, owner: str, b: Boundary) -> str | None:
    """What makes ``target`` a producer (None: it is a value type)."""
    if kind == "function":
        return "defined there as a function"
    external = kind[9:] if kind.startswith("external:") else ""
    if not external or not (b.is_banned(external) or b.module_is_banned(external)):
        return None
    # a chain spelling a banned module's own name (``values.os.system``) is ST102/ST201's
    if any(b.module_is_banned(part) for part in target[len(owner) + 1 :].split(".")):
        return None
    return f"a re-export of banned {external}"


def _module_of(qname: str, first_party: frozenset[str]) -> str | None:
    """The longest first-party module ``qname`` starts with."""
    name = qname
    while name:
        if name in first_party:
            return name
        name = name.rpartition(".")[0]
    return None
