"""The kernel's sealing boundary (ADR-0230): the only kernel module that imports sealed_trace.

It binds records the upstream stages already produced into one PracticeEpisode, with the
version manifest the episode shape calls for, and seals it. It creates, alters and decides
nothing else: no search, no replay, no clock, no I/O, no answer.
"""

from __future__ import annotations

from kernel.records import (
    COMPUTE_BUDGET_POLICY_VERSION,
    CONTRACT_ASSESSMENT_IDENTITY_VERSION,
    CONTRACT_PROOF_REPLAY_POLICY_VERSION,
    GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
    GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
    PROBLEM_FRAME_IDENTITY_VERSION,
    SEALED_PRACTICE_TRACE_POLICY_VERSION,
    SEARCH_GATE_POLICY_VERSION,
    ComputeBudgetDecision,
    ContractAssessmentProjection,
    ContractResidual,
    GeometricSearchRun,
    PracticeEpisode,
    ProblemFrameProjection,
    ReplayAdapterRefusal,
    ReplayAdapterResult,
    SearchGateDecision,
    SearchRunRefusal,
)
from sealed_trace import PracticeTraceOutcome, seal

__all__ = ["PracticeTraceOutcome", "build_episode", "seal_episode"]


def build_episode(
    frame: ProblemFrameProjection,
    assessment: ContractAssessmentProjection,
    residuals: tuple[ContractResidual, ...],
    gate: SearchGateDecision,
    budget: ComputeBudgetDecision,
    run: GeometricSearchRun | SearchRunRefusal,
    replay_results: tuple[ReplayAdapterResult, ...] = (),
    replay_refusals: tuple[ReplayAdapterRefusal, ...] = (),
) -> PracticeEpisode:
    """Bind one episode's records, with the schema and policy versions its shape needs."""
    search_run = run if isinstance(run, GeometricSearchRun) else None
    searched = search_run is not None
    schema = (
        ("contract_assessment_identity", CONTRACT_ASSESSMENT_IDENTITY_VERSION),
        *((("geometric_search_run", GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION),) if searched else ()),
        ("problem_frame_identity", PROBLEM_FRAME_IDENTITY_VERSION),
    )
    replayed = bool(replay_results or replay_refusals)
    policy = (
        ("compute_budget", COMPUTE_BUDGET_POLICY_VERSION),
        *((("contract_proof_replay", CONTRACT_PROOF_REPLAY_POLICY_VERSION),) if replayed else ()),
        ("geometric_search_run", GEOMETRIC_SEARCH_RUN_POLICY_VERSION),
        ("sealed_practice_trace", SEALED_PRACTICE_TRACE_POLICY_VERSION),
        ("search_gate", SEARCH_GATE_POLICY_VERSION),
    )
    return PracticeEpisode(
        problem_frame=frame,
        contract_assessment=assessment,
        residuals=residuals,
        search_gate_decision=gate,
        compute_budget_decision=budget,
        geometric_search_run=search_run,
        search_run_refusal=run if isinstance(run, SearchRunRefusal) else None,
        replay_results=replay_results,
        replay_refusals=replay_refusals,
        schema_versions=schema,
        policy_versions=policy,
    )


def seal_episode(episode: PracticeEpisode) -> PracticeTraceOutcome:
    """Seal ``episode``: a SealedPracticeTrace, or a PracticeTraceRefusal saying why not."""
    return seal(episode)
