"""The first-party import graph: typed edges, built once, then only queried.

An :class:`Edge` is one import in a module that resolves to a first-party module, with its
:class:`EdgeKind`: whether it runs when the importing module is imported (``module``), or
only when a function is called (``function``), only when the file runs as a script
(``main``, under ``if __name__ == "__main__":``), or never (``type-checking``, under
``if TYPE_CHECKING:``). Importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py``
first, so an edge to a module is also an edge, of the same kind, to each of its ancestor
packages (but the importer's own ancestors, which ran before it did).

:class:`ImportGraph` answers the questions the rules ask: which modules reach a set of
modules (:meth:`ImportGraph.reach`), what a set of modules loads (:meth:`ImportGraph.closure`,
:meth:`ImportGraph.loaded_on_import`), a shortest chain (:meth:`ImportGraph.shortest_chain`)
and how each step of a chain runs (:meth:`ImportGraph.step_kind`). Every query takes the edge
kinds that count for it (ADR-0230 §15: an import statement anywhere is a dependency; what runs
at import time is what loads).
"""

from __future__ import annotations

import enum
import functools
from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from sealed_trace.lint.facts import FileFacts, ImportFact, RefFact

__all__ = [
    "ALL_KINDS",
    "LOADING_KINDS",
    "Edge",
    "EdgeKind",
    "ImportGraph",
    "ancestors",
    "edges_from_facts",
    "kind_of_import",
    "kind_of_ref",
    "kinds_from_policy",
    "longest_module",
]


class EdgeKind(enum.Enum):
    """How an import runs, from most to least often: see the module docstring."""

    MODULE = "module"
    FUNCTION = "function"
    MAIN = "main"
    TYPE_CHECKING = "type-checking"

    # Members are singletons compared by identity: hashing them by identity too keeps the
    # graph's hot loops (``edge.kind in kinds``) in C.
    __hash__ = object.__hash__

    @property
    def note(self) -> str:
        """How a chain marks a step of this kind (empty for ``module``: it runs on import)."""
        return _NOTES[self]

    @property
    def rank(self) -> int:
        """0 for the kind that runs most often (``module``), then in declaration order."""
        return _RANKS[self]


_NOTES = {
    EdgeKind.MODULE: "",
    EdgeKind.FUNCTION: "in a function",
    EdgeKind.MAIN: 'under `if __name__ == "__main__"`',
    EdgeKind.TYPE_CHECKING: "under TYPE_CHECKING",
}
_RANKS = {kind: index for index, kind in enumerate(EdgeKind)}
#: Every kind: what counts as a dependency.
ALL_KINDS: frozenset[EdgeKind] = frozenset(EdgeKind)
#: What runs when a module is imported: what loads.
LOADING_KINDS: frozenset[EdgeKind] = frozenset({EdgeKind.MODULE})


@dataclass(frozen=True, slots=True)
class Edge:
    """One first-party import: its ``target`` module, where it is (1-based ``line`` and
    ``column``), its spelling ``text`` (for messages) and its ``kind``."""

    target: str
    line: int
    column: int
    text: str
    kind: EdgeKind = EdgeKind.MODULE
    #: False for an edge of the static scan whose kind is not known yet (an import that may
    #: stand in a function or under a guard): it may count for any kind until its file is
    #: parsed
    known: bool = True

    @property
    def runs_on_import(self) -> bool:
        """Whether this import runs when the importing module is imported."""
        return self.kind is EdgeKind.MODULE

    def may_count(self, kinds: Collection[EdgeKind]) -> bool:
        """Whether this edge counts, or may count once its kind is known, for ``kinds``."""
        return not self.known or self.kind in kinds


def kinds_from_policy(names: Iterable[str], ignore_type_checking: bool) -> frozenset[EdgeKind]:
    """The kinds a policy names (``"module"``, ``"function"``, ...), without
    ``type-checking`` when the policy ignores ``TYPE_CHECKING`` imports."""
    kinds = {EdgeKind(name) for name in names}
    if ignore_type_checking:
        kinds.discard(EdgeKind.TYPE_CHECKING)
    return frozenset(kinds)


def kind_of_import(fact: ImportFact) -> EdgeKind:
    """The kind of an import fact (a ``TYPE_CHECKING`` import never runs, whatever else)."""
    if fact.type_checking:
        return EdgeKind.TYPE_CHECKING
    if fact.lazy:
        return EdgeKind.FUNCTION
    if fact.main:
        return EdgeKind.MAIN
    return EdgeKind.MODULE


def kind_of_ref(ref: RefFact) -> EdgeKind:
    """The kind of a reference (``pkg.sealed.x``, ``pkg.seal``): when it runs."""
    if ref.type_checking:
        return EdgeKind.TYPE_CHECKING
    return EdgeKind.FUNCTION if ref.lazy else EdgeKind.MODULE


@functools.lru_cache(maxsize=65536)
def ancestors(module: str) -> tuple[str, ...]:
    """``a.b.c`` -> ``("a", "a.b")``: the packages importing ``module`` runs first."""
    parts = module.split(".")
    return tuple(".".join(parts[:i]) for i in range(1, len(parts)))


def longest_module(name: str, modules: Collection[str]) -> str | None:
    """The longest prefix of dotted ``name`` that is one of ``modules`` (None when none is)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _import_target(fact: ImportFact, modules: Collection[str]) -> str | None:
    if not fact.module:
        return None
    if fact.name and fact.name != "*":
        full = f"{fact.module}.{fact.name}"
        if full in modules:
            return full
    return longest_module(fact.module, modules)


def edges_from_facts(
    facts: FileFacts,
    module: str,
    modules: Collection[str],
    star_targets: Callable[[str], Sequence[str]] = lambda package: (),
    files_named: Callable[[str], Sequence[str]] = lambda name: (),
) -> list[Edge]:
    """The direct first-party edges of a parsed module, in source order: its imports
    (``star_targets(package)`` names the submodules a star import of ``package`` takes;
    ``files_named(name)`` the modules whose file has the name a path loader loads) and
    attribute chains through an imported package to a deeper module (``import pkg`` then
    ``pkg.sealed.x``). Ancestor packages are added by :class:`ImportGraph`."""
    if facts.error is not None:
        return []
    out: list[Edge] = []
    covered: set[str] = set()
    for fact in facts.imports:
        kind = kind_of_import(fact)
        if fact.kind == "file":
            out.extend(
                Edge(t, fact.line, fact.column, fact.text, kind)
                for t in files_named(fact.module)
                if t != module
            )
            continue
        target = _import_target(fact, modules)
        if target is not None and target != module:
            out.append(Edge(target, fact.line, fact.column, fact.text, kind))
            covered.update((target, *ancestors(target)))
        if fact.name == "*":
            out.extend(
                Edge(t, fact.line, fact.column, fact.text, kind)
                for t in star_targets(fact.module)
                if t != module
            )
    for ref in facts.refs:
        if ref.qname.startswith("builtins."):
            continue
        target = longest_module(ref.qname, modules)
        if target is not None and target != module and target not in covered:
            covered.add(target)
            out.append(Edge(target, ref.line, ref.column, ref.qname, kind_of_ref(ref)))
    return out


class ImportGraph:
    """Every first-party module's edges, ancestor packages included; built once, then only
    queried (see the module docstring). ``direct`` maps each module to its direct edges;
    ``modules`` are the first-party modules (edges to anything else are dropped)."""

    def __init__(self, direct: Mapping[str, Iterable[Edge]], modules: Collection[str]) -> None:
        self.modules = frozenset(modules)
        self._edges: dict[str, tuple[Edge, ...]] = {
            module: _with_ancestors(module, direct.get(module, ()), self.modules)
            for module in self.modules
        }
        self._importers: dict[frozenset[EdgeKind], dict[str, list[str]]] = {}

    def updated(self, direct: Mapping[str, Iterable[Edge]]) -> ImportGraph:
        """A new graph with the direct edges of the modules in ``direct`` replaced (this one
        is left as it is): what a module's new facts change, without rebuilding the rest."""
        graph = ImportGraph({}, ())
        graph.modules = self.modules
        graph._edges = dict(self._edges)
        for module, edges in direct.items():
            if module in self.modules:
                graph._edges[module] = _with_ancestors(module, edges, self.modules)
        return graph

    def edges(self, module: str, kinds: Collection[EdgeKind] = ALL_KINDS) -> list[Edge]:
        """``module``'s edges of the given kinds, in source order."""
        return [e for e in self._edges.get(module, ()) if e.may_count(kinds)]

    def importers(self, kinds: Collection[EdgeKind] = ALL_KINDS) -> dict[str, list[str]]:
        """``{module: the modules importing it over edges of kinds}`` (sorted, unique)."""
        key = frozenset(kinds)
        graph = self._importers.get(key)
        if graph is None:
            found: dict[str, set[str]] = {}
            for module, edges in self._edges.items():
                for edge in edges:
                    if edge.may_count(key):
                        found.setdefault(edge.target, set()).add(module)
            graph = self._importers[key] = {m: sorted(i) for m, i in found.items()}
        return graph

    def reach(
        self,
        targets: Iterable[str],
        kinds: Collection[EdgeKind] = ALL_KINDS,
        blocked: Callable[[str], bool] = lambda module: False,
    ) -> dict[str, str | None]:
        """Modules reaching one of ``targets`` over edges of ``kinds``, never through a
        ``blocked`` module: ``{module: its next step on a shortest chain (None for a
        target)}``. Following next steps from any module gives its shortest chain."""
        importers = self.importers(kinds)
        hop: dict[str, str | None] = dict.fromkeys(sorted(targets))
        queue = deque(hop)
        while queue:
            current = queue.popleft()
            for importer in importers.get(current, ()):
                if importer not in hop and not blocked(importer):
                    hop[importer] = current
                    queue.append(importer)
        return hop

    def closure(
        self,
        starts: Iterable[str],
        kinds: Collection[EdgeKind] = ALL_KINDS,
        blocked: Callable[[str], bool] = lambda module: False,
    ) -> dict[str, str | None]:
        """What importing ``starts`` loads over edges of ``kinds``, their ancestor packages
        included (breadth first, never into a ``blocked`` module): ``{module: the module it
        was first reached from (None for a start)}``."""
        parent: dict[str, str | None] = {}
        queue: deque[str] = deque()
        ordered = sorted(starts)
        for start in ordered:
            parent[start] = None
            queue.append(start)
        for start in ordered:
            for ancestor in ancestors(start):
                if ancestor in self.modules and ancestor not in parent:
                    parent[ancestor] = start
                    queue.append(ancestor)
        while queue:
            current = queue.popleft()
            for edge in self._edges.get(current, ()):
                if edge.may_count(kinds) and edge.target not in parent and not blocked(edge.target):
                    parent[edge.target] = current
                    queue.append(edge.target)
        return parent

    def loaded_on_import(self, module: str) -> frozenset[str]:
        """The first-party modules loaded when ``module`` is imported: its ancestor packages
        (their ``__init__`` runs first) and everything their and its module-level imports
        load in turn, transitively. Imports inside functions, under ``TYPE_CHECKING`` or under
        ``if __name__ == "__main__":`` do not run on import, so they are not followed.
        ``module`` itself is not in the answer."""
        return frozenset(self.closure([module], LOADING_KINDS)) - {module}

    def shortest_chain(
        self,
        start: str,
        is_target: Callable[[str], bool],
        kinds: Collection[EdgeKind] = ALL_KINDS,
        avoid: str = "",
    ) -> list[str] | None:
        """A shortest chain of modules from ``start`` to a module ``is_target`` accepts, over
        edges of ``kinds`` and never through ``avoid``; None when there is none."""
        parent: dict[str, str | None] = {start: None}
        queue = deque([start])
        while queue:
            current = queue.popleft()
            if is_target(current):
                out: list[str] = []
                node: str | None = current
                while node is not None:
                    out.append(node)
                    node = parent[node]
                return out[::-1]
            for edge in self._edges.get(current, ()):
                if edge.may_count(kinds) and edge.target != avoid and edge.target not in parent:
                    parent[edge.target] = current
                    queue.append(edge.target)
        return None

    def step_kind(
        self, importer: str, target: str, kinds: Collection[EdgeKind] = ALL_KINDS
    ) -> EdgeKind:
        """How the step ``importer -> target`` of a chain runs: the most often running kind
        among ``importer``'s edges of ``kinds`` to ``target`` (``module`` when there is none,
        as for a package whose ``__init__`` runs before its submodule)."""
        found = [e.kind for e in self._edges.get(importer, ()) if e.target == target]
        found = [k for k in found if k in kinds] or found
        return min(found, key=lambda k: k.rank, default=EdgeKind.MODULE)

    def step_known(self, importer: str, target: str, kinds: Collection[EdgeKind]) -> bool:
        """Whether the step ``importer -> target`` is known to count for ``kinds`` and how it
        runs is known: an edge of a known kind among ``kinds`` that runs at least as often as
        any edge of unknown kind could (no step without edges, as from a package to its
        submodule, needs knowing)."""
        edges = [e for e in self._edges.get(importer, ()) if e.target == target]
        if not edges or all(e.known for e in edges):
            return True
        return any(e.known and e.kind is EdgeKind.MODULE and e.kind in kinds for e in edges)


def _with_ancestors(
    module: str, direct: Iterable[Edge], modules: frozenset[str]
) -> tuple[Edge, ...]:
    """``direct`` edges of ``module`` plus, after each, the ancestor packages its import runs
    (not ``module``'s own ancestors, which ran before it did)."""
    own = {module, *ancestors(module)}
    out: list[Edge] = []
    for edge in direct:
        if edge.target not in modules:
            continue
        if edge.target != module:
            out.append(edge)
        out.extend(
            Edge(a, edge.line, edge.column, edge.text, edge.kind, edge.known)
            for a in ancestors(edge.target)
            if a not in own and a in modules
        )
    return tuple(out)
