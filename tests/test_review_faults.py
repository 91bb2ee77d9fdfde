"""Faults an adversarial review of the one-pass core found, each kept as the right value.

Each test names the rule of sealing-policy.md it holds; each failed before its fix.
"""

from __future__ import annotations

import abc
import collections.abc
import dataclasses as dc
import enum
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal, seal_practice_trace
from sealed_trace.builder import build_episode, refresh_ids
from sealed_trace.episode_json import DocumentError, seal_document
from sealed_trace.trace import build_practice_trace_input

PLAIN = build_episode("sealed_candidate_replay_closed", attempts=2)
BOUND = build_episode("sealed_candidate_replay_closed", attempts=2, bound=True)


def _codes(outcome: object) -> tuple[str, ...]:
    assert isinstance(outcome, PracticeTraceRefusal), outcome
    return outcome.reason_codes


def _family(outcome: object) -> str:
    assert isinstance(outcome, PracticeTraceRefusal), outcome
    return outcome.practice_disposition.value


def _bound_with_attempt(index: int, **changes: Any) -> Any:
    results = list(BOUND.candidate_operator_results)
    attempt = dc.replace(results[index].candidate_attempt, **changes)
    results[index] = dc.replace(results[index], candidate_attempt=attempt)
    return refresh_ids(dc.replace(BOUND, candidate_operator_results=tuple(results)))


def test_the_bound_fixture_seals() -> None:
    assert isinstance(seal(BOUND, layout="adr-0233"), SealedPracticeTrace)


@pytest.mark.parametrize("parent", ["ab" * 32, "later", "run"])
def test_a_bound_attempts_parent_must_be_an_earlier_bound_attempt(parent: str) -> None:
    """§3/§8 via §10: parent_attempt_id is null or an earlier attempt's id."""
    results = BOUND.candidate_operator_results
    value = {
        "later": results[1].candidate_attempt.attempt_id,
        "run": BOUND.geometric_search_run.run_id,
    }.get(parent, parent)
    outcome = seal(_bound_with_attempt(0, parent_attempt_id=value), layout="adr-0233")
    assert "orphan_parent_attempt" in _codes(outcome)
    assert _family(outcome) == "trace_identity_mismatch"


@pytest.mark.parametrize("absent", [None, "no attribute"])
def test_operator_results_without_bindings_are_a_count_mismatch(absent: object) -> None:
    """§10: unequal counts of results and bindings are a mismatch, the bindings absent too."""
    if absent is None:
        episode: Any = dc.replace(BOUND, candidate_attempt_bindings=None)
    else:
        fields = {f.name: getattr(BOUND, f.name) for f in dc.fields(BOUND)}
        del fields["candidate_attempt_bindings"]
        episode = type("HostEpisode", (), fields)()
    outcome = seal(episode, layout="adr-0233")
    assert "bound_record_count_mismatch" in _codes(outcome)
    assert "sealer_internal_fault" not in _codes(outcome)


@pytest.mark.parametrize(
    "document", [b"[" * 100_000, b"[" * 100_000 + b"]", b'{"a":' + b"[" * 100_000]
)
def test_a_deep_document_whose_brackets_do_not_pair_never_reaches_the_decoder(
    document: bytes,
) -> None:
    """§11: no document can exhaust the stack; not JSON, it is a usage error (episode
    format), told from its brackets alone."""
    with pytest.raises(DocumentError, match="brackets do not pair"):
        seal_document(document)


def test_shallow_text_that_is_not_json_stays_a_usage_error() -> None:
    with pytest.raises(DocumentError):
        seal_document(b"[[}")


class _UnhashableMeta(type):
    __hash__ = None  # type: ignore[assignment]

    def __eq__(cls, other: object) -> bool:
        return True


class _HostFacts(Mapping[str, object], metaclass=type("M", (_UnhashableMeta, type(Mapping)), {})):
    def __init__(self, data: dict[str, object]) -> None:
        self.data = data

    def __getitem__(self, key: str) -> object:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


def test_facts_of_an_unhashable_host_mapping_class_read_like_any_mapping() -> None:
    """§11: any host class can be read; records tracked by identity, never by hash."""
    facts = dict(PLAIN.problem_frame.facts)
    frame = dc.replace(PLAIN.problem_frame, facts=_HostFacts(facts))
    assert seal(dc.replace(PLAIN, problem_frame=frame)) == seal(PLAIN)


def test_reading_facts_writes_no_abc_cache() -> None:
    """§11: no process-wide state is written (the Mapping ABC's caches included)."""

    class Fresh:
        pass

    def caches() -> tuple[int, int]:
        _, cache, negative, _ = abc._get_dump(collections.abc.Mapping)  # type: ignore[attr-defined]
        return len(cache), len(negative)

    before = caches()
    frame = dc.replace(PLAIN.problem_frame, facts=Fresh())
    outcome = seal(dc.replace(PLAIN, problem_frame=frame))
    assert "malformed_problem_frame" in _codes(outcome)
    assert caches() == before


def test_a_claims_binding_ids_are_compared_under_adr_0230() -> None:
    """§8: a claimed trace input is compared field by field, binding ids included."""
    built = build_practice_trace_input(PLAIN)
    assert not isinstance(built, PracticeTraceRefusal)
    claim = dc.replace(built, candidate_attempt_binding_ids=("ab" * 32,))
    assert "trace_input_mismatch" in _codes(seal_practice_trace(claim, PLAIN))
    assert isinstance(seal_practice_trace(built, PLAIN), SealedPracticeTrace)


def test_a_malformed_bound_record_keeps_the_input_digest_and_adds_no_orphan() -> None:
    """§6: the refusal's input_digest is null only when a payload value fails; §8: a
    record that did not read is not judged by the checks that need it."""
    results = list(BOUND.candidate_operator_results)
    results[0] = dc.replace(results[0], explanation=5)
    outcome = seal(dc.replace(BOUND, candidate_operator_results=tuple(results)), layout="adr-0233")
    assert _codes(outcome) == ("malformed_candidate_operator_result",)
    assert outcome.input_digest is not None  # type: ignore[union-attr]


@pytest.mark.parametrize("shape", ["list", "tuple of lists"])
def test_an_unsupported_version_in_a_list_that_is_not_a_tuple_is_still_judged(shape: str) -> None:
    """§9: a version outside the manifest is unsupported wherever it sits, even in a
    malformed list."""
    versions = [
        (name, "search_gate.v2" if name == "search_gate" else value)
        for name, value in PLAIN.policy_versions
    ]
    value: Any = versions if shape == "list" else tuple(list(pair) for pair in versions)
    outcome = seal(dc.replace(PLAIN, policy_versions=value))
    assert "unsupported_version_entry" in _codes(outcome)
    assert "malformed_version_list" in _codes(outcome)
    assert _family(outcome) == "trace_policy_unsupported"


class _Plain(enum.Enum):
    DIGEST = PLAIN.problem_frame.frame_digest


def test_a_plain_enum_member_is_no_string_outside_enum_fields() -> None:
    """§6: wrong types are malformed input; only enum-valued fields take enum members."""
    frame = dc.replace(PLAIN.problem_frame, frame_digest=_Plain.DIGEST)
    assert "malformed_problem_frame" in _codes(seal(dc.replace(PLAIN, problem_frame=frame)))


def test_an_ambiguous_operator_provenance_does_not_name_the_runs_operator_set() -> None:
    """§10: the reconstruction names the run's operator set in its provenance: twice, with
    a foreign one first, is not naming it."""
    results = list(BOUND.candidate_operator_results)
    rec = results[0].candidate_reconstruction
    foreign = (("operator_set_id", "cd" * 32), *rec.operator_provenance)
    results[0] = dc.replace(
        results[0], candidate_reconstruction=dc.replace(rec, operator_provenance=foreign)
    )
    episode = refresh_ids(dc.replace(BOUND, candidate_operator_results=tuple(results)))
    assert "operator_result_mismatch" in _codes(seal(episode, layout="adr-0233"))
