"""Policy-independent facts extracted from one Python file (libcst-free values).

The extractor (:mod:`sealed_trace.lint.cst_pass`, the libcst pass) turns a file into a
:class:`FileFacts`; rules judge facts against a boundary policy. Keeping facts independent of
the policy lets one parse serve every boundary and lets the cache key facts by content hash.
All positions are 1-based lines and 1-based columns.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = [
    "DYNAMIC_WORDS",
    "IMPORT_FUNCS",
    "PATH_LOADERS",
    "PLUGIN_FUNCS",
    "DynamicFact",
    "DynamicKind",
    "FieldFact",
    "FileFacts",
    "ImportFact",
    "ImportKind",
    "RefFact",
    "StrEnum",
    "SuppressionFact",
    "dynamic_import_target",
    "relative_module",
]


#: Callables that import a module named by their first argument (judged as that import when it
#: is a literal, ST301 otherwise).
IMPORT_FUNCS = frozenset(
    {
        "builtins.__import__",
        "importlib.import_module",
        "importlib.__import__",
        "runpy.run_module",
    }
)
#: Entry-point discovery (ST302).
PLUGIN_FUNCS = frozenset(
    {
        "importlib.metadata.entry_points",
        "importlib_metadata.entry_points",
        "pkg_resources.iter_entry_points",
        "pkg_resources.load_entry_point",
    }
)
#: Callables that load code from a file path: never checkable (ST301).
PATH_LOADERS = frozenset(
    {
        "importlib.util.spec_from_file_location",
        "importlib.machinery.SourceFileLoader",
        "importlib.machinery.SourcelessFileLoader",
        "runpy.run_path",
        "imp.load_source",
        "imp.load_module",
        "zipimport.zipimporter",
    }
)
#: Byte strings whose absence proves a file uses none of the callables above (every spelling,
#: aliases included, names one of them; ``spec_from_file_location`` etc. by their last part).
DYNAMIC_WORDS = (
    b"__import__",
    b"import_module",
    b"entry_points",
    b"run_module",
    b"run_path",
    b"spec_from_file_location",
    b"SourceFileLoader",
    b"SourcelessFileLoader",
    b"load_source",
    b"load_module",
    b"zipimporter",
)


class StrEnum(str, enum.Enum):
    """An enum whose members are their string values: ``DynamicKind.PATH_IMPORT ==
    "path-import"``, they hash, format, print and JSON-serialise as that string on every
    Python version (``enum.StrEnum`` is 3.11+), so facts built with plain strings (by the
    passes, or read back from the cache) compare equal to the members and find them in sets
    and dict keys."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, format_spec: str) -> str:
        return str.__str__(self).__format__(format_spec)


class ImportKind(StrEnum):
    """How an :class:`ImportFact` is spelled (its ``kind``)."""

    #: ``import a.b``
    IMPORT = "import"
    #: ``from a import b``
    FROM = "from"
    #: a literal dynamic import: ``importlib.import_module("a.b")``, ``__import__("a")``
    DYNAMIC = "dynamic"
    #: a load of a file by path whose file name is a literal (``module`` is that name,
    #: ``runner.py``): the first-party files of that name
    FILE = "file"


class DynamicKind(StrEnum):
    """What a :class:`DynamicFact` records (its ``kind``); the rule that judges each is named."""

    #: a dynamic import whose module name is not a literal (ST301)
    COMPUTED_IMPORT = "computed-import"
    #: a loader of code by file path (ST301)
    PATH_IMPORT = "path-import"
    #: ``find_spec`` of a computed name below a literal package (``callee``: that package's
    #: top-level name): it imports only the name's parents, so only a first-party one counts
    #: (ST301)
    COMPUTED_SPEC = "computed-spec"
    #: a call that imports modules named in its data, ``pickle.loads`` (ST301)
    HIDDEN_IMPORT = "hidden-import"
    #: an import function used as a value, not called (ST301)
    ESCAPED_IMPORT = "escaped-import"
    #: an assignment to ``__package__``/``__spec__``/``__name__``/``__path__`` (ST301)
    RELATIVE_BASE = "relative-base"
    #: entry-point discovery (ST302)
    PLUGIN_DISCOVERY = "plugin-discovery"
    #: ``getattr(obj, computed)``, ``attrgetter``/``methodcaller`` of a computed name (ST303)
    COMPUTED_GETATTR = "computed-getattr"
    #: ``getattr`` passed as a value (ST303)
    GETATTR_VALUE = "getattr-value"
    #: a module-scope binding of a builtin's name that does not hide it everywhere (ST203)
    REBIND = "rebind"
    #: a write to ``TYPE_CHECKING`` (ST203)
    TYPE_CHECKING_WRITE = "type-checking-write"
    #: a record's field list the lint cannot read (ST501)
    COMPUTED_FIELDS = "computed-fields"


def relative_module(package: str, level: int, name: str) -> str:
    """The absolute name of a relative import: ``level`` dots in ``package`` (``""`` when it
    leaves the top package)."""
    parts = package.split(".") if package else []
    if not parts or level - 1 >= len(parts):
        return ""
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, name]) if name else ".".join(base)


def dynamic_import_target(
    text: str, relative: int, package: str | None, own_package: str
) -> str | None:
    """The module a literal dynamic import names (both passes judge it by this one rule):
    ``text`` itself; relative to ``own_package`` by ``relative`` levels (``__import__``'s
    ``level``); or, when ``text`` starts with dots, relative to ``package`` (the call's
    ``package`` argument as a string, ``own_package`` for ``__package__``). None when a
    relative name has no package the lint can read (a computed import)."""
    if relative:
        return relative_module(own_package, relative, text)
    level = len(text) - len(text.lstrip("."))
    if not level:
        return text
    if package is None:
        return None
    return relative_module(package, level, text[level:])


@dataclass(frozen=True, slots=True)
class ImportFact:
    """An import. ``module``: absolute module ('' when a relative import leaves the top package);
    ``name``: the from-imported name, ``"*"`` for a star import, None for ``import m``;
    ``kind``: an :class:`ImportKind` value (``import`` | ``from`` | ``dynamic``, a literal
    ``import_module``/``__import__``; a plain string equal to the member is as good);
    ``type_checking``: inside ``if TYPE_CHECKING:``; ``text``: the spelling, for messages;
    ``lazy``: inside a function body (it runs when the function is called, not on import);
    ``statement``: the line the import statement starts on (0 when not recorded);
    ``main``: under ``if __name__ == "__main__":`` (it runs only when the module is run as a
    script, never when it is imported)."""

    line: int
    column: int
    module: str
    name: str | None
    kind: str
    type_checking: bool
    text: str
    lazy: bool = False
    statement: int = 0
    main: bool = False


@dataclass(frozen=True, slots=True)
class RefFact:
    """A maximal name or attribute chain resolved through imports or builtins to ``qname``.
    ``call``: the reference is called; ``via``: how it resolved (``""``, ``"alias clk"``,
    ``"getattr"``); ``type_checking``: inside ``if TYPE_CHECKING:``; ``lazy``: inside a
    function body (recorded by the standard-library pass)."""

    line: int
    column: int
    qname: str
    call: bool
    via: str = ""
    type_checking: bool = False
    lazy: bool = False


@dataclass(frozen=True, slots=True)
class DynamicFact:
    """A dynamic facility use that cannot be resolved: ``kind`` is a :class:`DynamicKind` value
    (``computed-import``, ``path-import``, ``plugin-discovery``, ``computed-getattr``, ...; a
    plain string equal to the member is as good); ``callee`` the resolved callee name (or what
    else the kind names: the rebound builtin, the record of a computed field list)."""

    line: int
    column: int
    kind: str
    callee: str


@dataclass(frozen=True, slots=True)
class FieldFact:
    """A field ``name`` declared by record ``record`` (``record_kind``: dataclass, attrs,
    NamedTuple, TypedDict, namedtuple, annotated class, __slots__, property, ...)."""

    line: int
    column: int
    name: str
    record: str
    record_kind: str


@dataclass(frozen=True, slots=True)
class SuppressionFact:
    """A ``# sealed-trace:`` comment: ``codes`` named, ``reason`` (None when missing) and
    ``error`` (None when well-formed)."""

    line: int
    column: int
    codes: tuple[str, ...]
    reason: str | None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class FileFacts:
    """Everything the rules need from one file. ``error`` is ``(code, line, column, message)``
    when the file could not be analysed (ST001/ST002); ``parsed`` is False for files only
    scanned for suppression comments; ``extra`` holds pass-specific JSON-safe facts (the import
    graph pass records a package's ``__all__`` there: a list of names, or None when it is not
    literal)."""

    imports: tuple[ImportFact, ...] = ()
    refs: tuple[RefFact, ...] = ()
    dynamics: tuple[DynamicFact, ...] = ()
    fields: tuple[FieldFact, ...] = ()
    suppressions: tuple[SuppressionFact, ...] = ()
    error: tuple[str, int, int, str] | None = None
    parsed: bool = True
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe dict (for the cache): each fact as the row of its fields' values."""
        return {
            "imports": list(map(_ROW[ImportFact], self.imports)),
            "refs": list(map(_ROW[RefFact], self.refs)),
            "dynamics": list(map(_ROW[DynamicFact], self.dynamics)),
            "fields": list(map(_ROW[FieldFact], self.fields)),
            "suppressions": [
                [s.line, s.column, list(s.codes), s.reason, s.error] for s in self.suppressions
            ],
            "error": list(self.error) if self.error else None,
            "parsed": self.parsed,
            "extra": self.extra,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileFacts:
        """Inverse of :meth:`to_json`; raises on malformed data (the cache then re-parses)."""
        err = data["error"]
        return cls(
            imports=tuple(ImportFact(*row) for row in data["imports"]),
            refs=tuple(RefFact(*row) for row in data["refs"]),
            dynamics=tuple(DynamicFact(*row) for row in data["dynamics"]),
            fields=tuple(FieldFact(*row) for row in data["fields"]),
            suppressions=tuple(
                SuppressionFact(r[0], r[1], tuple(r[2]), r[3], r[4]) for r in data["suppressions"]
            ),
            error=(str(err[0]), int(err[1]), int(err[2]), str(err[3])) if err else None,
            parsed=bool(data["parsed"]),
            extra=dict(data.get("extra") or {}),
        )


#: Each fact type's fields as one row (a tuple, in declaration order): what the cache holds.
_ROW: dict[type, Callable[[Any], tuple[Any, ...]]] = {
    cls: operator.attrgetter(*(f.name for f in fields(cls)))
    for cls in (ImportFact, RefFact, DynamicFact, FieldFact)
}
