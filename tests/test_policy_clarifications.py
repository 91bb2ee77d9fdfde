"""sealing-policy §9 (revision 2): where two rules meet. Each clarification is one test or a
few; the version-list cases live with the other version tests in test_trace_obligations.py."""

from __future__ import annotations

import dataclasses as dc
import json

import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal, seal_practice_trace
from sealed_trace.builder import build_episode, refresh_ids
from sealed_trace.episode_json import encode_episode, seal_document
from sealed_trace.trace import build_practice_trace_input


def _claim():  # type: ignore[no-untyped-def]
    episode = build_episode("sealed_candidate_replay_closed")
    claim = build_practice_trace_input(episode)
    assert not isinstance(claim, PracticeTraceRefusal)
    return episode, claim


def test_a_claimed_trace_policy_version_outside_the_manifest_is_unsupported() -> None:
    episode, claim = _claim()
    claimed = dc.replace(claim, trace_policy_version="sealed_practice_trace.v2")
    outcome = seal_practice_trace(claimed, episode)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_policy_unsupported"
    assert "unsupported_trace_policy_version" in outcome.reason_codes
    assert "trace_input_mismatch" in outcome.reason_codes  # its own fault, still reported


def test_claimed_version_entries_outside_the_manifest_are_unsupported() -> None:
    episode, claim = _claim()
    for attr in ("schema_versions", "policy_versions"):
        entries = getattr(claim, attr)
        bad = ((entries[0][0], entries[0][1] + "x"), *entries[1:])
        outcome = seal_practice_trace(dc.replace(claim, **{attr: bad}), episode)
        assert isinstance(outcome, PracticeTraceRefusal)
        assert outcome.practice_disposition.value == "trace_policy_unsupported", attr
        assert "unsupported_version_entry" in outcome.reason_codes


def test_a_claimed_trace_input_next_to_a_missing_record_is_not_compared() -> None:
    episode, claim = _claim()
    for field in ("search_gate_decision", "compute_budget_decision", "contract_assessment"):
        outcome = seal_practice_trace(claim, dc.replace(episode, **{field: None}))
        assert isinstance(outcome, PracticeTraceRefusal)
        assert outcome.practice_disposition.value == "trace_upstream_incomplete", field
        assert "trace_input_mismatch" not in outcome.reason_codes, field
    one_fewer = dc.replace(episode, replay_results=episode.replay_results[1:])
    assert episode.replay_results[1:]  # the replay policy entry stays in use
    outcome = seal_practice_trace(claim, one_fewer)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_upstream_incomplete"
    assert "trace_input_mismatch" not in outcome.reason_codes


def test_a_null_trace_input_in_a_document_is_malformed_input() -> None:
    document = json.loads(encode_episode(build_episode()))
    document["trace_input"] = None
    outcome = seal_document(json.dumps(document).encode())
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert outcome.reason_codes == ("malformed_trace_input",)
    del document["trace_input"]
    assert not isinstance(seal_document(json.dumps(document).encode()), PracticeTraceRefusal)


def _edited(path: str, value: object):  # type: ignore[no-untyped-def]
    """The closed episode with one field of one record set to ``value``, ids refreshed."""
    episode = build_episode("sealed_candidate_replay_closed")
    run = episode.geometric_search_run
    assert run is not None
    record, _, name = path.partition(".")
    if record == "gate":
        episode = dc.replace(
            episode, search_gate_decision=dc.replace(episode.search_gate_decision, **{name: value})
        )
    elif record == "budget":
        episode = dc.replace(
            episode,
            compute_budget_decision=dc.replace(episode.compute_budget_decision, **{name: value}),
        )
    elif record == "run":
        episode = dc.replace(episode, geometric_search_run=dc.replace(run, **{name: value}))
    elif record == "attempt":
        attempts = (
            dc.replace(run.candidate_attempts[0], **{name: value}),
            *run.candidate_attempts[1:],
        )
        episode = dc.replace(
            episode, geometric_search_run=dc.replace(run, candidate_attempts=attempts)
        )
    elif record == "charge":
        first = run.candidate_attempts[0]
        attempts = (
            dc.replace(first, budget_charge=dc.replace(first.budget_charge, **{name: value})),
            *run.candidate_attempts[1:],
        )
        episode = dc.replace(
            episode, geometric_search_run=dc.replace(run, candidate_attempts=attempts)
        )
    elif record == "result":
        results = (
            dc.replace(episode.replay_results[0], **{name: value}),
            *episode.replay_results[1:],
        )
        episode = dc.replace(episode, replay_results=results)
    return refresh_ids(episode)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("gate.reason_code", ""),
        ("budget.reason_code", ""),
        ("attempt.operator_version", ""),
        ("attempt.replay_blockers", ("",)),
        ("run.operator_set_version", ""),
        ("result.reason_codes", ("",)),
        ("result.proof_obligation_refs", ("",)),
        ("budget.max_candidates", -1),
        ("budget.max_steps", -(2**63)),
        ("attempt.depth", -5),
        ("attempt.step_index", -1),
        ("charge.steps", -3),
    ],
)
def test_what_an_upstream_authority_chose_is_not_re_judged(path: str, value: object) -> None:
    sealed = seal(_edited(path, value))
    assert isinstance(sealed, SealedPracticeTrace), sealed


@pytest.mark.parametrize(
    ("path", "value", "code"),
    [
        ("attempt.operator_id", "", "malformed_candidate_attempt"),
        ("run.operator_set_id", "", "malformed_geometric_search_run"),
        ("result.contract_replay_assessment_id", "", "malformed_replay_result"),
        ("attempt.attempt_index", -1, None),
        ("gate.policy_version", "", "malformed_search_gate_decision"),
    ],
)
def test_identifiers_versions_and_bounded_ints_are_still_judged(
    path: str, value: object, code: str | None
) -> None:
    outcome = seal(_edited(path, value))
    assert isinstance(outcome, PracticeTraceRefusal)
    if code is not None:
        assert code in outcome.reason_codes


@pytest.mark.parametrize(
    "disposition", ["sealed_candidate_replay_closed", "sealed_original_refusal"]
)
@pytest.mark.parametrize(
    ("field", "code"),
    [
        ("search_gate_decision", "missing_search_gate_decision"),
        ("compute_budget_decision", "missing_compute_budget_decision"),
        ("contract_assessment", "missing_contract_assessment"),
        ("problem_frame", "missing_problem_frame"),
    ],
)
def test_a_binding_whose_other_side_is_missing_is_unjudgeable_not_mismatched(
    disposition: str, field: str, code: str
) -> None:
    outcome = seal(dc.replace(build_episode(disposition), **{field: None}))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_upstream_incomplete"
    assert outcome.reason_codes == (code,)
