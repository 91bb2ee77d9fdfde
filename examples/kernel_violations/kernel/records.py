"""The kernel's own upstream record types and static policy manifest (upstream-records §2-§9).

Frozen, slotted dataclasses with the field names ``sealed_trace`` reads by attribute, and
``str`` enums whose values are the documented ones. Ids are computed by the stage that makes a
record (:mod:`kernel.gate` computes gate ids, ...), never here: this module holds values only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

PROBLEM_FRAME_IDENTITY_VERSION: Final = "problem_frame_identity.v1"
CONTRACT_ASSESSMENT_IDENTITY_VERSION: Final = "contract_assessment_identity.v1"
SEARCH_GATE_POLICY_VERSION: Final = "search_gate.v1"
COMPUTE_BUDGET_POLICY_VERSION: Final = "compute_budget.v1"
GEOMETRIC_SEARCH_RUN_POLICY_VERSION: Final = "geometric_search_run.v1"
GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION: Final = "geometric_search_run.schema.v1"
CONTRACT_PROOF_REPLAY_POLICY_VERSION: Final = "contract_proof_replay.v1"
SEALED_PRACTICE_TRACE_POLICY_VERSION: Final = "sealed_practice_trace.v1"


class ResidualKind(str, Enum):
    """Closed residual kinds (ADR-0225)."""

    MISSING_PROPOSAL = "missing_proposal"
    MISSING_RELATION = "missing_relation"
    MISSING_ROLE = "missing_role"
    AMBIGUOUS_RELATION = "ambiguous_relation"
    AMBIGUOUS_ROLE = "ambiguous_role"
    INEXACT_PROVENANCE = "inexact_provenance"
    NONLOCAL_BINDING = "nonlocal_binding"
    UNSUPPORTED_TOPOLOGY = "unsupported_topology"
    UNIT_OBJECT_CONFLICT = "unit_object_conflict"
    HAZARD_BLOCKED = "hazard_blocked"
    TARGET_UNBOUND = "target_unbound"
    CONTRACT_GAP_UNCLASSIFIED = "contract_gap_unclassified"


class ResidualSourceAxis(str, Enum):
    """Closed residual source axes (ADR-0225)."""

    PROPOSAL = "proposal"
    RELATION = "relation"
    ROLE = "role"
    PROVENANCE = "provenance"
    LOCALITY = "locality"
    TOPOLOGY = "topology"
    UNIT_OBJECT = "unit_object"
    HAZARD = "hazard"
    TARGET = "target"
    UNKNOWN = "unknown"


class SearchGateStatus(str, Enum):
    """Gate statuses (``ineligible`` is declared but unreachable in v1)."""

    ELIGIBLE = "eligible"
    INELIGIBLE = "ineligible"
    BLOCKED = "blocked"
    UNASSESSABLE = "unassessable"


class ComputeBudgetStatus(str, Enum):
    """Budget statuses (``budget_zero`` is declared but never produced in v1)."""

    BUDGET_ALLOWED = "budget_allowed"
    BUDGET_BLOCKED = "budget_blocked"
    BUDGET_ZERO = "budget_zero"
    BUDGET_UNASSESSABLE = "budget_unassessable"


class SearchRunDisposition(str, Enum):
    """Run dispositions: a refusal carries the first four, a run the last four (ADR-0228)."""

    NOT_STARTED = "not_started"
    BLOCKED_BY_BUDGET = "blocked_by_budget"
    BLOCKED_BY_GATE = "blocked_by_gate"
    INVALID_INPUT = "invalid_input"
    EXHAUSTED_NO_CANDIDATE = "exhausted_no_candidate"
    CANDIDATE_REPLAY_PENDING = "candidate_replay_pending"
    CANDIDATE_REPLAY_CLOSED = "candidate_replay_closed"
    CANDIDATE_REPLAY_REFUSED = "candidate_replay_refused"


class RunExhaustionCode(str, Enum):
    """Why a run stopped exploring."""

    OPERATOR_SET_EMPTY = "operator_set_empty"
    OPERATOR_SPACE_DEPLETED = "operator_space_depleted"
    MAX_CANDIDATES_REACHED = "max_candidates_reached"
    MAX_DEPTH_REACHED = "max_depth_reached"
    MAX_STEPS_REACHED = "max_steps_reached"


class CandidateReplayStatus(str, Enum):
    """An attempt's replay status as the run recorded it."""

    REPLAY_PENDING = "replay_pending"
    REPLAY_CLOSED = "replay_closed"
    REPLAY_REFUSED = "replay_refused"


class ReplayDisposition(str, Enum):
    """Lawful replay classifications (results only)."""

    CONTRACT_REFUSED = "contract_refused"
    CONTRACT_CLOSED_BUT_PROOF_REFUSED = "contract_closed_but_proof_refused"
    CONTRACT_AND_PROOF_CLOSED = "contract_and_proof_closed"


class ReplayRefusalReason(str, Enum):
    """Why the adapter could not classify a candidate (refusals only)."""

    INVALID_REPLAY_INPUT = "invalid_replay_input"
    CANDIDATE_IDENTITY_MISMATCH = "candidate_identity_mismatch"
    CONTRACT_REPLAY_UNAVAILABLE = "contract_replay_unavailable"
    PROOF_REPLAY_UNAVAILABLE = "proof_replay_unavailable"
    UNSUPPORTED_REPLAY_POLICY = "unsupported_replay_policy"
    UNSUPPORTED_SCHEMA_VERSION = "unsupported_schema_version"
    UNSUPPORTED_PROOF_OBLIGATION = "unsupported_proof_obligation"


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """``problem_text[start:end] == text``; ``sentence_index`` is 0-based or None."""

    text: str
    start: int
    end: int
    sentence_index: int | None = None


@dataclass(frozen=True, slots=True)
class ProblemFrameProjection:
    """The identity-bearing frame: ``facts`` is float-free JSON (not part of ``hash()``)."""

    frame_digest: str
    frame_schema_version: str
    problem_text: str
    facts: Mapping[str, object] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class ContractAssessmentProjection:
    """The original contract assessment; refused when ``runnable`` is False."""

    assessment_id: str
    problem_frame_digest: str
    candidate_organ: str
    missing_bindings: tuple[str, ...]
    unresolved_hazards: tuple[str, ...]
    runnable: bool
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class ContractResidual:
    """One residual label of a refused assessment (ADR-0225)."""

    residual_id: str
    candidate_organ: str
    family_id: str | None
    residual_kind: ResidualKind
    residual_code: str
    source_axis: ResidualSourceAxis
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class SearchGateDecision:
    """Whether search may run over one residual context (ADR-0226)."""

    decision_id: str
    policy_version: str
    input_digest: str
    residual_ids: tuple[str, ...]
    candidate_organ: str | None
    status: SearchGateStatus
    reason_code: str
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class ComputeBudgetDecision:
    """The compute envelope allocated against one gate decision (ADR-0227); counts only."""

    budget_id: str
    policy_version: str
    gate_decision_id: str
    gate_policy_version: str
    gate_input_digest: str
    status: ComputeBudgetStatus
    reason_code: str
    max_candidates: int
    max_depth: int
    max_steps: int
    max_wallclock_ms: int | None
    max_parallelism: int
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class BudgetCharge:
    """What one attempt charged against the budget."""

    candidates: int
    steps: int


@dataclass(frozen=True, slots=True)
class BudgetConsumed:
    """What a run consumed against its budget's limits."""

    candidates_considered: int
    max_candidates: int
    depth_reached: int
    max_depth: int
    steps_used: int
    max_steps: int
    parallelism_used: int
    max_parallelism: int
    exhausted: bool


@dataclass(frozen=True, slots=True)
class CandidateAttempt:
    """One candidate of a run; ``attempt_index`` is its position in the run (ADR-0228 §10)."""

    attempt_id: str
    attempt_index: int
    parent_attempt_id: str | None
    operator_id: str
    operator_version: str
    input_digest: str
    candidate_digest: str
    budget_charge: BudgetCharge
    depth: int
    step_index: int
    replay_status: CandidateReplayStatus
    replay_blockers: tuple[str, ...]
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class GeometricSearchRun:
    """One search run under an eligible gate and an allowed budget (ADR-0228)."""

    run_id: str
    run_policy_version: str
    schema_version: str
    problem_frame_digest: str
    contract_assessment_id: str
    residual_ids: tuple[str, ...]
    gate_decision_id: str
    budget_id: str
    operator_set_id: str
    operator_set_version: str
    input_digest: str
    candidate_attempts: tuple[CandidateAttempt, ...]
    budget_consumed: BudgetConsumed
    run_disposition: SearchRunDisposition
    exhaustion_code: RunExhaustionCode | None
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class SearchRunRefusal:
    """A lawful refusal to search (blocked by the gate or the budget)."""

    outcome_id: str
    run_policy_version: str
    input_digest: str | None
    gate_decision_id: str | None
    budget_id: str | None
    run_disposition: SearchRunDisposition
    reason_codes: tuple[str, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class ProofReplayRef:
    """The replay of one proof obligation of a candidate."""

    proof_obligation_id: str
    proof_obligation_version: str
    proof_replay_id: str
    closed: bool
    reason_code: str


@dataclass(frozen=True, slots=True)
class ReplayAdapterResult:
    """A lawful replay classification of one candidate attempt (ADR-0229)."""

    replay_result_id: str
    replay_policy_version: str
    input_digest: str
    run_id: str
    attempt_id: str
    candidate_digest: str
    contract_replay_assessment_id: str
    proof_obligation_refs: tuple[str, ...]
    proof_replay_refs: tuple[ProofReplayRef, ...]
    replay_disposition: ReplayDisposition
    reason_codes: tuple[str, ...]
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class ReplayAdapterRefusal:
    """The adapter could not classify one candidate (not a semantic refusal)."""

    replay_refusal_id: str
    replay_policy_version: str
    input_digest: str | None
    run_id: str | None
    attempt_id: str | None
    candidate_digest: str | None
    replay_disposition: ReplayRefusalReason
    reason_codes: tuple[str, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class PracticeEpisode:
    """One complete practice episode as the sealer consumes it (sealing-policy §1)."""

    problem_frame: ProblemFrameProjection | None
    contract_assessment: ContractAssessmentProjection | None
    residuals: tuple[ContractResidual, ...]
    search_gate_decision: SearchGateDecision | None
    compute_budget_decision: ComputeBudgetDecision | None
    geometric_search_run: GeometricSearchRun | None = None
    search_run_refusal: SearchRunRefusal | None = None
    replay_results: tuple[ReplayAdapterResult, ...] = ()
    replay_refusals: tuple[ReplayAdapterRefusal, ...] = ()
    schema_versions: tuple[tuple[str, str], ...] = ()
    policy_versions: tuple[tuple[str, str], ...] = ()
    trace_policy_version: str = SEALED_PRACTICE_TRACE_POLICY_VERSION
