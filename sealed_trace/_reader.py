"""Structural reading of host records into the reference value types (sealing-policy §1, §2).

Records are read by attribute, so a host project's own frozen dataclasses seal exactly like the
package's reference types. Every value read is normalised to an exact builtin (``str``,
``int``, ``bool``, ``tuple``) or a reference dataclass, so later comparisons and hashing can
never run code supplied with the input. Reading never raises: a problem is recorded as a reason
code with a human-readable detail, and the field is reported unreadable.
"""

from __future__ import annotations

import contextvars
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from enum import Enum
from itertools import chain
from types import MappingProxyType
from typing import Final, TypeAlias, cast

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
    "MISSING",
    "PAIRS",
    "SCHEMAS",
    "TEXT",
    "UNREADABLE",
    "Bad",
    "Problems",
    "RecordSchema",
    "all_spans",
    "exact_tuple",
    "read_attribute",
    "read_pair",
    "read_record",
    "read_str",
    "spans_exact_in",
]


class Bad:
    """Marker for a value that could not be read."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unreadable>"


BAD: Final = Bad()
#: An attribute that is not there (AttributeError).
MISSING: Final = object()
_MISSING: Final = MISSING
#: The readable fields of a record that was read whole: none to list (shared, never changed).
_NO_FIELDS: Final[dict[str, object]] = {}


@dataclass
class Problems:
    """Reason codes in first-seen order, each with the details that explain it."""

    codes: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    #: For a tuple of nested records that failed to read: where -> each item's
    #: ``(record, readable fields)``, so ids inside it stay usable without a second read.
    partial: dict[str, list[tuple[object | None, dict[str, object]]]] = field(default_factory=dict)
    #: Every object read so far in this seal, by id, with its copy: a fresh reference
    #: instance, or a :class:`Kept` for one that could not be read (or the episode itself).
    #: An object that sits in several places is read once, and every place gets the same
    #: copy (sealing-policy §9); met again as another kind of record, it is not read again: it
    #: is malformed there. Each object is held in ``held`` until the seal ends, so that no id
    #: is reused meanwhile.
    copies: dict[object, object] = field(default_factory=dict)
    held: list[object] = field(default_factory=list)

    def add(self, code: str, detail: str) -> None:
        """Record ``code`` (kept once, in first-seen order) and its ``detail`` sentence."""
        if code not in self.codes:
            self.codes.append(code)
        self.details.append(f"{code}: {detail}")


#: Where a value sits: a path's text, or (the record's place, its index in a tuple or None,
#: a field name or None), turned into text by :func:`_path` only when a problem is reported:
#: most values have none, and most records' paths are never written out.
Where: TypeAlias = str | tuple["Where", int | None, str | None]


_HEX_ID: Final = re.compile("[0-9a-f]{64}")


#: The ``value`` of each foreign enum member read so far in the running seal, by id, with
#: the member (held): a member met in many places is read once (sealing-policy §9). None
#: outside a seal; one per seal, thread or task (see :func:`begin_seal`).
_ENUM_VALUES: Final[contextvars.ContextVar[dict[int, tuple[object, object]] | None]] = (
    contextvars.ContextVar("sealed_trace_enum_values", default=None)
)


def begin_seal() -> contextvars.Token[dict[int, tuple[object, object]] | None]:
    """Start this seal's reads of foreign enum values; pass the token to :func:`end_seal`."""
    return _ENUM_VALUES.set({})


def end_seal(token: contextvars.Token[dict[int, tuple[object, object]] | None]) -> None:
    """End the seal :func:`begin_seal` started (its enum values are let go)."""
    _ENUM_VALUES.reset(token)


def _enum_value(member: object) -> object:
    """A foreign enum member's ``value`` (a property of its own, perhaps, or missing): read
    once per seal; BAD when reading it raises (sealing-policy §9)."""
    read = _ENUM_VALUES.get()
    if read is not None:
        known = read.get(id(member))
        if known is not None:
            return known[1]
    try:
        value = cast(Enum, member).value
    except KeyboardInterrupt:
        raise
    except BaseException:  # any exception is a malformed value
        value = BAD
    if read is not None:
        read[id(member)] = (member, value)
    return value


def read_str(value: object) -> str | Bad:
    """Return ``value`` as an exact, UTF-8-encodable ``str``, or :data:`BAD`."""
    if type(value) is str:
        text = value
    else:
        kind = type(value)
        if issubclass(kind, Enum):
            value = _enum_value(value)
            if value is BAD:
                return BAD
            kind = type(value)
        if not issubclass(kind, str):  # not isinstance: that would read __class__
            return BAD
        text = str.__str__(cast(str, value))
    return text if text.isascii() or _encodable(text) else BAD


def _read_int(value: object) -> int | Bad:
    if type(value) is int:
        number = value
    elif issubclass(type(value), int) and not issubclass(type(value), bool):
        number = int.__int__(cast(int, value))
    else:
        return BAD
    return number if -MAX_ABS_INT <= number < MAX_ABS_INT else BAD


def exact_tuple(value: object) -> tuple[object, ...] | Bad:
    """Return ``value`` as an exact tuple (a subclass's items copied), or :data:`BAD`."""
    if type(value) is tuple:
        return value
    if not issubclass(type(value), tuple):
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
        # A loop, not map(): an exception a check lets through propagates (the seal refuses)
        # instead of passing for the end of the items. While every item is already an exact
        # immutable value (str, tuple of str), the exact tuple itself is kept: it cannot change.
        out: list[object] | None = None
        for position, item in enumerate(items):
            new = check(item)
            if new is BAD:
                return BAD
            if out is not None:
                out.append(new)
            elif new is not item:
                out = [*items[:position], new]
        return items if out is None else tuple(out)

    return read


_SLOW: Final = object()
#: Nesting the plain facts copy handles; deeper facts take the general path.
_FAST_FACTS_DEPTH: Final = 16


def _thaw_plain(value: object, depth: int, left: list[int]) -> object:
    """Copy facts built only of exact JSON types (dict with ASCII str keys, list, tuple,
    UTF-8-encodable str, int in range, bool, None): dicts stay dicts, lists and tuples become
    lists. Anything else, nesting past :data:`_FAST_FACTS_DEPTH`, or more values than
    ``left[0]`` (counted down) gives ``_SLOW``: the general path (thaw, then the identity
    check) then decides, so this copy never accepts what that path refuses."""
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
    except KeyboardInterrupt:
        raise
    except BaseException:
        return BAD
    return MappingProxyType(thawed)  # type: ignore[arg-type]


def read_pair(value: object) -> tuple[str, str] | Bad:
    """One ``(name, version)`` entry of a version list: two non-empty strings, or BAD."""
    items = exact_tuple(value)
    if isinstance(items, Bad) or len(items) != 2:
        return BAD
    name, version = _text(items[0]), _text(items[1])
    if isinstance(name, Bad) or isinstance(version, Bad):
        return BAD
    return cast(str, name), cast(str, version)


@dataclass(frozen=True)
class Kind:
    """How one field is read.

    A simple kind has ``check`` (value -> normalised value or BAD) and ``what`` (the
    expectation quoted when it fails, under the record's code). A composite kind has ``read``
    (value, problems, where) -> value or BAD, and reports its own problems at :func:`_path`
    ``(where)``.
    """

    what: str = ""
    check: Check | None = None
    read: Callable[[object, Problems, Where], object] | None = None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


ID = Kind("64 lowercase hex characters", _identity)
ID_OR_NONE = Kind("null or 64 lowercase hex characters", _nullable(_identity))
TEXT = Kind("a non-empty string", _text)
TEXT_OR_NONE = Kind("null or a non-empty string", _nullable(_text))
STR = Kind("a string", read_str)
INT = Kind("an int (not a bool) in the signed 64-bit range", _read_int)
INT_OR_NONE = Kind("an int or null", _nullable(_read_int))
BOOL = Kind("a bool", _bool)
TEXTS = Kind("a tuple of non-empty strings", _tuple_of(_text))
#: sealing-policy §9: a str field that §2 names as no identifier may be any string, the
#: empty string included, and an int field any int in range, negative included (the sealer
#: does not re-judge what an upstream authority chose).
STR_OR_NONE = Kind("null or a string", _nullable(read_str))
STRS = Kind("a tuple of strings", _tuple_of(read_str))
IDS = Kind("a tuple of ids (64 lowercase hex characters)", _tuple_of(_identity))
FACTS = Kind("a mapping from str to float-free JSON values", _facts)
PAIRS = Kind("a tuple of (name, version) pairs of non-empty strings", _tuple_of(read_pair))


def ENUM(cls: type[Enum]) -> Kind:
    """A kind accepting a member of ``cls`` or its string value (any str-valued enum too)."""
    return Kind("one of " + ", ".join(member.value for member in cls), _enum(cls))


def ENUM_OR_NONE(cls: type[Enum]) -> Kind:
    """As :func:`ENUM`, or None."""
    return Kind("null or one of " + ", ".join(m.value for m in cls), _nullable(_enum(cls)))


@dataclass(frozen=True)
class RecordSchema:
    """How to read one record type: its label, reason code, reference class and field kinds,
    in the reference class's field order (records are built positionally)."""

    label: str
    code: str
    cls: type
    fields: tuple[tuple[str, Kind], ...]
    plan: tuple[
        tuple[str, Check | None, Callable[[object, Problems, Where], object] | None, str], ...
    ] = field(init=False, repr=False, compare=False)
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    #: What a record of this kind holds in ``Problems.copies`` while its fields are read.
    being_read: Kept = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        plan = tuple((name, kind.check, kind.read, kind.what) for name, kind in self.fields)
        object.__setattr__(self, "plan", plan)
        object.__setattr__(self, "names", tuple(name for name, _ in self.fields))
        object.__setattr__(self, "being_read", Kept(f"{self.label} (being read)", {}))
        declared = [f.name for f in dataclass_fields(self.cls)]
        if list(self.names) != declared:
            raise TypeError(f"{self.label} schema fields {list(self.names)} differ from {declared}")


_SPAN_FIELDS: Final = ("text", "start", "end", "sentence_index")
#: An attribute that raised something other than AttributeError when read.
UNREADABLE: Final = object()
_UNREADABLE: Final = UNREADABLE


def read_attribute(obj: object, name: str) -> object:
    """Read attribute ``name`` of ``obj`` once: its value, ``_MISSING`` when there is none
    (AttributeError), ``_UNREADABLE`` when reading it raised anything else (sealing-policy §9:
    ``StopIteration`` included; only an interrupt goes through)."""
    try:
        return getattr(obj, name)
    except AttributeError:
        return _MISSING
    except KeyboardInterrupt:
        raise
    except BaseException:
        return _UNREADABLE


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


class Kept:
    """What a seal keeps of an object it could not copy whole: the kind it was read as, and
    the fields that did read (by name)."""

    __slots__ = ("fields", "label")

    def __init__(self, label: str, fields: dict[str, object]) -> None:
        self.label = label
        self.fields = fields


#: Values of these exact types run no host code when read: the same one (None, an interned
#: string) may stand in places of several kinds, each reported as its own kind reports it.
_BUILTIN_VALUES: Final = frozenset({type(None), bool, int, float, str, bytes, tuple, list, dict})


def _key(obj: object, label: str) -> object:
    """The key of ``obj``'s copy in ``Problems.copies``: its id, or for a builtin value its id
    with the kind it is read as."""
    return id(obj) if type(obj) not in _BUILTIN_VALUES else (label, id(obj))


def _kind_of(copy: object) -> str:
    """The kind of record a copy in ``Problems.copies`` was read as."""
    if type(copy) is Kept:
        return copy.label
    return _LABELS.get(type(copy), type(copy).__name__)


def keep(problems: Problems, obj: object, label: str) -> None:
    """Hold ``obj`` as read already, as a ``label`` (the episode, say): no record besides."""
    problems.copies[_key(obj, label)] = Kept(label, {})
    problems.held.append(obj)


def _read_span(value: object) -> SourceSpan | Bad:
    """A fresh SourceSpan from ``value``'s four attributes, each read once, or BAD."""
    raw: list[object] = []
    for name in _SPAN_FIELDS:
        try:
            raw.append(getattr(value, name))
        except KeyboardInterrupt:
            raise
        except BaseException:  # missing or unreadable (sealing-policy §9)
            return BAD
    text, start, end, index = raw
    if _normal_span(text, start, end, index):
        return SourceSpan(text, start, end, index)  # type: ignore[arg-type]
    new_text, new_start, new_end = read_str(text), _read_int(start), _read_int(end)
    new_index = None if index is None else _read_int(index)
    if (
        isinstance(new_text, Bad)
        or isinstance(new_start, Bad)
        or isinstance(new_end, Bad)
        or isinstance(new_index, Bad)
        or not 0 <= new_start <= new_end
    ):
        return BAD
    return SourceSpan(new_text, new_start, new_end, new_index)


def _read_spans(value: object, problems: Problems, where: Where) -> object:
    items = exact_tuple(value)
    if isinstance(items, Bad):
        problems.add("malformed_evidence_span", f"{_path(where)} is not a tuple of spans")
        return BAD
    copies = problems.copies
    spans: list[object] = []
    for item in items:
        key = _key(item, "SourceSpan")
        span = copies.get(key)
        if span is None:
            span = _read_span(item)
            copies[key] = span if span is not BAD else Kept("SourceSpan", {})
            problems.held.append(item)
        elif type(span) is not SourceSpan:  # a span that did not read, or another kind
            span = BAD
        spans.append(span)
    if BAD not in spans:  # SourceSpan's __eq__ is the dataclass's own: BAD is never equal
        return tuple(spans)
    for index, span in enumerate(spans):
        if span is BAD:
            problems.add(
                "malformed_evidence_span",
                f"{_path(where)}[{index}] is not a well-formed SourceSpan",
            )
    return BAD


_text_of = operator.attrgetter("text")
_start = operator.attrgetter("start")
_end = operator.attrgetter("end")

#: A tuple of well-formed spans (sealing-policy §5); problems are span problems.
SPANS: Final = Kind(read=_read_spans)


def _nested(schema: RecordSchema) -> Kind:
    def read(value: object, problems: Problems, where: Where) -> object:
        record, _ = read_record(value, schema, problems, where)
        return BAD if record is None else record

    return Kind(read=read)


def _nested_tuple(schema: RecordSchema) -> Kind:
    def read(value: object, problems: Problems, where: Where) -> object:
        items = exact_tuple(value)
        if isinstance(items, Bad):
            problems.add(schema.code, f"{_path(where)} is not a tuple of {schema.label} records")
            return BAD
        reads = [read_record(item, schema, problems, where, i) for i, item in enumerate(items)]
        if any(record is None for record, _ in reads):
            problems.partial[_path(where)] = reads
            return BAD
        return tuple(record for record, _ in reads)

    return Kind(read=read)


def read_record(
    obj: object, schema: RecordSchema, problems: Problems, where: Where, index: int | None = None
) -> tuple[object | None, dict[str, object]]:
    """Read ``obj`` by attribute as ``schema`` says: the one read path of every record, a
    reference instance or a host object alike (sealing-policy §1, §9).

    Each attribute is read exactly once and copied into normal form (exact builtins, fresh
    reference instances); nothing of ``obj`` is read again, so an object that changes while
    a seal runs cannot change what the checks see. A missing attribute, one whose read raises
    (anything but an interrupt), and one whose value is malformed are each reported under
    the schema's reason code at ``where`` (``index``, when given, is appended as
    ``[index]``).

    Returns:
        ``(record, fields)``: a fresh reference instance, or None and every field that was
        read successfully, by name (so an id can still be used when another field of the
        same record is malformed). ``fields`` is empty when the record was read.
    """
    key = _key(obj, schema.label)
    copy = problems.copies.get(key)
    if copy is None:
        # Kept as being read first: met again inside its own fields, as any kind, it is not
        # read twice.
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
        f"{_path((where, index, None))} is an object already read as a {_kind_of(copy)}:"
        " one object cannot be two kinds of record",
    )
    return None, {}


def _read_fields(
    obj: object, schema: RecordSchema, problems: Problems, where: Where, index: int | None
) -> tuple[object | None, dict[str, object]]:
    values: list[object] = []
    failed = False
    for name, check, read, what in schema.plan:
        # read_attribute, inlined: this loop runs once per field of every record
        try:
            raw = getattr(obj, name)
        except AttributeError:
            problem = "has no field"
        except KeyboardInterrupt:
            raise
        except BaseException:
            problem = "could not read field"
        else:
            if check is not None:
                value = check(raw)
                if value is BAD:
                    failed = True
                    problems.add(schema.code, f"{_path((where, index, name))} is not {what}")
            else:
                value = read(raw, problems, (where, index, name))  # type: ignore[misc]
                if value is BAD:
                    failed = True
            values.append(value)
            continue
        problems.add(schema.code, f"{_path((where, index, None))} {problem} {name}")
        failed = True
        values.append(BAD)
    if not failed:
        return schema.cls(*values), _NO_FIELDS
    return None, {
        name: value for name, value in zip(schema.names, values, strict=True) if value is not BAD
    }


def _path(where: Where) -> str:
    """``where`` as the text a problem quotes: ``episode.x[3].y``."""
    if isinstance(where, str):
        return where
    parent, index, name = where
    text = _path(parent) if index is None else f"{_path(parent)}[{index}]"
    return text if name is None else f"{text}.{name}"


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
    ("candidate_organ", STR),
    ("missing_bindings", STRS),
    ("unresolved_hazards", STRS),
    ("runnable", BOOL),
    ("evidence_spans", SPANS),
    ("explanation", STR),
)
RESIDUAL: Final = _schema(
    "ContractResidual",
    "malformed_residual",
    ContractResidual,
    ("residual_id", ID),
    ("candidate_organ", STR),
    ("family_id", STR_OR_NONE),
    ("residual_kind", ENUM(ResidualKind)),
    ("residual_code", STR),
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
    ("candidate_organ", STR_OR_NONE),
    ("status", ENUM(SearchGateStatus)),
    ("reason_code", STR),
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
    ("reason_code", STR),
    ("max_candidates", INT),
    ("max_depth", INT),
    ("max_steps", INT),
    ("max_wallclock_ms", INT_OR_NONE),
    ("max_parallelism", INT),
    ("evidence_spans", SPANS),
    ("explanation", STR),
)
CHARGE: Final = _schema(
    "BudgetCharge",
    "malformed_candidate_attempt",
    BudgetCharge,
    ("candidates", INT),
    ("steps", INT),
)
CONSUMED: Final = _schema(
    "BudgetConsumed",
    "malformed_geometric_search_run",
    BudgetConsumed,
    ("candidates_considered", INT),
    ("max_candidates", INT),
    ("depth_reached", INT),
    ("max_depth", INT),
    ("steps_used", INT),
    ("max_steps", INT),
    ("parallelism_used", INT),
    ("max_parallelism", INT),
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
    ("operator_version", STR),
    ("input_digest", ID),
    ("candidate_digest", ID),
    ("budget_charge", _nested(CHARGE)),
    ("depth", INT),
    ("step_index", INT),
    ("replay_status", ENUM(CandidateReplayStatus)),
    ("replay_blockers", STRS),
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
    ("operator_set_version", STR),
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
    ("reason_codes", STRS),
    ("explanation", STR),
)
PROOF_REF: Final = _schema(
    "ProofReplayRef",
    "malformed_replay_result",
    ProofReplayRef,
    ("proof_obligation_id", TEXT),
    ("proof_obligation_version", STR),
    ("proof_replay_id", TEXT),
    ("closed", BOOL),
    ("reason_code", STR),
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
    ("proof_obligation_refs", STRS),
    ("proof_replay_refs", _nested_tuple(PROOF_REF)),
    ("replay_disposition", ENUM(ReplayDisposition)),
    ("reason_codes", STRS),
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
    ("reason_codes", STRS),
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


#: The kind of record each reference class is read as.
_LABELS: Final[dict[type, str]] = {schema.cls: schema.label for schema in SCHEMAS.values()}

_evidence_spans = operator.attrgetter("evidence_spans")


def all_spans(*groups: tuple[object, ...]) -> tuple[SourceSpan, ...]:
    """Every ``evidence_spans`` item of the records in ``groups``, in order, as one tuple."""
    return tuple(chain.from_iterable(map(_evidence_spans, chain.from_iterable(groups))))


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
