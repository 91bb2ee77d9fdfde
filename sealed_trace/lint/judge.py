"""Step 5 of a run: each boundary's findings, from the facts and the graph (ADR-0230 §5,
§7.3, §15).

For one boundary, the rules judge its sealed modules (role ``boundary``), its upstream
modules (``upstream``: each root cause of a reverse dependency gets its import's edges),
the packages above upstream modules that cause one (``ancestor``), the other modules that
cause one (``helper``: they import the sealed module) and the first-party modules
an upstream module loads that hold a dynamic import the lint cannot resolve (``reached``).
Every rule sees a :class:`.rules.RuleContext` built here, one way. A rule that raises is
ST006 on the file, never a crash or a pass. Suppression comments apply last, file by file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sealed_trace.lint.config import Boundary
from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.facts import FileFacts
from sealed_trace.lint.findings import Finding, sort_findings
from sealed_trace.lint.reverse import BoundaryReach
from sealed_trace.lint.rules import ClosureEdge, Rule, RuleContext
from sealed_trace.lint.rules.base import Role
from sealed_trace.lint.store import FactStore
from sealed_trace.lint.suppressions import apply_suppressions, scan_suppressions

__all__ = ["Judge"]


class Judge:
    """The rules' verdicts on ``store``'s facts, for the ``selected`` files (None: all);
    ``closures`` holds ST404's per (boundary name, sealed module), ``reach_of`` a
    boundary's reach over the graph."""

    def __init__(
        self,
        store: FactStore,
        rules: tuple[Rule, ...],
        selected: set[str] | None,
        closures: Mapping[tuple[str, str], tuple[ClosureEdge, ...]],
        reach_of: Callable[[Boundary], BoundaryReach],
    ) -> None:
        self.store = store
        self.rules = rules
        self.selected = selected
        self.closures = closures
        self.reach_of = reach_of
        self.first_party = frozenset(store.modules)
        self.per_file: dict[str, list[Finding]] = {}

    def _is_selected(self, relpath: str) -> bool:
        return self.selected is None or relpath in self.selected

    def boundary(self, b: Boundary) -> None:
        """Judge boundary ``b``: its sealed and upstream modules, the packages above upstream
        modules that cause a reverse dependency, and the reached modules."""
        reach = self.reach_of(b)
        causes = reach.root_causes()
        for path, facts in list(self.store.facts.items()):
            module = self.store.by_path[path].module
            if module is None or facts.error is not None or not self._is_selected(path):
                continue
            if self.store.modules.get(module) != path:
                continue
            if b.seals(module):
                closure = self.closures.get((b.name, module), ())
                self._run(b, Role.BOUNDARY, module, closure=closure, kind_of=self.store.kind_of)
            elif b.is_upstream(module):
                edges = reach.cause_edges(module, causes.get(module))
                self._run(b, Role.UPSTREAM, module, reverse_edges=edges)
        packages = reach.ancestor_packages()
        for cause, affected in causes.items():
            found = self.store.facts.get(self.store.modules[cause])
            if b.is_upstream(cause) or found is None or found.error is not None:
                continue
            role = Role.ANCESTOR if cause in packages else Role.HELPER
            edges = reach.cause_edges(cause, affected)
            self._run(b, role, cause, reverse_edges=edges, affected=affected)
        for module, chain in reach.reached():
            self._run(b, Role.REACHED, module, reached_from=chain)

    def _run(self, b: Boundary, role: Role, module: str, **context: Any) -> None:
        """Run every rule of ``role`` on ``module``'s file for ``b`` (when it is reported)."""
        path = self.store.modules[module]
        if not self._is_selected(path):
            return
        facts: FileFacts = self.store.facts[path]
        ctx = RuleContext(
            path,
            module,
            facts,
            b,
            role,
            self.store.text_of(path),
            first_party=self.first_party,
            **context,
        )
        found = self.per_file.setdefault(path, [])
        for rule in self.rules:
            if role in rule.roles:
                found.extend(self._check(rule, ctx))

    @staticmethod
    def _check(rule: Rule, ctx: RuleContext) -> list[Finding]:
        try:
            return list(rule.check(ctx))
        except Exception as exc:  # a plugin rule must never make the lint crash or pass
            code = f"{getattr(rule, 'code', '?')}"
            message = f"rule {code} raised {type(exc).__name__}: {exc}"
            return [ctx.finding(1, 1, "ST006", message, code)]

    def report(self) -> LintResult:
        """The engine's own findings (files it could not read or parse) and the rules',
        after suppressions, sorted."""
        store = self.store
        result: list[Finding] = []
        for f in store.files:
            path = f.relpath
            if not self._is_selected(path):
                continue
            error = store.screens[path].error or (
                store.facts[path].error if path in store.facts else None
            )
            if error is not None:
                code, line, col, message = error
                result.append(Finding(path, line, col, code, message, anchor=message))
            elif path in store.facts or store.screens[path].marker:
                self.per_file.setdefault(path, [])
        for path, found in self.per_file.items():
            parsed = store.facts.get(path)
            suppressions = parsed.suppressions if parsed is not None else ()
            if not suppressions and store.screens[path].marker:
                suppressions = scan_suppressions(store.item(path).decoded())
            result.extend(apply_suppressions(path, found, suppressions))
        checked = sum(1 for f in store.files if self._is_selected(f.relpath))
        return LintResult(
            tuple(sort_findings(result)), checked, len(store.facts), False, self.rules
        )
