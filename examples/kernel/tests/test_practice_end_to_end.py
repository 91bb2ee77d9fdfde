"""Word problems sealed end to end through kernel.practice, one per sealed disposition."""

from __future__ import annotations

import dataclasses

import pytest
from kernel import records
from kernel.practice import practise
from kernel.sealing import seal_episode

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.upstream import (
    attempt_id,
    budget_id,
    gate_decision_id,
    replay_refusal_id,
    replay_result_id,
    residual_id,
    run_id,
)

PROBLEMS = {
    "sealed_candidate_replay_closed": (
        "Maya had 12 marbles. She gained 5 more marbles at recess. How many marbles now?"
    ),
    "sealed_contract_closed_proof_refused": (
        "Ana had 3 shells. She gave away 5 shells. How many shells does Ana have?"
    ),
    "sealed_all_candidates_refused": (
        "Maya had 12 marbles. She gained 5 more stickers. How many marbles does she have?"
    ),
    "sealed_replay_unavailable": (
        "Ben had 4 cards. He traded 2 cards with Lee. How many cards does Ben have?"
    ),
    "sealed_exhausted_no_candidate": (
        "Maya had 12 marbles. She gained some marbles. How many marbles does Maya have?"
    ),
    "sealed_original_refusal": (
        "Maya had 12 marbles. 5 marbles were given to her. How many marbles does she have?"
    ),
}


@pytest.fixture(params=sorted(PROBLEMS))
def report(request):
    """The practice report of one word problem, and the disposition it must seal as."""
    return request.param, practise(PROBLEMS[request.param])


def test_each_problem_seals_as_its_disposition(report):
    disposition, r = report
    assert not r.assessment.runnable
    assert isinstance(r.outcome, SealedPracticeTrace), getattr(r.outcome, "reason_codes", None)
    assert r.outcome.practice_disposition.value == disposition


def test_sealing_is_deterministic(report):
    disposition, r = report
    again = practise(PROBLEMS[disposition])
    assert again.episode == r.episode
    assert again.outcome == r.outcome


def test_every_evidence_span_is_exact(report):
    _, r = report
    text = r.problem_text
    assert r.outcome.evidence_spans
    for span in r.outcome.evidence_spans:
        assert text[span.start : span.end] == span.text


def test_the_reference_id_functions_reproduce_kernel_ids(report):
    """An independent recompute: sealed_trace.upstream reads kernel records by attribute."""
    _, r = report
    e = r.episode
    assert [residual_id(x) for x in e.residuals] == [x.residual_id for x in e.residuals]
    assert gate_decision_id(e.search_gate_decision) == e.search_gate_decision.decision_id
    assert budget_id(e.compute_budget_decision) == e.compute_budget_decision.budget_id
    if e.geometric_search_run is not None:
        run = e.geometric_search_run
        assert run_id(run) == run.run_id
        assert [attempt_id(a) for a in run.candidate_attempts] == [
            a.attempt_id for a in run.candidate_attempts
        ]
    assert [replay_result_id(x) for x in e.replay_results] == [
        x.replay_result_id for x in e.replay_results
    ]
    assert [replay_refusal_id(x) for x in e.replay_refusals] == [
        x.replay_refusal_id for x in e.replay_refusals
    ]


def test_the_trace_binds_the_kernel_records(report):
    _, r = report
    e, trace = r.episode, r.outcome
    assert type(e) is records.PracticeEpisode
    assert trace.problem_frame_digest == e.problem_frame.frame_digest
    assert trace.residual_ids == tuple(x.residual_id for x in e.residuals)
    assert trace.search_gate_decision_id == e.search_gate_decision.decision_id
    assert trace.replay_result_ids == tuple(x.replay_result_id for x in e.replay_results)


def test_closed_candidates_are_preserved_not_selected():
    r = practise("Lea had 7 stamps. She gained 3 stamps. How many stamps does Lea have?")
    closed = [
        x for x in r.episode.replay_results if x.replay_disposition == "contract_and_proof_closed"
    ]
    assert len(closed) == 2
    bound = tuple(x.replay_result_id for x in r.episode.replay_results)
    assert r.outcome.replay_result_ids == bound
    assert not {"answer", "selected_candidate", "best_candidate"} & set(dir(r.outcome))


def test_a_closed_assessment_has_nothing_to_practise():
    r = practise("Maya had 12 marbles. She found 5 marbles. How many marbles does Maya have?")
    assert r.assessment.runnable
    assert (r.episode, r.outcome) == (None, None)


def test_explanations_do_not_change_the_trace_id():
    r = practise(PROBLEMS["sealed_candidate_replay_closed"])
    reworded = dataclasses.replace(
        r.episode,
        contract_assessment=dataclasses.replace(r.episode.contract_assessment, explanation="!"),
    )
    assert seal(reworded).trace_id == r.outcome.trace_id


def test_an_altered_upstream_record_refuses():
    r = practise(PROBLEMS["sealed_candidate_replay_closed"])
    budget = dataclasses.replace(r.episode.compute_budget_decision, max_candidates=50)
    outcome = seal_episode(dataclasses.replace(r.episode, compute_budget_decision=budget))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_identity_mismatch"
