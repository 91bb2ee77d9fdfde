"""Bound-episode fixtures (ADR-0233; sealing-policy §10) for the kernel's tests: lawful bound
episodes for every disposition they can have, and one broken bound episode per §10 rule, in
the host's record types when configured."""

from __future__ import annotations

import pytest

NO_CACHE = ("-p", "no:cacheprovider")

TESTS = """
from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace


def test_each_bound_disposition_seals(bound_practice_episode, sealed_trace_episodes):
    outcome = sealed_trace_episodes.seal(bound_practice_episode.episode, layout="adr-0233")
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.practice_disposition.value == bound_practice_episode.practice_disposition
    assert outcome.candidate_attempt_binding_ids


def test_each_bound_rule_refuses(refused_bound_practice_episode, sealed_trace_episodes):
    case = refused_bound_practice_episode
    outcome = sealed_trace_episodes.seal(case.episode, layout="adr-0233")
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == case.practice_disposition
    assert case.reason_code in outcome.reason_codes
"""

HOST_RECORDS = """
from dataclasses import dataclass
from enum import Enum


class RunAttemptMembership(str, Enum):
    STRUCTURALLY_BOUND = "structurally_bound"


@dataclass(frozen=True)
class CandidateAttemptRunBinding:
    binding_id: str
    binding_policy_version: str
    input_digest: str
    original_run_id: str
    operator_result_id: str
    candidate_attempt_id: str
    attempt_index: int
    candidate_digest: str
    candidate_reconstruction_digest: str
    candidate_attempt_ref: str
    budget_charge: object
    depth: int
    step_index: int
    run_attempt_membership: RunAttemptMembership
    evidence_spans: tuple
    reason_codes: tuple
    explanation: str = ""
"""


def test_bound_fixtures_in_reference_types(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bound=TESTS)
    result = pytester.runpytest("-p", "sealed_trace", *NO_CACHE)
    result.assert_outcomes(passed=4 + 12)


def test_bound_fixtures_in_host_types(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bound=TESTS, host_records=HOST_RECORDS)
    pytester.syspathinsert()
    pytester.makeini("[pytest]\nsealed_trace_record_types = host_records\n")
    pytester.makepyfile(
        test_host="""
from host_records import CandidateAttemptRunBinding


def test_the_bindings_are_the_hosts(bound_practice_episode):
    bindings = bound_practice_episode.episode.candidate_attempt_bindings
    assert bindings and all(type(b) is CandidateAttemptRunBinding for b in bindings)
"""
    )
    result = pytester.runpytest("-p", "sealed_trace", *NO_CACHE)
    result.assert_outcomes(passed=4 + 12 + 4)
