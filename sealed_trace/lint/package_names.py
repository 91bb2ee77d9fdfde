"""Upstream modules that name the sealed module's objects through a package above them.

A package whose ``__init__`` re-exports the sealed module's objects (``pkg/__init__.py:
from pkg.sealed import seal``) runs before every upstream module below it: ST403 reports it
at the package. An upstream module that *names* such an object through the package
(``from pkg import seal``, or ``import pkg`` then ``pkg.seal``) depends on the sealed module
by itself as well: removing the re-export leaves it broken (``ImportError``,
``AttributeError``). ADR-0230 §5 and §15.2 name the upstream module as the offender, so
that is a second root cause, reported at the first place the module names such an object
(ST402, chain ``upstream -> package -> ... -> sealed``). A module below the package that
only imports it names nothing of the sealed module: the package's ST403 covers it.

Only the upstream files below such a package that spell one of the re-exported names are
parsed for this (a name cannot be taken without being written).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sealed_trace.lint.facts import FileFacts
from sealed_trace.lint.graph import EdgeKind, ancestors, kind_of_import, longest_module
from sealed_trace.lint.rules.base import ReverseEdge

if TYPE_CHECKING:
    from sealed_trace.lint.reverse import BoundaryReach

__all__ = ["PackageNames"]

#: A site naming an object through a package: ``(line, column, text, kind)``.
_Site = tuple[int, int, str, EdgeKind]


class PackageNames:
    """For one boundary's ``reach``: the names each package above upstream modules binds to
    the sealed module's objects, the upstream files to parse to see whether they name one,
    and the edge of each upstream module that does (see the module docstring)."""

    def __init__(self, reach: BoundaryReach) -> None:
        self.reach = reach
        self.store = reach.store
        #: per package: the names it binds to a sealed object (``"*"``: a star import of a
        #: sealed module binds names not otherwise bound); None while it is not parsed
        self._names: dict[str, frozenset[str] | None] = {}
        self._below: dict[str, tuple[str, ...]] | None = None

    def to_parse(self) -> set[str]:
        """Paths of the upstream files below a re-exporting package that spell one of its
        re-exported names and are not parsed yet."""
        store = self.store
        out: set[str] = set()
        for package, below in self._packages().items():
            names = self.names(package)
            if not names:
                continue
            words = _words(names)
            for module in below:
                path = store.modules[module]
                if path not in store.facts and _spells(store.item(path).scan, words):
                    out.add(path)
        return out

    def _packages(self) -> dict[str, tuple[str, ...]]:
        """Packages above upstream modules that reach the sealed module, sealed ones aside
        (upstream ones included: a name taken through them is a cause of its own too):
        ``{package: the upstream modules below it}``."""
        if self._below is None:
            reach = self.reach
            found: dict[str, list[str]] = {}
            for upstream in reach.upstream:
                for package in ancestors(upstream):
                    if package in reach.hop and not reach.boundary.seals(package):
                        found.setdefault(package, []).append(upstream)
            self._below = {p: tuple(u) for p, u in found.items()}
        return self._below

    def names(self, package: str) -> frozenset[str] | None:
        """The names ``package`` binds to the sealed module's objects (None: not parsed)."""
        if self._names.get(package) is None:
            self._names[package] = self._reexported(package)
        return self._names[package]

    def _reexported(self, package: str) -> frozenset[str] | None:
        facts = self.store.facts.get(self.store.modules[package])
        if facts is None:
            return None
        seals = self.reach.boundary.seals
        star_names, any_name = self._star_names(package)
        defs: dict[str, list[str]] = facts.extra.get("defs", {})
        # the sealed module itself, taken from its package, is an import of it (ST401)
        names = {
            n
            for n in {*defs, *star_names} - {"*"}
            if not seals(f"{package}.{n}") and self._names_sealed(f"{package}.{n}")
        }
        return frozenset(names | ({"*"} if any_name else set()))

    def _star_names(self, package: str) -> tuple[set[str], bool]:
        """The names ``package``'s star imports bind (followed through first-party modules),
        and whether one star-imports a sealed module (then any name may come from it)."""
        store, seals = self.store, self.reach.boundary.seals
        names: set[str] = set()
        any_name = False
        seen: set[str] = set()
        work = [package]
        while work:
            module = work.pop()
            path = store.modules.get(module)
            if module in seen or path is None:
                continue
            seen.add(module)
            store.parse([path])
            facts = store.facts.get(path)
            defs: dict[str, list[str]] = facts.extra.get("defs", {}) if facts else {}
            if module != package:
                names.update(defs)
                any_name = any_name or seals(module)
            work.extend(b[5:] for b in defs.get("*", ()) if b.startswith("star:"))
        return names, any_name

    def _names_sealed(self, qname: str) -> bool:
        """Whether ``qname`` is bound through a sealed module (its object, or itself)."""
        modules = self.store.modules
        seals = self.reach.boundary.seals
        for name in self.store.definitions.trail(qname):
            module = longest_module(name, modules)
            if module is not None and seals(module):
                return True
        return False

    def edge(self, module: str) -> ReverseEdge | None:
        """The reverse dependency of upstream ``module`` through a package above it: the
        first place it names a sealed object through one (None: it names none)."""
        facts = self.store.facts.get(self.store.modules[module])
        if facts is None or facts.error is not None:
            return None
        kinds = self.reach.kinds
        for package in _packages_above(module, self._packages()):
            names = self.names(package)
            sites = sorted(s for s in _sites(facts, package, names or ()) if s[3] in kinds)
            if sites:
                line, column, text, kind = sites[0]
                chain = self.reach.chain_of(package)
                steps = self.reach.chain_kinds(chain)
                return ReverseEdge(line, column, text, chain, 0, (kind.value, *steps))
        return None


def _packages_above(module: str, packages: dict[str, tuple[str, ...]]) -> list[str]:
    """The re-exporting packages ``module`` sits below, nearest first."""
    return sorted((p for p, below in packages.items() if module in below), key=len, reverse=True)


def _sites(facts: FileFacts, package: str, names: frozenset[str] | tuple[()]) -> Iterator[_Site]:
    """Where ``facts`` take one of ``names`` from ``package``: a from-import of it, or a
    reference ``package.name`` (through ``import package`` or any alias of it)."""
    star = "*" in names
    for fact in facts.imports:
        taken = fact.module == package and fact.name not in (None, "*")
        if taken and (fact.name in names or star):
            yield fact.line, fact.column, fact.text, kind_of_import(fact)
    prefix = package + "."
    for ref in facts.refs:
        if ref.qname.startswith(prefix):
            first = ref.qname[len(prefix) :].partition(".")[0]
            if first in names:
                kind = (
                    EdgeKind.TYPE_CHECKING
                    if ref.type_checking
                    else EdgeKind.FUNCTION
                    if ref.lazy
                    else EdgeKind.MODULE
                )
                yield ref.line, ref.column, f"{package}.{first}", kind


def _words(names: frozenset[str]) -> re.Pattern[bytes] | None:
    """A search for any of ``names`` as a whole word (None: any file may take them, a star
    import of the sealed module binds names the package does not list)."""
    if "*" in names:
        return None
    alternatives = b"|".join(re.escape(n.encode()) for n in sorted(names))
    return re.compile(rb"(?<![\w])(?:" + alternatives + rb")(?![\w])")


def _spells(text: bytes, words: re.Pattern[bytes] | None) -> bool:
    return words is None or words.search(text) is not None
