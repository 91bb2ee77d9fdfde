"""Value types of the upstream records a SealedPracticeTrace consumes (ADR-0230 §6, §15.1).

One module per upstream ADR, each with the function that recomputes its records' identities.
These modules never import the sealing module (ADR-0230 §5: no reverse dependency).
"""

from sealed_trace.upstream.budget import (
    COMPUTE_BUDGET_POLICY_VERSION,
    ComputeBudgetDecision,
    ComputeBudgetStatus,
    budget_id,
)
from sealed_trace.upstream.frame import (
    CONTRACT_ASSESSMENT_IDENTITY_VERSION,
    PROBLEM_FRAME_IDENTITY_VERSION,
    ContractAssessmentProjection,
    ProblemFrameProjection,
    contract_assessment_id,
    problem_frame_digest,
)
from sealed_trace.upstream.gate import (
    SEARCH_GATE_POLICY_VERSION,
    SearchGateDecision,
    SearchGateStatus,
    gate_decision_id,
    gate_input_digest,
)
from sealed_trace.upstream.replay import (
    CONTRACT_PROOF_REPLAY_POLICY_VERSION,
    VACUOUS_PROOF_DECLARATION,
    ProofReplayRef,
    ReplayAdapterInput,
    ReplayAdapterRefusal,
    ReplayAdapterResult,
    ReplayDisposition,
    ReplayRefusalReason,
    replay_input_digest,
    replay_refusal_id,
    replay_result_id,
)
from sealed_trace.upstream.residuals import (
    ContractResidual,
    ResidualKind,
    ResidualSourceAxis,
    classify_residual_label,
    residual_id,
)
from sealed_trace.upstream.run import (
    GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
    GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
    BudgetCharge,
    BudgetConsumed,
    CandidateAttempt,
    CandidateReplayStatus,
    GeometricSearchRun,
    RunExhaustionCode,
    SearchRunDisposition,
    SearchRunRefusal,
    attempt_id,
    run_id,
    run_input_digest,
    run_refusal_outcome_id,
)
from sealed_trace.upstream.spans import SourceSpan

__all__ = [
    "COMPUTE_BUDGET_POLICY_VERSION",
    "CONTRACT_ASSESSMENT_IDENTITY_VERSION",
    "CONTRACT_PROOF_REPLAY_POLICY_VERSION",
    "GEOMETRIC_SEARCH_RUN_POLICY_VERSION",
    "GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION",
    "PROBLEM_FRAME_IDENTITY_VERSION",
    "SEARCH_GATE_POLICY_VERSION",
    "VACUOUS_PROOF_DECLARATION",
    "BudgetCharge",
    "BudgetConsumed",
    "CandidateAttempt",
    "CandidateReplayStatus",
    "ComputeBudgetDecision",
    "ComputeBudgetStatus",
    "ContractAssessmentProjection",
    "ContractResidual",
    "GeometricSearchRun",
    "ProblemFrameProjection",
    "ProofReplayRef",
    "ReplayAdapterInput",
    "ReplayAdapterRefusal",
    "ReplayAdapterResult",
    "ReplayDisposition",
    "ReplayRefusalReason",
    "ResidualKind",
    "ResidualSourceAxis",
    "RunExhaustionCode",
    "SearchGateDecision",
    "SearchGateStatus",
    "SearchRunDisposition",
    "SearchRunRefusal",
    "SourceSpan",
    "attempt_id",
    "budget_id",
    "classify_residual_label",
    "contract_assessment_id",
    "gate_decision_id",
    "gate_input_digest",
    "problem_frame_digest",
    "replay_input_digest",
    "replay_refusal_id",
    "replay_result_id",
    "residual_id",
    "run_id",
    "run_input_digest",
    "run_refusal_outcome_id",
]
