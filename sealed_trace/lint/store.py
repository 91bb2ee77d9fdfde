"""The lint's fact store: what it knows about the files of one run.

Reading (each file screened once, its text loaded only when a pass needs it), the static scan
of the whole tree (:mod:`.grimp_scan`), parsing with the standard-library pass (:mod:`.ast_pass`) or
the libcst pass (:mod:`.cst_pass`, the sealed modules on a process pool beside the scan,
:class:`SealedPass`), the facts cache (content hash, module, pass and target version), and
the import graph those facts make (:class:`.graph.ImportGraph`, updated module by
module as facts arrive). The engine (:mod:`.engine`) decides what to parse; this module only
knows how, and what a first-party name is defined as (for ST104).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from sealed_trace.lint import screen
from sealed_trace.lint.ast_pass import extract_graph_facts
from sealed_trace.lint.cache import ENGINE_VERSION, LintCache
from sealed_trace.lint.config import LintConfig
from sealed_trace.lint.cst_pool import sealed_facts, submit, workers_for
from sealed_trace.lint.definitions import Definitions
from sealed_trace.lint.facts import FileFacts
from sealed_trace.lint.graph import Edge, ImportGraph, ancestors, edges_from_facts
from sealed_trace.lint.grimp_scan import ScanTarget, scan
from sealed_trace.lint.hiding import Hiding, hiding
from sealed_trace.lint.layout import Layout
from sealed_trace.lint.records import Records
from sealed_trace.lint.suppressions import MARKER, scan_suppressions

__all__ = ["ENGINE_VERSION", "FactStore", "SealedPass"]

_MARKER = MARKER.encode()


class SealedPass:
    """The sealed modules' libcst pass on a process pool of the standard library
    (:mod:`.cst_pool`), started on construction (one worker per sealed module, leaving a
    core to the scan: several boundaries' passes run in parallel, beside it) and collected by
    :meth:`finish`.
    Cached facts are taken at once. A file whose worker dies is parsed again alone in a
    fresh pool, and is ST001 when that worker dies too (the native parser crashed). When no
    pool can be started, :meth:`finish` leaves the files unparsed and the engine parses them
    in process."""

    def __init__(self, store: FactStore, paths: list[str]) -> None:
        self.store = store
        #: (path, cache key, arguments of :func:`extract_facts`)
        self.jobs: list[tuple[str, str, tuple[Any, ...]]] = []
        for path in paths:
            item = store.items[path]
            key = store.cache_key(item, True)
            cached = store.cached(key)
            if cached is not None:
                if store.on_parse is not None:
                    store.on_parse(path)
                store.store(path, key, cached)
                continue
            args = (item.decoded(), item.file.module, item.file.is_package, store.target)
            self.jobs.append((path, key, args))
        self.futures: dict[str, Future[FileFacts]] = {}
        # Worth a pool only when this process has not loaded libcst yet (a command-line run):
        # a long-lived process (pytest, an editor) parses faster in place.
        if self.jobs and "libcst" not in sys.modules:
            self.futures = submit([(p, a) for p, _, a in self.jobs], workers_for(len(self.jobs)))

    def finish(self) -> None:
        """Store what the pool answered (see the class docstring)."""
        crashed: list[tuple[str, str, tuple[Any, ...]]] = []
        for path, key, args in self.jobs:
            future = self.futures.get(path)
            if future is None:
                continue  # no pool: parsed in process
            try:
                self._store(path, key, future.result())
            except BrokenProcessPool:
                crashed.append((path, key, args))
            except Exception:  # the worker could not run the pass: parsed in process instead
                continue
        for path, key, args in crashed:  # alone, so that a crash names its file
            future = submit([(path, args)], 1).get(path)
            if future is None:
                continue
            try:
                facts = future.result()
            except BrokenProcessPool:
                message = "the parser crashed on this file (its process ended)"
                facts = FileFacts(error=("ST001", 1, 1, message))
            except Exception:
                continue
            self._store(path, key, facts)

    def _store(self, path: str, key: str, facts: FileFacts) -> None:
        if self.store.on_parse is not None:
            self.store.on_parse(path)
        self.store.store(path, key, facts)


class FactStore:
    """The files of one run and what is known about them (see the module docstring):
    ``layout`` (:class:`.layout.Layout`) says which file each module name means; ``cache``
    holds what earlier runs found (facts by content, per-file records by stat fingerprint)."""

    def __init__(
        self,
        config: LintConfig,
        layout: Layout,
        cache: LintCache,
        on_parse: Callable[[str], None] | None,
    ) -> None:
        self.config = config
        self.layout = layout
        self.files = list(layout.files)
        self.by_path = layout.by_path
        self.roots = layout.roots
        self.modules = layout.modules
        self.packages = layout.packages
        self.shadowing = layout.shadowing
        self.cached_facts = cache.facts()
        self.layout_key = layout.key(ENGINE_VERSION, config.max_file_bytes)
        self.records = Records(cache.records(self.layout_key), layout)
        self.new_facts: dict[str, Any] = {}
        self.on_parse = on_parse
        self.screens: dict[str, screen.Screened] = {}
        self.items: dict[str, screen.Loaded] = {}
        self.facts: dict[str, FileFacts] = {}
        self.static: dict[str, tuple[tuple[str, int], ...]] = {}
        self.external: dict[str, frozenset[str]] = {}
        self._graph: ImportGraph | None = None
        #: modules whose edges changed since the graph was built, and per package the parsed
        #: modules star-importing it (their edges follow the package's ``__all__``)
        self._dirty: set[str] = set()
        self._star_importers: dict[str, set[str]] = {}
        self.target = config.target_version
        #: modules without (complete) static edges: parsed once a clean upstream loads them
        self.unscanned: set[str] = set()
        self._module_words: frozenset[bytes] | None = None
        self._sealed: dict[str, bool] = {}
        self.definitions = Definitions(self)
        self._by_file_name: dict[str, list[str]] | None = None

    def seals(self, module: str) -> bool:
        """Whether a boundary seals ``module`` (its facts come from the libcst pass)."""
        found = self._sealed.get(module)
        if found is None:
            found = self._sealed[module] = any(b.seals(module) for b in self.config.boundaries)
        return found

    def kind_of(self, qname: str) -> str:
        """What ``qname`` is defined as (:meth:`.definitions.Definitions.kind_of`)."""
        return self.definitions.kind_of(qname)

    # -- reading ---------------------------------------------------------------------------
    def screen_all(self) -> None:
        """Step 1: read every file once (those unchanged since the cached run: not at all),
        keep only its flags; an upstream module's file, and a package's above one, is asked
        what it may hide in the same read (the plan asks it of each)."""
        limit = self.config.max_file_bytes
        asked = self._upstream_files()
        for f in self.files:
            found = self.records.screened(f)
            if found is None:
                item = screen.load(f, limit)
                found = screen.screened(item, f.module if self.layout.owns(f) else None)
                if f.relpath in asked and found.error is None:
                    self.records.hidings[f.relpath] = hiding(item.scan, self._words())
            self.screens[f.relpath] = found

    def _upstream_files(self) -> set[str]:
        """The files of the modules upstream of a boundary, and of the packages above them."""
        upstream = {
            m for m in self.modules if any(b.is_upstream(m) for b in self.config.boundaries)
        }
        upstream |= {a for m in upstream for a in ancestors(m)}
        return {self.modules[m] for m in upstream if m in self.modules}

    def _words(self) -> frozenset[bytes]:
        """The last part of every first-party module name."""
        if self._module_words is None:
            self._module_words = frozenset(m.rpartition(".")[2].encode() for m in self.modules)
        return self._module_words

    def hiding(self, path: str) -> Hiding | None:
        """What the file at ``path`` may hide from the scan (:mod:`.hiding`), read again when
        first asked (only the files a verdict can depend on are asked about); None when it
        cannot be read now."""
        found = self.records.hiding(path)
        if found is None:
            item = self.items.get(path) or self._read(path)
            if item.error is not None:
                return None
            found = self.records.hidings[path] = hiding(item.scan, self._words())
        return found

    def _read(self, path: str) -> screen.Loaded:
        return screen.load(self.by_path[path], self.config.max_file_bytes)

    def item(self, path: str) -> screen.Loaded:
        """The file at ``path`` as read (kept while a pass needs its text)."""
        item = self.items.get(path)
        if item is None:
            item = self.items[path] = self._read(path)
        return item

    def scan_tree(self) -> set[str]:
        """Step 2; returns the modules the scanner rejected (parsed first thing, for CPython's
        verdict on them). Modules it must not or could not judge alone are in
        ``self.unscanned``: they are parsed when a clean upstream module loads them. A module
        whose file is unchanged since the cached run keeps that run's scan."""
        targets: list[ScanTarget] = []
        exact: set[str] = set()
        for module, path in self.modules.items():
            screened = self.screens[path]
            if screened.error is not None:
                continue
            root = self.roots[path]
            if screened.exact_only or module in self.shadowing or root is None:
                exact.add(module)
                continue
            targets.append(ScanTarget(module, root, self.by_path[path].abspath))
        reused = self.records.scanned(self.by_path[self.modules[t.module]] for t in targets)
        fresh = {t.module for t in targets} - set(reused.edges)
        graph = scan(targets, only=fresh) if fresh else reused
        if fresh:
            graph.merge(reused)
        self.static = graph.edges
        self.external = graph.external
        self.records.scans = graph
        self.unscanned = exact | graph.unresolved | set(graph.failed)
        return set(graph.failed)

    def known(self) -> dict[str, Any]:
        """What this run learnt, for the cache: facts by content key, and per file its
        fingerprint, screen, scan and hiding check."""
        return {
            "facts": self.new_facts,
            "files": {"layout": self.layout_key, "records": self.records.dump(self.screens)},
        }

    # -- parsing ---------------------------------------------------------------------------
    def cache_key(self, item: screen.Loaded, full: bool) -> str:
        digest = hashlib.sha256(item.raw).hexdigest()[:32]
        mode = "cst" if full else "ast"
        module = item.file.module or ""
        target = ".".join(map(str, self.target)) if self.target else ""
        return f"{ENGINE_VERSION}|{digest}|{module}|{int(item.file.is_package)}|{mode}|{target}"

    def parse(self, paths: Iterable[str]) -> None:
        """Parse each path not parsed yet (facts cache first)."""
        for path in sorted(set(paths)):
            if path in self.facts or self.screens[path].error is not None:
                continue
            item = self.item(path)
            if item.error is not None:
                continue
            module = item.file.module
            full = module is not None and self.seals(module)
            if self.on_parse is not None:
                self.on_parse(path)
            key = self.cache_key(item, full)
            facts = self.cached(key)
            if facts is None:
                facts = self._extract(item, full, extract_graph_facts)
            self.store(path, key, facts)

    def cached(self, key: str) -> FileFacts | None:
        hit = self.cached_facts.get(key)
        if hit is not None:
            with contextlib.suppress(KeyError, TypeError, ValueError, IndexError):
                return FileFacts.from_json(hit)
        return None

    def store(self, path: str, key: str, facts: FileFacts) -> None:
        module = self.by_path[path].module
        self.new_facts[key] = facts.to_json()
        item = self.items.get(path)
        if item is not None and _MARKER in item.scan:
            # judged here, where every rule (plugins too) is registered
            facts = dataclasses.replace(facts, suppressions=scan_suppressions(item.decoded()))
        self.facts[path] = facts
        if module is not None:
            # its edges, and those of the modules star-importing it (they follow its __all__)
            self._dirty.add(module)
            self._dirty.update(self._star_importers.get(module, ()))
            for fact in facts.imports:
                if fact.name == "*":
                    self._star_importers.setdefault(fact.module, set()).add(module)
        if module is None or not self.seals(module):  # its text is no longer needed
            self.items.pop(path, None)

    def _extract(
        self, item: screen.Loaded, full: bool, graph_pass: Callable[..., FileFacts]
    ) -> FileFacts:
        text = item.decoded()
        module, package = item.file.module, item.file.is_package
        running = sys.version_info[:2]
        if full:
            return sealed_facts(text, module, package, self.target)
        feature = self.target if self.target is not None and self.target < running else None
        facts: FileFacts = graph_pass(text, module, package, feature)
        if (
            facts.error is not None
            and facts.error[0] == "ST001"
            and self.target is not None
            and self.target > running
        ):
            # Syntax newer than this interpreter's: libcst parses for the project's Python.
            facts = sealed_facts(text, module, package, self.target)
        return facts

    # -- the graph -------------------------------------------------------------------------
    @property
    def graph(self) -> ImportGraph:
        """The import graph of what is known now (step 3): exact edges of parsed modules,
        static ones of the others; updated, module by module, after new facts are stored."""
        if self._graph is None:
            self._graph = ImportGraph(
                {m: self._direct_edges(m, path) for m, path in self.modules.items()},
                self.modules,
            )
        elif self._dirty:
            self._graph = self._graph.updated(
                {
                    m: self._direct_edges(m, self.modules[m])
                    for m in self._dirty
                    if m in self.modules
                }
            )
        self._dirty.clear()
        return self._graph

    def _direct_edges(self, module: str, path: str) -> list[Edge]:
        facts = self.facts.get(path)
        if facts is not None:
            return edges_from_facts(
                facts, module, self.modules, self._star_targets, self._files_named
            )
        # A static edge's kind is known when its line cannot hold an import that does not
        # run at module level (see screen.Screened.unknown_lines); else it is told by a parse.
        unknown = self.screens[path].unknown_lines
        return [
            Edge(t, line, 1, f"line {line}", known=unknown is not None and line not in unknown)
            for t, line in self.static.get(module, ())
        ]

    def edges(self, module: str) -> list[Edge]:
        """``module``'s edges of every kind (step 3)."""
        return self.graph.edges(module)

    def _files_named(self, name: str) -> list[str]:
        """The first-party modules whose file is named ``name`` (``runner.py``)."""
        if self._by_file_name is None:
            self._by_file_name = {}
            for module, path in self.modules.items():
                self._by_file_name.setdefault(path.rpartition("/")[2], []).append(module)
        return self._by_file_name.get(name, [])

    def _star_targets(self, package: str) -> list[str]:
        """Submodules that ``from package import *`` imports: those named in the package's
        literal ``__all__``; every direct submodule when ``__all__`` is not literal."""
        if package not in self.packages:
            return []
        facts = self.facts.get(self.modules[package])
        if facts is None or facts.error is not None or "all" not in facts.extra:
            return []
        names = facts.extra["all"]
        if names is None:
            return sorted(m for m in self.modules if m.rpartition(".")[0] == package)
        return [f"{package}.{n}" for n in names if f"{package}.{n}" in self.modules]

    def text_of(self, path: str) -> str | None:
        item = self.items.get(path)
        return item.decoded() if item is not None and item.error is None else None
