"""The plugin's episode fixtures as inputs to the kernel's own upstream modules.

``sealed_trace_record_types = ["kernel.records"]`` makes every fixture record a kernel record,
so each stage can be fed the fixture's inputs and must reproduce the fixture's decision and id.
"""

from __future__ import annotations

import pytest
from kernel import records
from kernel.assessment import assessment_id
from kernel.budget import allocate, budget_id
from kernel.frame import frame_digest
from kernel.gate import decide
from kernel.replay import refusal_id, replay_run, result_id
from kernel.residuals import project
from kernel.sealing import build_episode, seal_episode
from kernel.search import attempt_id, refusal_outcome_id, run_id, run_input_digest, search

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace
from sealed_trace.builder import SEALED_DISPOSITION_NAMES


@pytest.fixture(params=SEALED_DISPOSITION_NAMES)
def fixture_records(request, sealed_trace_episodes):
    """The upstream records of a lawful episode of each sealed disposition."""
    return sealed_trace_episodes.records(request.param)


def test_fixture_records_are_kernel_records(fixture_records):
    r = fixture_records
    assert type(r.problem_frame) is records.ProblemFrameProjection
    assert type(r.contract_assessment) is records.ContractAssessmentProjection
    assert all(type(x) is records.ContractResidual for x in r.residuals)
    assert type(r.search_gate_decision) is records.SearchGateDecision
    assert type(r.compute_budget_decision) is records.ComputeBudgetDecision
    assert all(type(a) is records.CandidateAttempt for a in r.candidate_attempts)
    assert all(type(s) is records.SourceSpan for s in r.contract_assessment.evidence_spans)


def test_frame_and_assessment_ids_reproduce(fixture_records):
    assert frame_digest(fixture_records.problem_frame) == fixture_records.problem_frame.frame_digest
    assessment = fixture_records.contract_assessment
    assert assessment_id(assessment) == assessment.assessment_id


def test_residual_projection_reproduces_the_fixture(fixture_records):
    projected = project(fixture_records.contract_assessment)
    assert [x.residual_id for x in projected] == [x.residual_id for x in fixture_records.residuals]
    for mine, theirs in zip(projected, fixture_records.residuals, strict=True):
        assert (mine.residual_kind, mine.source_axis, mine.family_id) == (
            theirs.residual_kind,
            theirs.source_axis,
            theirs.family_id,
        )


def test_gate_reproduces_the_fixture_decision(fixture_records):
    expected = fixture_records.search_gate_decision
    gate = decide(fixture_records.residuals)
    assert gate.decision_id == expected.decision_id
    assert (gate.status, gate.reason_code, gate.input_digest, gate.residual_ids) == (
        expected.status,
        expected.reason_code,
        expected.input_digest,
        expected.residual_ids,
    )
    assert gate.evidence_spans == expected.evidence_spans


def test_budget_reproduces_the_fixture_budget(fixture_records):
    expected = fixture_records.compute_budget_decision
    budget = allocate(fixture_records.search_gate_decision)
    assert budget.budget_id == expected.budget_id == budget_id(expected)
    assert (budget.status, budget.reason_code, budget.max_candidates, budget.max_steps) == (
        expected.status,
        expected.reason_code,
        expected.max_candidates,
        expected.max_steps,
    )


def test_run_and_attempt_ids_reproduce(fixture_records):
    run, refusal = fixture_records.geometric_search_run, fixture_records.search_run_refusal
    if refusal is not None:
        assert refusal_outcome_id(refusal) == refusal.outcome_id
        return
    assert run_id(run) == run.run_id
    assert [attempt_id(a) for a in run.candidate_attempts] == [
        a.attempt_id for a in run.candidate_attempts
    ]
    assert all(a.input_digest == run.input_digest for a in run.candidate_attempts)


def test_replay_ids_reproduce(fixture_records):
    for result in fixture_records.replay_results:
        assert result_id(result) == result.replay_result_id
    for refusal in fixture_records.replay_refusals:
        assert refusal_id(refusal) == refusal.replay_refusal_id


def test_kernel_search_refuses_what_the_fixture_gate_blocks(sealed_trace_episodes):
    r = sealed_trace_episodes.records("sealed_original_refusal")
    refusal = search(
        r.problem_frame, r.contract_assessment, r.search_gate_decision, r.compute_budget_decision
    )
    assert isinstance(refusal, records.SearchRunRefusal)
    assert refusal.run_disposition == r.search_run_refusal.run_disposition == "blocked_by_gate"
    assert (refusal.gate_decision_id, refusal.budget_id) == (
        r.search_gate_decision.decision_id,
        r.compute_budget_decision.budget_id,
    )
    episode = build_episode(
        r.problem_frame,
        r.contract_assessment,
        r.residuals,
        r.search_gate_decision,
        r.compute_budget_decision,
        refusal,
    )
    assert seal_episode(episode).practice_disposition.value == "sealed_original_refusal"


def test_kernel_adapter_cannot_reconstruct_foreign_candidates(sealed_trace_episodes):
    """The fixture's operators are not the kernel's: every attempt is refused, bound by id."""
    r = sealed_trace_episodes.records("sealed_candidate_replay_closed", attempts=3)
    run = r.geometric_search_run
    results, refusals = replay_run(r.problem_frame, r.contract_assessment, run)
    assert results == ()
    assert [x.attempt_id for x in refusals] == [a.attempt_id for a in run.candidate_attempts]
    assert {x.replay_disposition for x in refusals} == {"candidate_identity_mismatch"}
    assert (
        run_input_digest(
            r.problem_frame.frame_digest,
            r.contract_assessment.assessment_id,
            r.search_gate_decision,
            r.compute_budget_decision,
        )
        != run.input_digest
    )
    episode = build_episode(
        r.problem_frame,
        r.contract_assessment,
        r.residuals,
        r.search_gate_decision,
        r.compute_budget_decision,
        run,
        (),
        refusals,
    )
    outcome = seal_episode(episode)
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.practice_disposition.value == "sealed_replay_unavailable"


def test_every_sealed_fixture_episode_seals_in_kernel_types(sealed_practice_episode):
    episode = sealed_practice_episode.episode
    assert type(episode) is records.PracticeEpisode
    outcome = seal_episode(episode)
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.practice_disposition.value == sealed_practice_episode.practice_disposition


def test_every_refused_fixture_episode_refuses_in_kernel_types(refused_practice_episode):
    case = refused_practice_episode
    assert type(case.episode) is records.PracticeEpisode
    outcome = seal_episode(case.episode)
    assert isinstance(outcome, PracticeTraceRefusal), case.description
    assert outcome.practice_disposition.value == case.practice_disposition
    assert case.reason_code in outcome.reason_codes


def test_practice_episode_fixture_rebuilt_by_the_kernel_seals_identically(practice_episode):
    e = practice_episode
    rebuilt = build_episode(
        e.problem_frame,
        e.contract_assessment,
        e.residuals,
        e.search_gate_decision,
        e.compute_budget_decision,
        e.geometric_search_run,
        e.replay_results,
        e.replay_refusals,
    )
    assert (rebuilt.schema_versions, rebuilt.policy_versions) == (
        e.schema_versions,
        e.policy_versions,
    )
    assert seal_episode(rebuilt).trace_id == seal_episode(e).trace_id
