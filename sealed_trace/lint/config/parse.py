"""Validating a ``[tool.sealed_trace]`` table: :func:`parse_config`.

One loop reads the table against the declarations of
:mod:`sealed_trace.lint.config.fields`; then the boundaries' module names are matched
against the modules of the source roots. Every problem found is collected and raised at once
as one :class:`~sealed_trace.lint.config.model.ConfigError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from sealed_trace.lint.config.checks import suggest
from sealed_trace.lint.config.fields import TOP_FIELDS, TopKeys
from sealed_trace.lint.config.model import Boundary, ConfigError, IgnoreEntry, LintConfig
from sealed_trace.lint.config.names import Names, match_targets
from sealed_trace.lint.config.table import Reading, read_table
from sealed_trace.lint.discover import SourceFile, discover

__all__ = ["Discover", "parse_config"]

#: ``discover_files(root, source_roots, exclude)``: the source files of the roots.
Discover: TypeAlias = Callable[[str, tuple[str, ...], tuple[str, ...]], list[SourceFile]]


def parse_config(
    data: dict[str, Any],
    root: str,
    config_path: str,
    *,
    discover_files: Discover | None = None,
    requires_python: object = None,
) -> LintConfig:
    """Validate the ``[tool.sealed_trace]`` table ``data``; raise :class:`ConfigError` if bad.

    ``discover_files(root, source_roots, exclude)`` lists the modules used to check that each
    ``module`` and ``upstream`` pattern matches something (default: the real file system).
    ``requires_python`` (the project's ``requires-python``) gives ``target_version``'s
    default.
    """
    reading = Reading(root, requires_python)
    values = read_table(TOP_FIELDS, data, "", reading)
    roots = values[TopKeys.source_roots]
    files: list[SourceFile] = []
    if roots:
        # Matched with the roots that exist, whatever else is wrong: every problem at once.
        finder = discover_files or _discover_all
        # Excluded files are not reported, but they are modules all the same: their imports
        # count (an excluded directory must not cut a chain that runs through it).
        files = finder(root, roots, ())
        modules = {f.module for f in files if f.module is not None}
        names = Names(modules, values[TopKeys.third_party])
        match_targets(reading.targets, names, reading.problems)
    _check_ignore_scopes(values[TopKeys.ignore], values[TopKeys.boundary], reading)
    if reading.problems:
        raise ConfigError(config_path, reading.problems)
    return LintConfig(
        root=root,
        config_path=config_path,
        source_roots=roots,
        boundaries=values[TopKeys.boundary],
        exclude=values[TopKeys.exclude],
        cache_dir=values[TopKeys.cache_dir],
        max_file_bytes=values[TopKeys.max_file_bytes],
        jobs=values[TopKeys.jobs],
        files=tuple(files),
        target_version=values[TopKeys.target_version],
        baseline=values[TopKeys.baseline],
        ignores=values[TopKeys.ignore],
        select=values[TopKeys.select],
        deselect=values[TopKeys.deselect],
    )


def _discover_all(root: str, roots: tuple[str, ...], exclude: tuple[str, ...]) -> list[SourceFile]:
    return discover(root, roots, (), exclude)


def _check_ignore_scopes(
    ignores: tuple[IgnoreEntry, ...], boundaries: tuple[Boundary, ...], reading: Reading
) -> None:
    """Each ignore entry names boundaries the policy declares; with several boundaries,
    every entry says which (or ``"*"``), so that one written for a boundary never hides a
    finding of another."""
    names = [b.name for b in boundaries]
    for entry in ignores:
        where = f"ignore[{entry.index}].boundary"
        for name in entry.boundaries:
            if name != "*" and name not in names:
                reading.problem(f"{where}: no boundary is named {name!r}{suggest(name, names)}")
        if not entry.boundaries and len(names) > 1:
            reading.problem(
                f"{where} is required with several boundaries: name one ({', '.join(names)}), "
                'or "*" for every boundary'
            )
