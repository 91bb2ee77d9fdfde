"""Reading one record by attribute into a fresh reference instance (sealing-policy §1, §9).

The one read path of every record, reference type or host object alike: each attribute is
read exactly once and copied into normal form; an object met in several places is read once
per seal and every place gets the same copy; records are tracked by ``id()``, never by hash
or equality, so any host class reads (sealing-policy §11).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from itertools import chain
from typing import Final

from sealed_trace._reader._values import (
    BAD,
    MISSING,
    UNREADABLE,
    Bad,
    Check,
    Problems,
    Where,
    encodable,
    exact_tuple,
    path,
    read_int,
    read_str,
    version_text,
)
from sealed_trace.identity import MAX_ABS_INT
from sealed_trace.upstream.spans import SourceSpan

__all__ = [
    "Kept",
    "Kind",
    "RecordSchema",
    "all_spans",
    "keep",
    "nested",
    "nested_tuple",
    "read_attribute",
    "read_before",
    "read_record",
    "spans_exact_in",
]

#: A composite kind: (raw value, problems, where) -> value or BAD, reporting its own problems.
Reader = Callable[[object, Problems, Where], object]


@dataclass(frozen=True)
class Kind:
    """How one field is read.

    A simple kind has ``check`` and ``what`` (the expectation quoted when it fails, under
    the record's code); a composite kind has ``read``. ``version`` marks a version value
    (sealing-policy §8): when it does not read, its text (if it is a string at all) is still
    kept, so that a value outside the manifest is judged as one (§11).
    """

    what: str = ""
    check: Check | None = None
    read: Reader | None = None
    version: bool = False


class Kept:
    """What a seal keeps of an object it could not copy whole: the kind it was read as, and
    the fields that did read (by name)."""

    __slots__ = ("fields", "label")

    def __init__(self, label: str, fields: dict[str, object]) -> None:
        self.label = label
        self.fields = fields


@dataclass(frozen=True)
class RecordSchema:
    """How to read one record type: its label, reason code, reference class and field kinds,
    in the reference class's field order (records are built positionally)."""

    label: str
    code: str
    cls: type
    fields: tuple[tuple[str, Kind], ...]
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    #: Per field: (name, check, read, kind), unpacked once for the read loop.
    plan: tuple[tuple[str, Check | None, Reader, Kind], ...] = field(
        init=False, repr=False, compare=False
    )
    #: Fields that may be absent, each with the value it then has (a claimed trace input's
    #: binding ids under the adr-0230 layout); empty for every upstream record.
    defaults: tuple[tuple[str, object], ...] = ()
    #: What a record of this kind holds in ``Problems.copies`` while its fields are read.
    being_read: Kept = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(name for name, _ in self.fields))
        plan = tuple((name, kind.check, kind.read or _never, kind) for name, kind in self.fields)
        object.__setattr__(self, "plan", plan)
        object.__setattr__(self, "being_read", Kept(f"{self.label} (being read)", {}))
        # A schema may leave out trailing fields that have defaults (a claimed trace input
        # under the adr-0230 layout has no binding ids).
        declared = [f.name for f in dataclass_fields(self.cls)][: len(self.names)]
        if list(self.names) != declared:
            raise TypeError(f"{self.label} schema fields {list(self.names)} differ from {declared}")


_NO_FIELDS: Final[dict[str, object]] = {}
_SPAN_FIELDS: Final = ("text", "start", "end", "sentence_index")
#: Values of these exact types run no host code when read: the same one (None, an interned
#: string) may stand in places of several kinds, each reported as its own kind reports it.
_BUILTIN_VALUES: Final = (type(None), bool, int, float, str, bytes, tuple, list, dict)
#: Their ids: a type is looked up by ``id()``, so no host metaclass code runs.
_BUILTIN_IDS: Final = frozenset(map(id, _BUILTIN_VALUES))


def read_attribute(obj: object, name: str) -> object:
    """Read attribute ``name`` of ``obj`` once: its value, ``MISSING`` when there is none
    (AttributeError), ``UNREADABLE`` when reading it raised any other ``Exception``
    (``StopIteration`` included: sealing-policy §11). A ``RecursionError`` is the caller's
    stack, not the record: it propagates, and the seal refuses as ``sealer_internal_fault``.
    Control flow (a ``BaseException`` that is not an ``Exception``) propagates."""
    try:
        return getattr(obj, name)
    except AttributeError:
        return MISSING
    except RecursionError:
        raise
    except Exception:
        return UNREADABLE


def _key(obj: object, label: str) -> object:
    """The key of ``obj``'s copy in ``Problems.copies``: its id, or for a builtin value its id
    with the kind it is read as. Types are compared by identity: no host hash or __eq__."""
    if id(type(obj)) in _BUILTIN_IDS:
        return (label, id(obj))
    return id(obj)


def keep(problems: Problems, obj: object, label: str) -> None:
    """Hold ``obj`` as read already, as a ``label`` (the episode, say): no record besides."""
    problems.copies[_key(obj, label)] = Kept(label, {})
    problems.held.append(obj)


def read_before(problems: Problems, obj: object, label: str) -> str | None:
    """The kind of record ``obj`` was already read as in this seal, or None."""
    copy = problems.copies.get(_key(obj, label))
    return None if copy is None else _kind_of(copy)


def _kind_of(copy: object) -> str:
    if type(copy) is Kept:
        return copy.label
    return type(copy).__name__


def read_record(
    obj: object, schema: RecordSchema, problems: Problems, where: Where, index: int | None = None
) -> tuple[object | None, dict[str, object]]:
    """Read ``obj`` by attribute as ``schema`` says (sealing-policy §1, §9).

    Each attribute is read exactly once and copied into normal form. A missing attribute, one
    whose read raises an ``Exception``, and one whose value is malformed are each reported
    under the schema's reason code at ``where`` (``index``, when given, as ``[index]``).

    Returns:
        ``(record, fields)``: a fresh reference instance and no fields, or None and every
        field that did read, by name (an id stays usable when another field is malformed).
    """
    key = _key(obj, schema.label)
    copy = problems.copies.get(key)
    if copy is None:
        # Kept as being read first: met again inside its own fields, it is not read twice.
        problems.copies[key] = schema.being_read
        record, fields = _read_fields(obj, schema, problems, where, index)
        problems.copies[key] = record if record is not None else Kept(schema.label, fields)
        problems.held.append(obj)
        return record, fields
    if type(copy) is schema.cls:
        return copy, _NO_FIELDS
    if type(copy) is Kept and copy.label == schema.label:
        return None, copy.fields
    problems.add(
        schema.code,
        f"{path((where, index, None))} is an object already read as a {_kind_of(copy)}:"
        " one object cannot be two kinds of record",
    )
    return None, {}


def _read_fields(
    obj: object, schema: RecordSchema, problems: Problems, where: Where, index: int | None
) -> tuple[object | None, dict[str, object]]:
    values: list[object] = []
    failed = False
    for name, check, read, kind in schema.plan:
        try:  # read_attribute, inlined: this loop runs once per field of every record
            raw = getattr(obj, name)
        except AttributeError:
            problem = "has no field"
        except RecursionError:
            raise
        except Exception:
            problem = "could not read field"
        else:
            if check is not None:
                value = check(raw, problems)
                if value is BAD:
                    failed = True
                    problems.add(schema.code, f"{path((where, index, name))} is not {kind.what}")
                    if kind.version:  # judged against the manifest all the same
                        value = _version(raw, problems)
            else:
                value = read(raw, problems, (where, index, name))
                if value is BAD:
                    failed = True
            values.append(value)
            continue
        problems.add(schema.code, f"{path((where, index, None))} {problem} {name}")
        failed = True
        values.append(BAD)
    if not failed:
        return schema.cls(*values), _NO_FIELDS
    return None, _kept(schema, values)


def _never(raw: object, problems: Problems, where: Where) -> object:
    """The composite reader of a simple kind: never called (its check reads the field)."""
    return BAD


def _version(raw: object, problems: Problems) -> object:
    text = version_text(raw, problems)
    return BAD if text is None else _Version(text)


class _Version(str):
    """A version value that did not read, kept only to be judged against the manifest."""

    __slots__ = ()


def _kept(schema: RecordSchema, values: list[object]) -> dict[str, object]:
    """The fields of a record that did not read whole: those that did, by name, and a
    malformed version value's text."""
    kept: dict[str, object] = {}
    for name, value in zip(schema.names, values, strict=True):
        if type(value) is _Version:
            kept[name] = str.__str__(value)
        elif value is not BAD:
            kept[name] = value
    return kept


def _normal_span(text: object, start: object, end: object, index: object) -> SourceSpan | None:
    """A span of the four values when they are already in normal form, else None."""
    if (
        type(text) is str
        and type(start) is int
        and type(end) is int
        and 0 <= start <= end < MAX_ABS_INT
        and (text.isascii() or encodable(text))
    ):
        if index is None:
            return SourceSpan(text, start, end, None)
        if type(index) is int and -MAX_ABS_INT <= index < MAX_ABS_INT:
            return SourceSpan(text, start, end, index)
    return None


def _read_span(value: object, problems: Problems) -> SourceSpan | Bad:
    """A fresh SourceSpan from ``value``'s four attributes, each read once, or BAD."""
    raw: list[object] = []
    for name in _SPAN_FIELDS:
        try:
            raw.append(getattr(value, name))
        except RecursionError:
            raise
        except Exception:  # missing or unreadable (sealing-policy §9, §11)
            return BAD
    text, start, end, index = raw
    span = _normal_span(text, start, end, index)
    if span is not None:
        return span
    new_text, new_start = read_str(text, problems), read_int(start, problems)
    new_end = read_int(end, problems)
    new_index = None if index is None else read_int(index, problems)
    if (
        isinstance(new_text, Bad)
        or isinstance(new_start, Bad)
        or isinstance(new_end, Bad)
        or isinstance(new_index, Bad)
        or not 0 <= new_start <= new_end
    ):
        return BAD
    return SourceSpan(new_text, new_start, new_end, new_index)


def read_spans(value: object, problems: Problems, where: Where) -> object:
    """A tuple of well-formed spans (sealing-policy §5), each span object read once."""
    items = exact_tuple(value)
    if isinstance(items, Bad):
        problems.add("malformed_evidence_span", f"{path(where)} is not a tuple of spans")
        return BAD
    copies = problems.copies
    spans: list[object] = []
    for item in items:
        key = _key(item, "SourceSpan")
        span = copies.get(key)
        if span is None:
            span = _read_span(item, problems)
            copies[key] = span if span is not BAD else Kept("SourceSpan", {})
            problems.held.append(item)
        elif type(span) is not SourceSpan:  # a span that did not read, or another kind
            span = BAD
        spans.append(span)
    if BAD not in spans:  # SourceSpan's own __eq__: BAD is never equal to a span
        return tuple(spans)
    for index, span in enumerate(spans):
        if span is BAD:
            problems.add(
                "malformed_evidence_span", f"{path(where)}[{index}] is not a well-formed SourceSpan"
            )
    return BAD


def nested(schema: RecordSchema) -> Kind:
    """A field holding one record of ``schema``."""

    def read(value: object, problems: Problems, where: Where) -> object:
        record, _ = read_record(value, schema, problems, where)
        return BAD if record is None else record

    return Kind(read=read)


def nested_tuple(schema: RecordSchema) -> Kind:
    """A field holding a tuple of records of ``schema``; when any does not read, each item's
    ``(record, fields)`` is kept in ``Problems.partial`` under the field's path."""

    def read(value: object, problems: Problems, where: Where) -> object:
        items = exact_tuple(value)
        if isinstance(items, Bad):
            problems.add(schema.code, f"{path(where)} is not a tuple of {schema.label} records")
            return BAD
        reads = [read_record(item, schema, problems, where, i) for i, item in enumerate(items)]
        if any(record is None for record, _ in reads):
            problems.partial[path(where)] = reads
            return BAD
        return tuple(record for record, _ in reads)

    return Kind(read=read)


_text_of = operator.attrgetter("text")
_start = operator.attrgetter("start")
_end = operator.attrgetter("end")
_evidence_spans = operator.attrgetter("evidence_spans")


def all_spans(*groups: tuple[object, ...]) -> tuple[SourceSpan, ...]:
    """Every ``evidence_spans`` item of the records in ``groups``, in order, as one tuple."""
    return tuple(chain.from_iterable(map(_evidence_spans, chain.from_iterable(groups))))


def spans_exact_in(text: str, spans: tuple[SourceSpan, ...]) -> bool:
    """Tell whether every span (already read) is exact in ``text``:
    ``0 <= start < end <= len(text)`` and ``text[start:end] == span.text`` (sealing-policy §5).
    """
    if not spans:
        return True
    starts = list(map(_start, spans))
    ends = list(map(_end, spans))
    return (
        min(starts) >= 0
        and max(ends) <= len(text)
        and all(map(operator.lt, starts, ends))
        and list(map(text.__getitem__, map(slice, starts, ends))) == list(map(_text_of, spans))
    )
