"""Episode and outcome documents (episode-format.md): strict decoding, canonical encoding."""

from __future__ import annotations

import json

import independent as ind
import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import SEALED_DISPOSITION_NAMES, build_episode
from sealed_trace.episode_json import (
    MAX_DOCUMENT_DEPTH,
    DocumentError,
    encode_episode,
    encode_outcome,
    seal_document,
)


def _doc(disposition: str = "sealed_candidate_replay_closed") -> dict:
    return json.loads(encode_episode(build_episode(disposition)))


def _seal(document: object) -> object:
    return seal_document(json.dumps(document, ensure_ascii=False).encode("utf-8"))


@pytest.mark.parametrize("disposition", SEALED_DISPOSITION_NAMES)
def test_a_document_seals_like_the_episode_it_encodes(disposition):
    episode = build_episode(disposition)
    outcome = seal_document(encode_episode(episode))
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.practice_disposition.value == disposition
    assert outcome.trace_id == ind.trace_id(episode)
    assert encode_outcome(outcome) == encode_outcome(seal(episode))


def test_outcome_document_is_canonical_json_plus_newline():
    outcome = seal(build_episode())
    data = encode_outcome(outcome)
    assert data.endswith(b"\n")
    assert not data.endswith(b"\n\n")
    document = json.loads(data)
    assert data == (ind.canonical(document) + "\n").encode("utf-8")
    assert document["format"] == "sealed_trace.outcome.v1"
    assert document["outcome"] == "sealed_practice_trace"
    assert document["trace_id"] == ind.trace_id(build_episode())
    assert set(document) == {"format", "outcome", *ind.SEALED_FIELDS}


def test_refusal_outcome_document_names_its_kind():
    document = _doc()
    document["trace_policy_version"] = "sealed_practice_trace.v9"
    outcome = _seal(document)
    assert isinstance(outcome, PracticeTraceRefusal)
    encoded = json.loads(encode_outcome(outcome))
    assert encoded["outcome"] == "practice_trace_refusal"
    assert encoded["practice_disposition"] == "trace_policy_unsupported"
    assert encoded["trace_refusal_id"] == ind.refusal_id_of_outcome(outcome)


def test_claimed_trace_input_that_matches_seals():
    episode = build_episode()
    document = _doc()
    document["trace_input"] = dict(
        ind.input_payload(episode), input_digest=ind.input_digest(episode)
    )
    assert isinstance(_seal(document), SealedPracticeTrace)


def test_claimed_trace_input_that_differs_refuses_as_mismatch():
    episode = build_episode()
    document = _doc()
    claimed = dict(ind.input_payload(episode), input_digest=ind.input_digest(episode))
    claimed["replay_result_ids"] = list(reversed(claimed["replay_result_ids"]))
    document["trace_input"] = claimed
    outcome = _seal(document)
    assert outcome.practice_disposition.value == "trace_identity_mismatch"
    assert outcome.reason_codes == ("trace_input_mismatch",)


def test_claimed_trace_input_with_unknown_key_is_malformed():
    episode = build_episode()
    document = _doc()
    document["trace_input"] = dict(
        ind.input_payload(episode), input_digest=ind.input_digest(episode), selected_candidate="x"
    )
    outcome = _seal(document)
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert "malformed_trace_input" in outcome.reason_codes


@pytest.mark.parametrize(
    "key",
    [
        "problem_frame",
        "contract_assessment",
        "search_gate_decision",
        "compute_budget_decision",
        "geometric_search_run",
    ],
)
@pytest.mark.parametrize("how", ["absent", "null"])
def test_absent_or_null_top_level_record_is_missing(key, how):
    document = _doc()
    if how == "absent":
        del document[key]
    else:
        document[key] = None
    if key == "geometric_search_run":
        document["schema_versions"] = [
            p for p in document["schema_versions"] if p[0] != "geometric_search_run"
        ]
    outcome = _seal(document)
    assert outcome.practice_disposition.value == "trace_upstream_incomplete", outcome.explanation


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda d: d.update(answer=42), "malformed_episode_document"),
        (lambda d: d.update(format="sealed_trace.episode.v2"), "malformed_episode_document"),
        (lambda d: d.pop("format"), "malformed_episode_document"),
        (lambda d: d["residuals"][0].update(score=1), "malformed_residual"),
        (lambda d: d["residuals"][0].pop("residual_code"), "malformed_residual"),
        (
            lambda d: d["compute_budget_decision"].update(max_steps=True),
            "malformed_compute_budget_decision",
        ),
        (
            lambda d: d["compute_budget_decision"].update(max_steps="10"),
            "malformed_compute_budget_decision",
        ),
        (
            lambda d: d["contract_assessment"]["evidence_spans"][0].update(start=True),
            "malformed_evidence_span",
        ),
        (
            lambda d: d["contract_assessment"]["evidence_spans"][0].update(rank=1),
            "malformed_evidence_span",
        ),
        (
            lambda d: d["geometric_search_run"]["candidate_attempts"][0].update(depth=None),
            "malformed_candidate_attempt",
        ),
        (
            lambda d: d["geometric_search_run"]["budget_consumed"].update(exhausted=0),
            "malformed_geometric_search_run",
        ),
        (
            lambda d: d["replay_results"][0]["proof_replay_refs"][0].update(closed="yes"),
            "malformed_replay_result",
        ),
        (lambda d: d.update(residuals={}), "malformed_residual"),
        (lambda d: d.pop("replay_refusals"), "missing_episode_field"),
        (lambda d: d.update(schema_versions=[["a", "b", "c"]]), "malformed_version_list"),
        (lambda d: d["problem_frame"].update(problem_text="Maya\udc80"), "malformed_problem_frame"),
    ],
)
def test_invalid_documents_refuse_with_their_code(mutate, code):
    document = _doc()
    mutate(document)
    outcome = seal_document(json.dumps(document).encode("ascii"))  # \u escapes kept as written
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert code in outcome.reason_codes


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1, "a": 2}',
        b"[1.5]",
        b"[NaN]",
        b"[Infinity]",
        b"[-Infinity]",
        b"[" + b"9" * 30 + b"]",
        b"[9223372036854775808]",
        b"[" * (MAX_DOCUMENT_DEPTH + 1) + b"]" * (MAX_DOCUMENT_DEPTH + 1),
        b"[" * 100_000 + b"]" * 100_000,
        b'"just a string"',
        b"null",
        b"[]",
    ],
)
def test_json_that_is_not_an_episode_refuses_as_invalid_input(data):
    outcome = seal_document(data)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert outcome.input_digest is None
    assert outcome.trace_refusal_id == ind.refusal_id_of_outcome(outcome)


def test_a_float_in_the_frame_facts_refuses():
    document = _doc()
    document["problem_frame"]["facts"]["ratio"] = 0.25
    outcome = _seal(document)
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert "malformed_problem_frame" in outcome.reason_codes


def test_duplicate_key_inside_a_record_refuses_and_nothing_is_repaired():
    text = encode_episode(build_episode()).decode()
    text = text.replace(
        '"candidate_organ": "unary_delta_transition"',
        '"candidate_organ": "unary_delta_transition", "candidate_organ": "fraction_decrease"',
        1,
    )
    outcome = seal_document(text.encode())
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert "malformed_episode_document" in outcome.reason_codes


@pytest.mark.parametrize("data", [b"\xff\xfe", b"{", b"", b"\xef\xbb\xbf{}", b"{'a': 1}"])
def test_bytes_that_are_not_utf8_json_are_a_document_error(data):
    with pytest.raises(DocumentError):
        seal_document(data)


def test_encode_episode_refuses_what_has_no_json_form():
    episode = build_episode()
    frame = episode.problem_frame
    assert frame is not None
    from dataclasses import replace

    from sealed_trace.identity import IdentityError

    bad = replace(episode, problem_frame=replace(frame, facts={"x": 0.5}))
    with pytest.raises(IdentityError):
        encode_episode(bad)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[]", "a JSON array"),
        ('"episode"', "a JSON string"),
        ("7", "a JSON number"),
        ("true", "a JSON boolean"),
        ("null", "JSON null"),
        ("1.5", "a number the decoder refuses"),
        ("99999999999999999999999", "a number the decoder refuses"),
    ],
)
def test_a_document_that_is_not_an_object_is_named_in_plain_json_terms(text, named):
    outcome = seal_document(text.encode())
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_episode_document" in outcome.reason_codes
    assert f"the document is {named}" in outcome.explanation
    assert "_Rejected" not in outcome.explanation
