"""The public value types of the sealing boundary (ADR-0230 §4, §6.1, §7, §8; ADR-0233 §2).

Frozen, slotted dataclasses and closed enums; every persistent identity is canonical-JSON
SHA-256 (ADR §12), never ``hash()``. :class:`IdentityLayout` names the two identity layouts
of sealing-policy §10; the caller chooses one, and every outcome says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final, TypeAlias

from sealed_trace.upstream.binding import (
    CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION,
    CandidateAttemptRunBinding,
)
from sealed_trace.upstream.budget import COMPUTE_BUDGET_POLICY_VERSION, ComputeBudgetDecision
from sealed_trace.upstream.frame import (
    CONTRACT_ASSESSMENT_IDENTITY_VERSION,
    PROBLEM_FRAME_IDENTITY_VERSION,
    ContractAssessmentProjection,
    ProblemFrameProjection,
)
from sealed_trace.upstream.gate import SEARCH_GATE_POLICY_VERSION, SearchGateDecision
from sealed_trace.upstream.operator import (
    CANDIDATE_OPERATOR_POLICY_VERSION,
    CandidateOperatorResult,
)
from sealed_trace.upstream.replay import (
    CONTRACT_PROOF_REPLAY_POLICY_VERSION,
    ReplayAdapterRefusal,
    ReplayAdapterResult,
)
from sealed_trace.upstream.residuals import ContractResidual
from sealed_trace.upstream.run import (
    GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
    GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
    GeometricSearchRun,
    SearchRunRefusal,
)
from sealed_trace.upstream.spans import SourceSpan

__all__ = [
    "POLICY_MANIFEST",
    "REFUSAL_DISPOSITIONS",
    "SCHEMA_MANIFEST",
    "SEALED_DISPOSITIONS",
    "SEALED_PRACTICE_TRACE_POLICY_VERSION",
    "IdentityLayout",
    "PracticeDisposition",
    "PracticeEpisode",
    "PracticeTraceInput",
    "PracticeTraceOutcome",
    "PracticeTraceRefusal",
    "SealedPracticeTrace",
]

SEALED_PRACTICE_TRACE_POLICY_VERSION: Final = "sealed_practice_trace.v1"


class IdentityLayout(str, Enum):
    """Which identity layout a seal uses (sealing-policy §10); never guessed.

    ``adr-0230`` is ADR-0230 §12 literally (the default). ``adr-0233`` adds
    ``candidate_attempt_binding_ids`` to the input-digest and trace-id payloads and puts the
    binding ids in ``upstream_identity_chain`` and ``trace_records`` after the attempt ids
    (ADR-0233 §2); only it accepts bound records. Both seal ``sealed_practice_trace.v1``.
    """

    ADR_0230 = "adr-0230"
    ADR_0233 = "adr-0233"


#: Supported policy manifest: policy_versions name -> the one supported version (ADR §6.1
#: #10; sealing-policy §4, §10).
POLICY_MANIFEST: Final = {
    "candidate_attempt_run_binding": CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION,
    "candidate_operator": CANDIDATE_OPERATOR_POLICY_VERSION,
    "compute_budget": COMPUTE_BUDGET_POLICY_VERSION,
    "contract_proof_replay": CONTRACT_PROOF_REPLAY_POLICY_VERSION,
    "geometric_search_run": GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
    "sealed_practice_trace": SEALED_PRACTICE_TRACE_POLICY_VERSION,
    "search_gate": SEARCH_GATE_POLICY_VERSION,
}
#: Supported schema manifest: schema_versions name -> the one supported version.
SCHEMA_MANIFEST: Final = {
    "contract_assessment_identity": CONTRACT_ASSESSMENT_IDENTITY_VERSION,
    "geometric_search_run": GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
    "problem_frame_identity": PROBLEM_FRAME_IDENTITY_VERSION,
}


class PracticeDisposition(str, Enum):
    """The closed practice disposition vocabulary (ADR-0230 §8).

    The first six are sealed-trace dispositions, the last four trace-refusal dispositions;
    each outcome type admits only its own family.
    """

    SEALED_ORIGINAL_REFUSAL = "sealed_original_refusal"
    SEALED_EXHAUSTED_NO_CANDIDATE = "sealed_exhausted_no_candidate"
    SEALED_ALL_CANDIDATES_REFUSED = "sealed_all_candidates_refused"
    SEALED_REPLAY_UNAVAILABLE = "sealed_replay_unavailable"
    SEALED_CONTRACT_CLOSED_PROOF_REFUSED = "sealed_contract_closed_proof_refused"
    SEALED_CANDIDATE_REPLAY_CLOSED = "sealed_candidate_replay_closed"
    TRACE_INVALID_INPUT = "trace_invalid_input"
    TRACE_IDENTITY_MISMATCH = "trace_identity_mismatch"
    TRACE_POLICY_UNSUPPORTED = "trace_policy_unsupported"
    TRACE_UPSTREAM_INCOMPLETE = "trace_upstream_incomplete"


_D = PracticeDisposition
#: Dispositions a SealedPracticeTrace may carry.
SEALED_DISPOSITIONS: Final = frozenset(
    {
        _D.SEALED_ORIGINAL_REFUSAL,
        _D.SEALED_EXHAUSTED_NO_CANDIDATE,
        _D.SEALED_ALL_CANDIDATES_REFUSED,
        _D.SEALED_REPLAY_UNAVAILABLE,
        _D.SEALED_CONTRACT_CLOSED_PROOF_REFUSED,
        _D.SEALED_CANDIDATE_REPLAY_CLOSED,
    }
)
#: Dispositions a PracticeTraceRefusal may carry.
REFUSAL_DISPOSITIONS: Final = frozenset(
    {
        _D.TRACE_INVALID_INPUT,
        _D.TRACE_IDENTITY_MISMATCH,
        _D.TRACE_POLICY_UNSUPPORTED,
        _D.TRACE_UPSTREAM_INCOMPLETE,
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PracticeEpisode:
    """One complete practice episode: the immutable upstream values (sealing-policy §1).

    Fields hold records, never ids alone; any object with the documented attribute names works
    in place of the reference types (structural typing). Exactly one of
    ``geometric_search_run`` and ``search_run_refusal`` is set. Versions are
    ``((name, version), ...)`` in ascending name order (sealing-policy §4). A *bound* episode
    (ADR-0233, sealing-policy §10) also carries ``candidate_operator_results`` and
    ``candidate_attempt_bindings``, paired by position; it seals under the ``adr-0233``
    identity layout only.
    """

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
    candidate_operator_results: tuple[CandidateOperatorResult, ...] = ()
    candidate_attempt_bindings: tuple[CandidateAttemptRunBinding, ...] = ()


@dataclass(frozen=True, slots=True)
class PracticeTraceInput:
    """The structural trace input of ADR-0230 §6.1; ``input_digest`` hashes the rest (§12.1).

    Under the ``adr-0233`` identity layout ``candidate_attempt_binding_ids`` is a key of the
    hashed payload too (ADR-0233 §2, sealing-policy §10); under ``adr-0230`` it is empty and
    not hashed.
    """

    input_digest: str
    trace_policy_version: str
    problem_frame_digest: str
    original_contract_assessment_id: str
    residual_ids: tuple[str, ...]
    search_gate_decision_id: str
    compute_budget_id: str
    geometric_search_run_id: str
    candidate_attempt_ids: tuple[str, ...]
    replay_result_ids: tuple[str, ...]
    replay_refusal_ids: tuple[str, ...]
    schema_versions: tuple[tuple[str, str], ...]
    policy_versions: tuple[tuple[str, str], ...]
    #: ADR-0233 §2: the bindings' ids in binding order; hashed under ``adr-0233`` only.
    candidate_attempt_binding_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SealedPracticeTrace:
    """Immutable diagnostic evidence for one complete practice episode (ADR-0230 §7.1).

    ``trace_id`` self-seals the §12.2 payload; ``explanation`` is prose, excluded from every
    identity. ``candidate_attempt_binding_ids`` (ADR-0233 §2) are the bindings' ids, empty
    for an episode that is not bound; ``identity_layout`` says which identity layout made the
    ids (sealing-policy §10), and is itself in no payload. Construction raises ValueError for
    a refusal disposition (ADR §8 type table).
    """

    trace_id: str
    trace_policy_version: str
    input_digest: str
    problem_frame_digest: str
    original_contract_assessment_id: str
    residual_ids: tuple[str, ...]
    search_gate_decision_id: str
    compute_budget_id: str
    geometric_search_run_id: str
    candidate_attempt_ids: tuple[str, ...]
    candidate_attempt_binding_ids: tuple[str, ...]
    replay_result_ids: tuple[str, ...]
    replay_refusal_ids: tuple[str, ...]
    upstream_identity_chain: tuple[str, ...]
    practice_disposition: PracticeDisposition
    trace_records: tuple[str, ...]
    evidence_spans: tuple[SourceSpan, ...]
    created_by_policy: str
    explanation: str
    identity_layout: IdentityLayout = IdentityLayout.ADR_0230

    def __post_init__(self) -> None:
        if self.practice_disposition not in SEALED_DISPOSITIONS:
            raise ValueError(f"{self.practice_disposition!r} is not a sealed disposition")


@dataclass(frozen=True, slots=True)
class PracticeTraceRefusal:
    """The typed refusal to seal an episode (ADR-0230 §7.2, §13).

    ``input_digest`` is the sealer's own recomputation when every field of the §12.1 payload
    was structurally valid, else None; ``identity_layout`` says which layout computed it.
    Construction raises ValueError for a sealed disposition.
    """

    trace_refusal_id: str
    trace_policy_version: str
    input_digest: str | None
    practice_disposition: PracticeDisposition
    reason_codes: tuple[str, ...]
    explanation: str
    identity_layout: IdentityLayout = IdentityLayout.ADR_0230

    def __post_init__(self) -> None:
        if self.practice_disposition not in REFUSAL_DISPOSITIONS:
            raise ValueError(f"{self.practice_disposition!r} is not a refusal disposition")


#: The outcome union of ADR-0230 §4.
PracticeTraceOutcome: TypeAlias = SealedPracticeTrace | PracticeTraceRefusal
