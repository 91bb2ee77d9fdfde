"""ADR-0230 §17 obligations 1-16 and its additional required controls.

Every expected identity is recomputed by ``independent`` (the tests' own canonical JSON and
payloads), never by the package's identity helpers.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from dataclasses import replace
from types import SimpleNamespace

import independent as ind
import pytest

import sealed_trace
import sealed_trace.trace as trace_module
from sealed_trace import (
    PracticeDisposition,
    PracticeTraceInput,
    PracticeTraceRefusal,
    SealedPracticeTrace,
    build_practice_trace_input,
    seal,
    seal_practice_trace,
)
from sealed_trace.builder import (
    EpisodeSpec,
    build_episode,
    convert_records,
    refresh_ids,
    version_lists,
)
from sealed_trace.reasons import REASON_CODES
from sealed_trace.upstream import SourceSpan

PUBLIC_API = [
    "REFUSAL_DISPOSITIONS",
    "SEALED_DISPOSITIONS",
    "SEALED_PRACTICE_TRACE_POLICY_VERSION",
    "IdentityLayout",
    "PracticeDisposition",
    "PracticeEpisode",
    "PracticeTraceInput",
    "PracticeTraceOutcome",
    "PracticeTraceRefusal",
    "SealedPracticeTrace",
    "build_practice_trace_input",
    "seal",
    "seal_practice_trace",
]


def sealed(episode, **kw) -> SealedPracticeTrace:
    outcome = seal(episode, **kw)
    assert isinstance(outcome, SealedPracticeTrace), getattr(outcome, "reason_codes", outcome)
    return outcome


def refused(episode, **kw) -> PracticeTraceRefusal:
    outcome = seal(episode, **kw)
    assert isinstance(outcome, PracticeTraceRefusal), outcome
    return outcome


def assert_matches_independent(outcome: SealedPracticeTrace, episode) -> None:
    """Every field of a sealed trace equals the independent recomputation from the records."""
    payload = ind.trace_payload(episode)
    assert outcome.trace_id == ind.sha(payload)
    assert outcome.trace_id == ind.trace_id_of_outcome(outcome)
    assert outcome.input_digest == ind.input_digest(episode)
    for key, value in payload.items():
        if key == "trace_id":
            continue
        got = ind.outcome_fields(outcome)[key]
        assert got == value, key


# --- 1. public API ------------------------------------------------------------------------


def test_01_public_api_of_package_is_exact():
    assert sorted(sealed_trace.__all__) == sorted(PUBLIC_API)
    assert len(sealed_trace.__all__) == len(set(sealed_trace.__all__))
    for name in PUBLIC_API:
        assert getattr(sealed_trace, name) is getattr(trace_module, name)


def test_01_public_api_of_trace_module_is_exact():
    assert sorted(trace_module.__all__) == sorted(PUBLIC_API)
    public = {
        n
        for n, v in vars(trace_module).items()
        if not n.startswith("_") and getattr(v, "__module__", None) == trace_module.__name__
    }
    assert public <= set(PUBLIC_API)


def test_01_no_selection_or_answer_api_is_exported():
    words = (
        "answer",
        "select",
        "best",
        "rank",
        "score",
        "winner",
        "promot",
        "serve",
        "pick",
        "choose",
        "resolve",
    )
    for module in (sealed_trace, trace_module):
        for name in dir(module):
            assert not any(w in name.lower() for w in words), name


def test_01_disposition_vocabulary_is_closed():
    assert sorted(d.value for d in PracticeDisposition) == sorted(
        ind.SEALED_DISPOSITIONS + ind.REFUSAL_DISPOSITIONS
    )
    assert {d.value for d in sealed_trace.SEALED_DISPOSITIONS} == set(ind.SEALED_DISPOSITIONS)
    assert {d.value for d in sealed_trace.REFUSAL_DISPOSITIONS} == set(ind.REFUSAL_DISPOSITIONS)


def test_01_signatures():
    assert list(inspect.signature(seal).parameters) == ["episode", "explanation", "layout"]
    assert list(inspect.signature(seal_practice_trace).parameters) == [
        "trace_input",
        "episode",
        "explanation",
        "layout",
    ]
    assert list(inspect.signature(build_practice_trace_input).parameters) == [
        "episode",
        "layout",
    ]


# --- 2. deterministic seal ----------------------------------------------------------------


def test_02_valid_chain_seals_deterministically(closed_episode):
    first, second = sealed(closed_episode), sealed(closed_episode)
    assert first == second
    assert repr(first) == repr(second)
    assert_matches_independent(first, closed_episode)


def test_02_rebuilt_episode_seals_to_the_same_bytes():
    a = sealed(build_episode("sealed_candidate_replay_closed", attempts=3))
    b = sealed(build_episode("sealed_candidate_replay_closed", attempts=3))
    assert ind.canonical(ind.outcome_fields(a)) == ind.canonical(ind.outcome_fields(b))


def test_02_build_then_seal_practice_trace_equals_seal(closed_episode):
    built = build_practice_trace_input(closed_episode)
    assert isinstance(built, PracticeTraceInput)
    assert built.input_digest == ind.input_digest(closed_episode)
    payload = ind.input_payload(closed_episode)
    for key, value in payload.items():
        got = getattr(built, key)
        got = (
            [list(p) for p in got]
            if key.endswith("_versions")
            else (list(got) if isinstance(got, tuple) else got)
        )
        assert got == value, key
    assert seal_practice_trace(built, closed_episode) == seal(closed_episode)


def test_02_trace_is_immutable(closed_episode):
    outcome = sealed(closed_episode)
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.trace_id = "0" * 64  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        outcome.answer = 1  # type: ignore[attr-defined]


# --- 3-7. each sealed disposition ---------------------------------------------------------


def test_03_to_07_each_disposition_seals(any_sealed_episode):
    outcome = sealed(any_sealed_episode)
    assert outcome.practice_disposition.value == ind.disposition(any_sealed_episode)
    assert_matches_independent(outcome, any_sealed_episode)


def test_03_original_refusal_binds_the_run_refusal(refusal_episode):
    outcome = sealed(refusal_episode)
    assert outcome.practice_disposition is PracticeDisposition.SEALED_ORIGINAL_REFUSAL
    assert outcome.geometric_search_run_id == refusal_episode.search_run_refusal.outcome_id
    assert outcome.candidate_attempt_ids == ()
    assert outcome.replay_result_ids == outcome.replay_refusal_ids == ()


@pytest.mark.parametrize("run_disposition", ["blocked_by_budget", "invalid_input", "not_started"])
def test_03_any_lawful_run_refusal_is_original_refusal(refusal_episode, run_disposition):
    from sealed_trace.upstream import SearchRunDisposition

    ep = refusal_episode
    ep = refresh_ids(
        replace(
            ep,
            search_run_refusal=replace(
                ep.search_run_refusal, run_disposition=SearchRunDisposition(run_disposition)
            ),
        )
    )
    assert ind.id_mismatches(ep) == []
    outcome = sealed(ep)
    assert outcome.practice_disposition is PracticeDisposition.SEALED_ORIGINAL_REFUSAL
    assert_matches_independent(outcome, ep)


def test_03_exhausted_run_without_attempts():
    ep = build_episode("sealed_exhausted_no_candidate")
    assert ep.geometric_search_run.candidate_attempts == ()
    outcome = sealed(ep)
    assert outcome.practice_disposition is PracticeDisposition.SEALED_EXHAUSTED_NO_CANDIDATE
    assert outcome.geometric_search_run_id == ind.run_id(ep.geometric_search_run)


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        (["contract_refused"], "sealed_all_candidates_refused"),
        (["contract_refused"] * 3, "sealed_all_candidates_refused"),
        # adapter refusals do not count as lawful candidate replay results (ADR §8.1)
        (["contract_refused", "proof_replay_unavailable"], "sealed_all_candidates_refused"),
        (["invalid_replay_input"], "sealed_replay_unavailable"),
        (
            [
                "contract_replay_unavailable",
                "candidate_identity_mismatch",
                "unsupported_proof_obligation",
            ],
            "sealed_replay_unavailable",
        ),
        (["contract_closed_but_proof_refused"], "sealed_contract_closed_proof_refused"),
        (
            ["contract_refused", "contract_closed_but_proof_refused", "invalid_replay_input"],
            "sealed_contract_closed_proof_refused",
        ),
        (["contract_and_proof_closed"], "sealed_candidate_replay_closed"),
        (
            ["contract_closed_but_proof_refused", "contract_and_proof_closed", "contract_refused"],
            "sealed_candidate_replay_closed",
        ),
    ],
)
def test_04_to_07_disposition_derivation(outcomes, expected):
    ep = build_episode(expected, outcomes=outcomes)
    outcome = sealed(ep)
    assert outcome.practice_disposition.value == expected == ind.disposition(ep)
    assert len(outcome.candidate_attempt_ids) == len(outcomes)
    assert len(outcome.replay_result_ids) + len(outcome.replay_refusal_ids) == len(outcomes)
    assert_matches_independent(outcome, ep)


def test_05_replay_refusals_are_not_turned_into_semantic_refusals():
    ep = build_episode("sealed_replay_unavailable", attempts=2)
    outcome = sealed(ep)
    assert outcome.replay_result_ids == ()
    assert outcome.replay_refusal_ids == tuple(x.replay_refusal_id for x in ep.replay_refusals)
    assert outcome.practice_disposition is not PracticeDisposition.SEALED_ALL_CANDIDATES_REFUSED


def test_07_replay_closed_creates_no_answer_field(closed_episode):
    outcome = sealed(closed_episode)
    assert outcome.practice_disposition is PracticeDisposition.SEALED_CANDIDATE_REPLAY_CLOSED
    for name in ind.FORBIDDEN_OUTPUT_FIELDS:
        assert not hasattr(outcome, name), name
    assert [f.name for f in dataclasses.fields(outcome)] == list(ind.SEALED_FIELDS)


# --- 8. missing upstream record -----------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "code"),
    [
        ("problem_frame", "missing_problem_frame"),
        ("contract_assessment", "missing_contract_assessment"),
        ("search_gate_decision", "missing_search_gate_decision"),
        ("compute_budget_decision", "missing_compute_budget_decision"),
    ],
)
def test_08_missing_record_refuses_as_incomplete(closed_episode, field, code):
    outcome = refused(replace(closed_episode, **{field: None}))
    assert outcome.practice_disposition is PracticeDisposition.TRACE_UPSTREAM_INCOMPLETE
    assert code in outcome.reason_codes
    assert outcome.input_digest is None


def test_08_missing_run_refuses_as_incomplete(closed_episode):
    schema, _ = version_lists(run=False, replay=True)
    ep = replace(closed_episode, geometric_search_run=None, schema_versions=schema)
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_UPSTREAM_INCOMPLETE
    assert outcome.reason_codes == ("missing_search_run",)


@pytest.mark.parametrize(
    "disposition", ["sealed_candidate_replay_closed", "sealed_exhausted_no_candidate"]
)
def test_08_dropped_run_is_only_missing(disposition):
    ep = build_episode(disposition)
    outcome = refused(replace(ep, geometric_search_run=None))
    assert outcome.practice_disposition is PracticeDisposition.TRACE_UPSTREAM_INCOMPLETE
    assert outcome.reason_codes == ("missing_search_run",)


def test_08_missing_run_refusal_refuses_as_incomplete(refusal_episode):
    outcome = refused(replace(refusal_episode, search_run_refusal=None))
    assert outcome.practice_disposition is PracticeDisposition.TRACE_UPSTREAM_INCOMPLETE
    assert outcome.reason_codes == ("missing_search_run",)


def test_08_missing_replay_record_refuses_as_incomplete(closed_episode):
    ep = replace(closed_episode, replay_results=closed_episode.replay_results[:1])
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_UPSTREAM_INCOMPLETE
    assert outcome.reason_codes == ("missing_replay_record",)
    assert outcome.input_digest == ind.input_digest(ep)


def test_08_no_replay_records_at_all_refuses_as_incomplete(closed_episode):
    schema, policy = version_lists(run=True, replay=False)
    ep = replace(
        closed_episode,
        replay_results=(),
        replay_refusals=(),
        schema_versions=schema,
        policy_versions=policy,
    )
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_UPSTREAM_INCOMPLETE
    assert outcome.reason_codes == ("missing_replay_record",)


def test_08_dropped_residual_the_gate_names_is_missing(closed_episode):
    ep = replace(closed_episode, residuals=closed_episode.residuals[1:])
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_UPSTREAM_INCOMPLETE
    assert set(outcome.reason_codes) == {"missing_residual"}


@pytest.mark.parametrize(
    "field",
    [
        "residuals",
        "replay_results",
        "replay_refusals",
        "schema_versions",
        "policy_versions",
        "trace_policy_version",
    ],
)
def test_08_absent_episode_array_is_malformed_input(closed_episode, field):
    values = {
        f.name: getattr(closed_episode, f.name)
        for f in dataclasses.fields(closed_episode)
        if f.name != field
    }
    outcome = refused(SimpleNamespace(**values))
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert "missing_episode_field" in outcome.reason_codes


# --- 9. gate/budget/run/replay mismatches ------------------------------------------------

OTHER = ind.sha({"other": 1})


@pytest.mark.parametrize(
    ("path", "code"),
    [
        (("search_gate_decision", "decision_id"), "gate_decision_id_mismatch"),
        (("compute_budget_decision", "budget_id"), "budget_id_mismatch"),
        (("geometric_search_run", "run_id"), "run_id_mismatch"),
        (("geometric_search_run", "input_digest"), "run_input_digest_mismatch"),
    ],
)
def test_09_forged_ids_refuse_as_mismatch(closed_episode, path, code):
    record, field = path
    ep = replace(
        closed_episode, **{record: replace(getattr(closed_episode, record), **{field: OTHER})}
    )
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_IDENTITY_MISMATCH
    assert code in outcome.reason_codes


@pytest.mark.parametrize("kind", ["replay_results", "replay_refusals"])
def test_09_forged_replay_id_refuses_as_mismatch(mixed_episode, kind):
    records = getattr(mixed_episode, kind)
    field = "replay_result_id" if kind == "replay_results" else "replay_refusal_id"
    ep = replace(mixed_episode, **{kind: (replace(records[0], **{field: OTHER}),)})
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_IDENTITY_MISMATCH
    assert f"{field}_mismatch" in outcome.reason_codes


def test_09_equal_claimed_strings_are_not_enough(closed_episode):
    """A self-consistent but fabricated id chain (all references agree) still refuses."""
    gate = closed_episode.search_gate_decision
    forged = replace(gate, decision_id=OTHER)
    budget = replace(closed_episode.compute_budget_decision, gate_decision_id=OTHER)
    ep = replace(closed_episode, search_gate_decision=forged, compute_budget_decision=budget)
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_IDENTITY_MISMATCH
    assert "gate_decision_id_mismatch" in outcome.reason_codes


# --- 10. orphan replay result / refusal --------------------------------------------------


def _foreign_episode(outcomes):
    spec = EpisodeSpec(operator_set_id="other.operators")
    return build_episode(
        "sealed_candidate_replay_closed"
        if "contract_and_proof_closed" in outcomes
        else "sealed_replay_unavailable",
        outcomes=outcomes,
        spec=spec,
    )


def test_10_orphan_replay_result_from_another_run(closed_episode):
    foreign = _foreign_episode(["contract_and_proof_closed"]).replay_results[0]
    assert ind.replay_result_id(foreign) == foreign.replay_result_id
    ep = replace(closed_episode, replay_results=(closed_episode.replay_results[0], foreign))
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_IDENTITY_MISMATCH
    assert "orphan_replay_result" in outcome.reason_codes


def test_10_orphan_replay_refusal_from_another_run(mixed_episode):
    foreign = _foreign_episode(["contract_replay_unavailable"]).replay_refusals[0]
    ep = replace(mixed_episode, replay_refusals=(foreign,))
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_IDENTITY_MISMATCH
    assert "orphan_replay_refusal" in outcome.reason_codes


@pytest.mark.parametrize("kind", ["replay_results", "replay_refusals"])
def test_10_replay_record_next_to_a_run_refusal_is_orphan(refusal_episode, mixed_episode, kind):
    schema, policy = version_lists(run=False, replay=True)
    ep = replace(
        refusal_episode,
        schema_versions=schema,
        policy_versions=policy,
        **{kind: getattr(mixed_episode, kind)},
    )
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_IDENTITY_MISMATCH
    orphan = "orphan_replay_result" if kind == "replay_results" else "orphan_replay_refusal"
    assert orphan in outcome.reason_codes


def test_10_two_replay_records_for_one_attempt_is_malformed(mixed_episode):
    refusal = mixed_episode.replay_refusals[0]
    attempt0 = mixed_episode.geometric_search_run.candidate_attempts[0]
    dup = replace(
        refusal, attempt_id=attempt0.attempt_id, candidate_digest=attempt0.candidate_digest
    )
    dup = replace(dup, replay_refusal_id=ind.replay_refusal_id(dup))
    ep = replace(mixed_episode, replay_refusals=(refusal, dup))
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert "duplicate_replay_record" in outcome.reason_codes


# --- 11. disagreement ---------------------------------------------------------------------


@pytest.fixture
def disagreement():
    ep = build_episode(
        "sealed_candidate_replay_closed",
        outcomes=["contract_and_proof_closed", "contract_and_proof_closed"],
    )
    a, b = ep.replay_results
    assert a.replay_disposition.value == b.replay_disposition.value == ("contract_and_proof_closed")
    assert a.candidate_digest != b.candidate_digest  # two closed candidates that disagree
    assert a.evidence_spans != b.evidence_spans
    return ep


def test_11_disagreement_preserves_both_closed_results(disagreement):
    outcome = sealed(disagreement)
    a, b = disagreement.replay_results
    assert outcome.practice_disposition is PracticeDisposition.SEALED_CANDIDATE_REPLAY_CLOSED
    assert outcome.replay_result_ids == (a.replay_result_id, b.replay_result_id)
    assert {a.replay_result_id, b.replay_result_id} <= set(outcome.upstream_identity_chain)
    assert outcome.evidence_spans[-2:] == (*a.evidence_spans, *b.evidence_spans)
    assert_matches_independent(outcome, disagreement)


def test_11_disagreement_is_not_resolved_by_order(disagreement):
    a, b = disagreement.replay_results
    swapped = replace(disagreement, replay_results=(b, a))
    outcome = sealed(swapped)
    assert outcome.replay_result_ids == (b.replay_result_id, a.replay_result_id)
    assert outcome.practice_disposition is PracticeDisposition.SEALED_CANDIDATE_REPLAY_CLOSED
    assert outcome.trace_id != sealed(disagreement).trace_id
    assert_matches_independent(outcome, swapped)


def test_11_no_selection_api_or_field(disagreement):
    outcome = sealed(disagreement)
    public = {n for n in dir(outcome) if not n.startswith("_")}
    assert public == set(ind.SEALED_FIELDS)
    for name in (
        "selected_candidate",
        "best_candidate",
        "winner",
        "answer",
        "rank",
        "score",
        "disagreement",
        "select",
        "resolve",
    ):
        assert not hasattr(outcome, name)
        assert not hasattr(SealedPracticeTrace, name)
        assert not hasattr(sealed_trace, name)


# --- 12-13. evidence spans ----------------------------------------------------------------


def test_12_duplicate_spans_are_preserved():
    spec = EpisodeSpec(assessment_spans=("gained", "gained"), attempt_spans=("gained",))
    ep = build_episode("sealed_candidate_replay_closed", spec=spec)
    outcome = sealed(ep)
    expected = ind.evidence_spans(ep)
    assert list(outcome.evidence_spans) == expected
    gained = [s for s in outcome.evidence_spans if s.text == "gained"]
    # assessment 2 + 2 residuals x 2 + 2 attempts x 1 + 2 results x 1
    assert len(gained) == len(expected) == 10
    assert_matches_independent(outcome, ep)


def test_12_span_order_follows_sealing_policy_section_5(mixed_episode):
    outcome = sealed(mixed_episode)
    ep = mixed_episode
    expected = list(ep.contract_assessment.evidence_spans)
    for r in ep.residuals:
        expected += r.evidence_spans
    for a in ep.geometric_search_run.candidate_attempts:
        expected += a.evidence_spans
    for x in ep.replay_results:
        expected += x.evidence_spans
    assert list(outcome.evidence_spans) == expected


def test_13_span_reorder_changes_trace_id():
    one = build_episode(spec=EpisodeSpec(assessment_spans=("gained", "marbles")))
    two = build_episode(spec=EpisodeSpec(assessment_spans=("marbles", "gained")))
    a, b = sealed(one), sealed(two)
    assert [s.text for s in a.evidence_spans[:2]] == ["gained", "marbles"]
    assert [s.text for s in b.evidence_spans[:2]] == ["marbles", "gained"]
    assert a.trace_id != b.trace_id
    assert_matches_independent(a, one)
    assert_matches_independent(b, two)


def test_13_attempt_span_reorder_changes_trace_id():
    one = build_episode(spec=EpisodeSpec(attempt_spans=("5 more marbles", "gained")))
    two = build_episode(spec=EpisodeSpec(attempt_spans=("gained", "5 more marbles")))
    assert sealed(one).trace_id != sealed(two).trace_id


@pytest.mark.parametrize(
    "bad",
    [SourceSpan("gained", 5, 11, 0), SourceSpan("", 4, 4, 0), SourceSpan("x", 0, 10**6, 0)],
    ids=["shifted", "empty", "beyond-text"],
)
def test_12_inexact_copied_span_is_invalid_input(closed_episode, bad):
    a = closed_episode.contract_assessment
    ep = refresh_ids(replace(closed_episode, contract_assessment=replace(a, evidence_spans=(bad,))))
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert "inexact_evidence_span" in outcome.reason_codes


@pytest.mark.parametrize(
    "bad",
    [
        SourceSpan("gained", 10, 4, 0),
        SourceSpan("gained", -1, 4, 0),
        SourceSpan(1, 4, 10, 0),
        SourceSpan("gained", True, 10, 0),
        SourceSpan("gained", 4, 10, "0"),
        SourceSpan("gained", 4.0, 10, 0),
    ],
    ids=["reversed", "negative", "text-int", "bool-start", "str-index", "float-start"],
)
def test_12_malformed_span_is_invalid_input(closed_episode, bad):
    run = closed_episode.geometric_search_run
    attempt = replace(run.candidate_attempts[0], evidence_spans=(bad,))
    ep = replace(
        closed_episode,
        geometric_search_run=replace(
            run, candidate_attempts=(attempt, *run.candidate_attempts[1:])
        ),
    )
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert "malformed_evidence_span" in outcome.reason_codes


def test_12_span_list_must_be_a_tuple(closed_episode):
    a = closed_episode.contract_assessment
    ep = replace(
        closed_episode, contract_assessment=replace(a, evidence_spans=list(a.evidence_spans))
    )
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert "malformed_evidence_span" in outcome.reason_codes


# --- 14-15. ids exclude prose, time, environment, paths --------------------------------


def _reworded(value):
    """Every ``explanation`` in a record tree replaced by other prose."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _reworded(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if "explanation" in changes:
            changes["explanation"] = "Entirely different prose, 日本語 included."
        return replace(value, **changes)
    if isinstance(value, tuple):
        return tuple(_reworded(v) for v in value)
    return value


def test_14_record_explanations_do_not_enter_any_id(any_sealed_episode):
    reworded = _reworded(any_sealed_episode)
    assert reworded != any_sealed_episode
    a, b = sealed(any_sealed_episode), sealed(reworded)
    assert a.trace_id == b.trace_id == ind.trace_id(reworded)
    assert a.input_digest == b.input_digest


def test_14_budget_wallclock_does_not_enter_any_id(closed_episode):
    budget = replace(closed_episode.compute_budget_decision, max_wallclock_ms=60_000)
    assert sealed(replace(closed_episode, compute_budget_decision=budget)).trace_id == (
        sealed(closed_episode).trace_id
    )


def test_14_ids_do_not_depend_on_time_env_cwd_or_process(closed_episode, monkeypatch, tmp_path):
    before = sealed(closed_episode)
    monkeypatch.setenv("SEALED_TRACE_NOISE", "1")
    monkeypatch.setenv("HOSTNAME", "elsewhere")
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    monkeypatch.chdir(tmp_path)
    import time

    monkeypatch.setattr(time, "time", lambda: 4_102_444_800.0)
    after = sealed(closed_episode)
    assert after == before
    assert after.trace_id == ind.trace_id(closed_episode)


def test_14_trace_id_is_the_section_12_2_payload(closed_episode):
    outcome = sealed(closed_episode)
    payload = ind.trace_payload(closed_episode)
    # adr-0230 (the default): ADR §12.2 literally, no binding ids; the layout is in no payload.
    assert set(payload) == {"trace_id", *ind.SEALED_FIELDS} - {
        "explanation",
        "identity_layout",
        "candidate_attempt_binding_ids",
    }
    assert outcome.trace_id == ind.sha(payload)
    assert (
        outcome.upstream_identity_chain == outcome.trace_records == tuple(ind.chain(closed_episode))
    )
    assert outcome.created_by_policy == "sealed_practice_trace.v1"
    # The process id appears nowhere as a token of its own (hex ids may contain its digits).
    pid = re.escape(str(os.getpid()))
    assert re.search(rf"(?<![0-9a-f]){pid}(?![0-9a-f])", ind.canonical(payload)) is None


def test_15_explanation_argument_does_not_affect_ids(closed_episode):
    a = sealed(closed_episode, explanation="first wording")
    b = sealed(closed_episode, explanation="second wording")
    c = sealed(closed_episode)
    assert a.explanation == "first wording"
    assert b.explanation == "second wording"
    assert a.trace_id == b.trace_id == c.trace_id == ind.trace_id(closed_episode)
    built = build_practice_trace_input(closed_episode)
    d = seal_practice_trace(built, closed_episode, explanation="third")
    assert d.trace_id == a.trace_id


def test_15_refusal_explanation_is_not_in_its_id(closed_episode):
    outcome = refused(replace(closed_episode, problem_frame=None))
    assert outcome.explanation
    assert outcome.trace_refusal_id == ind.refusal_id(
        outcome.input_digest, outcome.practice_disposition.value, outcome.reason_codes
    )
    assert outcome.trace_refusal_id == ind.refusal_id_of_outcome(outcome)


def test_15_non_string_explanation_refuses(closed_episode):
    outcome = refused(closed_episode, explanation=5)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert outcome.reason_codes == ("malformed_explanation",)


# --- 16. forbidden fields -----------------------------------------------------------------


@pytest.mark.parametrize("cls", [SealedPracticeTrace, PracticeTraceRefusal])
def test_16_no_forbidden_field_on_either_outcome_type(cls):
    names = {f.name for f in dataclasses.fields(cls)}
    assert names.isdisjoint(ind.FORBIDDEN_OUTPUT_FIELDS)
    assert not set(dir(cls)) & set(ind.FORBIDDEN_OUTPUT_FIELDS)
    assert "__dict__" not in dir(cls)  # slotted: no field can be attached later


def test_16_outcome_fields_are_exactly_the_adr_lists():
    assert [f.name for f in dataclasses.fields(SealedPracticeTrace)] == list(ind.SEALED_FIELDS)
    assert [f.name for f in dataclasses.fields(PracticeTraceRefusal)] == list(ind.REFUSAL_FIELDS)
    assert [f.name for f in dataclasses.fields(PracticeTraceInput)] == [
        "input_digest",
        "trace_policy_version",
        "problem_frame_digest",
        "original_contract_assessment_id",
        "residual_ids",
        "search_gate_decision_id",
        "compute_budget_id",
        "geometric_search_run_id",
        "candidate_attempt_ids",
        "replay_result_ids",
        "replay_refusal_ids",
        "schema_versions",
        "policy_versions",
        "candidate_attempt_binding_ids",
    ]


@pytest.mark.parametrize("cls", [SealedPracticeTrace, PracticeTraceRefusal, PracticeTraceInput])
def test_16_outcome_types_are_frozen_and_slotted(cls):
    params = cls.__dataclass_params__
    assert params.frozen
    assert hasattr(cls, "__slots__")


# --- type table (ADR §8) ------------------------------------------------------------------


def _refusal_kwargs(disposition):
    return dict(
        trace_refusal_id="0" * 64,
        trace_policy_version=ind.POLICY,
        input_digest=None,
        practice_disposition=disposition,
        reason_codes=(),
        explanation="",
    )


@pytest.mark.parametrize("value", ind.REFUSAL_DISPOSITIONS)
def test_type_table_sealed_trace_rejects_refusal_dispositions(closed_episode, value):
    outcome = sealed(closed_episode)
    fields = {f.name: getattr(outcome, f.name) for f in dataclasses.fields(outcome)}
    with pytest.raises(ValueError, match="not a sealed disposition"):
        SealedPracticeTrace(**{**fields, "practice_disposition": PracticeDisposition(value)})


@pytest.mark.parametrize("value", ind.SEALED_DISPOSITIONS)
def test_type_table_refusal_rejects_sealed_dispositions(value):
    with pytest.raises(ValueError, match="not a refusal disposition"):
        PracticeTraceRefusal(**_refusal_kwargs(PracticeDisposition(value)))


@pytest.mark.parametrize("value", [None, "sealed", "trace_bogus", 3])
def test_type_table_rejects_non_dispositions(value):
    with pytest.raises(ValueError, match="not a refusal disposition"):
        PracticeTraceRefusal(**_refusal_kwargs(value))


def test_type_table_each_outcome_admits_its_own(closed_episode):
    outcome = sealed(closed_episode)
    fields = {f.name: getattr(outcome, f.name) for f in dataclasses.fields(outcome)}
    for value in ind.SEALED_DISPOSITIONS:
        SealedPracticeTrace(**{**fields, "practice_disposition": PracticeDisposition(value)})
    for value in ind.REFUSAL_DISPOSITIONS:
        PracticeTraceRefusal(**_refusal_kwargs(PracticeDisposition(value)))


# --- refusal precedence (sealing-policy §6) and input digest ----------------------------


def test_precedence_policy_beats_invalid_and_mismatch(closed_episode):
    gate = replace(closed_episode.search_gate_decision, policy_version="search_gate.v2")
    frame = replace(closed_episode.problem_frame, frame_digest="not-hex")
    ep = replace(closed_episode, search_gate_decision=gate, problem_frame=frame)
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_POLICY_UNSUPPORTED
    assert "unsupported_record_version" in outcome.reason_codes
    assert "malformed_problem_frame" in outcome.reason_codes


def test_precedence_invalid_beats_mismatch_and_incomplete(closed_episode):
    gate = replace(closed_episode.search_gate_decision, decision_id=OTHER)
    budget = replace(closed_episode.compute_budget_decision, budget_id="ABC")
    ep = replace(
        closed_episode,
        search_gate_decision=gate,
        compute_budget_decision=budget,
        problem_frame=None,
    )
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert {
        "malformed_compute_budget_decision",
        "gate_decision_id_mismatch",
        "missing_problem_frame",
    } <= set(outcome.reason_codes)
    assert outcome.input_digest is None


def test_precedence_mismatch_beats_incomplete(closed_episode):
    gate = replace(closed_episode.search_gate_decision, decision_id=OTHER)
    ep = replace(
        closed_episode, search_gate_decision=gate, replay_results=closed_episode.replay_results[:1]
    )
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_IDENTITY_MISMATCH
    assert {"gate_decision_id_mismatch", "missing_replay_record"} <= set(outcome.reason_codes)


def test_precedence_reason_codes_are_unique_and_documented(closed_episode):
    forged = OTHER
    res = tuple(replace(r, residual_id=forged) for r in closed_episode.residuals)
    outcome = refused(replace(closed_episode, residuals=res))
    assert len(outcome.reason_codes) == len(set(outcome.reason_codes))
    assert all(code in REASON_CODES for code in outcome.reason_codes)
    families = [REASON_CODES[c][0] for c in outcome.reason_codes]
    order = [
        "trace_policy_unsupported",
        "trace_invalid_input",
        "trace_identity_mismatch",
        "trace_upstream_incomplete",
    ]
    assert outcome.practice_disposition.value == min(families, key=order.index)


def test_refusal_input_digest_is_recomputed_when_structure_is_valid(closed_episode):
    ep = replace(
        closed_episode,
        search_gate_decision=replace(closed_episode.search_gate_decision, decision_id=OTHER),
    )
    outcome = refused(ep)
    assert outcome.input_digest == ind.input_digest(ep)
    assert outcome.trace_refusal_id == ind.refusal_id(
        ind.input_digest(ep), "trace_identity_mismatch", outcome.reason_codes
    )


@pytest.mark.parametrize(
    ("record", "field", "value"),
    [
        ("problem_frame", "frame_digest", "F" * 64),
        ("contract_assessment", "assessment_id", "assessment-a"),
        ("search_gate_decision", "decision_id", ""),
        ("compute_budget_decision", "budget_id", None),
        ("geometric_search_run", "run_id", 7),
    ],
)
def test_refusal_input_digest_is_null_when_an_id_is_malformed(closed_episode, record, field, value):
    ep = replace(
        closed_episode, **{record: replace(getattr(closed_episode, record), **{field: value})}
    )
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert outcome.input_digest is None
    assert outcome.trace_refusal_id == ind.refusal_id(
        None, "trace_invalid_input", outcome.reason_codes
    )


def test_refusal_input_digest_is_not_copied_from_the_caller(closed_episode):
    built = build_practice_trace_input(closed_episode)
    claim = replace(built, input_digest=OTHER)
    outcome = seal_practice_trace(claim, closed_episode)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == ("trace_input_mismatch",)
    assert outcome.input_digest == ind.input_digest(closed_episode) != OTHER


def test_refusal_policy_version_is_the_sealers_own(closed_episode):
    outcome = refused(replace(closed_episode, trace_policy_version="sealed_practice_trace.v2"))
    assert outcome.practice_disposition is PracticeDisposition.TRACE_POLICY_UNSUPPORTED
    assert "unsupported_trace_policy_version" in outcome.reason_codes
    assert outcome.trace_policy_version == "sealed_practice_trace.v1"
    assert outcome.trace_refusal_id == ind.refusal_id_of_outcome(outcome)


# --- claimed trace input (ADR §6.1 item 13) ----------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("residual_ids", ()),
        ("candidate_attempt_ids", ()),
        ("replay_result_ids", ()),
        ("geometric_search_run_id", OTHER),
        ("schema_versions", (("problem_frame_identity", "problem_frame_identity.v1"),)),
        ("policy_versions", ()),
    ],
)
def test_claimed_trace_input_that_differs_refuses(closed_episode, field, value):
    built = build_practice_trace_input(closed_episode)
    claim = replace(built, **{field: value})
    outcome = seal_practice_trace(claim, closed_episode)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_IDENTITY_MISMATCH
    assert "trace_input_mismatch" in outcome.reason_codes


def test_claimed_trace_input_self_consistent_but_foreign_refuses(closed_episode):
    other = build_episode("sealed_all_candidates_refused")
    claim = build_practice_trace_input(other)
    outcome = seal_practice_trace(claim, closed_episode)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == ("trace_input_mismatch",)


@pytest.mark.parametrize("claim", [None, 0, "input", SimpleNamespace(input_digest="x")])
def test_malformed_claimed_trace_input_is_invalid(closed_episode, claim):
    outcome = seal_practice_trace(claim, closed_episode)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert "malformed_trace_input" in outcome.reason_codes


def test_build_practice_trace_input_refuses_like_seal(closed_episode):
    ep = replace(closed_episode, problem_frame=None)
    assert build_practice_trace_input(ep) == seal(ep)


# --- versions (ADR §6.1 items 10-11) ------------------------------------------------------


@pytest.mark.parametrize(
    ("mutate", "disposition", "code"),
    [
        (lambda s: s[1:], "trace_invalid_input", "missing_version_entry"),
        (lambda s: (*s, s[-1]), "trace_invalid_input", "duplicate_version_entry"),
        (lambda s: tuple(reversed(s)), "trace_invalid_input", "unordered_version_entries"),
        # sealing-policy §9: an unknown name carries a value outside the manifest
        (
            lambda s: (*s, ("zz_extra", "zz.v1")),
            "trace_policy_unsupported",
            "unexpected_version_entry",
        ),
        (
            lambda s: (*s, ("zz_extra", "zz.v1")),
            "trace_policy_unsupported",
            "unsupported_version_entry",
        ),
        (lambda s: list(s), "trace_invalid_input", "malformed_version_list"),
        (lambda s: ((s[0][0], ""), *s[1:]), "trace_invalid_input", "malformed_version_list"),
        (
            lambda s: ((s[0][0], s[0][1] + "x"), *s[1:]),
            "trace_policy_unsupported",
            "unsupported_version_entry",
        ),
    ],
    ids=[
        "missing",
        "duplicate",
        "reordered",
        "extra",
        "extra-value",
        "list",
        "empty",
        "unsupported",
    ],
)
@pytest.mark.parametrize("attr", ["schema_versions", "policy_versions"])
def test_version_lists(closed_episode, attr, mutate, disposition, code):
    ep = replace(closed_episode, **{attr: mutate(getattr(closed_episode, attr))})
    outcome = refused(ep)
    assert outcome.practice_disposition.value == disposition
    assert code in outcome.reason_codes


@pytest.mark.parametrize("attr", ["schema_versions", "policy_versions"])
@pytest.mark.parametrize("position", ["before", "after"])
def test_every_entry_is_judged_even_next_to_a_malformed_one(closed_episode, attr, position):
    entries = list(getattr(closed_episode, attr))
    unsupported = (entries[-1][0], entries[-1][1] + "x")
    malformed = (entries[0][0], "")
    mutated = (
        (malformed, *entries[1:-1], unsupported)
        if position == "after"
        else (unsupported, *entries[1:-1], malformed)
    )
    outcome = refused(replace(closed_episode, **{attr: mutated}))
    assert outcome.practice_disposition.value == "trace_policy_unsupported"
    assert "malformed_version_list" in outcome.reason_codes
    assert "unsupported_version_entry" in outcome.reason_codes


def test_an_unused_entry_with_a_value_outside_the_manifest_is_unsupported():
    ep = build_episode("sealed_exhausted_no_candidate")
    policies = (*ep.policy_versions, ("contract_proof_replay", "contract_proof_replay.v2"))
    outcome = refused(replace(ep, policy_versions=tuple(sorted(policies))))
    assert outcome.practice_disposition.value == "trace_policy_unsupported"
    assert set(outcome.reason_codes) == {"unexpected_version_entry", "unsupported_version_entry"}


def test_replay_policy_entry_only_when_replay_records_exist():
    ep = build_episode("sealed_exhausted_no_candidate")
    _, with_replay = version_lists(run=True, replay=True)
    outcome = refused(replace(ep, policy_versions=with_replay))
    assert outcome.reason_codes == ("unexpected_version_entry",)


# --- host records, structural typing, no mutation ---------------------------------------


def _host_types():
    """Frozen dataclasses of a host project, same names and fields as the reference types."""
    import sealed_trace.builder as builder_module

    types = {}
    for name in (
        "SourceSpan",
        "ContractResidual",
        "SearchGateDecision",
        "ComputeBudgetDecision",
        "CandidateAttempt",
        "GeometricSearchRun",
        "ReplayAdapterResult",
        "ReplayAdapterRefusal",
        "BudgetCharge",
        "BudgetConsumed",
        "ProofReplayRef",
        "SearchRunRefusal",
        "ContractAssessmentProjection",
        "ProblemFrameProjection",
    ):
        ref = getattr(builder_module, name)
        fields = [(f.name, object) for f in dataclasses.fields(ref)]
        types[name] = dataclasses.make_dataclass("Host" + name, fields, frozen=True)
    return types


def test_host_dataclasses_seal_exactly_like_reference_types(any_sealed_episode):
    host = convert_records(any_sealed_episode, _host_types())
    assert type(host.residuals[0]).__name__ == "HostContractResidual"
    assert sealed(host) == sealed(any_sealed_episode)


def test_enum_fields_may_be_string_values(closed_episode):
    def strip(value):
        if isinstance(value, PracticeDisposition):
            return value
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return replace(
                value, **{f.name: strip(getattr(value, f.name)) for f in dataclasses.fields(value)}
            )
        if isinstance(value, tuple):
            return tuple(strip(v) for v in value)
        if isinstance(value, str) and type(value) is not str:
            return str.__str__(value)
        return value

    plain = strip(closed_episode)
    assert type(plain.search_gate_decision.status) is str
    assert sealed(plain).trace_id == sealed(closed_episode).trace_id


def test_mutable_host_records_are_not_mutated(closed_episode):
    def ns(value):
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return SimpleNamespace(
                **{f.name: ns(getattr(value, f.name)) for f in dataclasses.fields(value)}
            )
        if isinstance(value, tuple):
            return tuple(ns(v) for v in value)
        return value

    host = ns(closed_episode)
    before = repr(host)
    outcome = seal(host)
    assert repr(host) == before
    assert outcome == sealed(closed_episode)


def test_sealing_reads_the_frame_facts_without_changing_them(closed_episode):
    facts = {"actors": ["Maya"], "nested": {"k": [1, 2, {"z": None}]}}
    frame = replace(closed_episode.problem_frame, facts=facts)
    ep = refresh_ids(replace(closed_episode, problem_frame=frame))
    snapshot = ind.canonical(facts)
    outcome = sealed(ep)
    assert ind.canonical(facts) == snapshot
    assert outcome.problem_frame_digest == ind.frame_digest(ep.problem_frame)


# --- further span, shape and claim rules ------------------------------------------------

ZZZ = SourceSpan("zzz", 0, 3, 0)  # well formed, not exact in the problem text


@pytest.mark.parametrize(
    "path",
    [("residuals", 0), ("attempt", 0), ("replay_results", 0)],
    ids=["residual", "attempt", "replay-result"],
)
def test_inexact_span_in_any_copied_record_is_invalid(closed_episode, path):
    ep = closed_episode
    if path[0] == "residuals":
        ep = replace(
            ep, residuals=(replace(ep.residuals[0], evidence_spans=(ZZZ,)), *ep.residuals[1:])
        )
    elif path[0] == "attempt":
        run = ep.geometric_search_run
        attempts = (
            replace(run.candidate_attempts[0], evidence_spans=(ZZZ,)),
            *run.candidate_attempts[1:],
        )
        ep = replace(ep, geometric_search_run=replace(run, candidate_attempts=attempts))
    else:
        ep = replace(
            ep,
            replay_results=(
                replace(ep.replay_results[0], evidence_spans=(ZZZ,)),
                *ep.replay_results[1:],
            ),
        )
    ep = refresh_ids(ep)
    assert ind.id_mismatches(ep) == []
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert "inexact_evidence_span" in outcome.reason_codes


def test_gate_and_budget_spans_need_not_be_exact(closed_episode):
    gate = replace(closed_episode.search_gate_decision, evidence_spans=(ZZZ,))
    budget = replace(closed_episode.compute_budget_decision, evidence_spans=(ZZZ,))
    ep = refresh_ids(
        replace(closed_episode, search_gate_decision=gate, compute_budget_decision=budget)
    )
    outcome = sealed(ep)
    assert ZZZ not in outcome.evidence_spans
    assert_matches_independent(outcome, ep)


def test_empty_residual_context_seals_as_original_refusal(refusal_episode):
    from sealed_trace.upstream import ComputeBudgetStatus, SearchGateStatus

    r = refusal_episode
    ep = refresh_ids(
        replace(
            r,
            contract_assessment=replace(
                r.contract_assessment, missing_bindings=(), unresolved_hazards=()
            ),
            residuals=(),
            search_gate_decision=replace(
                r.search_gate_decision,
                residual_ids=(),
                status=SearchGateStatus.UNASSESSABLE,
                reason_code="unassessable_empty_context",
                evidence_spans=(),
                candidate_organ=None,
            ),
            compute_budget_decision=replace(
                r.compute_budget_decision,
                evidence_spans=(),
                status=ComputeBudgetStatus.BUDGET_UNASSESSABLE,
            ),
        )
    )
    assert ind.id_mismatches(ep) == []
    assert ep.search_gate_decision.input_digest == ind.gate_input_digest(())
    outcome = sealed(ep)
    assert outcome.practice_disposition is PracticeDisposition.SEALED_ORIGINAL_REFUSAL
    assert outcome.residual_ids == ()
    assert_matches_independent(outcome, ep)


def test_both_run_kinds_present_is_invalid(closed_episode, refusal_episode):
    ep = replace(closed_episode, search_run_refusal=refusal_episode.search_run_refusal)
    outcome = refused(ep)
    assert outcome.practice_disposition is PracticeDisposition.TRACE_INVALID_INPUT
    assert "both_run_kinds_present" in outcome.reason_codes


def test_claimed_input_cannot_lie_through_a_str_subclass(closed_episode):
    class Lying(str):
        def __eq__(self, other):
            return True

        def __ne__(self, other):
            return False

        __hash__ = str.__hash__

    built = build_practice_trace_input(closed_episode)
    claim = replace(built, input_digest=Lying(OTHER))
    outcome = seal_practice_trace(claim, closed_episode)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == ("trace_input_mismatch",)


def test_claimed_input_may_be_a_host_object(closed_episode):
    built = build_practice_trace_input(closed_episode)
    host = SimpleNamespace(**{f.name: getattr(built, f.name) for f in dataclasses.fields(built)})
    assert seal_practice_trace(host, closed_episode) == seal(closed_episode)


def test_trace_records_and_chain_carry_every_upstream_id(mixed_episode):
    outcome = sealed(mixed_episode)
    ep = mixed_episode
    run = ep.geometric_search_run
    expected = (
        ep.problem_frame.frame_digest,
        ep.contract_assessment.assessment_id,
        *(r.residual_id for r in ep.residuals),
        ep.search_gate_decision.decision_id,
        ep.compute_budget_decision.budget_id,
        run.run_id,
        *(a.attempt_id for a in run.candidate_attempts),
        *(x.replay_result_id for x in ep.replay_results),
        *(x.replay_refusal_id for x in ep.replay_refusals),
    )
    assert outcome.upstream_identity_chain == expected
    assert outcome.trace_records == expected
    for value in expected:  # every id in the chain reproduces independently
        assert len(value) == 64
    assert ind.id_mismatches(ep) == []


def test_non_ascii_text_is_hashed_raw_at_trace_level():
    text = "Zoë 🎉 had 12 marbles. She gained 5 more marbles at recess. How many now?"
    spec = EpisodeSpec(
        problem_text=text,
        facts={"actors": ["Zoë"], "note": "数"},
        assessment_spans=("gained", "Zoë 🎉"),
        attempt_spans=("5 more marbles",),
    )
    ep = build_episode(spec=spec)
    outcome = sealed(ep)
    assert outcome.evidence_spans[1].text == "Zoë 🎉"
    assert outcome.problem_frame_digest == ind.frame_digest(ep.problem_frame)
    assert_matches_independent(outcome, ep)
    assert "\\u" not in ind.canonical(ind.trace_payload(ep))
