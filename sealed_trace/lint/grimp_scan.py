"""The static import graph of a whole tree, from grimp's compiled import scanner.

The engine needs every module's import statements to know which modules an upstream module
loads; parsing every file with the standard-library parser costs several seconds on a real
repository. grimp (import-linter's engine) scans import statements with a compiled parser on
every core, at a small fraction of that. This adapter is the only module that imports grimp.

What it returns is only the *static* graph: the targets of ``import`` and ``from ... import``
statements anywhere in a file (functions, ``try``, ``if TYPE_CHECKING:`` included), resolved
to first-party modules as the engine resolves them, plus the top-level names of the other
modules imported. Everything the lint knows beyond that (literal dynamic imports, star
imports and ``__all__``, attribute chains, exact ``TYPE_CHECKING`` guards, imports inside
functions) comes from the engine's own parse of the files that can need it.

Scanning fails closed file by file: a file grimp cannot read or parse is returned in
``failed`` (the engine then parses it itself and reports what CPython says), and one bad file
never costs the rest of the tree its edges.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ScanTarget", "StaticEdge", "StaticGraph", "scan"]

#: Modules per call of the scanner once a file has failed: a further bad file costs a rescan
#: of its chunk only, and a call costs a few milliseconds besides the scan itself.
_CHUNK = 256


@dataclass(frozen=True, slots=True)
class ScanTarget:
    """One module to scan: its dotted ``module`` name, the source ``root`` directory it lies
    in (absolute), and whether it is a package ``__init__``."""

    module: str
    root: str
    abspath: str


#: An import statement of a scanned module that resolves to first-party module ``target``, at
#: 1-based ``line`` (the statement's first line): ``(target, line)``.
StaticEdge = tuple[str, int]


@dataclass(slots=True)
class StaticGraph:
    """The scan's outcome: ``edges`` (first-party, per scanned module), ``external`` (top-level
    names of other modules imported, per module), ``unresolved`` (modules with an import of a
    first-party name the scanner could not resolve: the engine parses those itself) and
    ``failed`` (module -> why grimp could not scan it)."""

    edges: dict[str, tuple[StaticEdge, ...]]
    external: dict[str, frozenset[str]]
    unresolved: set[str]
    failed: dict[str, str]

    def merge(self, other: StaticGraph) -> None:
        """Add ``other``'s modules (a scan of other modules of the same tree)."""
        self.edges.update(other.edges)
        self.external.update(other.external)
        self.unresolved |= other.unresolved
        self.failed.update(other.failed)


def _grimp() -> tuple[Any, Any, Any, Any]:
    """grimp's scanner and the value types it takes (its ports' types)."""
    # grimp loads on a cold run only (a warm lint never scans)
    import grimp  # noqa: F401  (configures grimp's file-system adapter, which the scan reads)
    from grimp.application.ports.modulefinder import FoundPackage, ModuleFile
    from grimp.application.scanning import scan_imports
    from grimp.domain.valueobjects import Module

    return scan_imports, FoundPackage, ModuleFile, Module


def scan(targets: Sequence[ScanTarget], only: Collection[str] | None = None) -> StaticGraph:
    """Scan ``targets`` for import statements (see the module docstring); with ``only``,
    just those modules of them (the others still resolve their imports).

    Every target's module name must be unique. Never raises for a bad file: a file the scanner
    rejects (unreadable, undecodable, a syntax error, a scanner fault) is listed in ``failed``.
    Raises ``ImportError`` only when grimp itself is missing or lacks its scanner.
    """
    scan_imports, found_package, module_file, module_type = _grimp()
    first_party = {t.module for t in targets}
    tops = {m.partition(".")[0] for m in first_party}
    files = {t.module: module_file(module=module_type(t.module), mtime=0.0) for t in targets}
    packages = _packages(targets, files, found_package)
    paths = {t.module: os.path.normpath(t.abspath) for t in targets}
    graph = StaticGraph({}, {}, set(), {})
    # One call for the whole tree; once a file has failed, the rest goes in chunks, so that
    # each further bad file costs a rescan of its chunk only.
    pending = [sorted(first_party if only is None else set(only) & first_party)]
    while pending:
        chunk = pending.pop()
        if not chunk:
            continue
        try:
            result = scan_imports(
                [files[m] for m in chunk],
                found_packages=packages,
                include_external_packages=True,
                exclude_type_checking_imports=False,
            )
        except BaseException as exc:  # a Rust panic is a BaseException
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            pending.extend(_after_failure(exc, chunk, paths, graph))
            continue
        for mfile, imports in result.items():
            _record(graph, mfile.module.name, imports, first_party, tops)
    return graph


def _packages(targets: Sequence[ScanTarget], files: dict[str, Any], found_package: Any) -> set[Any]:
    """grimp's packages: one per source root and top-level name, with its module files."""
    by_root_top: dict[tuple[str, str], list[ScanTarget]] = {}
    for target in targets:
        by_root_top.setdefault((target.root, target.module.partition(".")[0]), []).append(target)
    return {
        found_package(
            name=top,
            directory=os.path.join(root, top),
            module_files=frozenset(files[t.module] for t in members),
        )
        for (root, top), members in by_root_top.items()
    }


def _after_failure(
    exc: BaseException, chunk: list[str], paths: dict[str, str], graph: StaticGraph
) -> list[list[str]]:
    """After a scan of ``chunk`` failed: the file it names (or the chunk's only one) is
    failed; what is left of the chunk, to scan again (halved until a culprit is alone when
    no file is named)."""
    culprit = _named_file(str(exc), chunk, paths)
    if culprit is not None and culprit in chunk:
        graph.failed[culprit] = _reason(exc)
        rest = [m for m in chunk if m != culprit]
        return [rest[i : i + _CHUNK] for i in range(0, len(rest), _CHUNK)]
    if len(chunk) == 1:
        graph.failed[chunk[0]] = _reason(exc)
        return []
    half = len(chunk) // 2
    return [chunk[:half], chunk[half:]]


def _record(
    graph: StaticGraph, module: str, imports: Iterable[Any], first_party: set[str], tops: set[str]
) -> None:
    edges: list[StaticEdge] = []
    external: set[str] = set()
    for item in imports:
        name = item.imported.name
        if name in first_party:
            edges.append((name, item.line_number))
        elif name.startswith(".") or name.partition(".")[0] in tops:
            # A first-party name the scanner could not resolve (``import pkg.missing.deeper``
            # still runs ``pkg``) or a relative import above the top package: parsed exactly.
            graph.unresolved.add(module)
        else:
            external.add(name.partition(".")[0])
    edges.sort(key=lambda e: (e[1], e[0]))
    graph.edges[module] = tuple(edges)
    graph.external[module] = frozenset(external)


def _named_file(message: str, chunk: Sequence[str], paths: dict[str, str]) -> str | None:
    """The module of the chunk whose file the scanner's message names (the longest path)."""
    named = [m for m in chunk if paths[m] in message]
    return max(named, key=lambda m: len(paths[m])) if named else None


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]
