"""The validated policy: :class:`LintConfig`, its :class:`Boundary` and :class:`IgnoreEntry`
records, and :class:`ConfigError`, the usage error an invalid or missing policy raises.

Every record is frozen; :mod:`sealed_trace.lint.config.parse` builds them from the
declarations of :mod:`sealed_trace.lint.config.fields`.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from sealed_trace.lint.catalog import matches_rule
from sealed_trace.lint.discover import SourceFile

__all__ = [
    "DEFAULT_EDGE_KINDS",
    "DEFAULT_MAX_FILE_BYTES",
    "EDGE_KINDS",
    "UNHIDEABLE",
    "Boundary",
    "ConfigError",
    "IgnoreEntry",
    "LintConfig",
    "name_is_banned",
]

DEFAULT_MAX_FILE_BYTES: Final = 4 * 1024 * 1024
#: Findings no selection, ignore or baseline can hide: a file the lint could not read, or a
#: rule that crashed, is never a silent pass.
UNHIDEABLE: Final = frozenset({"ST001", "ST002", "ST006"})
#: How an import runs (see :mod:`sealed_trace.lint.graph`), in the policy's spelling.
EDGE_KINDS: Final = ("module", "function", "main", "type-checking")
#: ADR-0230 §15: an import statement anywhere is a dependency (every kind counts for reverse
#: dependencies); what runs at import time is what loads (module level only for the closure).
DEFAULT_EDGE_KINDS: Final = {"reverse": EDGE_KINDS, "closure": ("module",)}


class ConfigError(Exception):
    """An invalid or missing policy. ``problems`` lists one line per problem, in file order;
    ``lines`` the line of the policy file each one is about, where it can be found (None
    otherwise). :meth:`located` gives them as ``file:line: problem``."""

    def __init__(
        self, source: str, problems: list[str], lines: list[int | None] | None = None
    ) -> None:
        self.source = source
        self.problems = list(problems)
        self.lines = list(lines) if lines is not None else [None] * len(self.problems)
        super().__init__(f"{source}: " + "; ".join(self.problems))

    def located(self) -> list[str]:
        """One ``source[:line]: problem`` string per problem."""
        return [
            f"{self.source}:{line}: {p}" if line else f"{self.source}: {p}"
            for p, line in zip(self.problems, self.lines, strict=True)
        ]


@dataclass(frozen=True, slots=True)
class Boundary:
    """One ``[[tool.sealed_trace.boundary]]`` with its preset merged in.

    ``allowed_imports``, ``banned`` and ``forbidden_fields`` are the preset's entries followed
    by the boundary's own; ``upstream`` keeps the patterns as written.
    """

    name: str
    module: str
    preset: str
    allowed_imports: tuple[str, ...]
    banned: tuple[str, ...]
    forbidden_fields: tuple[str, ...]
    upstream: tuple[str, ...]
    type_checking_imports: str = "count"
    #: check the sealed module's whole first-party import closure (ST404)
    closure: bool = False
    #: functions the boundary may take from first-party allowed modules (ST104), as patterns
    allowed_callables: tuple[str, ...] = ()
    #: edge kinds that count for reverse dependencies and their chains (ST401-ST403)
    reverse_edge_kinds: tuple[str, ...] = DEFAULT_EDGE_KINDS["reverse"]
    #: edge kinds that load a module into the closure (ST404)
    closure_edge_kinds: tuple[str, ...] = DEFAULT_EDGE_KINDS["closure"]

    def allows_import(self, module: str) -> bool:
        """True when ``module`` is an allowed name or a submodule of one."""
        return any(module == a or module.startswith(a + ".") for a in self.allowed_imports)

    def is_banned(self, qualified_name: str) -> bool:
        """True when ``qualified_name`` matches a banned pattern or lies below a banned name."""
        return name_is_banned(qualified_name, self.banned)

    def module_is_banned(self, module: str) -> bool:
        """True when ``module`` is banned, or every name in it is (``module.*`` is banned)."""
        return self.is_banned(module) or f"{module}.*" in self.banned

    def star_is_banned(self, module: str) -> bool:
        """True when ``from module import *`` could bind a banned name."""
        return any(_star_reaches(pattern, module) for pattern in self.banned)

    def is_upstream(self, module: str) -> bool:
        """True when ``module`` matches an upstream pattern and is not the sealed module."""
        if self.seals(module):
            return False
        return _matcher(self.upstream)(module)

    def seals(self, module: str) -> bool:
        """True when ``module`` is the sealed module or inside it (a sealed package)."""
        return module == self.module or module.startswith(self.module + ".")


def _star_reaches(pattern: str, module: str) -> bool:
    """Whether the banned ``pattern`` covers ``module`` or a name a star import of it binds."""
    prefix = module + "."
    literal = pattern.split("*", 1)[0]
    if pattern == module or module.startswith(pattern + "."):
        return True
    return literal.startswith(prefix) or ("*" in pattern and prefix.startswith(literal))


def name_is_banned(qualified_name: str, patterns: Iterable[str]) -> bool:
    """Match ``a.b.c`` against banned patterns (``*`` spans dots; a name bans its attributes)."""
    found = _banned_matcher(tuple(patterns))
    return found(qualified_name)


@functools.lru_cache(maxsize=256)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a name matches one of the glob ``patterns`` (``fnmatch``'s, case-sensitive), as
    one compiled pattern: a policy's patterns are asked about every module of a tree."""
    if not patterns:
        return lambda name: False
    compiled = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))
    return lambda name: compiled.match(name) is not None


@functools.lru_cache(maxsize=256)
def _banned_matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """:func:`name_is_banned` for one tuple of patterns: a name without ``*`` bans itself and
    what lies below it (its attributes, its submodules), a pattern with ``*`` what it
    matches."""
    names = frozenset(p for p in patterns if "*" not in p)
    wildcard = _matcher(tuple(p for p in patterns if "*" in p))

    def banned(qualified_name: str) -> bool:
        if wildcard(qualified_name):
            return True
        name = qualified_name
        while True:
            if name in names:
                return True
            name, dot, _ = name.rpartition(".")
            if not dot:
                return False

    return banned


@dataclass(frozen=True, slots=True)
class IgnoreEntry:
    """One ``[[tool.sealed_trace.ignore]]``: findings in files matching one of ``paths`` (glob
    patterns of root-relative POSIX paths) with a code matching one of ``codes`` (codes,
    prefixes or kebab names), of one of ``boundaries`` (names; ``("*",)`` or empty: every
    boundary) are not failures, for the stated ``reason``. ``index`` is its position among
    the entries."""

    paths: tuple[str, ...]
    codes: tuple[str, ...]
    reason: str
    index: int
    boundaries: tuple[str, ...] = ()

    def ignores(self, path: str, code: str, boundary: str = "") -> bool:
        """Whether this entry covers a finding of ``code`` in ``path`` for ``boundary`` (a
        finding of no boundary, such as ST001, is covered whatever the scope)."""
        scoped = self.boundaries and "*" not in self.boundaries and boundary
        return (
            not (scoped and boundary not in self.boundaries)
            and code not in UNHIDEABLE
            and any(
                fnmatch.fnmatchcase(path, p) or path.startswith(p.rstrip("/") + "/")
                for p in self.paths
            )
            and any(matches_rule(c, code) for c in self.codes)
        )


@dataclass(frozen=True, slots=True)
class LintConfig:
    """A validated policy.

    ``root``: directory of the pyproject (paths are relative to it); ``source_roots``: absolute
    directories; ``boundaries``: at least one; ``exclude``: glob patterns of root-relative POSIX
    paths; ``cache_dir``: absolute directory or None (disabled); ``max_file_bytes``: files above
    it are ST002; ``jobs``: worker processes (0 = one per core); ``files``: the discovery made
    while validating, reused by the engine.
    """

    root: str
    config_path: str
    source_roots: tuple[str, ...]
    boundaries: tuple[Boundary, ...]
    exclude: tuple[str, ...] = ()
    cache_dir: str | None = None
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    jobs: int = 0
    files: tuple[SourceFile, ...] = field(default=(), compare=False)
    #: the project's Python ``(major, minor)`` files are parsed for; None: the interpreter's
    target_version: tuple[int, int] | None = None
    #: the baseline file (absolute), or None
    baseline: str | None = None
    ignores: tuple[IgnoreEntry, ...] = ()
    #: rule selectors: report only ``select`` (all when empty), never ``deselect``
    select: tuple[str, ...] = ()
    deselect: tuple[str, ...] = ()

    def selects(self, code: str) -> bool:
        """Whether findings of ``code`` are reported under ``select``/``deselect``."""
        if code in UNHIDEABLE:
            return True
        if self.select and not any(matches_rule(s, code) for s in self.select):
            return False
        return not any(matches_rule(s, code) for s in self.deselect)

    def policy_hash(self) -> str:
        """SHA-256 of everything in the policy that can change a finding."""
        payload = {
            "roots": [os.path.relpath(r, self.root) for r in self.source_roots],
            "exclude": list(self.exclude),
            "max": self.max_file_bytes,
            "target": list(self.target_version) if self.target_version else None,
            "boundaries": [
                [
                    b.name,
                    b.module,
                    b.preset,
                    b.allowed_imports,
                    b.banned,
                    b.forbidden_fields,
                    b.upstream,
                    b.type_checking_imports,
                    b.closure,
                    b.allowed_callables,
                    b.reverse_edge_kinds,
                    b.closure_edge_kinds,
                ]
                for b in self.boundaries
            ],
        }
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()
