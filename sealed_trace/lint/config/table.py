"""Declared keys and the one loop that reads a table of them.

A :class:`Field` declares one policy key: its name, its type and default as the reference
table in ``docs/lint.md`` shows them, a one-line doc, and ``parse``, which converts the raw
value (the default when the key is absent) and appends a problem for whatever is wrong with
it. :func:`read_table` reads a table against its fields; :class:`Reading` carries what the
parsers share while one policy is read (above all the list of problems: every problem is
reported, none stops the reading).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from sealed_trace.lint.config.checks import suggest
from sealed_trace.lint.config.names import Target

__all__ = ["Field", "Reading", "Values", "declared", "read_table", "toml_text"]

T = TypeVar("T")


@dataclass(eq=False)
class Reading:
    """What the parsers share while one policy is read: ``root`` (the directory relative paths
    start from), ``requires_python`` (the project's, for ``target_version``'s default), the
    ``problems`` found so far, the boundary names taken, and the boundaries' names to match
    against the modules that exist (``targets``)."""

    root: str
    requires_python: object = None
    problems: list[str] = field(default_factory=list)
    boundary_names: set[str] = field(default_factory=set)
    targets: list[Target] = field(default_factory=list)

    def problem(self, text: str) -> None:
        """Record one problem."""
        self.problems.append(text)


@dataclass(frozen=True, eq=False)
class Field(Generic[T]):
    """One policy key, declared once.

    ``type`` and ``doc`` are its reference-table cells; ``default`` is the raw value ``parse``
    gets when the key is absent (never mutated), shown in the table as TOML unless
    ``shown_default`` says otherwise. ``parse(value, where, reading)`` returns the converted
    value; for a bad value it records a problem naming ``where`` (the key's dotted path, such
    as ``boundary[0].module``) and returns a placeholder. ``entries`` are the keys of the
    tables the value holds (for their documentation).
    """

    name: str
    type: str
    default: object
    doc: str
    parse: Callable[[object, str, Reading], T]
    shown_default: str | None = None
    entries: tuple[Field[Any], ...] = ()

    def default_text(self) -> str:
        """The default as the reference table shows it."""
        if self.shown_default is not None:
            return self.shown_default
        return f"`{toml_text(self.default)}`"


def toml_text(value: object) -> str:
    """``value`` (a string, number, boolean, array or table) written as inline TOML."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_text(v) for v in value) + "]"
    return json.dumps(value)


def declared(keys: type) -> tuple[Field[Any], ...]:
    """The fields of the namespace class ``keys``, in the order they are declared."""
    return tuple(value for value in vars(keys).values() if isinstance(value, Field))


class Values:
    """The converted values of one table: ``values[field]`` has the type ``field`` parses to."""

    __slots__ = ("_by_name",)

    def __init__(self, by_name: dict[str, object]) -> None:
        self._by_name = by_name

    def __getitem__(self, key: Field[T]) -> T:
        return cast(T, self._by_name[key.name])


def read_table(
    fields: Sequence[Field[Any]],
    table: Mapping[str, object],
    where: str,
    reading: Reading,
    *,
    hint: Callable[[str], str] | None = None,
    document_order: bool = False,
) -> Values:
    """Parse every field of ``table`` (a ``[tool.sealed_trace]`` table when ``where`` is empty,
    else the table at ``where``, such as ``boundary[0]``), absent ones from their default.

    A key no field declares is a problem ending in ``hint(key)`` (default: the closest
    declared key as a suggestion). Problems come in the order the keys are read: the
    unknown keys in the table's order, then the fields in declaration order, or, with
    ``document_order``, every key present in the table's order.
    """
    known = {f.name: f for f in fields}
    prefix = f"{where}: " if where else ""
    parsed: dict[str, object] = {}
    for key in _order(known, table, document_order=document_order):
        declaration = known.get(key)
        if declaration is None:
            shown = hint(key) if hint is not None else suggest(key, known)
            reading.problem(f"{prefix}unknown key {key!r}{shown}")
        else:
            path = f"{where}.{key}" if where else key
            parsed[key] = declaration.parse(table.get(key, declaration.default), path, reading)
    return Values(parsed)


def _order(
    known: Mapping[str, object], table: Mapping[str, object], *, document_order: bool
) -> list[str]:
    """The keys to read: those of ``table`` and the declared ones, each once."""
    if document_order:
        return [*table, *(name for name in known if name not in table)]
    return [*(key for key in table if key not in known), *known]
