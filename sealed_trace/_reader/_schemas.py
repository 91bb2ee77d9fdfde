"""The record schemas: how each upstream record type is read (upstream-records.md;
sealing-policy §2, §8, §10).

Each schema names its reference class, the reason code its problems carry, and the kind of
every field in the class's own order. Version values (sealing-policy §8) are ``VERSION``.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from sealed_trace._reader._facts import read_facts
from sealed_trace._reader._records import Kind, RecordSchema, nested, nested_tuple, read_spans
from sealed_trace._reader._values import (
    nullable,
    read_bool,
    read_enum,
    read_id,
    read_int,
    read_pair,
    read_str,
    read_str_pair,
    read_text,
    tuple_of,
)
from sealed_trace.upstream.binding import CandidateAttemptRunBinding, RunAttemptMembership
from sealed_trace.upstream.budget import ComputeBudgetDecision, ComputeBudgetStatus
from sealed_trace.upstream.frame import ContractAssessmentProjection, ProblemFrameProjection
from sealed_trace.upstream.gate import SearchGateDecision, SearchGateStatus
from sealed_trace.upstream.operator import CandidateOperatorResult, CandidateReconstruction
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

__all__ = ["ID", "IDS", "SCHEMAS", "TEXT", "VERSION", "RecordSchema"]

ID: Final = Kind("64 lowercase hex characters", read_id)
ID_OR_NONE: Final = Kind("null or 64 lowercase hex characters", nullable(read_id))
TEXT: Final = Kind("a non-empty string", read_text)
#: A version value (sealing-policy §8): a non-empty string, judged against the manifest.
VERSION: Final = Kind("a non-empty string", read_text, version=True)
STR: Final = Kind("a string", read_str)
INT: Final = Kind("an int (not a bool) in the signed 64-bit range", read_int)
INT_OR_NONE: Final = Kind("an int or null", nullable(read_int))
BOOL: Final = Kind("a bool", read_bool)
#: sealing-policy §9: a str field that §2 names as no identifier may be any string, the
#: empty string included, and an int field any int in range, negative included.
STR_OR_NONE: Final = Kind("null or a string", nullable(read_str))
STRS: Final = Kind("a tuple of strings", tuple_of(read_str))
IDS: Final = Kind("a tuple of ids (64 lowercase hex characters)", tuple_of(read_id))
FACTS: Final = Kind("a mapping from str to float-free JSON values", read_facts)
PAIRS: Final = Kind("a tuple of (name, version) pairs of non-empty strings", tuple_of(read_pair))
#: ``(key, value)`` string pairs (a candidate's payload, an operator's provenance): any
#: strings, the empty one included (sealing-policy §9).
STR_PAIRS: Final = Kind("a tuple of (key, value) string pairs", tuple_of(read_str_pair))
#: A tuple of well-formed spans (sealing-policy §5); problems are span problems.
SPANS: Final = Kind(read=read_spans)


def ENUM(cls: type[Enum]) -> Kind:
    """A member of ``cls`` or its string value (any str-valued enum too)."""
    return Kind("one of " + ", ".join(member.value for member in cls), read_enum(cls))


def ENUM_OR_NONE(cls: type[Enum]) -> Kind:
    """As :func:`ENUM`, or None."""
    return Kind("null or one of " + ", ".join(m.value for m in cls), nullable(read_enum(cls)))


def _schema(label: str, code: str, cls: type, *fields: tuple[str, Kind]) -> RecordSchema:
    return RecordSchema(label, code, cls, fields)


FRAME: Final = _schema(
    "ProblemFrame projection",
    "malformed_problem_frame",
    ProblemFrameProjection,
    ("frame_digest", ID),
    ("frame_schema_version", VERSION),
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
    ("policy_version", VERSION),
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
    ("policy_version", VERSION),
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
    ("budget_charge", nested(CHARGE)),
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
    ("run_policy_version", VERSION),
    ("schema_version", VERSION),
    ("problem_frame_digest", ID),
    ("contract_assessment_id", ID),
    ("residual_ids", IDS),
    ("gate_decision_id", ID),
    ("budget_id", ID),
    ("operator_set_id", TEXT),
    ("operator_set_version", STR),
    ("input_digest", ID),
    ("candidate_attempts", nested_tuple(ATTEMPT)),
    ("budget_consumed", nested(CONSUMED)),
    ("run_disposition", ENUM(SearchRunDisposition)),
    ("exhaustion_code", ENUM_OR_NONE(RunExhaustionCode)),
    ("explanation", STR),
)
RUN_REFUSAL: Final = _schema(
    "SearchRunRefusal",
    "malformed_search_run_refusal",
    SearchRunRefusal,
    ("outcome_id", ID),
    ("run_policy_version", VERSION),
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
    ("replay_policy_version", VERSION),
    ("input_digest", ID),
    ("run_id", ID),
    ("attempt_id", ID),
    ("candidate_digest", ID),
    ("contract_replay_assessment_id", TEXT),
    ("proof_obligation_refs", STRS),
    ("proof_replay_refs", nested_tuple(PROOF_REF)),
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
    ("replay_policy_version", VERSION),
    ("input_digest", ID_OR_NONE),
    ("run_id", ID_OR_NONE),
    ("attempt_id", ID_OR_NONE),
    ("candidate_digest", ID_OR_NONE),
    ("replay_disposition", ENUM(ReplayRefusalReason)),
    ("reason_codes", STRS),
    ("explanation", STR),
)

RECONSTRUCTION: Final = _schema(
    "CandidateReconstruction",
    "malformed_candidate_operator_result",
    CandidateReconstruction,
    ("candidate_digest", ID),
    ("candidate_reconstruction_digest", ID),
    ("candidate_organ", STR),
    ("candidate_payload", STR_PAIRS),
    ("evidence_spans", SPANS),
    ("operator_name", TEXT),
    ("operator_version", STR),
    ("operator_provenance", STR_PAIRS),
    ("source_residual_id", ID),
    ("problem_frame_digest", ID),
    ("original_contract_assessment_id", ID),
)
OPERATOR_RESULT: Final = _schema(
    "CandidateOperatorResult",
    "malformed_candidate_operator_result",
    CandidateOperatorResult,
    ("operator_result_id", ID),
    ("operator_policy_version", VERSION),
    ("input_digest", ID),
    ("geometric_search_run_id", ID),
    ("attempt_id", ID),
    ("attempt_index", INT),
    ("candidate_digest", ID),
    ("candidate_reconstruction_digest", ID),
    ("candidate_organ", STR),
    ("operator_name", TEXT),
    ("operator_version", STR),
    ("candidate_attempt", nested(ATTEMPT)),
    ("candidate_reconstruction", nested(RECONSTRUCTION)),
    ("reason_codes", STRS),
    ("evidence_spans", SPANS),
    ("explanation", STR),
)
BINDING_CHARGE: Final = _schema(
    "BudgetCharge (binding)",
    "malformed_candidate_attempt_run_binding",
    BudgetCharge,
    ("candidates", INT),
    ("steps", INT),
)
BINDING: Final = _schema(
    "CandidateAttemptRunBinding",
    "malformed_candidate_attempt_run_binding",
    CandidateAttemptRunBinding,
    ("binding_id", ID),
    ("binding_policy_version", VERSION),
    ("input_digest", ID),
    ("original_run_id", ID),
    ("operator_result_id", ID),
    ("candidate_attempt_id", ID),
    ("attempt_index", INT),
    ("candidate_digest", ID),
    ("candidate_reconstruction_digest", ID),
    ("candidate_attempt_ref", ID),
    ("budget_charge", nested(BINDING_CHARGE)),
    ("depth", INT),
    ("step_index", INT),
    ("run_attempt_membership", ENUM(RunAttemptMembership)),
    ("evidence_spans", SPANS),
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
        RECONSTRUCTION,
        OPERATOR_RESULT,
        BINDING_CHARGE,
        BINDING,
    )
}
