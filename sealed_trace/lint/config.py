"""Reading and validating ``[tool.sealed_trace]`` (issue 3 §1; ADR-0230 §15).

:func:`load_config` reads a ``pyproject.toml`` (``tomllib``, or ``tomli`` below Python 3.11) and
returns a :class:`LintConfig`, or raises :class:`ConfigError` listing *every* problem found:
unknown keys (with a close-match suggestion), wrong types, bad values, and ``module`` or
``upstream`` patterns that match no module in the source roots. A policy is never silently
inert. :class:`ConfigError` is a usage error (exit 2), distinct from lint findings (exit 1).
"""

from __future__ import annotations

import builtins
import difflib
import fnmatch
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from sealed_trace.lint.catalog import RULES, is_selector, matches_rule
from sealed_trace.lint.discover import SourceFile, discover
from sealed_trace.lint.presets import PRESETS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "BOUNDARY_KEYS",
    "DEFAULT_MAX_FILE_BYTES",
    "IGNORE_KEYS",
    "TOP_KEYS",
    "UNHIDEABLE",
    "Boundary",
    "ConfigError",
    "IgnoreEntry",
    "LintConfig",
    "find_config",
    "load_config",
    "name_is_banned",
    "parse_config",
]

DEFAULT_MAX_FILE_BYTES: Final = 4 * 1024 * 1024
TOP_KEYS: Final = (
    "source_roots",
    "boundary",
    "exclude",
    "cache_dir",
    "max_file_bytes",
    "jobs",
    "target_version",
    "baseline",
    "ignore",
    "select",
    "deselect",
    "third_party",
)
IGNORE_KEYS: Final = ("path", "codes", "reason")
#: Findings no selection, ignore or baseline can hide: a file the lint could not read, or a
#: rule that crashed, is never a silent pass.
UNHIDEABLE: Final = frozenset({"ST001", "ST002", "ST006"})
BOUNDARY_KEYS: Final = (
    "name",
    "module",
    "preset",
    "allowed_imports",
    "banned",
    "forbidden_fields",
    "upstream",
    "type_checking_imports",
    "closure",
    "allowed_callables",
    "edge_kinds",
)
#: How an import runs (see :mod:`sealed_trace.lint.graph`), in the policy's spelling.
EDGE_KINDS: Final = ("module", "function", "main", "type-checking")
#: ADR-0230 §15: an import statement anywhere is a dependency (every kind counts for reverse
#: dependencies); what runs at import time is what loads (module level only for the closure).
DEFAULT_EDGE_KINDS: Final = {"reverse": EDGE_KINDS, "closure": ("module",)}
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_PATTERN = re.compile(r"^[A-Za-z0-9_.*]+$")
#: What a bare name in ``banned`` can mean besides a module: a builtin (``open``).
_BUILTIN_NAMES: Final = frozenset(vars(builtins))


_Discover = Callable[[str, tuple[str, ...], tuple[str, ...]], list[SourceFile]]


@dataclass(frozen=True, slots=True)
class _Target:
    """What of one boundary is matched against the modules that exist."""

    index: int
    module: str | None
    upstream: tuple[str, ...]
    allowed: tuple[str, ...]
    banned: tuple[str, ...]
    has_upstream: bool


class _Names:
    """Which names exist: first-party modules, the standard library, the installed
    distributions' top-level modules (read from their metadata, nothing imported) and the
    policy's ``third_party`` list."""

    def __init__(self, modules: set[str], third_party: tuple[str, ...]) -> None:
        self.modules = modules
        self.tops = {m.partition(".")[0] for m in modules}
        self.packages = {m.rpartition(".")[0] for m in modules if "." in m}
        self.third_party = third_party
        self._installed: set[str] | None = None

    def installed(self) -> set[str]:
        if self._installed is None:
            try:
                from importlib.metadata import packages_distributions

                self._installed = set(packages_distributions())
            except Exception:  # broken metadata must not break the lint's config check
                self._installed = set()
        return self._installed

    def known(self, name: str) -> bool:
        """Whether ``name`` (a module or a qualified name in one) can exist."""
        literal = name.split("*", 1)[0].rstrip(".")
        if not literal:
            return True
        top = literal.partition(".")[0]
        if any(literal == t or literal.startswith(t + ".") for t in self.third_party):
            return True
        if top in self.tops:
            wildcard = "*" in name
            joint = literal if wildcard else literal + "."
            if literal in self.modules or any(m.startswith(joint) for m in self.modules):
                return True
            # an attribute of a first-party module (or a wildcard over its names), not a
            # missing submodule of a package
            owner = literal
            while owner and owner not in self.modules:
                owner = owner.rpartition(".")[0]
            return bool(owner) and (owner not in self.packages or wildcard)
        return top in sys.stdlib_module_names or top in self.installed()

    def suggest(
        self, name: str, *, first_party_only: bool = False, builtins_too: bool = False
    ) -> str:
        """`` (did you mean 'x'?)`` for a module name or pattern that names nothing: the
        closest first-party module, else (unless ``first_party_only``) the closest
        standard-library or installed one (or builtin, with ``builtins_too``); a pattern's
        wildcard tail is kept (``pkg.serach.*`` -> ``pkg.search.*``). Empty when nothing is
        close."""
        literal = name.split("*", 1)[0].rstrip(".")
        close = difflib.get_close_matches(literal, sorted(self.modules), n=1, cutoff=0.6)
        if not close and not first_party_only:
            others = set(sys.stdlib_module_names) | self.installed()
            others |= _BUILTIN_NAMES if builtins_too else set()
            close = difflib.get_close_matches(literal, sorted(others), n=1, cutoff=0.75)
        if not close or close[0] == literal:
            return ""
        return f" (did you mean {close[0] + name[len(literal) :]!r}?)"


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
        prefix = module + "."
        for pattern in self.banned:
            literal = pattern.split("*", 1)[0]
            if pattern == module or module.startswith(pattern + "."):
                return True
            if literal.startswith(prefix) or ("*" in pattern and prefix.startswith(literal)):
                return True
        return False

    def is_upstream(self, module: str) -> bool:
        """True when ``module`` matches an upstream pattern and is not the sealed module."""
        if module == self.module or module.startswith(self.module + "."):
            return False
        return any(fnmatch.fnmatchcase(module, p) for p in self.upstream)

    def seals(self, module: str) -> bool:
        """True when ``module`` is the sealed module or inside it (a sealed package)."""
        return module == self.module or module.startswith(self.module + ".")


def name_is_banned(qualified_name: str, patterns: Iterable[str]) -> bool:
    """Match ``a.b.c`` against banned patterns (``*`` spans dots; a name bans its attributes)."""
    for pattern in patterns:
        if "*" in pattern:
            if fnmatch.fnmatchcase(qualified_name, pattern):
                return True
        elif qualified_name == pattern or qualified_name.startswith(pattern + "."):
            return True
    return False


@dataclass(frozen=True, slots=True)
class IgnoreEntry:
    """One ``[[tool.sealed_trace.ignore]]``: findings in files matching one of ``paths`` (glob
    patterns of root-relative POSIX paths) with a code matching one of ``codes`` (codes,
    prefixes or kebab names) are not failures, for the stated ``reason``. ``index`` is its
    position among the entries."""

    paths: tuple[str, ...]
    codes: tuple[str, ...]
    reason: str
    index: int

    def ignores(self, path: str, code: str) -> bool:
        """Whether this entry covers a finding of ``code`` in ``path``."""
        return (
            code not in UNHIDEABLE
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


def _read_toml(path: Path) -> tuple[dict[str, Any] | None, bytes]:
    """``path`` parsed (None when it cannot be read or parsed) and its bytes."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None, b""
    try:
        return tomllib.loads(raw.decode("utf-8")), raw
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None, raw


def find_config(start: str | os.PathLike[str]) -> Path | None:
    """Return the nearest ``pyproject.toml`` at or above ``start`` whose TOML holds a
    ``tool.sealed_trace`` table (in any TOML spelling: ``[tool.sealed_trace]``, or ``[tool]``
    with ``sealed_trace.boundary = ...``). One that is not valid TOML or not UTF-8 but
    mentions ``sealed_trace`` is returned too, so that loading it says what is wrong."""
    here = Path(start).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            document, raw = _read_toml(candidate)
            if document is None:
                if b"sealed_trace" in raw or b"sealed-trace" in raw:
                    return candidate
                continue
            tool = document.get("tool")
            if isinstance(tool, dict) and "sealed_trace" in tool:
                return candidate
    return None


def _near_misses(start: str | os.PathLike[str]) -> list[str]:
    """Hints for a policy that is almost there: a ``tool`` table named like ours
    (``[tool.sealed-trace]``, ``[tool.sealedtrace]``) at or above ``start``."""
    here = Path(start).resolve()
    hints: list[str] = []
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if not candidate.is_file():
            continue
        document, _ = _read_toml(candidate)
        tool = document.get("tool") if document is not None else None
        if isinstance(tool, dict):
            for name in tool:
                folded = name.lower().replace("-", "_").replace(".", "_")
                if name != "sealed_trace" and (
                    folded == "sealed_trace"
                    or difflib.SequenceMatcher(None, folded, "sealed_trace").ratio() > 0.8
                ):
                    hints.append(f"{candidate} has [tool.{name}]: the table is [tool.sealed_trace]")
        if hints:
            break
    return hints


_KEY_LINE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")


def _key_lines(text: str) -> dict[str, int]:
    """Lines of the policy's keys: ``{"jobs": 4, "boundary[0]": 9, "boundary[0].module": 11}``
    (the first line of each; only what the headers ``[tool.sealed_trace]`` and
    ``[[tool.sealed_trace.<array>]]`` open)."""
    out: dict[str, int] = {}
    prefix: str | None = None
    counts: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            name = header.group(2).replace(" ", "").replace('"', "")
            if name == "tool.sealed_trace":
                prefix = ""
            elif name.startswith("tool.sealed_trace.") and header.group(1) == "[[":
                array = name[len("tool.sealed_trace.") :]
                index = counts.get(array, 0)
                counts[array] = index + 1
                prefix = f"{array}[{index}]"
                out.setdefault(prefix, number)
            else:
                prefix = None
            continue
        key = _KEY_LINE.match(line)
        if key and prefix is not None:
            out.setdefault(f"{prefix}.{key.group(1)}" if prefix else key.group(1), number)
    return out


_PROBLEM_KEY = re.compile(
    r"^(?:unknown key '([^']+)'|([a-z_]+\[\d+\])(?:\.([a-z_]+))?"
    r"(?:: unknown key '([^']+)')?|([a-z_]+))"
)


def _line_of(problem: str, lines: dict[str, int]) -> int | None:
    match = _PROBLEM_KEY.match(problem)
    if match is None:
        return None
    top, table, key, unknown, word = match.groups()
    if top:
        return lines.get(top)
    if table:
        inner = key or unknown
        return (
            lines.get(f"{table}.{inner}")
            if inner and f"{table}.{inner}" in lines
            else lines.get(table)
        )
    return lines.get(word or "")


def _suggest(key: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _type_name(value: object) -> str:
    """``value`` as a problem shows it: its TOML type and (shortened) the value itself."""
    kind = {
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)
    if isinstance(value, dict):
        return kind
    shown = json.dumps(value, default=str) if not isinstance(value, (int, float)) else repr(value)
    if isinstance(value, bool):
        shown = "true" if value else "false"
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"{kind} ({shown})"


def _str_list(
    value: object, where: str, problems: list[str], check: Callable[[str], str | None] | None = None
) -> tuple[str, ...]:
    if not isinstance(value, list):
        problems.append(f"{where} must be an array of strings, not {_type_name(value)}")
        return ()
    out: list[str] = []
    for index, item in enumerate(value):
        if not isinstance(item, str):
            problems.append(f"{where}[{index}] must be a string, not {_type_name(item)}")
            continue
        if check is not None:
            message = check(item)
            if message is not None:
                problems.append(f"{where}[{index}] {item!r} {message}")
                continue
        out.append(item)
    return tuple(out)


def _check_dotted(item: str) -> str | None:
    return None if _DOTTED.match(item) else "is not a dotted module name"


def _check_pattern(item: str) -> str | None:
    if not _PATTERN.match(item) or item.startswith(".") or item.endswith(".") or ".." in item:
        return "is not a qualified-name pattern (letters, digits, _, dots and *)"
    return None


def _check_selector(item: str) -> str | None:
    if is_selector(item):
        return None
    names = [*RULES, *(info.name for info in RULES.values())]
    return f"names no lint rule{_suggest(item, names)} (a code, a prefix such as 'ST2', or a name)"


def _ignores(value: object, problems: list[str]) -> tuple[IgnoreEntry, ...]:
    """The ``[[tool.sealed_trace.ignore]]`` entries; every problem reported."""
    if not isinstance(value, list):
        problems.append(
            f"ignore must be an array of tables ([[tool.sealed_trace.ignore]]), not "
            f"{_type_name(value)}"
        )
        return ()
    out: list[IgnoreEntry] = []
    for index, table in enumerate(value):
        where = f"ignore[{index}]"
        if not isinstance(table, dict):
            problems.append(f"{where} must be a table, not {_type_name(table)}")
            continue
        start = len(problems)
        for key in table:
            if key not in IGNORE_KEYS:
                problems.append(f"{where}: unknown key {key!r}{_suggest(key, IGNORE_KEYS)}")
        raw_paths = table.get("path")
        paths = (
            (raw_paths,)
            if isinstance(raw_paths, str)
            else _str_list(raw_paths, f"{where}.path", problems)
            if raw_paths is not None
            else ()
        )
        if not paths:
            problems.append(f"{where}.path is required (a glob, or an array of them)")
        codes = _str_list(table.get("codes", []), f"{where}.codes", problems, _check_selector)
        if not codes:
            problems.append(f"{where}.codes is required (codes, prefixes or rule names)")
        reason = table.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            problems.append(f"{where}.reason is required: say why these findings may stay")
        if len(problems) == start and isinstance(reason, str):
            out.append(IgnoreEntry(tuple(paths), codes, reason.strip(), index))
    return tuple(out)


def _check_identifier(item: str) -> str | None:
    return None if item.isidentifier() else "is not an identifier"


def _bare_builtin(entry: str) -> str:
    """A bare builtin name (``open``, ``eval``, ``__import__``: ADR-0230 §15.2's spelling) as
    the qualified name it means, ``builtins.open``; any other entry as written."""
    return f"builtins.{entry}" if entry in _BUILTIN_NAMES else entry


def _boundary(
    index: int,
    table: object,
    problems: list[str],
    seen_names: set[str],
    targets: list[_Target] | None = None,
) -> Boundary | None:
    where = f"boundary[{index}]"
    if not isinstance(table, dict):
        problems.append(f"{where} must be a table, not {_type_name(table)}")
        return None
    for key in table:
        if key in TOP_KEYS and key not in BOUNDARY_KEYS:
            problems.append(
                f"{where}: unknown key {key!r}: it is a [tool.sealed_trace] key; move it above "
                "the first [[tool.sealed_trace.boundary]] (every line below a table header "
                "belongs to that table)"
            )
        elif key not in BOUNDARY_KEYS:
            problems.append(f"{where}: unknown key {key!r}{_suggest(key, BOUNDARY_KEYS)}")
    start = len(problems)
    name = table.get("name")
    if name is None:
        problems.append(f"{where}.name is required")
    elif not isinstance(name, str) or not name.strip():
        problems.append(f"{where}.name must be a non-empty string, not {_type_name(name)}")
    elif name in seen_names:
        problems.append(f"{where}.name {name!r} is used by another boundary")
    else:
        seen_names.add(name)
    module = table.get("module")
    if module is None:
        problems.append(f"{where}.module is required")
    elif not isinstance(module, str) or not _DOTTED.match(module):
        problems.append(
            f"{where}.module must be a dotted module name string, not {_type_name(module)}"
        )
    preset_name = table.get("preset", "none")
    preset = None
    if not isinstance(preset_name, str):
        problems.append(f"{where}.preset must be a string, not {_type_name(preset_name)}")
    elif preset_name not in PRESETS:
        problems.append(
            f"{where}.preset {preset_name!r} is not a built-in preset"
            f"{_suggest(preset_name, PRESETS)}; known: {', '.join(sorted(PRESETS))}"
        )
    else:
        preset = PRESETS[preset_name]
    allowed = _str_list(
        table.get("allowed_imports", []), f"{where}.allowed_imports", problems, _check_dotted
    )
    banned = tuple(
        _bare_builtin(entry)
        for entry in _str_list(table.get("banned", []), f"{where}.banned", problems, _check_pattern)
    )
    fields = _str_list(
        table.get("forbidden_fields", []), f"{where}.forbidden_fields", problems, _check_identifier
    )
    upstream = _str_list(table.get("upstream", []), f"{where}.upstream", problems, _check_pattern)
    if targets is not None:  # matched against the source roots even when other keys are bad
        good_module = module if isinstance(module, str) and _DOTTED.match(module) else None
        targets.append(_Target(index, good_module, upstream, allowed, banned, "upstream" in table))
    tci = table.get("type_checking_imports", "count")
    if tci not in ("count", "ignore"):
        problems.append(f'{where}.type_checking_imports must be "count" or "ignore", not {tci!r}')
    closure = table.get("closure", False)
    if not isinstance(closure, bool):
        problems.append(f"{where}.closure must be true or false, not {_type_name(closure)}")
    callables = _str_list(
        table.get("allowed_callables", []), f"{where}.allowed_callables", problems, _check_pattern
    )
    kinds = _edge_kinds(table.get("edge_kinds", {}), f"{where}.edge_kinds", problems)
    if len(problems) != start or preset is None or not isinstance(name, str):
        return None
    if not isinstance(module, str) or not isinstance(tci, str):
        return None
    return Boundary(
        name=name,
        module=module,
        preset=preset.name,
        allowed_imports=preset.allowed_imports + allowed,
        banned=preset.banned + banned,
        forbidden_fields=preset.forbidden_fields + fields,
        upstream=upstream,
        type_checking_imports=tci,
        closure=bool(closure),
        allowed_callables=callables,
        reverse_edge_kinds=kinds["reverse"],
        closure_edge_kinds=kinds["closure"],
    )


def _edge_kinds(value: object, where: str, problems: list[str]) -> dict[str, tuple[str, ...]]:
    """``edge_kinds = {reverse = [...], closure = [...]}``: each a list of known kinds that
    includes ``"module"`` (an import that runs on import always counts)."""
    out = dict(DEFAULT_EDGE_KINDS)
    if not isinstance(value, dict):
        problems.append(f"{where} must be a table, not {_type_name(value)}")
        return out
    for key, kinds in value.items():
        if key not in out:
            problems.append(f"{where}: unknown key {key!r}{_suggest(key, tuple(out))}")
            continue
        names = _str_list(kinds, f"{where}.{key}", problems)
        unknown = [n for n in names if n not in EDGE_KINDS]
        for name in unknown:
            problems.append(
                f"{where}.{key}: unknown edge kind {name!r}{_suggest(name, EDGE_KINDS)}; "
                f"known: {', '.join(EDGE_KINDS)}"
            )
        if not unknown and names and "module" not in names:
            problems.append(f'{where}.{key} must include "module" (imports that always run)')
        elif not unknown and names:
            out[key] = tuple(k for k in EDGE_KINDS if k in names)
    return out


_VERSION = re.compile(r"^(3)\.(\d{1,2})$")


def target_from_requires_python(spec: object) -> tuple[int, int] | None:
    """The lowest Python 3 minor version a ``requires-python`` specifier admits (some release
    of it matches), as ``(major, minor)``: ``">=3.12"`` -> ``(3, 12)``, ``"~=3.10"`` ->
    ``(3, 10)``, ``">3.11.99"`` -> ``(3, 12)``. None when it is not a valid specifier, or
    names no lower bound (it admits Python 3.0)."""
    if not isinstance(spec, str):
        return None
    try:
        specifiers = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    for minor in range(_MAX_MINOR):
        if any(specifiers.contains(f"3.{minor}.{patch}", True) for patch in range(_MAX_PATCH)):
            return None if minor == 0 else (3, minor)
    return None


#: The minor and patch releases :func:`target_from_requires_python` considers.
_MAX_MINOR = 100
_MAX_PATCH = 100


def parse_config(
    data: dict[str, Any],
    root: str,
    config_path: str,
    *,
    discover_files: _Discover | None = None,
    requires_python: object = None,
) -> LintConfig:
    """Validate the ``[tool.sealed_trace]`` table ``data``; raise :class:`ConfigError` if bad.

    ``discover_files(root, source_roots, exclude)`` lists the modules used to check that each
    ``module`` and ``upstream`` pattern matches something (default: the real file system).
    ``requires_python`` (the project's ``requires-python``) gives ``target_version``'s
    default.
    """
    problems: list[str] = []
    for key in data:
        if key not in TOP_KEYS:
            problems.append(f"unknown key {key!r}{_suggest(key, TOP_KEYS)}")
    roots_raw = _str_list(data.get("source_roots", ["."]), "source_roots", problems)
    if (
        "source_roots" in data
        and isinstance(data["source_roots"], list)
        and not roots_raw
        and not data["source_roots"]
    ):
        problems.append('source_roots is empty: nothing would be checked (the default is ["."])')
    roots: list[str] = []
    for item in roots_raw:
        path = os.path.normpath(os.path.join(root, item))
        if not os.path.isdir(path):
            problems.append(f"source_roots entry {item!r} is not a directory")
        else:
            roots.append(path)
    exclude = _str_list(data.get("exclude", []), "exclude", problems)
    cache_raw = data.get("cache_dir", ".sealed_trace_cache")
    cache_dir: str | None = None
    if cache_raw is False:
        cache_dir = None
    elif isinstance(cache_raw, str) and cache_raw:
        cache_dir = os.path.normpath(os.path.join(root, cache_raw))
    else:
        problems.append(
            f"cache_dir must be a non-empty string or false, not {_type_name(cache_raw)}"
        )
    max_bytes = data.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
        problems.append(f"max_file_bytes must be a positive integer, not {_type_name(max_bytes)}")
        max_bytes = DEFAULT_MAX_FILE_BYTES
    target = target_from_requires_python(requires_python)
    target_raw = data.get("target_version")
    if target_raw is not None:
        version = _VERSION.match(target_raw) if isinstance(target_raw, str) else None
        if version is None:
            problems.append(
                f'target_version must be a Python version string such as "3.12", '
                f"not {_type_name(target_raw)}"
            )
        else:
            target = (int(version.group(1)), int(version.group(2)))
    baseline: str | None = None
    raw_baseline = data.get("baseline")
    if raw_baseline is not None:
        if isinstance(raw_baseline, str) and raw_baseline:
            baseline = os.path.normpath(os.path.join(root, raw_baseline))
        else:
            problems.append(f"baseline must be a file name, not {_type_name(raw_baseline)}")
    select = _str_list(data.get("select", []), "select", problems, _check_selector)
    deselect = _str_list(data.get("deselect", []), "deselect", problems, _check_selector)
    ignores = _ignores(data.get("ignore", []), problems)
    jobs = data.get("jobs", 0)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        problems.append(
            f"jobs must be a non-negative integer (0 = one per core), not {_type_name(jobs)}"
        )
        jobs = 0
    boundaries: list[Boundary] = []
    targets: list[_Target] = []
    third_party = _str_list(data.get("third_party", []), "third_party", problems, _check_dotted)
    raw_boundaries = data.get("boundary")
    if raw_boundaries is None:
        problems.append("at least one [[tool.sealed_trace.boundary]] table is required")
    elif not isinstance(raw_boundaries, list):
        problems.append("boundary must be an array of tables ([[tool.sealed_trace.boundary]])")
    else:
        if not raw_boundaries:
            problems.append("at least one [[tool.sealed_trace.boundary]] table is required")
        names: set[str] = set()
        for index, table in enumerate(raw_boundaries):
            b = _boundary(index, table, problems, names, targets)
            if b is not None:
                boundaries.append(b)
    files: list[SourceFile] = []
    if roots:
        # Matched with the roots that exist, whatever else is wrong: every problem at once.
        finder = discover_files or (lambda r, s, e: discover(r, s, (), e))
        # Excluded files are not reported, but they are modules all the same: their imports
        # count (an excluded directory must not cut a chain that runs through it).
        files = finder(root, tuple(roots), ())
        modules = {f.module for f in files if f.module is not None}
        _match_targets(targets, _Names(modules, third_party), problems)
    if problems:
        raise ConfigError(config_path, problems)
    return LintConfig(
        root=root,
        config_path=config_path,
        source_roots=tuple(roots),
        boundaries=tuple(boundaries),
        exclude=exclude,
        cache_dir=cache_dir,
        max_file_bytes=max_bytes,
        jobs=jobs,
        files=tuple(files),
        target_version=target,
        baseline=baseline,
        ignores=ignores,
        select=select,
        deselect=deselect,
    )


def _match_targets(targets: list[_Target], existing: _Names, problems: list[str]) -> None:
    """Add a problem for each ``module``, ``upstream``, ``allowed_imports`` or ``banned``
    entry that names nothing in ``existing``, each with the closest name as a suggestion."""
    for spec in targets:
        index, sealed, upstream = spec.index, spec.module, spec.upstream
        if sealed is not None and sealed not in existing.modules:
            below = sorted(m for m in existing.modules if m.endswith("." + sealed))
            if below:  # it lives one directory down: that directory is the source root
                where = below[0][: -len(sealed) - 1].replace(".", "/")
                hint = (
                    f" (it is in {where}/: set source_roots = [{where!r}], or add it to them)"
                ).replace("'", '"')
            else:
                hint = existing.suggest(sealed, first_party_only=True)
            problems.append(
                f"boundary[{index}].module {sealed!r} matches no module in the source roots{hint}"
            )
        if not spec.has_upstream:
            problems.append(
                f"boundary[{index}] has no upstream: no module would be checked for "
                "importing it; list the modules that must never import it, or write "
                "upstream = [] to say there are none"
            )
        probe = Boundary("", sealed or "", "", (), (), (), upstream)
        for pattern in upstream:
            match = re.compile(fnmatch.translate(pattern)).match
            if not any(match(m) and not probe.seals(m) for m in existing.modules):
                problems.append(
                    f"boundary[{index}].upstream pattern {pattern!r} matches no module in "
                    "the source roots (other than the sealed module)"
                    f"{existing.suggest(pattern, first_party_only=True)}"
                )
        for entry in spec.allowed:
            if not existing.known(entry):
                problems.append(
                    f"boundary[{index}].allowed_imports entry {entry!r} names no first-party "
                    "module, standard-library module or installed distribution"
                    f"{existing.suggest(entry)}; list a module that is not installed "
                    "here in third_party"
                )
        for entry in spec.banned:
            if not existing.known(entry):
                problems.append(
                    f"boundary[{index}].banned entry {entry!r} names no first-party module, "
                    "standard-library module, installed distribution or builtin"
                    f"{existing.suggest(entry, builtins_too=True)}; list a module that is not "
                    "installed here in third_party"
                )


def load_config(
    path: str | os.PathLike[str] | None = None, *, cwd: str | None = None
) -> LintConfig:
    """Load the policy from ``path`` or from the nearest ``pyproject.toml`` above ``cwd``.

    Raises :class:`ConfigError` when no file is found (with a hint when a table is named
    almost like ours), it is not UTF-8 (saying at which byte) or not valid TOML, it has no
    ``tool.sealed_trace`` table, or the table is invalid (each problem with the line of its
    key where it can be found).
    """
    where = cwd or os.getcwd()
    if path is None:
        found = find_config(where)
        if found is None:
            raise ConfigError(
                str(where),
                [
                    "no pyproject.toml with a [tool.sealed_trace] table here or in a parent folder"
                    + (
                        ""
                        if _near_misses(where)
                        else "; `sealed-trace init MODULE` proposes one for the sealed MODULE"
                    ),
                    *_near_misses(where),
                ],
            )
        config_path = found
    else:
        config_path = Path(path)
    shown = str(config_path)
    try:
        raw = config_path.read_bytes()
    except OSError as exc:
        raise ConfigError(shown, [f"cannot read: {exc.strerror or exc}"]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            shown,
            [
                f"is not UTF-8: byte {exc.start} (line {line}, column {column}) is "
                f"0x{raw[exc.start]:02x}, {exc.reason}"
            ],
            [line],
        ) from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(shown, [f"is not valid TOML: {exc}"]) from None
    tool = document.get("tool", {})
    section = tool.get("sealed_trace") if isinstance(tool, dict) else None
    if section is None:
        hints = _near_misses(config_path.parent)
        raise ConfigError(
            shown,
            [
                "has no [tool.sealed_trace] table"
                + ("" if hints else "; `sealed-trace init MODULE` proposes one"),
                *hints,
            ][:2],
        )
    if not isinstance(section, dict):
        raise ConfigError(shown, ["tool.sealed_trace must be a table"])
    root = str(config_path.resolve().parent)
    project = document.get("project")
    requires = project.get("requires-python") if isinstance(project, dict) else None
    try:
        return parse_config(section, root, shown, requires_python=requires)
    except ConfigError as error:
        lines = _key_lines(text)
        raise ConfigError(
            error.source, error.problems, [_line_of(p, lines) for p in error.problems]
        ) from None
