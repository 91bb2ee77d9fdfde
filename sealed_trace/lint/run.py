"""One cold run of the lint: screen, scan, plan and parse, then judge (:mod:`.engine`'s steps
1-5; the warm path never loads this module).

:class:`ColdRun` wires the stages: the fact store reads, scans and parses (:mod:`.store`), the
plan says what to parse (:mod:`.plan`), the sealed modules' libcst pass runs on a process
pool beside the scan (:class:`.store.SealedPass`), the closures of boundaries that ask for
them are computed (:mod:`.closure`), and the judge applies the rules (:mod:`.judge`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from sealed_trace.lint import screen
from sealed_trace.lint.cache import LintCache
from sealed_trace.lint.closure import ClosureCheck
from sealed_trace.lint.config import Boundary, LintConfig
from sealed_trace.lint.discover import SourceFile
from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.judge import Judge
from sealed_trace.lint.layout import Layout
from sealed_trace.lint.plan import ParsePlan
from sealed_trace.lint.reverse import BoundaryReach, reverse_kinds
from sealed_trace.lint.rules import BUILTIN_RULES, ClosureEdge, Rule
from sealed_trace.lint.store import FactStore, SealedPass

__all__ = ["ColdRun"]


class ColdRun:
    """One run the warm path could not answer: screen, scan, plan and parse, judge (steps
    1-5 of :mod:`.engine`; facts and per-file records come from the cache where they
    still hold)."""

    def __init__(
        self,
        config: LintConfig,
        files: list[SourceFile],
        selected: set[str] | None,
        rules: tuple[Rule, ...],
        cache: LintCache,
        on_parse: Callable[[str], None] | None,
        every_chain: bool = True,
    ) -> None:
        self.every_chain = every_chain
        if any(f.module in ("typing", "typing_extensions") for f in files):
            # A first-party ``typing`` shadows the standard one: its TYPE_CHECKING may be true.
            config = dataclasses.replace(
                config,
                boundaries=tuple(
                    dataclasses.replace(b, type_checking_imports="count") for b in config.boundaries
                ),
            )
        self.config = config
        self.selected = selected
        self.rules = rules
        self.store = FactStore(config, Layout.of(files, config.source_roots), cache, on_parse)
        #: the reach of each boundary (by name) over the facts known when it was computed (how
        #: many files had facts): only the latest is kept, older ones are stale
        self._reach: dict[str, tuple[int, BoundaryReach]] = {}
        self._upstreams: dict[str, list[str]] = {}
        self._sealeds: dict[str, list[str]] = {}
        #: ST404 per (boundary name, sealed module)
        self.closures: dict[tuple[str, str], tuple[ClosureEdge, ...]] = {}
        judges_upstream = any(
            set(rule.roles) - {"boundary"} for rule in rules if rule not in BUILTIN_RULES
        )
        self.plan = ParsePlan(self.store, config.boundaries, self.reach_of, judges_upstream)

    def reach_of(self, b: Boundary) -> BoundaryReach:
        """What reaches ``b``'s sealed module over the facts known now, never through a module
        ``b`` seals (see :class:`.reverse.BoundaryReach`)."""
        known = len(self.store.facts)
        cached = self._reach.get(b.name)
        if cached is None or cached[0] != known:
            hop = self.store.graph.reach(self._sealed(b), reverse_kinds(b), b.seals)
            reach = BoundaryReach(
                self.store, b, hop, self._upstream(b), self.every_chain, self._reported
            )
            cached = self._reach[b.name] = (known, reach)
        return cached[1]

    def _reported(self, module: str) -> bool:
        """Whether the run reports findings on ``module``'s file."""
        return self.selected is None or self.store.modules[module] in self.selected

    def _upstream(self, b: Boundary) -> list[str]:
        found = self._upstreams.get(b.name)
        if found is None:
            found = self._upstreams[b.name] = sorted(
                m for m in self.store.modules if b.is_upstream(m)
            )
        return found

    def _sealed(self, b: Boundary) -> list[str]:
        found = self._sealeds.get(b.name)
        if found is None:
            found = self._sealeds[b.name] = sorted(m for m in self.store.modules if b.seals(m))
        return found

    # -- step 4 ----------------------------------------------------------------------------
    def _fixpoint(self, need: set[str]) -> None:
        """Step 4: parse ``need``, then what the plan asks for (:mod:`.plan`), until it asks
        for nothing new."""
        tried: set[str] = set()
        while True:
            need = need - tried
            if need:
                tried |= need
                self.store.parse(need)
            need = self.plan.next() - tried
            if not need:
                return

    # -- step 5 ----------------------------------------------------------------------------
    def execute(self) -> tuple[LintResult, dict[str, Any]]:
        """Steps 1-5 of the module docstring; returns the result and the facts to cache."""
        # The sealed modules' libcst pass (libcst's import alone takes a third of a second)
        # runs on a process pool while this one screens and scans the tree and parses
        # what the fixpoint asks for: the reverse-dependency graph never runs through a sealed
        # module, so the fixpoint does not wait for their facts.
        sealed = self._load_sealed()
        pass_ = SealedPass(self.store, sealed)
        try:
            self.store.screen_all()
            rejected = self.store.scan_tree()
            self._fixpoint(self.plan.first(rejected))
        finally:
            pass_.finish()
        self.store.parse(sealed)  # whatever the process could not answer, parsed here
        self._fixpoint(set())
        self._close()
        judge = Judge(self.store, self.rules, self.selected, self.closures, self.reach_of)
        for b in self.config.boundaries:
            judge.boundary(b)
        return judge.report(), self.store.known()

    def _load_sealed(self) -> list[str]:
        """Read the sealed modules' files (their text goes to the libcst pass)."""
        sealed = sorted(
            path for module, path in self.store.modules.items() if self.store.seals(module)
        )
        for path in sealed:
            self.store.items[path] = screen.load(
                self.store.by_path[path], self.config.max_file_bytes
            )
        return [path for path in sealed if self.store.items[path].error is None]

    def _close(self) -> None:
        """ST404's closures. They parse the modules on their chains; what those show may
        change the graph, so the fixpoint runs again until neither parses anything new."""
        closures = ClosureCheck(self.store)
        while True:
            before = len(self.store.facts)
            self.closures = {
                (b.name, m): closures.edges(m, b)
                for b in self.config.boundaries
                if b.closure
                for m in sorted(self.store.modules)
                if b.seals(m)
            }
            self._fixpoint(set())
            if len(self.store.facts) == before:
                return
