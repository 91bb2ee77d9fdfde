"""Upstream modules that name the sealed module's objects through a module re-exporting them.

A module that binds the sealed module's objects (``pkg/__init__.py: from pkg.sealed import
seal``) is a root cause of the reverse dependency of every upstream module it is imported by
(ST403 for a package above upstream modules, ST401 for an upstream module, ST402 for another
module). An upstream module that *names* such an object through it (``from pkg import
seal``, or ``import pkg`` then ``pkg.seal``) depends on the sealed module by itself as well:
removing the re-export leaves it broken (``ImportError``, ``AttributeError``). ADR-0230 §5
and §15.2 name the upstream module as the offender, so that is a second root cause, reported
at the first place the module names such an object (ST402, chain ``upstream -> pkg -> ...
-> sealed``). A module that only imports the re-exporting one names nothing of the sealed
module: that one's finding covers it.

The re-exporting modules asked about are those an upstream module's names can come through
without a parse of the whole chain: the packages above it, the packages it imports, and the
module that imports the sealed module at the end of its chain (the cause, parsed anyway).
Only the upstream files that spell one of their re-exported names are parsed for this (a name
cannot be taken without being written).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sealed_trace.lint.facts import FileFacts
from sealed_trace.lint.graph import EdgeKind, ancestors, kind_of_import, kind_of_ref, longest_module
from sealed_trace.lint.rules.base import ReverseEdge

if TYPE_CHECKING:
    from sealed_trace.lint.reverse import BoundaryReach

__all__ = ["ReexportNames"]

#: A site naming an object through a package: ``(line, column, text, kind)``.
_Site = tuple[int, int, str, EdgeKind]


class ReexportNames:
    """For one boundary's ``reach``: the names each re-exporting module binds to the sealed
    module's objects, the files to parse to see whether upstream modules name one, and the
    edge of each upstream module that does (see the module docstring)."""

    def __init__(self, reach: BoundaryReach) -> None:
        self.reach = reach
        self.store = reach.store
        #: per package: the names it binds to a sealed object (``"*"``: a star import of a
        #: sealed module binds names not otherwise bound); None while it is not parsed
        self._names: dict[str, frozenset[str] | None] = {}
        self._sources: dict[str, list[str]] = {}

    def to_parse(self) -> set[str]:
        """Paths not parsed yet that the answers need: the re-exporting modules themselves,
        and the upstream files that spell one of their re-exported names."""
        store = self.store
        out: set[str] = set()
        for source, namers in self._namers().items():
            names = self.names(source)
            if names is None:
                out.add(store.modules[source])
                continue
            words = _words(names) if names else None
            for upstream in namers if names else ():
                path = store.modules[upstream]
                if path not in store.facts and _spells(store.item(path).scan, words):
                    out.add(path)
        return out

    def _namers(self) -> dict[str, set[str]]:
        """``{re-exporting module: the upstream modules that may name through it}``, from
        the side of the re-exporting modules (each upstream module's :meth:`sources`, without
        asking every upstream module): the packages above upstream modules, the packages and
        causes upstream modules import."""
        reach, store = self.reach, self.store
        hop, seals = reach.hop, reach.boundary.seals
        upstream = set(reach.upstream)
        importers = store.graph.importers(reach.kinds)
        out: dict[str, set[str]] = {}
        for module in upstream:
            for package in ancestors(module):
                if package in hop and not seals(package):
                    out.setdefault(package, set()).add(module)
        causes = [c for c in reach.root_causes() if not seals(c)]
        for source in [*(p for p in store.packages if p in hop and not seals(p)), *causes]:
            found = {m for m in importers.get(source, ()) if m in upstream and m != source}
            if found:
                out.setdefault(source, set()).update(found)
        return out

    def sources(self, upstream: str) -> list[str]:
        """The modules through which ``upstream`` may name the sealed module's objects, in
        the order they are asked: the packages above it that reach the sealed module, nearest
        first, then the packages it imports that do, then the module importing the sealed
        module at the end of its chain when it imports that one itself (sealed modules
        aside)."""
        found = self._sources.get(upstream)
        if found is None:
            found = self._sources[upstream] = self._find_sources(upstream)
        return found

    def _find_sources(self, upstream: str) -> list[str]:
        reach = self.reach
        hop, seals = reach.hop, reach.boundary.seals
        start = reach.chain_start(upstream)
        if start is None:
            return []
        out = [a for a in reversed(ancestors(upstream)) if a in hop and not seals(a)]
        store = self.store
        targets = {edge.target for edge in store.graph.edges(upstream, reach.kinds)}
        out.extend(t for t in sorted(targets) if t in hop and not seals(t) and t in store.packages)
        # a name taken from the cause needs an import of it (an attribute needs one of it or
        # of a package above it, which the packages above cover)
        cause = reach.importer_of_sealed(start)
        if cause != upstream and not seals(cause) and cause in targets:
            out.append(cause)
        return list(dict.fromkeys(out))

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

    def _star_taken(self, package: str, names: frozenset[str]) -> bool:
        """Whether ``from package import *`` binds one of its re-exported ``names``, or the
        sealed module itself where ``package`` imports it as its submodule (``import
        pkg.sealed`` in ``pkg`` makes ``sealed`` one of its names)."""
        facts = self.store.facts.get(self.store.modules[package])
        seals = self.reach.boundary.seals
        prefix = package + "."
        submodules = {
            f.module[len(prefix) :].partition(".")[0]
            for f in (facts.imports if facts is not None else ())
            if f.module.startswith(prefix) and seals(f.module)
        }
        submodules.update(
            f.name
            for f in (facts.imports if facts is not None else ())
            if f.module == package and f.name and seals(f"{prefix}{f.name}")
        )
        taken = names | submodules
        return bool(taken) and _exported(facts, frozenset(taken))

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
        for package in self.sources(module):
            names = self.names(package) or frozenset()
            starred = self._star_taken(package, names)
            sites = sorted(s for s in _sites(facts, package, names, starred) if s[3] in kinds)
            if sites:
                line, column, text, kind = sites[0]
                chain = self.reach.chain_of(package)
                steps = self.reach.chain_kinds(chain)
                return ReverseEdge(line, column, text, chain, 0, (kind.value, *steps))
        return None


def _exported(facts: FileFacts | None, names: frozenset[str]) -> bool:
    """Whether a star import of a module with ``facts`` binds one of ``names``: its literal
    ``__all__`` lists one, or, without one, one is public."""
    listed = facts.extra.get("all") if facts is not None else None
    if isinstance(listed, list):
        return bool(names.intersection(listed))
    return any(not n.startswith("_") for n in names)


def _sites(facts: FileFacts, package: str, names: frozenset[str], starred: bool) -> Iterator[_Site]:
    """Where ``facts`` take one of ``names`` from ``package``: a from-import of it, a star
    import of it when that binds one (``starred``), or a reference ``package.name`` (through
    ``import package`` or any alias of it)."""
    star = "*" in names
    for fact in facts.imports:
        named = fact.name not in (None, "*") and (fact.name in names or star)
        if fact.module == package and (named or (fact.name == "*" and starred)):
            yield fact.line, fact.column, fact.text, kind_of_import(fact)
    prefix = package + "."
    for ref in facts.refs:
        if ref.qname.startswith(prefix):
            first = ref.qname[len(prefix) :].partition(".")[0]
            if first in names:
                yield ref.line, ref.column, f"{package}.{first}", kind_of_ref(ref)


def _words(names: frozenset[str]) -> re.Pattern[bytes] | None:
    """A search for any of ``names`` as a whole word (None: any file may take them, a star
    import of the sealed module binds names the package does not list)."""
    if "*" in names:
        return None
    alternatives = b"|".join(re.escape(n.encode()) for n in sorted(names))
    return re.compile(rb"(?<![\w])(?:" + alternatives + rb")(?![\w])")


def _spells(text: bytes, words: re.Pattern[bytes] | None) -> bool:
    return words is None or words.search(text) is not None
