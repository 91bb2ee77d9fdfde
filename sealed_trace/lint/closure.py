"""The sealed module's import closure against the policy (ST404).

What importing the sealed module loads, over the boundary's ``edge_kinds.closure`` (module
level by default: what runs at import time is what loads), whole modules only: a module of
the closure that imports a banned module, is itself banned, or is an upstream module the
boundary does not allow. Every module of the closure is parsed, so that each chain is exact.
"""

from __future__ import annotations

import functools
import importlib.machinery
import itertools
import os
import sys

from sealed_trace.lint.config import Boundary
from sealed_trace.lint.facts import ImportFact
from sealed_trace.lint.graph import (
    EdgeKind,
    kind_of_import,
    kinds_from_policy,
    longest_module,
)
from sealed_trace.lint.rules.base import ClosureEdge
from sealed_trace.lint.store import FactStore

__all__ = ["ClosureCheck", "closure_kinds"]


def closure_kinds(b: Boundary) -> frozenset[EdgeKind]:
    """The edge kinds that load a module for ``b``'s closure (ST404)."""
    return kinds_from_policy(b.closure_edge_kinds, b.type_checking_imports == "ignore")


def _longest_external(fact: ImportFact, modules: dict[str, str]) -> str:
    """The module an import names when it is not first-party ("" when it is, or when it
    leaves the top package): ``from os import path`` -> ``os``, ``import a.b`` -> ``a.b``."""
    if not fact.module or longest_module(fact.module, modules) is not None:
        return ""
    return fact.module


@functools.lru_cache(maxsize=4096)
def _external_submodule(package: str, name: str) -> bool:
    """Whether ``package.name`` (outside the source roots) is a module: a file or package of
    that name in ``package``'s directory on the interpreter's path (looked up, never
    imported). A plain module (``datetime.py``) has no submodules. When ``package`` is not on
    the path at all, a lower-case ``name`` is taken for a module (the convention; classes are
    capitalised)."""
    parts = package.split(".")
    if not name.isidentifier() or not all(p.isidentifier() for p in parts):
        return False  # a literal of a dynamic import can hold anything: no path is probed
    for entry in sys.path:
        base = os.path.join(entry or ".", *parts)
        if os.path.isdir(base):
            return os.path.isfile(os.path.join(base, name, "__init__.py")) or any(
                os.path.isfile(os.path.join(base, name + suffix)) for suffix in _MODULE_SUFFIXES
            )
        if any(os.path.isfile(base + suffix) for suffix in _MODULE_SUFFIXES):
            return False
    return name[:1].islower()


_MODULE_SUFFIXES = (".py", *importlib.machinery.EXTENSION_SUFFIXES)


class ClosureCheck:
    """ST404 over the facts of ``store`` (see the module docstring)."""

    def __init__(self, store: FactStore) -> None:
        self.store = store

    def _offences(
        self, module: str, b: Boundary, kinds: frozenset[EdgeKind]
    ) -> dict[str, tuple[str, str]]:
        """What one module of the closure loads against ``b``'s policy, whole modules only:
        ``{offending module: (description, importing module)}`` (the module itself when it
        is the offence). ``from X import n`` loads ``X``, and ``X.n`` only when that is a
        module (:func:`_external_submodule`): a class or function of an allowed module
        (``from types import FunctionType``) loads nothing more."""
        out: dict[str, tuple[str, str]] = {}
        if b.is_upstream(module) and not b.allows_import(module):
            out[module] = (f"upstream module {module}", module)
        elif b.is_banned(module):
            out[module] = (f"banned {module}", module)
        facts = self.store.facts.get(self.store.modules[module])
        names: set[str] = set()
        if facts is not None and facts.error is None:
            for fact in facts.imports:
                external = _longest_external(fact, self.store.modules)
                if external and kind_of_import(fact) in kinds:
                    names.add(external)  # ``from numpy import random`` loads numpy.random too
                    if fact.name and fact.name != "*" and _external_submodule(external, fact.name):
                        names.add(f"{external}.{fact.name}")
        elif facts is None:
            names = set(self.store.external.get(module, ()))
        for name in sorted(n for n in names if n):
            if b.module_is_banned(name) and name not in out:
                out[name] = (f"banned {name}", module)
        return out

    def edges(self, sealed: str, b: Boundary) -> tuple[ClosureEdge, ...]:
        """ST404 for one sealed module (boundaries with ``closure = true``): each offence of
        its first-party import closure, on a shortest chain. Every module of the closure is
        parsed, so that what it imports (dynamic imports, star imports, imports inside
        functions, ``TYPE_CHECKING``) is exact."""
        if not b.closure or self.store.modules.get(sealed) is None:
            return ()
        kinds = closure_kinds(b)
        parent = self._parsed_closure(sealed, b, kinds)
        found = self._offending_chains(parent, b, kinds)
        sealed_edges = sorted(
            self.store.graph.edges(sealed, kinds), key=lambda e: (e.line, e.column)
        )
        out: list[ClosureEdge] = []
        for _name, (what, chain) in sorted(found.items()):
            if len(chain) < 3:
                continue  # the sealed module's own import: ST101/ST102 judge it
            first = next((e for e in sealed_edges if e.target == chain[1]), None)
            line, col, text = (
                (first.line, first.column, first.text)
                if first
                else (1, 1, f"its package {chain[1]} runs first")
            )
            steps = tuple(self._step(a, z, kinds) for a, z in itertools.pairwise(chain))
            out.append(ClosureEdge(line, col, text, what, tuple(chain), steps))
        return tuple(out)

    def _parsed_closure(
        self, sealed: str, b: Boundary, kinds: frozenset[EdgeKind]
    ) -> dict[str, str | None]:
        """The closure (:meth:`.graph.ImportGraph.closure`) once every module of it
        is parsed: what each imports, exactly."""
        modules = self.store.modules
        while True:
            parent = self.store.graph.closure([sealed], kinds, b.seals)
            unparsed = {
                modules[m]
                for m in parent
                if not b.seals(m)
                and modules[m] not in self.store.facts
                and self.store.screens[modules[m]].error is None
            }
            if not unparsed:
                return parent
            self.store.parse(unparsed)

    def _offending_chains(
        self, parent: dict[str, str | None], b: Boundary, kinds: frozenset[EdgeKind]
    ) -> dict[str, tuple[str, list[str]]]:
        """``{offending module: (what it is, the chain from the sealed module to it)}``."""
        found: dict[str, tuple[str, list[str]]] = {}
        for module in parent:  # breadth-first order: the first chain is a shortest one
            if b.seals(module):
                continue
            for name, (what, owner) in self._offences(module, b, kinds).items():
                if name in found:
                    continue
                chain = [owner]
                while (up := parent[chain[-1]]) is not None:
                    chain.append(up)
                chain.reverse()
                if name != owner:
                    chain.append(name)
                found[name] = (what, chain)
        return found

    def _step(self, importer: str, target: str, kinds: frozenset[EdgeKind]) -> str:
        """How the closure step ``importer -> target`` (a module, or an external module)
        runs: the most often running kind among its imports of ``kinds``."""
        if target in self.store.modules:
            return self.store.graph.step_kind(importer, target, kinds).value
        facts = self.store.facts.get(self.store.modules.get(importer, ""))
        found = [
            kind_of_import(f)
            for f in (facts.imports if facts is not None and facts.error is None else ())
            if _longest_external(f, self.store.modules) == target
        ]
        found = [k for k in found if k in kinds] or found
        return min(found, key=lambda k: k.rank, default=EdgeKind.MODULE).value
