"""The identity layout in the plugin (sealing-policy §10): chosen by ini or option, used by
the episode factory's ``seal``; bound episodes for the kernel's ADR-0233 tests."""

from __future__ import annotations

import pytest

NO_CACHE = ("-p", "no:cacheprovider")

TESTS = """
from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace


def test_the_factory_seals_under_the_chosen_layout(sealed_trace_episodes, request):
    expected = request.config.getoption("expected")
    assert sealed_trace_episodes.layout == expected
    outcome = sealed_trace_episodes.seal(sealed_trace_episodes.episode())
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.identity_layout.value == expected


def test_a_bound_episode_seals_only_under_adr_0233(sealed_trace_episodes):
    bound = sealed_trace_episodes.episode("sealed_all_candidates_refused", bound=True)
    sealed = sealed_trace_episodes.seal(bound, layout="adr-0233")
    assert isinstance(sealed, SealedPracticeTrace)
    assert len(sealed.candidate_attempt_binding_ids) == len(sealed.candidate_attempt_ids) > 0
    refused = sealed_trace_episodes.seal(bound, layout="adr-0230")
    assert isinstance(refused, PracticeTraceRefusal)
    assert "bound_episode_under_adr_0230" in refused.reason_codes
    records = sealed_trace_episodes.records("sealed_all_candidates_refused", bound=True)
    assert len(records.candidate_operator_results) == len(records.candidate_attempt_bindings) > 0
"""

CONFTEST = """
def pytest_addoption(parser):
    parser.addoption("--expected", default="adr-0230")
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_layout=TESTS)
    pytester.makeconftest(CONFTEST)
    return pytester


def test_the_default_layout_is_adr_0230(project: pytest.Pytester) -> None:
    project.runpytest("-p", "sealed_trace", *NO_CACHE).assert_outcomes(passed=2)


def test_the_ini_chooses_adr_0233(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nsealed_trace_identity_layout = adr-0233\n")
    result = project.runpytest("-p", "sealed_trace", *NO_CACHE, "--expected", "adr-0233")
    result.assert_outcomes(passed=2)


def test_the_option_wins_over_the_ini(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nsealed_trace_identity_layout = adr-0230\n")
    result = project.runpytest(
        "-p",
        "sealed_trace",
        *NO_CACHE,
        "--sealed-trace-identity-layout",
        "adr-0233",
        "--expected",
        "adr-0233",
    )
    result.assert_outcomes(passed=2)


def test_a_bad_layout_in_the_ini_names_the_key_and_its_values(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nsealed_trace_identity_layout = adr-0231\n")
    result = project.runpytest("-p", "sealed_trace", *NO_CACHE)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: ini sealed_trace_identity_layout: 'adr-0231' is not one of adr-0230, adr-0233"]
    )
