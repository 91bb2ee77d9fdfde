"""Which files the lint parses, and why: the cost follows the verdict (ADR-0230 §5, §15).

The scan (:mod:`.grimp_scan`) gives every import statement of every module, and the screen
(:mod:`.screen`) tells, from one read of each file, whether its text can hold an import the
scan cannot see and on which lines an import may not run at module level. A file is parsed
only when its parse can change a verdict or a message:

* a file the scanner rejected (CPython's verdict on it is the finding), the first-party
  modules a sealed module imports (what ST104 asks of them) and the packages a parsed file
  star-imports (their ``__all__`` says what the star takes);
* among the upstream modules, the packages above them and what the clean upstream modules
  load (the only files through which a reverse dependency the graph does not show can run),
  those that *may hide an edge*: a file the scanner could not judge alone, one that names an
  import function or a module holding one, holds a star import, or names a first-party
  module it does not import below a package it does import (an attribute chain,
  ``import pkg`` then ``pkg.sealed.x``);
* what a finding shows: the module whose import causes it (its import's text and column),
  and every step of every chain it shows whose kind the scan cannot tell (an indented
  import: in a function, under ``TYPE_CHECKING``, under the ``__main__`` guard?) or whose
  importer may hide an edge (a shorter chain).

Anything else is judged from the scan's edges: an upstream module that reaches the sealed
module is a finding whatever else it imports, and one that does not reach it, holding
nothing the scan cannot see, cannot reach it once parsed either. The engine asks
:meth:`ParsePlan.next` again after each batch of parses, until nothing new is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence

from sealed_trace.lint.config import Boundary
from sealed_trace.lint.graph import ALL_KINDS, ancestors
from sealed_trace.lint.reverse import BoundaryReach
from sealed_trace.lint.store import FactStore

__all__ = ["ParsePlan"]


class ParsePlan:
    """What to parse for ``boundaries`` over the facts of ``store`` (see the module
    docstring). ``reach_of(boundary)`` gives the boundary's reach over the graph as it is
    now; ``every_upstream`` parses every upstream module and package above one (a plugin
    rule judges their facts)."""

    def __init__(
        self,
        store: FactStore,
        boundaries: Sequence[Boundary],
        reach_of: Callable[[Boundary], BoundaryReach],
        every_upstream: bool = False,
    ) -> None:
        self.store = store
        self.boundaries = boundaries
        self.reach_of = reach_of
        self.every_upstream = every_upstream
        self._hides: dict[str, bool | frozenset[str]] = {}
        self._hiding_modules: set[str] = set()
        self._done_at = -1
        self._word_modules: dict[bytes, list[str]] | None = None

    def first(self, rejected: Iterable[str]) -> set[str]:
        """What is parsed before any reach is asked: the modules the scanner ``rejected``,
        the first-party modules a sealed module imports, and, with ``every_upstream``,
        every upstream module and package above one."""
        modules = self.store.modules
        out = {modules[m] for m in rejected if m in modules}
        for b in self.boundaries:
            for sealed in (m for m in modules if b.seals(m)):
                out.update(
                    modules[e.target]
                    for e in self.store.edges(sealed)
                    if b.allows_import(e.target) and not b.seals(e.target)
                )
            if self.every_upstream:
                for u in (m for m in modules if b.is_upstream(m)):
                    out.update(modules[m] for m in (u, *ancestors(u)) if m in modules)
        return self._parseable(out)

    def next(self) -> set[str]:
        """What the facts known now ask to parse next (empty: the plan is done; asked again
        with no new facts, it is still done)."""
        if self._done_at == len(self.store.facts):
            return set()
        need = self._star_sources()
        for b in self.boundaries:
            need |= self._for_boundary(self.reach_of(b))
        need = self._parseable(need)
        if not need:
            self._done_at = len(self.store.facts)
        return need

    def _parseable(self, paths: Iterable[str]) -> set[str]:
        """``paths`` not parsed yet, readable, and not sealed (the libcst pass's)."""
        store = self.store
        return {
            p
            for p in paths
            if p not in store.facts
            and store.screens[p].error is None
            and not store.seals(store.by_path[p].module or "")
        }

    def _star_sources(self) -> set[str]:
        """First-party packages a parsed file star-imports (their ``__all__`` decides)."""
        store = self.store
        return {
            store.modules[fact.module]
            for facts in store.facts.values()
            for fact in facts.imports
            if fact.name == "*" and fact.module in store.packages
        }

    def _for_boundary(self, reach: BoundaryReach) -> set[str]:
        """One boundary's asks: the files that may hide an edge where one can change its
        verdict, the causes of its findings and the steps of the chains they show."""
        store, b, hop = self.store, reach.boundary, reach.hop
        modules = store.modules
        upstream = {m for u in reach.upstream for m in (u, *ancestors(u)) if m in modules}
        need = {modules[m] for m in self._hiders(upstream) if self.may_hide(m)}
        loaded = store.graph.closure(reach.clean(), reach.kinds, b.seals)
        need.update(modules[m] for m in self._hiders(loaded) if self.may_hide(m, hop))
        need |= reach.reexports.to_parse()
        for cause, affected in reach.root_causes().items():
            need.add(modules[cause])
            reach.cause_edges(cause, affected)
        need |= self._unknown_steps(reach)
        reach.reached()
        graph = store.graph
        for importer, target in reach.steps:
            if not graph.step_known(importer, target, reach.kinds) or self.may_hide(importer, hop):
                need.add(modules[importer])
        return need

    def _unknown_steps(self, reach: BoundaryReach) -> set[str]:
        """The files of the importers on every upstream module's chain whose step the scan
        cannot tell (an indented import), when the boundary does not count every kind: a
        chain that only an uncounted step (inside a function, under ``TYPE_CHECKING``) makes
        does not count, so each such step is made exact, once, whatever the findings show."""
        store, graph, hop = self.store, self.store.graph, reach.hop
        modules, kinds = store.modules, reach.kinds
        if kinds == ALL_KINDS:
            return set()  # every step counts, however it runs: only the labels shown matter
        seen: set[str] = set()
        need: set[str] = set()
        for upstream in reach.upstream:
            node = reach.chain_start(upstream)
            while node is not None and node not in seen:
                seen.add(node)
                nxt = hop[node]
                if nxt is not None and not graph.step_known(node, nxt, kinds):
                    need.add(modules[node])
                node = nxt
        return need

    def _hiders(self, modules: Collection[str]) -> set[str]:
        """Of ``modules``, those whose text may hide something from the scan (each file is
        asked once; the answer is kept)."""
        for module in set(modules) - self._hides.keys():
            if self._hidden(module):
                self._hiding_modules.add(module)
        return self._hiding_modules.intersection(modules)

    def _hidden(self, module: str) -> bool | frozenset[str]:
        hides = self._hides.get(module)
        if hides is None:
            hides = self._hides[module] = self._hidden_from_scan(module, self.store.modules[module])
        return hides

    def may_hide(self, module: str, targets: Collection[str] | None = None) -> bool:
        """Whether ``module``'s file, not parsed yet, may hold an edge the scan does not show
        (see the module docstring): to one of ``targets``, or to any module (None), where
        the edge is an attribute chain; False once it is parsed."""
        path = self.store.modules[module]
        if path in self.store.facts:
            return False
        hides = self._hidden(module)
        if hides is True or hides is False:
            return hides
        return bool(hides) and (targets is None or any(m in targets for m in hides))

    def _hidden_from_scan(self, module: str, path: str) -> bool | frozenset[str]:
        """What ``module``'s text may hide, asked once: True (an import function, a star
        import, a file the scanner could not judge), False (nothing), or the first-party
        modules it spells as attributes that no import of it loads, below a package one does
        (an attribute chain the scan cannot see: ``import pkg`` then ``pkg.sealed.x``)."""
        if self.store.screens[path].error is not None:
            return False
        if module in self.store.unscanned:
            return True
        found = self.store.hiding(path)
        if found is None or not (found.dynamic or found.star or found.words):
            return False
        if found.dynamic or found.star:
            return True
        loaded = {
            m
            for target, _ in self.store.static.get(module, ())
            for m in (target, *ancestors(target))
        }
        by_word = self._words()
        return frozenset(
            other
            for word in found.words
            for other in by_word.get(word, ())
            if other != module
            and other not in loaded
            and any(a in loaded for a in ancestors(other))
        )

    def _words(self) -> dict[bytes, list[str]]:
        """First-party modules by the last part of their name."""
        if self._word_modules is None:
            self._word_modules = {}
            for module in self.store.modules:
                word = module.rpartition(".")[2].encode()
                self._word_modules.setdefault(word, []).append(module)
        return self._word_modules
