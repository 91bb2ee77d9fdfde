"""The boundary-lint engine: screen, scan, parse where a rule can fire, judge, report.

Pipeline (issue 3 §5-§6, issue 8 §2-§3; ADR-0230 §5, §7.3, §15):

1. **Screen** every discovered file once (:func:`.screen.load`): a file that cannot be read,
   decoded, or holds a NUL byte is ST001/ST002, never a crash and never a silent pass. Only a
   few flags are kept per file, never its text.
2. **Scan** the static import graph of the whole tree with grimp's compiled scanner
   (:mod:`.grimp_scan`): every import statement of every module. Files the scanner should not
   judge alone (a non-UTF-8 or non-normal-form text, a relative import above the top package,
   an import of a first-party name it cannot resolve, a file it rejects) are parsed exactly.
3. **Model the runtime.** Importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py``:
   an edge to a module is also an edge to each of its ancestor packages (but an importer's own
   ancestors, which ran before it did). ``R`` is the set of modules reaching a sealed module
   over the known edges; an upstream module in ``R`` is a finding.
4. **Parse what can change a verdict or a message** (a fixpoint, :mod:`.plan`): the sealed
   modules get libcst with scope metadata; the standard-library pass (:mod:`.ast_pass`) reads
   the files the scanner rejected, the allowed modules a sealed module imports, and, among the
   upstream modules, their packages and what the clean upstream modules load, those whose
   text may hide an edge from the scan (:mod:`.hiding`); then the cause of each finding and
   the chain steps it shows whose kind the scan cannot tell (:class:`.graph.EdgeKind`: module
   level, in a function, under ``TYPE_CHECKING``, under the ``__main__`` guard). The
   boundary's ``edge_kinds`` says which kinds count for reverse dependencies and for the
   closure.
5. **Judge** facts against each boundary with the rules: reverse dependencies once per root
   cause (:mod:`.reverse`), the closure when the boundary asks for it (:mod:`.closure`);
   apply suppressions, sort.
6. **Warm path**: when policy, rules, selection and the stat fingerprints of all files equal
   the previous run's, the cached findings are returned without reading any file.

Reading, scanning, parsing, the facts cache and the import graph those facts make are the fact
store's (:mod:`.store`); this module decides what to parse and what each boundary's findings
are. The engine never imports or executes scanned code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sealed_trace.lint import screen
from sealed_trace.lint.cache import RUN_FILE, LintCache
from sealed_trace.lint.catalog import RuleInfo, register_rule_info
from sealed_trace.lint.closure import ClosureCheck
from sealed_trace.lint.config import Boundary, LintConfig
from sealed_trace.lint.discover import SourceFile, discover, is_excluded
from sealed_trace.lint.findings import Finding, sort_findings
from sealed_trace.lint.layout import Layout
from sealed_trace.lint.plan import ParsePlan
from sealed_trace.lint.reverse import BoundaryReach, reverse_kinds
from sealed_trace.lint.rules import BUILTIN_RULES, ClosureEdge, Rule, RuleContext
from sealed_trace.lint.store import ENGINE_VERSION, FactStore, SealedPass
from sealed_trace.lint.suppressions import apply_suppressions, scan_suppressions

__all__ = ["CACHE_FILE", "ENGINE_VERSION", "LintResult", "lint"]

#: The last run's cache file (:mod:`.cache`).
CACHE_FILE = RUN_FILE


@dataclass(frozen=True, slots=True)
class LintResult:
    """Outcome of one lint run: sorted ``findings`` of the selected files, how many files were
    ``checked`` and ``parsed`` by the lint itself, whether the warm ``cache_hit`` path
    answered, the ``rules`` that ran (for SARIF's rule table) and the lint's own wall time in
    ``seconds``."""

    findings: tuple[Finding, ...]
    checked: int
    parsed: int
    cache_hit: bool
    rules: tuple[Rule, ...] = ()
    seconds: float = 0.0


def _environment() -> list[object]:
    """What changes when packages (and so plugins) are installed or removed."""
    out: list[object] = [sys.version, list(sys.path)]
    for entry in sys.path:
        if os.path.basename(entry) in ("site-packages", "dist-packages"):
            with contextlib.suppress(OSError):
                out.append([entry, os.stat(entry).st_mtime_ns])
    return out


def _rule_key(rules: Sequence[Rule]) -> list[str]:
    return [f"{type(r).__module__}.{type(r).__qualname__}:{r.code}" for r in rules]


def lint(
    config: LintConfig,
    paths: Sequence[str] = (),
    *,
    extra_rules: Sequence[Rule] = (),
    use_cache: bool = True,
    jobs: int | None = None,
    on_parse: Callable[[str], None] | None = None,
    rule_loader: Callable[[], Sequence[Rule]] | None = None,
) -> LintResult:
    """Lint the project described by ``config``.

    ``paths`` (files or directories, absolute or relative to the current directory) limit the
    *reported* files; the import graph is always built from every module of the source roots.
    Raises ``FileNotFoundError`` for a path that does not exist. ``on_parse`` is called with
    each relpath the lint parses itself (tests use it to prove what the fixpoint skips).
    ``rule_loader`` returns plugin rules; it is called only when the warm cache cannot answer
    (the installed environment, fingerprinted by ``sys.path`` and the mtimes of its
    ``site-packages`` directories, is part of the warm key), so an unchanged project is
    answered without scanning entry points. ``jobs`` is accepted for compatibility: the
    compiled scanner uses every core by itself.
    """
    started = time.perf_counter()
    del jobs
    rules: tuple[Rule, ...] = (*BUILTIN_RULES, *extra_rules)
    files, selected = _files_of(config, paths)
    cache = LintCache(config.cache_dir if use_cache else None)
    env = _environment() if rule_loader is not None else []
    run_key = hashlib.sha256(
        json.dumps(
            [ENGINE_VERSION, config.policy_hash(), _rule_key(rules), sorted(selected or []), env]
        ).encode()
    ).hexdigest()
    fingerprints = {f.relpath: [*f.fingerprint, f.problem or ""] for f in files}
    cached = _warm(cache, run_key, fingerprints)
    if cached is not None:
        checked = len(fingerprints if selected is None else selected)
        return LintResult(cached, checked, 0, True, rules, time.perf_counter() - started)
    plugin_rules: tuple[Rule, ...] = tuple(rule_loader()) if rule_loader is not None else ()
    rules = (*rules, *plugin_rules)
    result, known = _Run(config, files, selected, rules, cache, on_parse).execute()
    cache.save(
        {
            "key": run_key,
            "fingerprints": fingerprints,
            "plugin_rules": [
                [r.code, r.name, r.summary, r.explanation, "plugin"] for r in plugin_rules
            ],
            "findings": [f.to_dict() for f in result.findings],
        },
        known,
    )
    return dataclasses.replace(result, seconds=time.perf_counter() - started)


def _files_of(config: LintConfig, paths: Sequence[str]) -> tuple[list[SourceFile], set[str] | None]:
    """Every file of the source roots (and of ``paths`` outside them), and the relpaths to
    report (None: all)."""
    files = list(config.files) or discover(config.root, config.source_roots, (), ())
    selected: set[str] | None = None
    if paths:
        chosen = discover(config.root, (), tuple(paths), config.exclude)
        selected = {f.relpath for f in chosen}
        known = {f.relpath for f in files}
        files += [f for f in chosen if f.relpath not in known]
    if config.exclude:  # excluded files are in the graph, never reported
        reported = selected if selected is not None else {f.relpath for f in files}
        selected = {p for p in reported if not is_excluded(p, config.exclude)}
    return files, selected


def _warm(
    cache: LintCache, run_key: str, fingerprints: dict[str, list[object]]
) -> tuple[Finding, ...] | None:
    """The previous run's findings when nothing changed since (step 6), its plugin rules
    registered; None otherwise."""
    run = cache.last_run()
    if not (
        isinstance(run, dict)
        and run.get("key") == run_key
        and run.get("fingerprints") == fingerprints
        and isinstance(run.get("findings"), list)
    ):
        return None
    try:
        cached = tuple(Finding.from_dict(d) for d in run["findings"])
    except (KeyError, TypeError, ValueError):
        return None
    for info in run.get("plugin_rules", []):
        with contextlib.suppress(ValueError, TypeError):
            register_rule_info(RuleInfo(*info))
    return cached


class _Run:
    """One cold or partly cached run (steps 1-5 of the module docstring)."""

    def __init__(
        self,
        config: LintConfig,
        files: list[SourceFile],
        selected: set[str] | None,
        rules: tuple[Rule, ...],
        cache: LintCache,
        on_parse: Callable[[str], None] | None,
    ) -> None:
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
        self._reach: dict[tuple[str, int], BoundaryReach] = {}
        self._upstreams: dict[str, list[str]] = {}
        self._sealeds: dict[str, list[str]] = {}
        #: ST404 per (boundary name, sealed module)
        self.closures: dict[tuple[str, str], tuple[ClosureEdge, ...]] = {}
        judges_upstream = any(
            set(rule.roles) - {"boundary"} for rule in rules if rule not in BUILTIN_RULES
        )
        self.plan = ParsePlan(self.store, config.boundaries, self.reach_of, judges_upstream)

    # -- reading ---------------------------------------------------------------------------
    def _is_selected(self, relpath: str) -> bool:
        return self.selected is None or relpath in self.selected

    def reach_of(self, b: Boundary) -> BoundaryReach:
        """What reaches ``b``'s sealed module over the facts known now, never through a module
        ``b`` seals (see :class:`.reverse.BoundaryReach`)."""
        key = (b.name, len(self.store.facts))
        cached = self._reach.get(key)
        if cached is None:
            hop = self.store.graph.reach(self._sealed(b), reverse_kinds(b), b.seals)
            cached = self._reach[key] = BoundaryReach(self.store, b, hop, self._upstream(b))
        return cached

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
        per_file: dict[str, list[Finding]] = {}
        for b in self.config.boundaries:
            self._judge(b, per_file)
        return self._report(per_file), self.store.known()

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

    def _judge(self, b: Boundary, per_file: dict[str, list[Finding]]) -> None:
        """Step 5 for one boundary: its sealed and upstream modules, the packages above
        upstream modules that cause a reverse dependency, and the reached modules."""
        reach = self.reach_of(b)
        causes = reach.root_causes()
        first_party = frozenset(self.store.modules)
        for path, facts in list(self.store.facts.items()):
            module = self.store.by_path[path].module
            if module is None or facts.error is not None or not self._is_selected(path):
                continue
            if self.store.modules.get(module) != path:
                continue
            if b.seals(module):
                closure = self.closures.get((b.name, module), ())
                ctx = RuleContext(path, module, facts, b, "boundary", self.store.text_of(path))
                ctx = dataclasses.replace(
                    ctx, first_party=first_party, closure=closure, kind_of=self.store.kind_of
                )
            elif b.is_upstream(module):
                edges = reach.cause_edges(module, causes.get(module))
                ctx = RuleContext(
                    path, module, facts, b, "upstream", self.store.text_of(path), edges, first_party
                )
            else:
                continue
            self._run_rules(per_file, ctx)
        for package, affected in causes.items():
            path = self.store.modules[package]
            package_facts = self.store.facts.get(path)
            if b.is_upstream(package) or package_facts is None or package_facts.error is not None:
                continue
            if not self._is_selected(path):
                continue
            edges = reach.cause_edges(package, affected)
            ctx = RuleContext(
                path, package, package_facts, b, "ancestor", self.store.text_of(path), edges
            )
            self._run_rules(
                per_file, dataclasses.replace(ctx, first_party=first_party, affected=affected)
            )
        for module, chain in reach.reached():
            path = self.store.modules[module]
            if self._is_selected(path):
                ctx = RuleContext(
                    path, module, self.store.facts[path], b, "reached", self.store.text_of(path)
                )
                ctx = dataclasses.replace(ctx, first_party=first_party, reached_from=chain)
                self._run_rules(per_file, ctx)

    def _report(self, per_file: dict[str, list[Finding]]) -> LintResult:
        """The engine's own findings (files it could not read or parse) and the rules',
        after suppressions, sorted."""
        result: list[Finding] = []
        for f in self.store.files:
            path = f.relpath
            if not self._is_selected(path):
                continue
            error = self.store.screens[path].error or (
                self.store.facts[path].error if path in self.store.facts else None
            )
            if error is not None:
                code, line, col, message = error
                result.append(Finding(path, line, col, code, message, anchor=message))
            elif path in self.store.facts or self.store.screens[path].marker:
                per_file.setdefault(path, [])
        for path, found in per_file.items():
            parsed = self.store.facts.get(path)
            suppressions = parsed.suppressions if parsed is not None else ()
            if not suppressions and self.store.screens[path].marker:
                suppressions = scan_suppressions(self.store.item(path).decoded())
            result.extend(apply_suppressions(path, found, suppressions))
        checked = sum(1 for f in self.store.files if self._is_selected(f.relpath))
        return LintResult(
            tuple(sort_findings(result)), checked, len(self.store.facts), False, self.rules
        )

    def _run_rules(self, per_file: dict[str, list[Finding]], ctx: RuleContext) -> None:
        found = per_file.setdefault(ctx.path, [])
        for rule in self.rules:
            if ctx.role in rule.roles:
                found.extend(self._check(rule, ctx))

    def _check(self, rule: Rule, ctx: RuleContext) -> list[Finding]:
        try:
            return list(rule.check(ctx))
        except Exception as exc:  # a plugin rule must never make the lint crash or pass
            return [
                ctx.finding(
                    1,
                    1,
                    "ST006",
                    f"rule {getattr(rule, 'code', '?')} raised {type(exc).__name__}: {exc}",
                    f"{getattr(rule, 'code', '?')}",
                )
            ]
