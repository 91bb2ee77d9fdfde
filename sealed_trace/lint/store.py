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
import os
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from sealed_trace.lint import screen
from sealed_trace.lint.ast_pass import extract_graph_facts
from sealed_trace.lint.config import LintConfig
from sealed_trace.lint.cst_pool import sealed_facts, submit, workers_for
from sealed_trace.lint.discover import SourceFile
from sealed_trace.lint.facts import FileFacts
from sealed_trace.lint.graph import Edge, ImportGraph, edges_from_facts, longest_module
from sealed_trace.lint.grimp_scan import ScanTarget, scan
from sealed_trace.lint.hiding import Hiding, hiding
from sealed_trace.lint.suppressions import MARKER, scan_suppressions

__all__ = ["ENGINE_VERSION", "FactStore", "SealedPass"]

ENGINE_VERSION = "10"
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
    """The files of one run and what is known about them (see the module docstring)."""

    def __init__(
        self,
        config: LintConfig,
        files: list[SourceFile],
        cached_facts: dict[str, Any],
        on_parse: Callable[[str], None] | None,
    ) -> None:
        self.config = config
        self.cached_facts = cached_facts
        self.new_facts: dict[str, Any] = {}
        self.on_parse = on_parse
        self.by_path = {f.relpath: f for f in files}
        self.files = files
        # Which file a module name means, as Python's import finds it: the first source root
        # (in ``source_roots`` order) that holds it, and there a package before a module.
        roots = [os.path.realpath(r) for r in config.source_roots]
        self.roots = {f.relpath: self._root_of(f.abspath, roots) for f in files}
        self.modules: dict[str, str] = {}
        ranked: dict[str, tuple[int, int, str]] = {}
        for f in files:
            if f.module is None:
                continue
            root = self.roots[f.relpath]
            rank = (
                roots.index(root) if root in roots else len(roots),
                0 if f.is_package else 1,
                f.relpath,
            )
            if f.module not in ranked or rank < ranked[f.module]:
                ranked[f.module] = rank
                self.modules[f.module] = f.relpath
        #: packages beside a module of the same name (``x/__init__.py`` and ``x.py``): the
        #: compiled scanner would read the module, Python imports the package
        plain = {(f.module, self.roots[f.relpath]) for f in files if not f.is_package}
        self.shadowing = {
            m
            for m, (_, kind, _) in ranked.items()
            if kind == 0 and (m, self.roots[self.modules[m]]) in plain
        }
        self.packages = {
            f.module
            for f in files
            if f.module is not None and f.is_package and self.modules.get(f.module) == f.relpath
        }
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
        self._hiding: dict[str, Hiding] = {}
        self._module_words: frozenset[bytes] | None = None
        self._kinds: dict[str, str] = {}

    @staticmethod
    def _root_of(path: str, roots: list[str]) -> str | None:
        """The longest source root ``path`` lies in."""
        best: str | None = None
        for root in roots:
            if path.startswith(root.rstrip(os.sep) + os.sep) and (
                best is None or len(root) > len(best)
            ):
                best = root
        return best

    # -- reading ---------------------------------------------------------------------------
    def seals(self, module: str) -> bool:
        return any(b.seals(module) for b in self.config.boundaries)

    def screen_all(self) -> None:
        """Step 1: read every file once, keep only its flags."""
        limit = self.config.max_file_bytes
        for f in self.files:
            owner = f.module is not None and self.modules.get(f.module) == f.relpath
            self.screens[f.relpath] = screen.screen(f, limit, f.module if owner else None)

    def hiding(self, path: str) -> Hiding | None:
        """What the file at ``path`` may hide from the scan (:mod:`.hiding`), read again when
        first asked (only the files a verdict can depend on are asked about); None when it
        cannot be read now."""
        found = self._hiding.get(path)
        if found is None:
            item = self.items.get(path) or screen.load(
                self.by_path[path], self.config.max_file_bytes
            )
            if item.error is not None:
                return None
            if self._module_words is None:
                self._module_words = frozenset(m.rpartition(".")[2].encode() for m in self.modules)
            found = self._hiding[path] = hiding(item.scan, self._module_words)
        return found

    def _read(self, path: str) -> screen.Loaded:
        return screen.load(self.by_path[path], self.config.max_file_bytes)

    def item(self, path: str) -> screen.Loaded:
        item = self.items.get(path)
        if item is None:
            item = screen.load(self.by_path[path], self.config.max_file_bytes)
            self.items[path] = item
        return item

    def scan_tree(self) -> set[str]:
        """Step 2; returns the modules the scanner rejected (parsed first thing, for CPython's
        verdict on them). Modules it must not or could not judge alone are in
        ``self.unscanned``: they are parsed when a clean upstream module loads them."""
        targets: list[ScanTarget] = []
        exact: set[str] = set()
        for module, path in self.modules.items():
            screen = self.screens[path]
            if screen.error is not None:
                continue
            root = self.roots[path]
            if screen.exact_only or module in self.shadowing or root is None:
                exact.add(module)
                continue
            targets.append(ScanTarget(module, root, self.by_path[path].abspath))
        graph = scan(targets)
        self.static = graph.edges
        self.external = graph.external
        self.unscanned = exact | graph.unresolved | set(graph.failed)
        return set(graph.failed)

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
            return edges_from_facts(facts, module, self.modules, self._star_targets)
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

    # -- ST104: what a first-party name is defined as ----------------------------------------
    def kind_of(self, qname: str) -> str:
        """What ``qname`` (``module.name`` of a first-party module) is defined as there:
        ``function``, ``class``, ``value``, ``module``, ``external:<name>`` (re-exported
        from a module outside the source roots) or ``unknown``; re-exports and aliases are
        followed through first-party modules (parsed as needed)."""
        known = self._kinds.get(qname)
        if known is None:
            known = self._kinds[qname] = self._kind_of(qname)
        return known

    def _kind_of(self, qname: str) -> str:
        kinds: set[str] = set()
        seen: set[str] = set()
        work = [qname]
        while work and len(seen) < 500:
            name = work.pop()
            if name not in seen:
                seen.add(name)
                found, more = self._definition(name)
                kinds |= found
                work.extend(more)
        for kind in ("function", "external:", "class", "value", "module"):
            match = sorted(k for k in kinds if k.startswith(kind))
            if match:
                return match[0]
        return "unknown"

    def _definition(self, name: str) -> tuple[set[str], list[str]]:
        """What ``name`` is bound to in its first-party module: the kinds found there, and
        the names it is bound through (re-exports, star imports, aliases) to follow."""
        if name in self.modules:
            return {"module"}, []
        module = longest_module(name, self.modules)
        if module is None:
            return {f"external:{name}"}, []
        first, _, rest = name[len(module) + 1 :].partition(".")
        tail = f".{rest}" if rest else ""
        path = self.modules[module]
        self.parse([path])
        facts = self.facts.get(path)
        if facts is None or facts.error is not None:
            return {"unknown"}, []
        defs: dict[str, list[str]] = facts.extra.get("defs", {})
        bindings = defs.get(first)
        if not bindings:  # perhaps bound by a star import
            stars = [b[5:] for b in defs.get("*", ()) if b.startswith("star:")]
            return (set() if stars else {"unknown"}), [f"{s}.{first}{tail}" for s in stars]
        kinds: set[str] = set()
        more: list[str] = []
        for binding in bindings:
            tag, _, value = binding.partition(":")
            if tag in ("function", "class", "value"):
                # an attribute of one of those is no name the rule can judge
                kinds.add(tag if not rest else "unknown")
            elif tag in ("import", "module"):
                more.append(value + tail)
            elif tag == "alias":
                head, _, after = value.partition(".")
                # the alias's head is a name of this same module
                more.append(f"{module}.{head}" + (f".{after}" if after else "") + tail)
        return kinds, more
