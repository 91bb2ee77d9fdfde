"""What reaches one boundary's sealed module, and which import causes it (ST401-ST403, and
ST301 in modules an upstream module loads).

One reverse dependency, one finding: an upstream module that reaches the sealed module is
reported with the import that causes it, at the last module on its shortest chain that is
upstream itself or a package above upstream modules (:meth:`BoundaryReach.root_causes`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence

from sealed_trace.lint.config import Boundary
from sealed_trace.lint.graph import EdgeKind, ancestors, kinds_from_policy
from sealed_trace.lint.reexports import ReexportNames
from sealed_trace.lint.rules.base import ReverseEdge, marked_chain
from sealed_trace.lint.store import FactStore

__all__ = ["HIDDEN_KINDS", "BoundaryReach", "reverse_kinds"]

#: Dynamic-fact kinds of an import the lint cannot resolve (ST301).
HIDDEN_KINDS = frozenset(
    {
        "computed-import",
        "computed-spec",
        "path-import",
        "hidden-import",
        "escaped-import",
        "relative-base",
    }
)


def reverse_kinds(b: Boundary) -> frozenset[EdgeKind]:
    """The edge kinds that make a dependency for ``b`` (reverse imports and their chains)."""
    return kinds_from_policy(b.reverse_edge_kinds, b.type_checking_imports == "ignore")


class BoundaryReach:
    """The modules reaching ``boundary``'s sealed module (``hop``: each one's next step on a
    shortest chain, :meth:`.graph.ImportGraph.reach`) and the boundary's ``upstream``
    modules, asked which imports cause the reverse dependencies. With ``every_chain``, a
    cause's findings carry the shortest chain of each upstream module it affects (what JSON
    and SARIF show); without, only its own (what a message shows): the other chains' steps
    need no parse then."""

    def __init__(
        self,
        store: FactStore,
        boundary: Boundary,
        hop: dict[str, str | None],
        upstream: Sequence[str],
        every_chain: bool = True,
        reported: Callable[[str], bool] = lambda module: True,
    ) -> None:
        self.store = store
        self.reported = reported
        self.every_chain = every_chain
        self.boundary = boundary
        self.hop = hop
        self.upstream = upstream
        self.kinds = reverse_kinds(boundary)
        #: every step ``(importer, imported)`` of a chain this object has marked, with how it
        #: runs: what a finding shows, so what the plan makes exact (:mod:`.plan`)
        self.steps: dict[tuple[str, str], str] = {}
        self._causes: dict[str, tuple[ReverseEdge, ...]] = {}
        self._tails: dict[str, str] = {}
        #: upstream modules naming the sealed module's objects through a re-exporting module
        self.reexports = ReexportNames(self)
        self._named_only: set[str] = set()
        self._last: dict[str, str | None] = {}

    def clean(self) -> list[str]:
        """Upstream modules that reach no sealed module, themselves or through an ancestor."""
        return [
            u
            for u in self.upstream
            if u not in self.hop and not any(a in self.hop for a in ancestors(u))
        ]

    def reached(self) -> list[tuple[str, str]]:
        """Parsed modules in the clean upstream modules' forward closure, outside ``b`` and
        its upstream, with a dynamic import the lint cannot resolve: ``(module, a shortest
        chain from an upstream module loading it)``."""
        clean = self.clean()
        if not clean:
            return []
        parent = self.store.graph.closure(clean, self.kinds, self.boundary.seals)
        out: list[tuple[str, str]] = []
        for module in sorted(parent):
            facts = self.store.facts.get(self.store.modules[module])
            if (
                facts is None
                or facts.error is not None
                or self.boundary.is_upstream(module)
                or not any(f.kind in HIDDEN_KINDS for f in facts.dynamics)
            ):
                continue
            chain = [module]
            while (up := parent[chain[-1]]) is not None:
                chain.append(up)
            chain.reverse()
            out.append((module, marked_chain(chain, self._step_kinds(chain, self.kinds))))
        return out

    def root_causes(self) -> dict[str, tuple[str, ...]]:
        """One reverse dependency, one finding: ``{cause: the upstream modules it makes reach
        the sealed module}``. The cause of an upstream module that reaches the sealed module
        (itself, or through a package above it, which runs first) is the last module on its
        shortest chain, the one importing the sealed module: the import there is what to fix,
        and every upstream module behind it is reported with it. An upstream module naming
        the sealed module's objects through a re-exporting module is a cause of its own too
        (:mod:`.reexports`)."""
        causes: dict[str, list[str]] = {}
        for upstream in self.upstream:
            start = self.chain_start(upstream)
            if start is None:
                continue
            cause = self.importer_of_sealed(start)
            causes.setdefault(cause, []).append(upstream)
            if cause != upstream and self.reexports.edge(upstream) is not None:
                # it names the sealed module's objects through a re-exporting module: a
                # root cause of its own besides that module (:mod:`.reexports`)
                causes.setdefault(upstream, []).append(upstream)
                self._named_only.add(upstream)
        return {c: tuple(sorted(u, key=lambda m: (m != c, m))) for c, u in sorted(causes.items())}

    def importer_of_sealed(self, start: str) -> str:
        """The last module on ``start``'s shortest chain that the run reports (all but the
        excluded ones, or those of the paths asked for): the one importing the sealed module,
        whose import is the one fix for every module behind it, unless it is not reported
        (then the nearest reported module before it: ``start`` itself at worst, so that a
        run on the files that changed still reports a new reverse dependency)."""
        return self._last_reported(start) or start

    def _last_reported(self, start: str) -> str | None:
        """The last reported module on ``start``'s chain, the sealed module aside (None: no
        module of it is reported); kept for every module of the chain (chains share tails)."""
        known, hop = self._last, self.hop
        path: list[str] = []
        node: str | None = start
        while node is not None and node not in known and hop.get(node) is not None:
            path.append(node)
            node = hop[node]
        after = known.get(node) if node is not None else None
        for module in reversed(path):
            after = after or (module if self.reported(module) else None)
            known[module] = after
        return known.get(start)

    def chain_start(self, module: str) -> str | None:
        """Where ``module``'s chain to the sealed module starts: itself when it reaches the
        sealed module, else the outermost package above it that does (None: neither)."""
        if module in self.hop:
            return module
        return next((a for a in ancestors(module) if a in self.hop), None)

    def cause_edges(self, module: str, affected: tuple[str, ...] | None) -> tuple[ReverseEdge, ...]:
        """The reverse-dependency edges of a cause (:meth:`root_causes`; none for a module
        that is not one), the first carrying the upstream modules it affects and the shortest
        chain of each."""
        if affected is None:
            return ()
        found = self._causes.get(module)
        if found is None:
            found = self._causes[module] = self._cause_edges(module, affected)
        return found

    def _cause_edges(self, module: str, affected: tuple[str, ...]) -> tuple[ReverseEdge, ...]:
        named = self.reexports.edge(module) if module in self._named_only else None
        edges = self._reverse_edges(module) if named is None else (named,)
        if not edges:
            return ()
        kinds = self.kinds
        first = edges[0]
        chains: list[str] = [marked_chain((module, *first.chain), first.kinds)]
        for upstream in affected if self.every_chain else ():
            start = self.chain_start(upstream)
            if upstream == module or start is None:
                continue
            shown = upstream
            if start != upstream:  # through a package above it, which runs first
                shown += marked_chain(("", start), self._step_kinds((upstream, start), kinds))
            chains.append(shown + self._marked_tail(start))
        first = dataclasses.replace(first, affected=affected, chains=tuple(chains))
        # every other import of the cause carries its own chain too (JSON, SARIF)
        rest = (
            dataclasses.replace(e, chains=(marked_chain((module, *e.chain), e.kinds),))
            for e in edges[1:]
        )
        return (first, *rest)

    def _reverse_edges(self, module: str) -> tuple[ReverseEdge, ...]:
        """An upstream module's reverse dependencies: every import site of a sealed module
        (chain of length 1), else one edge: the import whose target reaches the sealed module
        by the shortest chain that never passes through ``module`` itself (ties: the first
        line), with the number of other imported modules that reach it too."""
        kinds = self.kinds
        edges = sorted(self.store.graph.edges(module, kinds), key=lambda e: (e.line, e.column))
        direct = [
            ReverseEdge(e.line, e.column, e.text, (e.target,), kinds=(e.kind.value,))
            for e in edges
            if self.boundary.seals(e.target)
        ]
        if direct:
            # one per import statement (``from m import (a, b)`` is one)
            facts = self.store.facts.get(self.store.modules[module])
            statement = {
                (f.line, f.column): f.statement or f.line
                for f in (facts.imports if facts is not None else ())
            }
            unique: dict[int, ReverseEdge] = {}
            for edge in direct:
                unique.setdefault(statement.get((edge.line, edge.column), edge.line), edge)
            return tuple(unique.values())
        best: tuple[int, int, int, ReverseEdge] | None = None
        reaching: set[str] = set()
        for target, line, col, text in ((e.target, e.line, e.column, e.text) for e in edges):
            if target not in self.hop or target in reaching:
                continue
            chain = self._hop_chain(target)
            if module in chain:
                avoided = self.store.graph.shortest_chain(
                    target, self.boundary.seals, kinds, module
                )
                if avoided is None:
                    continue  # reaches the sealed module only through ``module`` itself
                chain = avoided
            reaching.add(target)
            steps = self._step_kinds([module, *chain], kinds)
            candidate = (
                len(chain),
                line,
                col,
                ReverseEdge(line, col, text, tuple(chain), 0, steps),
            )
            if best is None or candidate[:3] < best[:3]:
                best = candidate
        if best is None:
            return ()
        edge = best[3]
        return (dataclasses.replace(edge, others=len(reaching) - 1),)

    def _marked_tail(self, start: str) -> str:
        """``" -> b -> c (in a function)"``: ``start``'s shortest chain to the sealed module
        after ``start`` itself, each step marked (see :func:`marked_chain`); computed once per
        module, as chains share their tails."""
        tails = self._tails
        path: list[str] = []
        node: str | None = start
        while node is not None and node not in tails:
            path.append(node)
            node = self.hop[node]
        for module in reversed(path):
            nxt = self.hop[module]
            tails[module] = (
                ""
                if nxt is None
                else marked_chain(("", nxt), self._step_kinds((module, nxt), self.kinds))
                + tails[nxt]
            )
        return tails[start]

    def _step_kinds(self, chain: Sequence[str], kinds: frozenset[EdgeKind]) -> tuple[str, ...]:
        """How each step of ``chain`` runs (see :meth:`ImportGraph.step_kind`)."""
        known = self.steps
        out: list[str] = []
        for step in itertools.pairwise(chain):
            kind = known.get(step)
            if kind is None:
                kind = known[step] = self.store.graph.step_kind(*step, kinds).value
            out.append(kind)
        return tuple(out)

    def ancestor_packages(self) -> dict[str, tuple[str, ...]]:
        """Packages above upstream modules, themselves neither sealed nor upstream, that
        reach the boundary's sealed module: ``{package: the upstream modules below it}``."""
        out: dict[str, list[str]] = {}
        for upstream in self.upstream:
            for package in ancestors(upstream):
                if (
                    package in self.hop
                    and not self.boundary.seals(package)
                    and not self.boundary.is_upstream(package)
                ):
                    out.setdefault(package, []).append(upstream)
        return {p: tuple(sorted(u)) for p, u in sorted(out.items())}

    def chain_of(self, start: str) -> tuple[str, ...]:
        """``start``'s shortest chain to the sealed module (``start`` must reach it)."""
        return tuple(self._hop_chain(start))

    def chain_kinds(self, chain: Sequence[str]) -> tuple[str, ...]:
        """How each step of ``chain`` runs, as the boundary counts them."""
        return self._step_kinds(chain, self.kinds)

    def _hop_chain(self, start: str) -> list[str]:
        """``start``'s shortest chain to the sealed module."""
        chain = [start]
        node = self.hop[start]
        while node is not None:
            chain.append(node)
            node = self.hop[node]
        return chain
