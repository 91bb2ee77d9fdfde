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

from sealed_trace.lint.cache import ENGINE_VERSION, RUN_FILE, LintCache
from sealed_trace.lint.catalog import RuleInfo, register_rule_info
from sealed_trace.lint.config import LintConfig
from sealed_trace.lint.discover import SourceFile, discover, is_excluded
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules import BUILTIN_RULES, Rule

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
    every_chain: bool = True,
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
    compiled scanner uses every core by itself. ``every_chain``: a reverse-dependency
    finding carries the chain of each upstream module it affects (JSON and SARIF show them);
    without, only its own (the message's), and the other chains cost no parse.
    """
    started = time.perf_counter()
    del jobs
    rules: tuple[Rule, ...] = (*BUILTIN_RULES, *extra_rules)
    files, selected = _files_of(config, paths)
    cache = LintCache(config.cache_dir if use_cache else None)
    run_key = _run_key(config, rules, selected, rule_loader is not None, every_chain)
    fingerprints = {f.relpath: [*f.fingerprint, f.problem or ""] for f in files}
    cached = _warm(cache, run_key, fingerprints)
    if cached is not None:
        checked = len(fingerprints if selected is None else selected)
        return LintResult(cached, checked, 0, True, rules, time.perf_counter() - started)
    plugin_rules: tuple[Rule, ...] = tuple(rule_loader()) if rule_loader is not None else ()
    rules = (*rules, *plugin_rules)
    # the parse machinery loads on a cache miss only: the warm path never pays for it
    from sealed_trace.lint.run import ColdRun

    run = ColdRun(config, files, selected, rules, cache, on_parse, every_chain)
    result, known = run.execute()
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


def _run_key(
    config: LintConfig,
    rules: Sequence[Rule],
    selected: set[str] | None,
    with_plugins: bool,
    every_chain: bool,
) -> str:
    """What a warm answer must have been computed with, besides the files: the engine, the
    policy, the rules, the reported files, the installed environment (when plugin rules are
    loaded) and whether every chain was asked for."""
    env = _environment() if with_plugins else []
    key = [
        ENGINE_VERSION,
        config.policy_hash(),
        _rule_key(rules),
        sorted(selected or []),
        env,
        every_chain,
    ]
    return hashlib.sha256(json.dumps(key).encode()).hexdigest()


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
