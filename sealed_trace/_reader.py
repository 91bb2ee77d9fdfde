"""Structural reading of host records into the reference value types (sealing-policy §1, §2).

Records are read by attribute, so a host project's own frozen dataclasses seal exactly like the
package's reference types. Every value read is normalised to an exact builtin (``str``,
``int``, ``bool``, ``tuple``) or a reference dataclass, so later comparisons and hashing can
never run code supplied with the input. Reading never raises: a problem is recorded as a reason
code with a human-readable detail, and the field is reported unreadable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Final

from sealed_trace.identity import MAX_ABS_INT, IdentityError, canonical_json, is_identity
from sealed_trace.upstream.budget import ComputeBudgetDecision, ComputeBudgetStatus
from sealed_trace.upstream.frame import (
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
    "Problems",
    "RecordSchema",
    "read_record",
    "read_str",
]


class _Bad:
    """Marker for a value that could not be read."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unreadable>"


BAD: Final = _Bad()
_MISSING: Final = object()


@dataclass
class Problems:
    """Reason codes in first-seen order, each with the details that explain it."""

    codes: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    def add(self, code: str, detail: str) -> None:
        """Record ``code`` (kept once, in first-seen order) and its ``detail`` sentence."""
        if code not in self.codes:
            self.codes.append(code)
        self.details.append(f"{code}: {detail}")


def read_str(value: object) -> str | _Bad:
    """Return ``value`` as an exact, UTF-8-encodable ``str``, or :data:`BAD`."""
    if issubclass(type(value), Enum):
        value = value.value  # type: ignore[attr-defined]
    if not issubclass(type(value), str):
        return BAD
    exact = str.__str__(value)  # type: ignore[arg-type]
    try:
        exact.encode("utf-8")
    except UnicodeEncodeError:
        return BAD
    return exact


def _read_int(value: object) -> int | _Bad:
    if not issubclass(type(value), int) or issubclass(type(value), bool):
        return BAD
    exact = int.__int__(value)  # type: ignore[arg-type]
    return exact if -MAX_ABS_INT <= exact < MAX_ABS_INT else BAD


def _read_tuple(value: object) -> tuple[object, ...] | _Bad:
    if not issubclass(type(value), tuple):
        return BAD
    return tuple.__getitem__(value, slice(None))  # type: ignore[arg-type]


# A kind reads one attribute value of a record whose reason code is the last argument: it
# returns the normalised value, or BAD after recording why.
Kind = Callable[[object, Problems, str, str], object]


def _simple(check: Callable[[object], object], what: str) -> Kind:
    def kind(value: object, problems: Problems, where: str, code: str) -> object:
        result = check(value)
        if result is BAD:
            problems.add(code, f"{where} is not {what}")
        return result

    return kind


def _identity(value: object) -> object:
    text = read_str(value)
    return text if not isinstance(text, _Bad) and is_identity(text) else BAD


def _text(value: object) -> object:
    text = read_str(value)
    return text if not isinstance(text, _Bad) and text.strip() else BAD


def _nullable(check: Callable[[object], object]) -> Callable[[object], object]:
    return lambda value: None if value is None else check(value)


def _natural(value: object) -> object:
    number = _read_int(value)
    return number if not isinstance(number, _Bad) and number >= 0 else BAD


def _bool(value: object) -> object:
    return value if type(value) is bool else BAD


def _enum(cls: type[Enum]) -> Callable[[object], object]:
    by_value = {member.value: member for member in cls}

    def check(value: object) -> object:
        text = read_str(value)
        return BAD if isinstance(text, _Bad) else by_value.get(text, BAD)

    return check


def _tuple_of(check: Callable[[object], object]) -> Callable[[object], object]:
    def read(value: object) -> object:
        items = _read_tuple(value)
        if isinstance(items, _Bad):
            return BAD
        out = tuple(check(item) for item in items)
        return BAD if any(item is BAD for item in out) else out

    return read


def _facts(value: object) -> object:
    if not issubclass(type(value), Mapping):
        return BAD
    thawed = thaw_json(value)
    try:
        canonical_json(thawed)
    except IdentityError:
        return BAD
    return MappingProxyType(thawed)  # type: ignore[arg-type]


ID = _simple(_identity, "64 lowercase hex characters")
ID_OR_NONE = _simple(_nullable(_identity), "null or 64 lowercase hex characters")
TEXT = _simple(_text, "a non-empty string")
TEXT_OR_NONE = _simple(_nullable(_text), "null or a non-empty string")
STR = _simple(read_str, "a string")
INT = _simple(_read_int, "an int (not a bool) in the signed 64-bit range")
NAT = _simple(_natural, "a non-negative int (not a bool)")
INT_OR_NONE = _simple(_nullable(_read_int), "an int or null")
BOOL = _simple(_bool, "a bool")
TEXTS = _simple(_tuple_of(_text), "a tuple of non-empty strings")
IDS = _simple(_tuple_of(_identity), "a tuple of ids (64 lowercase hex characters)")
FACTS = _simple(_facts, "a mapping from str to float-free JSON values")


def _pair(value: object) -> object:
    items = _read_tuple(value)
    if isinstance(items, _Bad) or len(items) != 2:
        return BAD
    name, version = _text(items[0]), _text(items[1])
    return BAD if name is BAD or version is BAD else (name, version)


PAIRS = _simple(_tuple_of(_pair), "a tuple of (name, version) pairs of non-empty strings")


def ENUM(cls: type[Enum]) -> Kind:  # noqa: N802 - reads like the other kind constants
    """A kind accepting a member of ``cls`` or its string value (any str-valued enum too)."""
    values = ", ".join(member.value for member in cls)
    return _simple(_enum(cls), f"one of {values}")


def ENUM_OR_NONE(cls: type[Enum]) -> Kind:  # noqa: N802
    """As :func:`ENUM`, or None."""
    values = ", ".join(member.value for member in cls)
    return _simple(_nullable(_enum(cls)), f"null or one of {values}")


@dataclass(frozen=True)
class RecordSchema:
    """How to read one record type: its label, reason code, reference class and field kinds."""

    label: str
    code: str
    cls: type
    fields: tuple[tuple[str, Kind], ...]


def _span(value: object, problems: Problems, where: str) -> SourceSpan | _Bad:
    values = {}
    for name in ("text", "start", "end", "sentence_index"):
        try:
            values[name] = getattr(value, name, _MISSING)
        except Exception:
            values[name] = _MISSING
    text = read_str(values["text"]) if values["text"] is not _MISSING else BAD
    start = _read_int(values["start"]) if values["start"] is not _MISSING else BAD
    end = _read_int(values["end"]) if values["end"] is not _MISSING else BAD
    raw_index = values["sentence_index"]
    index = None if raw_index is None else (BAD if raw_index is _MISSING else _read_int(raw_index))
    if (
        isinstance(text, _Bad)
        or isinstance(start, _Bad)
        or isinstance(end, _Bad)
        or isinstance(index, _Bad)
        or not 0 <= start <= end
    ):
        problems.add("malformed_evidence_span", f"{where} is not a well-formed SourceSpan")
        return BAD
    return SourceSpan(text, start, end, index)


def SPANS(value: object, problems: Problems, where: str, code: str) -> object:  # noqa: N802
    """Read a tuple of well-formed spans (sealing-policy §5); problems are span problems."""
    del code
    items = _read_tuple(value)
    if isinstance(items, _Bad):
        problems.add("malformed_evidence_span", f"{where} is not a tuple of spans")
        return BAD
    spans = tuple(_span(item, problems, f"{where}[{i}]") for i, item in enumerate(items))
    return BAD if any(span is BAD for span in spans) else spans


def _nested(schema: RecordSchema) -> Kind:
    def kind(value: object, problems: Problems, where: str, code: str) -> object:
        del code
        record, _ = read_record(value, schema, problems, where)
        return BAD if record is None else record

    return kind


def _nested_tuple(schema: RecordSchema) -> Kind:
    def kind(value: object, problems: Problems, where: str, code: str) -> object:
        del code
        items = _read_tuple(value)
        if isinstance(items, _Bad):
            problems.add(schema.code, f"{where} is not a tuple of {schema.label} records")
            return BAD
        out = tuple(
            read_record(item, schema, problems, f"{where}[{i}]")[0] for i, item in enumerate(items)
        )
        return BAD if any(item is None for item in out) else out

    return kind


def read_record(
    obj: object, schema: RecordSchema, problems: Problems, where: str
) -> tuple[object | None, dict[str, object]]:
    """Read ``obj`` by attribute as ``schema`` says.

    Returns:
        ``(record, fields)``: the reference instance (or None when any field is unreadable)
        and every field that was read successfully, by name (so an id can still be used when
        another field of the same record is malformed).
    """
    fields: dict[str, object] = {}
    ok = True
    for name, kind in schema.fields:
        try:
            raw = getattr(obj, name, _MISSING)
        except Exception:
            raw = _MISSING
        if raw is _MISSING:
            problems.add(schema.code, f"{where} has no field {name}")
            ok = False
            continue
        value = kind(raw, problems, f"{where}.{name}", schema.code)
        if value is BAD:
            ok = False
        else:
            fields[name] = value
    if not ok:
        return None, fields
    return schema.cls(**fields), fields


def _schema(label: str, code: str, cls: type, *fields: tuple[str, Kind]) -> RecordSchema:
    return RecordSchema(label, code, cls, fields)


FRAME: Final = _schema(
    "ProblemFrame projection", "malformed_problem_frame", ProblemFrameProjection,
    ("frame_digest", ID), ("frame_schema_version", TEXT), ("problem_text", STR),
    ("facts", FACTS),
)
ASSESSMENT: Final = _schema(
    "ContractAssessment projection", "malformed_contract_assessment",
    ContractAssessmentProjection,
    ("assessment_id", ID), ("problem_frame_digest", ID), ("candidate_organ", TEXT),
    ("missing_bindings", TEXTS), ("unresolved_hazards", TEXTS), ("runnable", BOOL),
    ("evidence_spans", SPANS), ("explanation", STR),
)
RESIDUAL: Final = _schema(
    "ContractResidual", "malformed_residual", ContractResidual,
    ("residual_id", ID), ("candidate_organ", TEXT), ("family_id", TEXT_OR_NONE),
    ("residual_kind", ENUM(ResidualKind)), ("residual_code", TEXT),
    ("source_axis", ENUM(ResidualSourceAxis)), ("evidence_spans", SPANS), ("explanation", STR),
)
GATE: Final = _schema(
    "SearchGateDecision", "malformed_search_gate_decision", SearchGateDecision,
    ("decision_id", ID), ("policy_version", TEXT), ("input_digest", ID), ("residual_ids", IDS),
    ("candidate_organ", TEXT_OR_NONE), ("status", ENUM(SearchGateStatus)),
    ("reason_code", TEXT), ("evidence_spans", SPANS), ("explanation", STR),
)
BUDGET: Final = _schema(
    "ComputeBudgetDecision", "malformed_compute_budget_decision", ComputeBudgetDecision,
    ("budget_id", ID), ("policy_version", TEXT), ("gate_decision_id", ID),
    ("gate_policy_version", TEXT), ("gate_input_digest", ID),
    ("status", ENUM(ComputeBudgetStatus)), ("reason_code", TEXT), ("max_candidates", NAT),
    ("max_depth", NAT), ("max_steps", NAT), ("max_wallclock_ms", INT_OR_NONE),
    ("max_parallelism", NAT), ("evidence_spans", SPANS), ("explanation", STR),
)
CHARGE: Final = _schema(
    "BudgetCharge", "malformed_candidate_attempt", BudgetCharge,
    ("candidates", NAT), ("steps", NAT),
)
CONSUMED: Final = _schema(
    "BudgetConsumed", "malformed_geometric_search_run", BudgetConsumed,
    ("candidates_considered", NAT), ("max_candidates", NAT), ("depth_reached", NAT),
    ("max_depth", NAT), ("steps_used", NAT), ("max_steps", NAT), ("parallelism_used", NAT),
    ("max_parallelism", NAT), ("exhausted", BOOL),
)
ATTEMPT: Final = _schema(
    "CandidateAttempt", "malformed_candidate_attempt", CandidateAttempt,
    ("attempt_id", ID), ("attempt_index", INT), ("parent_attempt_id", ID_OR_NONE),
    ("operator_id", TEXT), ("operator_version", TEXT), ("input_digest", ID),
    ("candidate_digest", ID), ("budget_charge", _nested(CHARGE)), ("depth", NAT),
    ("step_index", NAT), ("replay_status", ENUM(CandidateReplayStatus)),
    ("replay_blockers", TEXTS), ("evidence_spans", SPANS), ("explanation", STR),
)
RUN: Final = _schema(
    "GeometricSearchRun", "malformed_geometric_search_run", GeometricSearchRun,
    ("run_id", ID), ("run_policy_version", TEXT), ("schema_version", TEXT),
    ("problem_frame_digest", ID), ("contract_assessment_id", ID), ("residual_ids", IDS),
    ("gate_decision_id", ID), ("budget_id", ID), ("operator_set_id", TEXT),
    ("operator_set_version", TEXT), ("input_digest", ID),
    ("candidate_attempts", _nested_tuple(ATTEMPT)), ("budget_consumed", _nested(CONSUMED)),
    ("run_disposition", ENUM(SearchRunDisposition)),
    ("exhaustion_code", ENUM_OR_NONE(RunExhaustionCode)), ("explanation", STR),
)
RUN_REFUSAL: Final = _schema(
    "SearchRunRefusal", "malformed_search_run_refusal", SearchRunRefusal,
    ("outcome_id", ID), ("run_policy_version", TEXT), ("input_digest", ID_OR_NONE),
    ("gate_decision_id", ID_OR_NONE), ("budget_id", ID_OR_NONE),
    ("run_disposition", ENUM(SearchRunDisposition)), ("reason_codes", TEXTS),
    ("explanation", STR),
)
PROOF_REF: Final = _schema(
    "ProofReplayRef", "malformed_replay_result", ProofReplayRef,
    ("proof_obligation_id", TEXT), ("proof_obligation_version", TEXT),
    ("proof_replay_id", TEXT), ("closed", BOOL), ("reason_code", TEXT),
)
REPLAY_RESULT: Final = _schema(
    "ReplayAdapterResult", "malformed_replay_result", ReplayAdapterResult,
    ("replay_result_id", ID), ("replay_policy_version", TEXT), ("input_digest", ID),
    ("run_id", ID), ("attempt_id", ID), ("candidate_digest", ID),
    ("contract_replay_assessment_id", TEXT), ("proof_obligation_refs", TEXTS),
    ("proof_replay_refs", _nested_tuple(PROOF_REF)),
    ("replay_disposition", ENUM(ReplayDisposition)), ("reason_codes", TEXTS),
    ("evidence_spans", SPANS), ("explanation", STR),
)
REPLAY_REFUSAL: Final = _schema(
    "ReplayAdapterRefusal", "malformed_replay_refusal", ReplayAdapterRefusal,
    ("replay_refusal_id", ID), ("replay_policy_version", TEXT), ("input_digest", ID_OR_NONE),
    ("run_id", ID_OR_NONE), ("attempt_id", ID_OR_NONE), ("candidate_digest", ID_OR_NONE),
    ("replay_disposition", ENUM(ReplayRefusalReason)), ("reason_codes", TEXTS),
    ("explanation", STR),
)

#: Every record schema by label, for the episode document decoder.
SCHEMAS: Final = {
    schema.label: schema
    for schema in (
        FRAME, ASSESSMENT, RESIDUAL, GATE, BUDGET, CHARGE, CONSUMED, ATTEMPT, RUN,
        RUN_REFUSAL, PROOF_REF, REPLAY_RESULT, REPLAY_REFUSAL,
    )
}
