"""Version manifests (sealing-policy §4, §8): the exact supported lists take a one-pass check;
every other spelling of the same lists takes the entry-by-entry check. Both decide alike."""

from __future__ import annotations

import dataclasses as dc

import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import build_episode, refresh_ids


class StrSub(str):
    """A str subclass: read as its text."""


class TupleSub(tuple):  # type: ignore[type-arg]
    """A tuple subclass: its items are read as an exact tuple."""


def _respelled(pairs):
    """The same entries, spelled so that the one-pass check does not take them."""
    return TupleSub((StrSub(name), StrSub(version)) for name, version in pairs)


DISPOSITIONS = [
    "sealed_original_refusal",
    "sealed_exhausted_no_candidate",
    "sealed_candidate_replay_closed",
]


@pytest.mark.parametrize("disposition", DISPOSITIONS)
def test_respelled_supported_lists_seal_to_the_same_trace(disposition):
    episode = build_episode(disposition)
    exact = seal(episode)
    respelled = seal(
        dc.replace(
            episode,
            schema_versions=_respelled(episode.schema_versions),
            policy_versions=_respelled(episode.policy_versions),
        )
    )
    assert isinstance(exact, SealedPracticeTrace)
    assert respelled == exact


def _carrying(episode, version):
    """The episode with its gate carrying ``version`` as its policy version, ids recomputed."""
    gate = dc.replace(episode.search_gate_decision, policy_version=version)
    return refresh_ids(dc.replace(episode, search_gate_decision=gate))


@pytest.mark.parametrize(
    "version",
    ["compute_budget.v1", "geometric_search_run.v1", "search_gate.v2", "sealed_practice_trace.v1"],
)
@pytest.mark.parametrize("spelling", ["exact", "respelled"])
def test_a_record_carrying_another_entrys_version_is_reported_on_both_paths(version, spelling):
    episode = _carrying(build_episode("sealed_candidate_replay_closed"), version)
    if spelling == "respelled":
        episode = dc.replace(
            episode,
            schema_versions=_respelled(episode.schema_versions),
            policy_versions=_respelled(episode.policy_versions),
        )
    outcome = seal(episode)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_policy_unsupported"
    assert "unsupported_record_version" in outcome.reason_codes
    # A supported version of another entry is a mismatch with the manifest; any other
    # version is only unsupported.
    supported_elsewhere = version != "search_gate.v2"
    assert ("version_entry_mismatch" in outcome.reason_codes) is supported_elsewhere


def test_both_paths_give_byte_identical_refusals():
    episode = _carrying(build_episode("sealed_candidate_replay_closed"), "compute_budget.v1")
    respelled = dc.replace(
        episode,
        schema_versions=_respelled(episode.schema_versions),
        policy_versions=_respelled(episode.policy_versions),
    )
    assert seal(episode) == seal(respelled)


@pytest.mark.parametrize(
    "change",
    [
        lambda pairs: pairs[:-1],
        lambda pairs: (*pairs, ("extra", "extra.v1")),
        lambda pairs: tuple(reversed(pairs)),
        lambda pairs: (*pairs[:-1], (pairs[-1][0], "search_gate.v0")),
        lambda pairs: (*pairs, pairs[-1]),
        lambda pairs: list(pairs),
        lambda pairs: (*pairs[:-1], [*pairs[-1]]),
        lambda pairs: (*pairs[:-1], (pairs[-1][0], 1)),
    ],
    ids=["missing", "extra", "unordered", "unsupported", "duplicate", "list", "pair-list", "int"],
)
def test_lists_other_than_the_supported_one_are_refused(change):
    episode = build_episode("sealed_candidate_replay_closed")
    outcome = seal(dc.replace(episode, policy_versions=change(episode.policy_versions)))
    assert isinstance(outcome, PracticeTraceRefusal)


@pytest.mark.parametrize(
    ("version", "codes"),
    [
        ("search_gate.v1", ("unsupported_trace_policy_version", "version_entry_mismatch")),
        ("sealed_practice_trace.v2", ("unsupported_trace_policy_version",)),
    ],
)
def test_an_episode_carrying_another_entrys_version_as_its_trace_policy(version, codes):
    episode = build_episode("sealed_original_refusal")
    outcome = seal(dc.replace(episode, trace_policy_version=version))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == codes
