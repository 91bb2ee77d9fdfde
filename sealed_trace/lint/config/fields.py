"""Every key of the policy, declared once: ``[tool.sealed_trace]`` (:class:`TopKeys`),
``[[tool.sealed_trace.boundary]]`` (:class:`BoundaryKeys`), a boundary's ``edge_kinds``
(:class:`EdgeKindKeys`) and ``[[tool.sealed_trace.ignore]]`` (:class:`IgnoreKeys`).

Each :class:`~sealed_trace.lint.config.table.Field` holds the key's name, type, default, doc
line and parser; the namespaces list them in the order their problems are reported. The
reference tables of ``docs/lint.md`` are rendered from them
(:mod:`sealed_trace.lint.config.reference`).
"""

from __future__ import annotations

import os
import re
from typing import Final

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from sealed_trace.lint.config.checks import (
    DOTTED,
    ItemCheck,
    check_dotted,
    check_identifier,
    check_pattern,
    check_selector,
    str_list,
    suggest,
    type_name,
)
from sealed_trace.lint.config.model import (
    DEFAULT_EDGE_KINDS,
    DEFAULT_MAX_FILE_BYTES,
    EDGE_KINDS,
    Boundary,
    IgnoreEntry,
)
from sealed_trace.lint.config.names import BUILTIN_NAMES, Target
from sealed_trace.lint.config.table import Field, Reading, Values, declared, read_table
from sealed_trace.lint.presets import PRESETS, Preset

__all__ = [
    "BOUNDARY_FIELDS",
    "BOUNDARY_KEYS",
    "EDGE_KIND_FIELDS",
    "IGNORE_FIELDS",
    "IGNORE_KEYS",
    "TOP_FIELDS",
    "TOP_KEYS",
    "BoundaryKeys",
    "EdgeKindKeys",
    "IgnoreKeys",
    "TopKeys",
    "target_from_requires_python",
]

_VERSION: Final = re.compile(r"^(3)\.(\d{1,2})$")
#: The minor and patch releases :func:`target_from_requires_python` considers.
_MAX_MINOR: Final = 100
_MAX_PATCH: Final = 100
_TYPE_CHECKING_IMPORTS: Final = ("count", "ignore")


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


# -- parsers shared by several keys -----------------------------------------------------------
class _Strings:
    """Parses an array of strings, each judged by ``check``."""

    def __init__(self, check: ItemCheck | None = None) -> None:
        self.check = check

    def __call__(self, value: object, where: str, reading: Reading) -> tuple[str, ...]:
        return str_list(value, where, reading.problems, self.check)


def _path(value: str, reading: Reading) -> str:
    return os.path.normpath(os.path.join(reading.root, value))


# -- [tool.sealed_trace] ------------------------------------------------------------------------
def _source_roots(value: object, where: str, reading: Reading) -> tuple[str, ...]:
    raw = str_list(value, where, reading.problems)
    if isinstance(value, list) and not value:
        reading.problem(f'{where} is empty: nothing would be checked (the default is ["."])')
    roots: list[str] = []
    for item in raw:
        path = _path(item, reading)
        if os.path.isdir(path):
            roots.append(path)
        else:
            reading.problem(f"{where} entry {item!r} is not a directory")
    return tuple(roots)


def _cache_dir(value: object, where: str, reading: Reading) -> str | None:
    if value is False:
        return None
    if isinstance(value, str) and value:
        return _path(value, reading)
    reading.problem(f"{where} must be a non-empty string or false, not {type_name(value)}")
    return None


def _max_file_bytes(value: object, where: str, reading: Reading) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        reading.problem(f"{where} must be a positive integer, not {type_name(value)}")
        return DEFAULT_MAX_FILE_BYTES
    return value


def _target_version(value: object, where: str, reading: Reading) -> tuple[int, int] | None:
    version = _VERSION.match(value) if isinstance(value, str) else None
    if version is not None:
        return (int(version.group(1)), int(version.group(2)))
    if value is not None:
        reading.problem(
            f'{where} must be a Python version string such as "3.12", not {type_name(value)}'
        )
    return target_from_requires_python(reading.requires_python)


def _baseline(value: object, where: str, reading: Reading) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and value:
        return _path(value, reading)
    reading.problem(f"{where} must be a file name, not {type_name(value)}")
    return None


def _jobs(value: object, where: str, reading: Reading) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        reading.problem(
            f"{where} must be a non-negative integer (0 = one per core), not {type_name(value)}"
        )
        return 0
    return value


def _ignores(value: object, where: str, reading: Reading) -> tuple[IgnoreEntry, ...]:
    if not isinstance(value, list):
        reading.problem(
            f"{where} must be an array of tables ([[tool.sealed_trace.ignore]]), not "
            f"{type_name(value)}"
        )
        return ()
    entries = [
        _ignore(f"{where}[{index}]", index, table, reading) for index, table in enumerate(value)
    ]
    return tuple(entry for entry in entries if entry is not None)


def _ignore(where: str, index: int, table: object, reading: Reading) -> IgnoreEntry | None:
    if not isinstance(table, dict):
        reading.problem(f"{where} must be a table, not {type_name(table)}")
        return None
    start = len(reading.problems)
    values = read_table(IGNORE_FIELDS, table, where, reading)
    if len(reading.problems) != start:
        return None
    return IgnoreEntry(
        values[IgnoreKeys.path],
        values[IgnoreKeys.codes],
        values[IgnoreKeys.reason],
        index,
        values[IgnoreKeys.boundary],
    )


def _boundaries(value: object, where: str, reading: Reading) -> tuple[Boundary, ...]:
    if not isinstance(value, list):
        reading.problem(
            "at least one [[tool.sealed_trace.boundary]] table is required"
            if value is None
            else f"{where} must be an array of tables ([[tool.sealed_trace.boundary]])"
        )
        return ()
    if not value:
        reading.problem("at least one [[tool.sealed_trace.boundary]] table is required")
    tables = [
        _boundary(f"{where}[{index}]", index, table, reading) for index, table in enumerate(value)
    ]
    return tuple(boundary for boundary in tables if boundary is not None)


# -- [[tool.sealed_trace.boundary]] -------------------------------------------------------------
def _boundary(where: str, index: int, table: object, reading: Reading) -> Boundary | None:
    if not isinstance(table, dict):
        reading.problem(f"{where} must be a table, not {type_name(table)}")
        return None
    start = len(reading.problems)
    values = read_table(BOUNDARY_FIELDS, table, where, reading, hint=_boundary_hint)
    reading.targets.append(
        Target(
            index,
            values[BoundaryKeys.module],
            values[BoundaryKeys.upstream],
            values[BoundaryKeys.allowed_imports],
            values[BoundaryKeys.banned],
            has_upstream="upstream" in table,
        )
    )
    return _built(values) if len(reading.problems) == start else None


def _boundary_hint(key: str) -> str:
    """The end of the problem for an unknown boundary key: where a top-level key belongs,
    else the closest boundary key."""
    if key in TOP_KEYS:
        return (
            ": it is a [tool.sealed_trace] key; move it above the first "
            "[[tool.sealed_trace.boundary]] (every line below a table header belongs to that "
            "table)"
        )
    return suggest(key, BOUNDARY_KEYS)


def _built(values: Values) -> Boundary | None:
    """The boundary of valid ``values``, the preset's lists followed by its own."""
    name, module, preset = (
        values[BoundaryKeys.name],
        values[BoundaryKeys.module],
        values[BoundaryKeys.preset],
    )
    if name is None or module is None or preset is None:
        return None
    kinds = values[BoundaryKeys.edge_kinds]
    return Boundary(
        name=name,
        module=module,
        preset=preset.name,
        allowed_imports=preset.allowed_imports + values[BoundaryKeys.allowed_imports],
        banned=preset.banned + values[BoundaryKeys.banned],
        forbidden_fields=preset.forbidden_fields + values[BoundaryKeys.forbidden_fields],
        upstream=values[BoundaryKeys.upstream],
        type_checking_imports=values[BoundaryKeys.type_checking_imports],
        closure=values[BoundaryKeys.closure],
        allowed_callables=values[BoundaryKeys.allowed_callables],
        reverse_edge_kinds=kinds["reverse"],
        closure_edge_kinds=kinds["closure"],
    )


def _name(value: object, where: str, reading: Reading) -> str | None:
    if value is None:
        reading.problem(f"{where} is required")
    elif not isinstance(value, str) or not value.strip():
        reading.problem(f"{where} must be a non-empty string, not {type_name(value)}")
    elif value in reading.boundary_names:
        reading.problem(f"{where} {value!r} is used by another boundary")
    else:
        reading.boundary_names.add(value)
        return value
    return None


def _module(value: object, where: str, reading: Reading) -> str | None:
    if value is None:
        reading.problem(f"{where} is required")
    elif not isinstance(value, str) or not DOTTED.match(value):
        reading.problem(f"{where} must be a dotted module name string, not {type_name(value)}")
    else:
        return value
    return None


def _preset(value: object, where: str, reading: Reading) -> Preset | None:
    if not isinstance(value, str):
        reading.problem(f"{where} must be a string, not {type_name(value)}")
        return None
    if value not in PRESETS:
        reading.problem(
            f"{where} {value!r} is not a built-in preset"
            f"{suggest(value, PRESETS)}; known: {', '.join(sorted(PRESETS))}"
        )
        return None
    return PRESETS[value]


def _banned(value: object, where: str, reading: Reading) -> tuple[str, ...]:
    """A bare builtin name (``open``, ``eval``, ``__import__``: ADR-0230 §15.2's spelling) as
    the qualified name it means, ``builtins.open``; any other entry as written."""
    entries = str_list(value, where, reading.problems, check_pattern)
    return tuple(f"builtins.{e}" if e in BUILTIN_NAMES else e for e in entries)


def _type_checking_imports(value: object, where: str, reading: Reading) -> str:
    if isinstance(value, str) and value in _TYPE_CHECKING_IMPORTS:
        return value
    reading.problem(f'{where} must be "count" or "ignore", not {value!r}')
    return "count"


def _closure(value: object, where: str, reading: Reading) -> bool:
    if isinstance(value, bool):
        return value
    reading.problem(f"{where} must be true or false, not {type_name(value)}")
    return False


def _edge_kinds(value: object, where: str, reading: Reading) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        reading.problem(f"{where} must be a table, not {type_name(value)}")
        return dict(DEFAULT_EDGE_KINDS)
    values = read_table(EDGE_KIND_FIELDS, value, where, reading, document_order=True)
    return {f.name: values[f] or DEFAULT_EDGE_KINDS[f.name] for f in EDGE_KIND_FIELDS}


# -- edge_kinds = {reverse = [...], closure = [...]} --------------------------------------------
def _kinds(value: object, where: str, reading: Reading) -> tuple[str, ...]:
    """Known edge kinds, ``"module"`` among them, in :data:`EDGE_KINDS` order; empty (the
    default stays) for an empty or bad list."""
    names = str_list(value, where, reading.problems)
    unknown = [n for n in names if n not in EDGE_KINDS]
    for name in unknown:
        reading.problem(
            f"{where}: unknown edge kind {name!r}{suggest(name, EDGE_KINDS)}; "
            f"known: {', '.join(EDGE_KINDS)}"
        )
    if unknown or not names:
        return ()
    if "module" not in names:
        reading.problem(f'{where} must include "module" (imports that always run)')
        return ()
    return tuple(k for k in EDGE_KINDS if k in names)


# -- [[tool.sealed_trace.ignore]] ---------------------------------------------------------------
def _ignore_paths(value: object, where: str, reading: Reading) -> tuple[str, ...]:
    if isinstance(value, str):
        paths: tuple[str, ...] = (value,)
    else:
        paths = () if value is None else str_list(value, where, reading.problems)
    if not paths:
        reading.problem(f"{where} is required (a glob, or an array of them)")
    return paths


def _ignore_codes(value: object, where: str, reading: Reading) -> tuple[str, ...]:
    codes = str_list(value, where, reading.problems, check_selector)
    if not codes:
        reading.problem(f"{where} is required (codes, prefixes or rule names)")
    return codes


def _ignore_boundary(value: object, where: str, reading: Reading) -> tuple[str, ...]:
    if value is None:
        return ()
    names = (value,) if isinstance(value, str) else str_list(value, where, reading.problems)
    if not names:
        reading.problem(f'{where} must name a boundary, or be "*" for every boundary')
    return names


def _reason(value: object, where: str, reading: Reading) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    reading.problem(f"{where} is required: say why these findings may stay")
    return ""


# -- the declarations ---------------------------------------------------------------------------
class EdgeKindKeys:
    """The keys of a boundary's ``edge_kinds`` table: which kinds of import edge count."""

    reverse: Final = Field(
        "reverse",
        "array of edge kinds",
        list(DEFAULT_EDGE_KINDS["reverse"]),
        "the kinds that count for reverse dependencies and their chains (ST401-ST403)",
        _kinds,
    )
    closure: Final = Field(
        "closure",
        "array of edge kinds",
        list(DEFAULT_EDGE_KINDS["closure"]),
        "the kinds that load a module into the closure (ST404)",
        _kinds,
    )


class IgnoreKeys:
    """The keys of one ``[[tool.sealed_trace.ignore]]`` entry."""

    path: Final = Field(
        "path",
        "string or array of strings",
        None,
        "the files: a glob of root-relative POSIX paths, or an array of them (a directory "
        "covers everything below it)",
        _ignore_paths,
        shown_default="required",
    )
    codes: Final = Field(
        "codes",
        "array of rule selectors",
        [],
        "the rules: codes (`ST201`), prefixes (`ST2`) or names (`banned-call`)",
        _ignore_codes,
        shown_default="required",
    )
    reason: Final = Field(
        "reason",
        "string",
        None,
        "why these findings may stay",
        _reason,
        shown_default="required",
    )
    boundary: Final = Field(
        "boundary",
        "string or array of strings",
        None,
        'the boundaries whose findings it covers (their `name`s), or `"*"` for every one; '
        "required when the policy has more than one boundary",
        _ignore_boundary,
        shown_default="every boundary (one-boundary policies only)",
    )


EDGE_KIND_FIELDS: Final = declared(EdgeKindKeys)
IGNORE_FIELDS: Final = declared(IgnoreKeys)
IGNORE_KEYS: Final = tuple(f.name for f in IGNORE_FIELDS)


class BoundaryKeys:
    """The keys of one ``[[tool.sealed_trace.boundary]]``."""

    name: Final = Field(
        "name",
        "string",
        None,
        "unique label, shown in findings",
        _name,
        shown_default="required",
    )
    module: Final = Field(
        "module",
        "string",
        None,
        "dotted name of the sealed module; if it is a package, its submodules are sealed too",
        _module,
        shown_default="required",
    )
    preset: Final = Field(
        "preset",
        "string",
        "none",
        '`"adr-0230"` or `"none"`; the boundary\'s lists below extend the preset\'s',
        _preset,
    )
    allowed_imports: Final = Field(
        "allowed_imports",
        "array of module names",
        [],
        "the import surface; a name allows its submodules, never its parents",
        _Strings(check_dotted),
    )
    banned: Final = Field(
        "banned",
        "array of patterns",
        [],
        "qualified names; `*` matches any run of characters, dots included (`time.*`, "
        "`os.exec*`); a name also bans everything below it (`os.environ` bans "
        '`os.environ.get`); a bare builtin name means the builtin (`"open"` is '
        "`builtins.open`: calls of `open`, `builtins.open` and aliases of either)",
        _banned,
    )
    forbidden_fields: Final = Field(
        "forbidden_fields",
        "array of identifiers",
        [],
        "extra field names records may not declare",
        _Strings(check_identifier),
    )
    upstream: Final = Field(
        "upstream",
        "array of patterns",
        [],
        "modules that must never depend on `module` (`pkg.*` matches every module below "
        "`pkg`, not `pkg` itself: list `pkg` too if needed); `upstream = []` says there are "
        "none",
        _Strings(check_pattern),
        shown_default="required",
    )
    type_checking_imports: Final = Field(
        "type_checking_imports",
        '`"count"` or `"ignore"`',
        "count",
        'whether imports under `if TYPE_CHECKING:` count for the surface; `"ignore"` also '
        "drops them from both `edge_kinds` lists",
        _type_checking_imports,
    )
    closure: Final = Field(
        "closure",
        "boolean",
        False,
        "also check the sealed module's whole first-party import closure (ST404)",
        _closure,
    )
    allowed_callables: Final = Field(
        "allowed_callables",
        "array of patterns",
        [],
        "functions the sealed module may take from first-party allowed modules (pure helpers "
        "such as canonical encoding); every other function taken from them is ST104",
        _Strings(check_pattern),
    )
    edge_kinds: Final = Field(
        "edge_kinds",
        "table of arrays of edge kinds",
        {f.name: f.default for f in EDGE_KIND_FIELDS},
        "which imports count, by how they run: `module` (at module level), `function` "
        '(inside a function), `main` (under `if __name__ == "__main__":`), `type-checking` '
        "(under `if TYPE_CHECKING:`); keys below; each list must include "
        '`"module"` (see "Edge kinds" below)',
        _edge_kinds,
    )


BOUNDARY_FIELDS: Final = declared(BoundaryKeys)
BOUNDARY_KEYS: Final = tuple(f.name for f in BOUNDARY_FIELDS)


class TopKeys:
    """The keys of ``[tool.sealed_trace]``, in the order their problems are reported."""

    source_roots: Final = Field(
        "source_roots",
        "array of strings",
        ["."],
        "directories whose `.py` files are modules; `src/pkg/mod.py` under root `src` is `pkg.mod`",
        _source_roots,
    )
    exclude: Final = Field(
        "exclude",
        "array of strings",
        [],
        "glob patterns of root-relative POSIX paths (a directory pattern excludes everything "
        "below it)",
        _Strings(),
    )
    cache_dir: Final = Field(
        "cache_dir",
        "string or `false`",
        ".sealed_trace_cache",
        "where the cache lives; `false` disables it",
        _cache_dir,
    )
    max_file_bytes: Final = Field(
        "max_file_bytes",
        "integer > 0",
        DEFAULT_MAX_FILE_BYTES,
        "larger files are ST002 instead of being parsed",
        _max_file_bytes,
    )
    target_version: Final = Field(
        "target_version",
        "string",
        None,
        'the project\'s Python (`"3.12"`): files are parsed for it, so syntax it accepts is '
        "never ST001, and syntax it rejects is",
        _target_version,
        shown_default="from `[project] requires-python`, else the running Python",
    )
    baseline: Final = Field(
        "baseline",
        "string",
        None,
        "a baseline file (below): the findings it records are not failures",
        _baseline,
        shown_default="none",
    )
    select: Final = Field(
        "select",
        "array of rule selectors",
        [],
        "report only these rules: codes (`ST201`), prefixes (`ST2`) or names (`banned-call`)",
        _Strings(check_selector),
        shown_default="all",
    )
    deselect: Final = Field(
        "deselect",
        "array of rule selectors",
        [],
        "never report these rules (selectors as in `select`)",
        _Strings(check_selector),
    )
    ignore: Final = Field(
        "ignore",
        "array of tables",
        [],
        "`[[tool.sealed_trace.ignore]]` entries (keys below): the findings they cover are not "
        "failures",
        _ignores,
    )
    jobs: Final = Field(
        "jobs",
        "integer >= 0",
        0,
        "accepted for compatibility (the import scanner uses every core)",
        _jobs,
    )
    third_party: Final = Field(
        "third_party",
        "array of module names",
        [],
        "modules that are not installed where the lint runs (`requests`, a distribution of "
        "the deployment only): an `allowed_imports` or `banned` entry naming one of them, or "
        "anything below it (`requests.*`), is accepted instead of being a configuration "
        "error. The markers take the same list as `third_party=[...]`",
        _Strings(check_dotted),
    )
    boundary: Final = Field(
        "boundary",
        "array of tables",
        None,
        "one `[[tool.sealed_trace.boundary]]` per sealed module (keys below)",
        _boundaries,
        shown_default="required",
    )


TOP_FIELDS: Final = declared(TopKeys)
TOP_KEYS: Final = tuple(f.name for f in TOP_FIELDS)
