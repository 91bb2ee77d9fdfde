"""Structural reading of host records into the reference value types (sealing-policy §1, §2).

Records are read by attribute, so a host project's own frozen dataclasses seal exactly like the
package's reference types. Every value read is normalised to an exact builtin (``str``,
``int``, ``bool``, ``tuple``) or a reference dataclass, so later comparisons and hashing can
never run code supplied with the input. Reading never raises: a problem is recorded as a reason
code with a human-readable detail, and the field is reported unreadable.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from enum import Enum
from itertools import chain, repeat
from types import MappingProxyType
from typing import Final, cast

from sealed_trace.identity import MAX_ABS_INT, canonical_json
from sealed_trace.upstream.budget import ComputeBudgetDecision, ComputeBudgetStatus
from sealed_trace.upstream.frame import (
    MAX_FACTS_VALUES,
    ContractAssessmentProjection,
    ProblemFrameProjection,
    thaw_json,
)
from sealed_trace.upstream.gate import SearchGateDecision, SearchGateStatus
from sealed_trace.upstream.replay import (
    ProofReplayRef,
    ReplayAdapterRefusal,
    ReplayAdapterResult,
    ReplayDisposition,
    ReplayRefusalReason,
)
from sealed_trace.upstream.residuals import ContractResidual, ResidualKind, ResidualSourceAxis
from sealed_trace.upstream.run import (
    BudgetCharge,
    BudgetConsumed,
    CandidateAttempt,
    CandidateReplayStatus,
    GeometricSearchRun,
    RunExhaustionCode,
    SearchRunDisposition,
    SearchRunRefusal,
)
from sealed_trace.upstream.spans import SourceSpan

__all__ = [
    "BAD",
    "ID",
    "IDS",
    "PAIRS",
    "SCHEMAS",
    "TEXT",
    "Bad",
    "Problems",
    "RecordSchema",
    "all_spans",
    "all_valid_in_place",
    "exact_tuple",
    "frame_in_place",
    "read_record",
    "read_str",
    "span_copies",
    "spans_exact_in",
    "valid_in_place",
]


class Bad:
    """Marker for a value that could not be read."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unreadable>"


BAD: Final = Bad()
_MISSING: Final = object()


@dataclass
class Problems:
    """Reason codes in first-seen order, each with the details that explain it."""

    codes: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    #: For a tuple of nested records that failed to read: where -> each item's
    #: ``(record, readable fields)``, so ids inside it stay usable without a second read.
    partial: dict[str, list[tuple[object | None, dict[str, object]]]] = field(default_factory=dict)

    def add(self, code: str, detail: str) -> None:
        """Record ``code`` (kept once, in first-seen order) and its ``detail`` sentence."""
        if code not in self.codes:
            self.codes.append(code)
        self.details.append(f"{code}: {detail}")


_HEX_ID: Final = re.compile("[0-9a-f]{64}")


class _Silent(Problems):
    """A problem sink that keeps nothing (for fast paths that only need yes or no)."""

    def add(self, code: str, detail: str) -> None:
        """Drop the problem."""


_SILENT: Final = _Silent()


def read_str(value: object) -> str | Bad:
    """Return ``value`` as an exact, UTF-8-encodable ``str``, or :data:`BAD`."""
    kind = type(value)
    if kind is str:
        text = cast(str, value)
    else:
        if issubclass(kind, Enum):
            try:  # a foreign enum's value may be a property of its own, or missing
                value = cast(Enum, value).value
            except Exception:
                return BAD
            kind = type(value)
        if not issubclass(kind, str):
            return BAD
        text = str.__str__(cast(str, value))
    return text if text.isascii() or _encodable(text) else BAD


def _read_int(value: object) -> int | Bad:
    kind = type(value)
    if kind is int:
        number = cast(int, value)
    elif issubclass(kind, int) and not issubclass(kind, bool):
        number = int.__int__(cast(int, value))
    else:
        return BAD
    return number if -MAX_ABS_INT <= number < MAX_ABS_INT else BAD


def exact_tuple(value: object) -> tuple[object, ...] | Bad:
    """Return ``value`` as an exact tuple (a subclass's items copied), or :data:`BAD`."""
    kind = type(value)
    if kind is tuple:
        return cast(tuple[object, ...], value)
    if not issubclass(kind, tuple):
        return BAD
    return tuple.__getitem__(cast(tuple[object, ...], value), slice(None))


# A simple kind turns one attribute value into its normalised form, or BAD.
Check = Callable[[object], object]


_hex_id = _HEX_ID.fullmatch


def _identity(value: object) -> object:
    if type(value) is str:
        return value if _hex_id(value) else BAD
    text = read_str(value)
    return text if not isinstance(text, Bad) and _hex_id(text) else BAD


def _text(value: object) -> object:
    if type(value) is str and value.isascii():
        return value if value.strip() else BAD
    text = read_str(value)
    return text if not isinstance(text, Bad) and text.strip() else BAD


def _nullable(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _natural(value: object) -> object:
    if type(value) is int:
        return value if 0 <= value < MAX_ABS_INT else BAD
    number = _read_int(value)
    return number if not isinstance(number, Bad) and number >= 0 else BAD


def _bool(value: object) -> object:
    return value if type(value) is bool else BAD


def _members(cls: type[Enum]) -> frozenset[int]:
    """The ids of ``cls``'s own members: an object of the class made any other way (say with
    ``str.__new__(cls, ...)``) is not one of them, whatever its text or ``_value_``."""
    return frozenset(map(id, cls))


def _enum(cls: type[Enum]) -> Check:
    by_value: dict[object, object] = {member.value: member for member in cls}
    by_value.update({member: member for member in cls})
    members = _members(cls)

    def check(value: object) -> object:
        if id(value) in members:
            return value
        if type(value) is cls:  # an instance of the class that is none of its members
            return BAD
        text = read_str(value)
        return BAD if isinstance(text, Bad) else by_value.get(text, BAD)

    return check


def _tuple_of(check: Check) -> Check:
    def read(value: object) -> object:
        items = exact_tuple(value)
        if isinstance(items, Bad):
            return BAD
        out = list(map(check, items))
        if BAD in out:
            return BAD
        if all(map(operator.is_, out, items)):
            return items
        return tuple(out)

    return read


_SLOW: Final = object()
#: Nesting the fast facts path handles; deeper facts take the general path.
_FAST_FACTS_DEPTH: Final = 16


def _thaw_plain(value: object, depth: int, left: list[int]) -> object:
    """Copy facts built only of exact JSON types (dict with ASCII str keys, list, tuple,
    UTF-8-encodable str, int in range, bool, None): dicts stay dicts, lists and tuples become
    lists. Anything else, nesting past :data:`_FAST_FACTS_DEPTH`, or more values than
    ``left[0]`` (counted down) gives ``_SLOW``: the general path (thaw, then the identity
    check) then decides, so this path never accepts what that path refuses."""
    left[0] -= 1
    if left[0] < 0:
        return _SLOW
    kind = type(value)
    if kind is str:
        encodable = cast(str, value).isascii() or not isinstance(read_str(value), Bad)
        return value if encodable else _SLOW
    if kind is int:
        return value if -MAX_ABS_INT <= cast(int, value) < MAX_ABS_INT else _SLOW
    if value is None or kind is bool:
        return value
    if depth >= _FAST_FACTS_DEPTH:
        return _SLOW
    if kind is dict:
        out: dict[str, object] = {}
        for key, item in cast(dict[object, object], value).items():
            if type(key) is not str or not key.isascii():
                return _SLOW
            thawed = _thaw_plain(item, depth + 1, left)
            if thawed is _SLOW:
                return _SLOW
            out[key] = thawed
        return out
    if kind is list or kind is tuple:
        items = []
        for item in cast(list[object], value):
            thawed = _thaw_plain(item, depth + 1, left)
            if thawed is _SLOW:
                return _SLOW
            items.append(thawed)
        return items
    return _SLOW


def _facts(value: object) -> object:
    if type(value) is dict:
        plain = _thaw_plain(value, 1, [MAX_FACTS_VALUES])
        if plain is not _SLOW:
            return MappingProxyType(cast(dict[str, object], plain))
    return _facts_general(value)


def _facts_general(value: object) -> object:
    try:
        # A host Mapping's own methods run here (items(), iteration): whatever they raise,
        # the facts are unreadable.
        if not issubclass(type(value), Mapping):
            return BAD
        thawed = thaw_json(value)
        canonical_json({"facts": thawed})  # as deep as the frame digest payload nests it
    except Exception:
        return BAD
    return MappingProxyType(thawed)  # type: ignore[arg-type]


def _pair(value: object) -> object:
    items = exact_tuple(value)
    if isinstance(items, Bad) or len(items) != 2:
        return BAD
    name, version = _text(items[0]), _text(items[1])
    return BAD if name is BAD or version is BAD else (name, version)


@dataclass(frozen=True)
class Kind:
    """How one field is read.

    A simple kind has ``check`` (value -> normalised value or BAD) and ``what`` (the
    expectation quoted when it fails, under the record's code). A composite kind has ``read``
    (value, problems, where) -> value or BAD, and reports its own problems.
    """

    what: str = ""
    check: Check | None = None
    read: Callable[[object, Problems, str], object] | None = None
    fast: Check | None = None
    #: Optional column check for many records at once: the values of one field across the
    #: records -> True when every value is already in normal form (the caller then keeps the
    #: column as it is), else False (it checks value by value). It must never accept what
    #: ``fast`` refuses.
    bulk: Callable[[list[object]], bool] | None = None
    #: Optional column read for many records at once: the values of one field across the
    #: records -> their normalised values (what ``fast`` would give, value by value), or None
    #: when any value needs a closer look (the caller then reads value by value).
    many: Callable[[list[object]], list[object] | None] | None = None
    #: The normalised value is an exact str, int, bool, None or enum member.
    scalar: bool = False
    #: In-place check (see :func:`valid_in_place`): True only for a value of exact types that
    #: ``fast`` would accept and give back equal (a record: of the reference type itself).
    #: None: such values are never taken in place.
    valid: Check | None = None
    #: Optional in-place check of a whole column (as ``bulk``, for record values too).
    valid_many: Callable[[list[object]], bool] | None = None

    def __post_init__(self) -> None:
        if self.fast is None:
            object.__setattr__(self, "fast", self.check)


def _only(kind: type, column: list[object]) -> bool:
    """Whether every value's type is exactly ``kind``, compared by identity only: a set or
    ``==`` of types would run a hostile metaclass's ``__hash__``/``__eq__``."""
    return all(map(operator.is_, map(type, column), repeat(kind)))


_HEX_DIGITS: Final = b"0123456789abcdef"


def _bulk_ids(column: list[object]) -> bool:
    if not _only(str, column):
        return False
    ids = cast(list[str], column)
    if not ids:
        return True
    joined = "".join(ids)
    # Every id 64 characters long, and nothing left once the hex digits are deleted.
    return (
        joined.isascii()
        and set(map(len, ids)) == {64}
        and not joined.encode("ascii").translate(None, _HEX_DIGITS)
    )


def _bulk_texts(column: list[object]) -> bool:
    if not _only(str, column):
        return False
    texts = cast(list[str], column)
    return "".join(texts).isascii() and all(map(str.strip, texts))


def _bulk_strs(column: list[object]) -> bool:
    return _only(str, column) and "".join(column).isascii()  # type: ignore[arg-type]


def _bulk_ints(low: int) -> Callable[[list[object]], bool]:
    def bulk(column: list[object]) -> bool:
        numbers = cast(list[int], column)
        return _only(int, column) and (
            not numbers or (min(numbers) >= low and max(numbers) < MAX_ABS_INT)
        )

    return bulk


def _bulk_tuples_of(items: Callable[[list[object]], bool]) -> Callable[[list[object]], bool]:
    """A column check for tuples whose items, all together, pass the column check ``items``."""

    def bulk(column: list[object]) -> bool:
        return _only(tuple, column) and items(list(chain.from_iterable(column)))  # type: ignore[arg-type]

    return bulk


def _regroup(flat: list[object], column: list[object]) -> list[object]:
    """Cut ``flat`` back into tuples as long as the tuples of ``column``, in order.

    Tuples of the very same objects are one tuple (the objects are fresh copies, interned
    where equal, so attempts citing the same spans share one tuple of them).
    """
    # Keyed by the ids of the items (one int for a one-item tuple), so that a tuple is built
    # only once per distinct group: fewer short-lived objects for the collector to track.
    shared: dict[object, tuple[object, ...]] = {}
    out: list[object] = []
    position = 0
    for group in cast(list[tuple[object, ...]], column):
        size = len(group)
        if size == 1:
            item = flat[position]
            key: object = id(item)
            chunk = shared.get(key)
            if chunk is None:
                chunk = shared[key] = (item,)
        else:
            items = flat[position : position + size]
            key = tuple(map(id, items))
            chunk = shared.get(key)
            if chunk is None:
                chunk = shared[key] = tuple(items)
        out.append(chunk)
        position += size
    return out


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# In-place checks: an exact type, and a value the kind's ``fast`` check gives back as it is.
def _is_id(value: object) -> bool:
    return type(value) is str and _hex_id(value) is not None


def _is_str(value: object) -> bool:
    return type(value) is str and (value.isascii() or _encodable(value))


def _is_text(value: object) -> bool:
    return type(value) is str and bool(value.strip()) and (value.isascii() or _encodable(value))


def _is_int(value: object) -> bool:
    return type(value) is int and -MAX_ABS_INT <= value < MAX_ABS_INT


def _is_nat(value: object) -> bool:
    return type(value) is int and 0 <= value < MAX_ABS_INT


def _is_bool(value: object) -> bool:
    return type(value) is bool


def _or_none(valid: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: value is None or valid(value)


def _is_tuple_of(valid: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: type(value) is tuple and all(map(valid, value))


ID = Kind(
    "64 lowercase hex characters", _identity, bulk=_bulk_ids, scalar=True, valid=_is_id
)
ID_OR_NONE = Kind(
    "null or 64 lowercase hex characters",
    _nullable(_identity),
    scalar=True,
    valid=_or_none(_is_id),
)
TEXT = Kind("a non-empty string", _text, bulk=_bulk_texts, scalar=True, valid=_is_text)
TEXT_OR_NONE = Kind(
    "null or a non-empty string", _nullable(_text), scalar=True, valid=_or_none(_is_text)
)
STR = Kind("a string", read_str, bulk=_bulk_strs, scalar=True, valid=_is_str)
_bulk_any_ints: Final = _bulk_ints(-MAX_ABS_INT)
INT = Kind(
    "an int (not a bool) in the signed 64-bit range",
    _read_int,
    bulk=_bulk_any_ints,
    scalar=True,
    valid=_is_int,
)
NAT = Kind(
    "a non-negative int (not a bool)", _natural, bulk=_bulk_ints(0), scalar=True, valid=_is_nat
)
INT_OR_NONE = Kind("an int or null", _nullable(_read_int), scalar=True, valid=_or_none(_is_int))
BOOL = Kind(
    "a bool", _bool, bulk=lambda column: _only(bool, column), scalar=True, valid=_is_bool
)
TEXTS = Kind(
    "a tuple of non-empty strings",
    _tuple_of(_text),
    bulk=_bulk_tuples_of(_bulk_texts),
    valid=_is_tuple_of(_is_text),
)
IDS = Kind(
    "a tuple of ids (64 lowercase hex characters)",
    _tuple_of(_identity),
    bulk=_bulk_tuples_of(_bulk_ids),
    valid=_is_tuple_of(_is_id),
)
#: No in-place check: the facts are a dict and lists, which other code could change while a
#: seal runs, so a frame is always copied (:func:`frame_in_place`).
FACTS = Kind("a mapping from str to float-free JSON values", _facts)
def _is_pair(value: object) -> bool:
    return type(value) is tuple and len(value) == 2 and _is_text(value[0]) and _is_text(value[1])


PAIRS = Kind(
    "a tuple of (name, version) pairs of non-empty strings",
    _tuple_of(_pair),
    valid=_is_tuple_of(_is_pair),
)


def ENUM(cls: type[Enum]) -> Kind:
    """A kind accepting a member of ``cls`` or its string value (any str-valued enum too)."""
    members = _members(cls)
    return Kind(
        "one of " + ", ".join(member.value for member in cls),
        _enum(cls),
        bulk=lambda column: all(map(members.__contains__, map(id, column))),
        scalar=True,
        valid=lambda value: id(value) in members,
    )


def ENUM_OR_NONE(cls: type[Enum]) -> Kind:
    """As :func:`ENUM`, or None."""
    members = _members(cls)
    return Kind(
        "null or one of " + ", ".join(m.value for m in cls),
        _nullable(_enum(cls)),
        scalar=True,
        valid=lambda value: value is None or id(value) in members,
    )


@dataclass(frozen=True)
class RecordSchema:
    """How to read one record type: its label, reason code, reference class and field kinds."""

    label: str
    code: str
    cls: type
    fields: tuple[tuple[str, Kind], ...]
    plan: tuple[
        tuple[str, Check | None, Callable[[object, Problems, str], object] | None, str], ...
    ] = field(init=False, repr=False, compare=False)

    getter: Callable[[object], tuple[object, ...]] = field(init=False, repr=False, compare=False)
    field_getters: tuple[Callable[[object], object], ...] = field(
        init=False, repr=False, compare=False
    )
    #: Every field is an exact scalar (str, int, bool, None or an enum member) once read.
    scalar: bool = field(init=False, repr=False, compare=False)
    fasts: tuple[Check, ...] = field(init=False, repr=False, compare=False)
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    #: Each field's in-place check (a field without one is never valid in place).
    valids: tuple[Callable[[object], bool], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        plan = tuple((name, kind.check, kind.read, kind.what) for name, kind in self.fields)
        object.__setattr__(self, "plan", plan)
        object.__setattr__(self, "fasts", tuple(kind.fast for _, kind in self.fields))
        object.__setattr__(self, "names", tuple(name for name, _ in self.fields))
        never: Callable[[object], bool] = lambda value: False  # noqa: E731
        valids = tuple(kind.valid or never for _, kind in self.fields)
        object.__setattr__(self, "valids", valids)
        names = [name for name, _ in self.fields]
        declared = [f.name for f in dataclass_fields(self.cls)]
        if names != declared:  # records are built positionally
            raise TypeError(f"{self.label} schema fields {names} differ from {declared}")
        object.__setattr__(self, "scalar", all(kind.scalar for _, kind in self.fields))
        getters = tuple(operator.attrgetter(name) for name in names)
        object.__setattr__(self, "field_getters", getters)
        getter = operator.attrgetter(*names)
        object.__setattr__(self, "getter", getter if len(names) > 1 else lambda o: (getter(o),))


_SPAN_FIELDS: Final = ("text", "start", "end", "sentence_index")


def _normal_span(text: object, start: object, end: object, index: object) -> bool:
    """Whether a span's four values are already in normal form: exact types, encodable text,
    ``0 <= start <= end`` and every int in the signed 64-bit range."""
    return (
        type(text) is str
        and type(start) is int
        and type(end) is int
        and 0 <= start <= end < MAX_ABS_INT
        and (index is None or (type(index) is int and -MAX_ABS_INT <= index < MAX_ABS_INT))
        and (text.isascii() or _encodable(text))
    )


def _span(value: object) -> SourceSpan | Bad:
    if type(value) is SourceSpan:
        try:
            text, start, end, index = _span_fields(value)
        except AttributeError:  # a slot never set
            return BAD
        if _normal_span(text, start, end, index):
            return SourceSpan(text, start, end, index)  # a copy: the input may change later
        raw: tuple[object, ...] = (text, start, end, index)
    else:
        try:
            raw = tuple(getattr(value, name, _MISSING) for name in _SPAN_FIELDS)
        except Exception:
            return BAD
        if any(item is _MISSING for item in raw):
            return BAD
    new_text, new_start, new_end = read_str(raw[0]), _read_int(raw[1]), _read_int(raw[2])
    new_index = None if raw[3] is None else _read_int(raw[3])
    if (
        isinstance(new_text, Bad)
        or isinstance(new_start, Bad)
        or isinstance(new_end, Bad)
        or isinstance(new_index, Bad)
        or not 0 <= new_start <= new_end
    ):
        return BAD
    return SourceSpan(new_text, new_start, new_end, new_index)


def _read_spans(value: object, problems: Problems, where: str) -> object:
    items = exact_tuple(value)
    if isinstance(items, Bad):
        problems.add("malformed_evidence_span", f"{where} is not a tuple of spans")
        return BAD
    spans = list(map(_span, items))
    if any(span is BAD for span in spans):
        for index, span in enumerate(spans):
            if span is BAD:
                problems.add(
                    "malformed_evidence_span", f"{where}[{index}] is not a well-formed SourceSpan"
                )
        return BAD
    return tuple(spans)


def _fast_spans(value: object) -> object:
    return _read_spans(value, _SILENT, "")


_span_fields = operator.attrgetter(*_SPAN_FIELDS)
_text_of = operator.attrgetter("text")
_start = operator.attrgetter("start")
_end = operator.attrgetter("end")
_sentence_index = operator.attrgetter("sentence_index")


def _many_spans(column: list[object]) -> list[object] | None:
    """Column read of span tuples: fresh copies when every span takes :func:`_span`'s fast
    path (an exact SourceSpan of an ASCII text and in-range ints), else None."""
    if not _only(tuple, column):
        return None
    flat: list[object] = list(chain.from_iterable(cast(list[tuple[object, ...]], column)))
    if not flat:
        return column
    if not _only(SourceSpan, flat):
        return None
    # One list per field, no tuple per span (fewer objects for the collector to track); the
    # fields of an exact SourceSpan are slots, so reading them runs no code of the input's.
    try:
        texts = list(map(_text_of, flat))
        starts = list(map(_start, flat))
        ends = list(map(_end, flat))
        indices = list(map(_sentence_index, flat))
    except AttributeError:  # a slot never set: read span by span, reporting it
        return None
    numbered = [index for index in indices if index is not None]
    if not (
        _bulk_strs(texts)
        and _only(int, starts)
        and _only(int, ends)
        and min(starts) >= 0
        and max(ends) < MAX_ABS_INT
        and all(map(operator.le, starts, ends))
        and _bulk_any_ints(numbered)
    ):
        return None
    # Copies: the input's own spans could still be changed behind our back.
    return _regroup(_interned(SourceSpan, [texts, starts, ends, indices]), column)


def _interned(cls: type, columns: Sequence[list[object]]) -> list[object]:
    """One fresh ``cls(*row)`` per distinct row of ``columns`` (one list per field), shared by
    every equal row.

    For frozen records of exact scalars only (equal rows are then equal records): evidence
    spans and budget charges repeat across attempts, and one copy each is enough. Rows are
    never kept as a list: only the distinct ones live on, as keys.
    """
    made = {row: cls(*row) for row in dict.fromkeys(zip(*columns, strict=True))}
    return list(map(made.__getitem__, zip(*columns, strict=True)))


def _is_span(value: object) -> bool:
    # Slots of an exact SourceSpan: no code of the input's runs.
    return type(value) is SourceSpan and _normal_span(*_span_fields(value))


def _valid_many_spans(column: list[object]) -> bool:
    if not _only(tuple, column):
        return False
    flat: list[object] = list(chain.from_iterable(cast(list[tuple[object, ...]], column)))
    if not _only(SourceSpan, flat):
        return False
    starts = list(map(_start, flat))
    ends = list(map(_end, flat))
    indices = [index for index in map(_sentence_index, flat) if index is not None]
    texts = list(map(_text_of, flat))
    return (
        (_bulk_strs(texts) or all(map(_is_str, texts)))
        and _only(int, starts)
        and _only(int, ends)
        and (not flat or (min(starts) >= 0 and max(ends) < MAX_ABS_INT))
        and all(map(operator.le, starts, ends))
        and _bulk_any_ints(indices)
    )


#: A tuple of well-formed spans (sealing-policy §5); problems are span problems.
SPANS: Final = Kind(
    read=_read_spans,
    fast=_fast_spans,
    many=_many_spans,
    valid=_is_tuple_of(_is_span),
    valid_many=_valid_many_spans,
)


def _nested(schema: RecordSchema) -> Kind:
    def read(value: object, problems: Problems, where: str) -> object:
        record, _ = read_record(value, schema, problems, where)
        return BAD if record is None else record

    def fast(value: object) -> object:
        record = _read_fast(value, schema)
        return BAD if record is None else record

    def many(column: list[object]) -> list[object] | None:
        return read_many_fast(tuple(column), schema)

    return Kind(
        read=read,
        fast=fast,
        many=many,
        valid=lambda value: valid_in_place(value, schema),
        valid_many=lambda column: all_valid_in_place(column, schema),
    )


def _nested_tuple(schema: RecordSchema) -> Kind:
    def read(value: object, problems: Problems, where: str) -> object:
        items = exact_tuple(value)
        if isinstance(items, Bad):
            problems.add(schema.code, f"{where} is not a tuple of {schema.label} records")
            return BAD
        reads = [read_record(item, schema, problems, where, i) for i, item in enumerate(items)]
        if any(record is None for record, _ in reads):
            problems.partial[where] = reads
            return BAD
        return tuple(record for record, _ in reads)

    def fast(value: object) -> object:
        items = exact_tuple(value)
        if isinstance(items, Bad):
            return BAD
        out = read_many_fast(items, schema)
        return BAD if out is None else tuple(out)

    def many(column: list[object]) -> list[object] | None:
        if not _only(tuple, column):
            return None
        out = read_many_fast(tuple(chain.from_iterable(column)), schema)  # type: ignore[arg-type]
        return None if out is None else _regroup(out, column)

    def valid(value: object) -> bool:
        return type(value) is tuple and all_valid_in_place(value, schema)

    def valid_many(column: list[object]) -> bool:
        return _only(tuple, column) and all_valid_in_place(
            list(chain.from_iterable(column)),  # type: ignore[arg-type]
            schema,
        )

    return Kind(read=read, fast=fast, many=many, valid=valid, valid_many=valid_many)


def _get(obj: object, name: str) -> object:
    try:
        return getattr(obj, name, _MISSING)
    except Exception:
        return _MISSING


def _read_fast(obj: object, schema: RecordSchema) -> object | None:
    """Read a record without reporting: the record, or None when anything is wrong."""
    try:
        raws: tuple[object, ...] = schema.getter(obj)
    except Exception:
        return None
    values = [check(raw) for check, raw in zip(schema.fasts, raws, strict=True)]
    if BAD in values:
        return None
    # Always a new instance: the input's own objects could still be changed behind our back.
    record: object = schema.cls(*values)
    return record


def read_many_fast(items: tuple[object, ...], schema: RecordSchema) -> list[object] | None:
    """Read many records of one schema column by column, without reporting.

    Each field's values across all records are checked together where the kind has a column
    check (exact types, one regex over all ids, ...), value by value otherwise. Returns fresh
    reference instances, or None when anything is wrong (the caller then reads record by
    record, reporting why).
    """
    if len(items) < 8:
        few = [_read_fast(item, schema) for item in items]
        return None if None in few else few
    try:
        # One list per field (no tuple per record: fewer objects for the collector to track).
        raw_columns = [list(map(get, items)) for get in schema.field_getters]
    except Exception:
        return None
    columns: list[list[object]] = []
    for (_, kind), values in zip(schema.fields, raw_columns, strict=True):
        if kind.bulk is not None and kind.bulk(values):
            columns.append(values)
            continue
        if kind.many is not None:
            read = kind.many(values)
            if read is not None:
                columns.append(read)
                continue
        checked = list(map(kind.fast, values))  # type: ignore[arg-type]
        if any(value is BAD for value in checked):
            return None
        columns.append(checked)
    if schema.scalar:
        return _interned(schema.cls, columns)
    return list(map(schema.cls, *columns))


def valid_in_place(obj: object, schema: RecordSchema) -> bool:
    """Whether ``obj`` can be used as it is: an instance of the reference class itself whose
    every field holds exact types that the field's check accepts unchanged, all the way down.

    Only the slots of reference instances are read, and only types are compared (by
    identity), so no code of the input's runs. When a whole episode is such values, nothing
    can change it while it is sealed, and reading it need not copy it
    (``tests/test_reader_in_place.py`` holds this to :func:`read_record`).
    """
    if type(obj) is not schema.cls:
        return False
    raws: tuple[object, ...] = schema.getter(obj)
    for valid, raw in zip(schema.valids, raws, strict=True):  # noqa: SIM110 -- no generator frame
        if not valid(raw):
            return False
    return True


def frame_in_place(obj: object) -> ProblemFrameProjection | None:
    """For an episode checked in place: a copy of the frame ``obj`` whose facts are copied
    (they are a dict and lists, which other code could change while a seal runs), or None
    when ``obj`` is not :func:`valid_in_place`. Like that check, it runs no code of the
    input's; the copy equals what :func:`read_record` gives.
    """
    if type(obj) is not ProblemFrameProjection:
        return None
    digest, version, text, facts = FRAME.getter(obj)
    if not (_is_id(digest) and _is_text(version) and _is_str(text) and type(facts) is dict):
        return None
    plain = _thaw_plain(facts, 1, [MAX_FACTS_VALUES])
    if plain is _SLOW:
        return None
    return ProblemFrameProjection(digest, version, text, MappingProxyType(plain))  # type: ignore[arg-type]


def all_valid_in_place(items: Sequence[object], schema: RecordSchema) -> bool:
    """:func:`valid_in_place` for every item; eight or more are checked a column at a time."""
    if len(items) < 8:
        return all(valid_in_place(item, schema) for item in items)
    if not _only(schema.cls, items):  # type: ignore[arg-type]
        return False
    for get, (_, kind) in zip(schema.field_getters, schema.fields, strict=True):
        column = list(map(get, items))
        if kind.bulk is not None and kind.bulk(column):
            continue
        if kind.valid_many is not None and kind.valid_many(column):
            continue
        if kind.valid is None or not all(map(kind.valid, column)):
            return False
    return True


def read_record(
    obj: object, schema: RecordSchema, problems: Problems, where: str, index: int | None = None
) -> tuple[object | None, dict[str, object]]:
    """Read ``obj`` by attribute as ``schema`` says.

    ``where`` names the record in problem details (``index``, when given, is appended as
    ``[index]``; details are only formatted when a problem occurs). An instance of the
    reference class whose values all read back as themselves is returned as it is (it is
    frozen, so nothing can change it later).

    Returns:
        ``(record, fields)``: the reference instance, or None and every field that was read
        successfully, by name (so an id can still be used when another field of the same
        record is malformed). ``fields`` is empty when the record was read.
    """
    record = _read_fast(obj, schema)
    if record is not None:
        return record, {}
    fields: dict[str, object] = {}
    place = where if index is None else f"{where}[{index}]"
    raws = tuple(_get(obj, name) for name in schema.names)
    for (name, check, read, what), raw in zip(schema.plan, raws, strict=True):
        if raw is _MISSING:
            problems.add(schema.code, f"{place} has no field {name}")
            continue
        if check is not None:
            value = check(raw)
            if value is BAD:
                problems.add(schema.code, f"{place}.{name} is not {what}")
        else:
            value = read(raw, problems, f"{place}.{name}")  # type: ignore[misc]
        if value is not BAD:
            fields[name] = value
    if len(fields) == len(schema.names):  # an attribute that failed only on the fast path
        problems.add(schema.code, f"{place} could not be read consistently")
    return None, fields


def _schema(label: str, code: str, cls: type, *fields: tuple[str, Kind]) -> RecordSchema:
    return RecordSchema(label, code, cls, fields)


FRAME: Final = _schema(
    "ProblemFrame projection",
    "malformed_problem_frame",
    ProblemFrameProjection,
    ("frame_digest", ID),
    ("frame_schema_version", TEXT),
    ("problem_text", STR),
    ("facts", FACTS),
)
ASSESSMENT: Final = _schema(
    "ContractAssessment projection",
    "malformed_contract_assessment",
    ContractAssessmentProjection,
    ("assessment_id", ID),
    ("problem_frame_digest", ID),
    ("candidate_organ", TEXT),
    ("missing_bindings", TEXTS),
    ("unresolved_hazards", TEXTS),
    ("runnable", BOOL),
    ("evidence_spans", SPANS),
    ("explanation", STR),
)
RESIDUAL: Final = _schema(
    "ContractResidual",
    "malformed_residual",
    ContractResidual,
    ("residual_id", ID),
    ("candidate_organ", TEXT),
    ("family_id", TEXT_OR_NONE),
    ("residual_kind", ENUM(ResidualKind)),
    ("residual_code", TEXT),
    ("source_axis", ENUM(ResidualSourceAxis)),
    ("evidence_spans", SPANS),
    ("explanation", STR),
)
GATE: Final = _schema(
    "SearchGateDecision",
    "malformed_search_gate_decision",
    SearchGateDecision,
    ("decision_id", ID),
    ("policy_version", TEXT),
    ("input_digest", ID),
    ("residual_ids", IDS),
    ("candidate_organ", TEXT_OR_NONE),
    ("status", ENUM(SearchGateStatus)),
    ("reason_code", TEXT),
    ("evidence_spans", SPANS),
    ("explanation", STR),
)
BUDGET: Final = _schema(
    "ComputeBudgetDecision",
    "malformed_compute_budget_decision",
    ComputeBudgetDecision,
    ("budget_id", ID),
    ("policy_version", TEXT),
    ("gate_decision_id", ID),
    ("gate_policy_version", TEXT),
    ("gate_input_digest", ID),
    ("status", ENUM(ComputeBudgetStatus)),
    ("reason_code", TEXT),
    ("max_candidates", NAT),
    ("max_depth", NAT),
    ("max_steps", NAT),
    ("max_wallclock_ms", INT_OR_NONE),
    ("max_parallelism", NAT),
    ("evidence_spans", SPANS),
    ("explanation", STR),
)
CHARGE: Final = _schema(
    "BudgetCharge",
    "malformed_candidate_attempt",
    BudgetCharge,
    ("candidates", NAT),
    ("steps", NAT),
)
CONSUMED: Final = _schema(
    "BudgetConsumed",
    "malformed_geometric_search_run",
    BudgetConsumed,
    ("candidates_considered", NAT),
    ("max_candidates", NAT),
    ("depth_reached", NAT),
    ("max_depth", NAT),
    ("steps_used", NAT),
    ("max_steps", NAT),
    ("parallelism_used", NAT),
    ("max_parallelism", NAT),
    ("exhausted", BOOL),
)
ATTEMPT: Final = _schema(
    "CandidateAttempt",
    "malformed_candidate_attempt",
    CandidateAttempt,
    ("attempt_id", ID),
    ("attempt_index", INT),
    ("parent_attempt_id", ID_OR_NONE),
    ("operator_id", TEXT),
    ("operator_version", TEXT),
    ("input_digest", ID),
    ("candidate_digest", ID),
    ("budget_charge", _nested(CHARGE)),
    ("depth", NAT),
    ("step_index", NAT),
    ("replay_status", ENUM(CandidateReplayStatus)),
    ("replay_blockers", TEXTS),
    ("evidence_spans", SPANS),
    ("explanation", STR),
)
RUN: Final = _schema(
    "GeometricSearchRun",
    "malformed_geometric_search_run",
    GeometricSearchRun,
    ("run_id", ID),
    ("run_policy_version", TEXT),
    ("schema_version", TEXT),
    ("problem_frame_digest", ID),
    ("contract_assessment_id", ID),
    ("residual_ids", IDS),
    ("gate_decision_id", ID),
    ("budget_id", ID),
    ("operator_set_id", TEXT),
    ("operator_set_version", TEXT),
    ("input_digest", ID),
    ("candidate_attempts", _nested_tuple(ATTEMPT)),
    ("budget_consumed", _nested(CONSUMED)),
    ("run_disposition", ENUM(SearchRunDisposition)),
    ("exhaustion_code", ENUM_OR_NONE(RunExhaustionCode)),
    ("explanation", STR),
)
RUN_REFUSAL: Final = _schema(
    "SearchRunRefusal",
    "malformed_search_run_refusal",
    SearchRunRefusal,
    ("outcome_id", ID),
    ("run_policy_version", TEXT),
    ("input_digest", ID_OR_NONE),
    ("gate_decision_id", ID_OR_NONE),
    ("budget_id", ID_OR_NONE),
    ("run_disposition", ENUM(SearchRunDisposition)),
    ("reason_codes", TEXTS),
    ("explanation", STR),
)
PROOF_REF: Final = _schema(
    "ProofReplayRef",
    "malformed_replay_result",
    ProofReplayRef,
    ("proof_obligation_id", TEXT),
    ("proof_obligation_version", TEXT),
    ("proof_replay_id", TEXT),
    ("closed", BOOL),
    ("reason_code", TEXT),
)
REPLAY_RESULT: Final = _schema(
    "ReplayAdapterResult",
    "malformed_replay_result",
    ReplayAdapterResult,
    ("replay_result_id", ID),
    ("replay_policy_version", TEXT),
    ("input_digest", ID),
    ("run_id", ID),
    ("attempt_id", ID),
    ("candidate_digest", ID),
    ("contract_replay_assessment_id", TEXT),
    ("proof_obligation_refs", TEXTS),
    ("proof_replay_refs", _nested_tuple(PROOF_REF)),
    ("replay_disposition", ENUM(ReplayDisposition)),
    ("reason_codes", TEXTS),
    ("evidence_spans", SPANS),
    ("explanation", STR),
)
REPLAY_REFUSAL: Final = _schema(
    "ReplayAdapterRefusal",
    "malformed_replay_refusal",
    ReplayAdapterRefusal,
    ("replay_refusal_id", ID),
    ("replay_policy_version", TEXT),
    ("input_digest", ID_OR_NONE),
    ("run_id", ID_OR_NONE),
    ("attempt_id", ID_OR_NONE),
    ("candidate_digest", ID_OR_NONE),
    ("replay_disposition", ENUM(ReplayRefusalReason)),
    ("reason_codes", TEXTS),
    ("explanation", STR),
)

#: Every record schema by label, for the episode document decoder.
SCHEMAS: Final = {
    schema.label: schema
    for schema in (
        FRAME,
        ASSESSMENT,
        RESIDUAL,
        GATE,
        BUDGET,
        CHARGE,
        CONSUMED,
        ATTEMPT,
        RUN,
        RUN_REFUSAL,
        PROOF_REF,
        REPLAY_RESULT,
        REPLAY_REFUSAL,
    )
}


_evidence_spans = operator.attrgetter("evidence_spans")


def all_spans(*groups: tuple[object, ...]) -> tuple[SourceSpan, ...]:
    """Every ``evidence_spans`` item of the records in ``groups``, in order, as one tuple."""
    return tuple(chain.from_iterable(map(_evidence_spans, chain.from_iterable(groups))))


def span_copies(spans: tuple[SourceSpan, ...]) -> tuple[SourceSpan, ...]:
    """Fresh copies of ``spans`` (exact SourceSpans of exact values, already checked): one
    per distinct span, shared wherever an equal span occurs again."""
    made: dict[tuple[object, ...], SourceSpan] = {}
    out = []
    for span in spans:
        row = _span_fields(span)  # exact str and ints (never bools): equal rows, equal spans
        copy = made.get(row)
        if copy is None:
            copy = made[row] = SourceSpan(*row)
        out.append(copy)
    return tuple(out)


def spans_exact_in(text: str, spans: tuple[SourceSpan, ...]) -> bool:
    """Tell whether every span (already read: exact ints and str) is exact in ``text``:
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
