"""Issue 4, item 2: the episode fixtures, in the reference types and in a host's own types.

Each test runs a small suite under ``pytester`` (in process) that uses the fixtures the way an
upstream module's tests would, and checks the outcome and the generated test ids.
"""

from __future__ import annotations

import dataclasses
import enum

import pytest

import sealed_trace
import sealed_trace.upstream as upstream
from pytest_sealed_trace.fixtures import REFERENCE_NAMES
from sealed_trace.builder import SEALED_DISPOSITION_NAMES, TAMPERS

NO_CACHE = ("-p", "no:cacheprovider")


def host_blocks() -> dict[str, str]:
    """Source of one host class per reference name: a frozen dataclass with the reference
    record's field names, or a ``str`` enum with the reference enum's members."""
    blocks = {}
    for name in REFERENCE_NAMES:
        reference = getattr(upstream, name, None) or getattr(sealed_trace, name)
        if isinstance(reference, type) and issubclass(reference, enum.Enum):
            lines = [f"class {name}(str, Enum):", '    """Host enum."""', ""]
            lines += [f"    {m.name} = {m.value!r}" for m in reference]
        else:
            lines = [
                "@dataclass(frozen=True)",
                f"class {name}:",
                '    """Host record (same fields as the reference type)."""',
                "",
            ]
            lines += [f"    {f.name}: Any" for f in dataclasses.fields(reference)]
        blocks[name] = "\n".join(lines) + "\n"
    return blocks


HOST_HEADER = (
    "from __future__ import annotations\n\nfrom dataclasses import dataclass\n"
    "from enum import Enum\nfrom typing import Any\n\n\n"
)


def host_records_source(names: tuple[str, ...] = REFERENCE_NAMES) -> str:
    """A host module declaring the host classes ``names``."""
    blocks = host_blocks()
    return HOST_HEADER + "\n\n".join(blocks[name] for name in names)


#: Inner tests that check every record of an episode is a host record (``HOST_MODULES``).
HOST_CHECKS = """
import dataclasses

HOST_MODULES = {"hostrec"}

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace


def _records(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield value
        for f in dataclasses.fields(value):
            yield from _records(getattr(value, f.name))
    elif isinstance(value, tuple):
        for item in value:
            yield from _records(item)


def test_practice_episode_is_host_typed(practice_episode):
    seen = {type(r).__name__: type(r).__module__ for r in _records(practice_episode)}
    assert {"PracticeEpisode", "SourceSpan", "ContractResidual", "CandidateAttempt",
            "GeometricSearchRun", "ReplayAdapterResult"} <= set(seen)
    assert set(seen.values()) == HOST_MODULES, seen
    assert type(practice_episode.residuals[0].residual_kind).__module__ == "hostrec"
    assert type(practice_episode.replay_results[0].replay_disposition).__module__ == "hostrec"


def test_records_are_host_typed(sealed_trace_episodes):
    records = sealed_trace_episodes.records("sealed_all_candidates_refused", attempts=3)
    assert type(records.geometric_search_run).__module__ == "hostrec"
    assert len(records.candidate_attempts) == 3
    assert {type(a).__module__ for a in records.candidate_attempts} == {"hostrec"}
    spans = [s for a in records.candidate_attempts for s in a.evidence_spans]
    span_modules = (HOST_MODULES - {"hostrec"}) or {"hostrec"}
    assert {type(s).__module__ for s in spans} == span_modules


def test_host_sealed_episode_seals(sealed_practice_episode):
    assert type(sealed_practice_episode.episode).__module__ == "hostrec"
    outcome = sealed_trace_episodes_seal(sealed_practice_episode.episode)
    assert isinstance(outcome, SealedPracticeTrace), outcome
    assert outcome.practice_disposition.value == sealed_practice_episode.practice_disposition


def test_host_refused_episode_refuses(refused_practice_episode):
    assert type(refused_practice_episode.episode).__module__ == "hostrec"
    outcome = sealed_trace_episodes_seal(refused_practice_episode.episode)
    assert isinstance(outcome, PracticeTraceRefusal), outcome
    assert outcome.practice_disposition.value == refused_practice_episode.practice_disposition
    assert refused_practice_episode.reason_code in outcome.reason_codes


def sealed_trace_episodes_seal(episode):
    from sealed_trace import seal

    return seal(episode)
"""

#: 2 single tests + one per sealed disposition + one per refusal kind.
HOST_PASSED = 2 + len(SEALED_DISPOSITION_NAMES) + len(TAMPERS)


def test_factory_builds_records_tampers_and_specs(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_factory="""
        import pytest

        from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
        from sealed_trace.builder import SEALED_DISPOSITION_NAMES, TAMPERS


        @pytest.mark.parametrize("disposition", SEALED_DISPOSITION_NAMES)
        def test_episode_seals_as_asked(sealed_trace_episodes, disposition):
            episode = sealed_trace_episodes.episode(disposition)
            outcome = sealed_trace_episodes.seal(episode)
            assert isinstance(outcome, SealedPracticeTrace)
            assert outcome.practice_disposition.value == disposition


        @pytest.mark.parametrize("attempts", [1, 2, 5])
        def test_any_number_of_attempts(sealed_trace_episodes, attempts):
            records = sealed_trace_episodes.records("sealed_all_candidates_refused",
                                                    attempts=attempts)
            assert len(records.candidate_attempts) == attempts
            assert len(records.replay_results) + len(records.replay_refusals) == attempts
            run = records.geometric_search_run
            assert records.search_run_refusal is None
            assert run.residual_ids == tuple(r.residual_id for r in records.residuals)
            assert run.gate_decision_id == records.search_gate_decision.decision_id
            assert run.budget_id == records.compute_budget_decision.budget_id
            assert [a.attempt_index for a in records.candidate_attempts] == list(range(attempts))
            assert {r.attempt_id for r in records.replay_results + records.replay_refusals} == {
                a.attempt_id for a in records.candidate_attempts}


        def test_gate_blocked_records_have_a_run_refusal(sealed_trace_episodes):
            records = sealed_trace_episodes.records("sealed_original_refusal")
            assert records.geometric_search_run is None
            assert records.search_run_refusal is not None
            assert records.candidate_attempts == ()
            assert records.search_run_refusal.gate_decision_id == (
                records.search_gate_decision.decision_id)


        def test_custom_problem_text_and_spans(sealed_trace_episodes):
            text = "Ana had 7 stamps. She lost 2 stamps. How many stamps are left?"
            spec = sealed_trace_episodes.spec(problem_text=text, assessment_spans=("lost",),
                                              attempt_spans=("2 stamps", "7 stamps"))
            records = sealed_trace_episodes.records("sealed_candidate_replay_closed",
                                                    attempts=4, spec=spec)
            assert records.problem_frame.problem_text == text
            spans = [s for a in records.candidate_attempts for s in a.evidence_spans]
            assert spans and all(text[s.start:s.end] == s.text for s in spans)
            assert {s.text for s in spans} <= {"2 stamps", "7 stamps"}
            episode = sealed_trace_episodes.episode("sealed_candidate_replay_closed",
                                                    attempts=4, spec=spec)
            assert seal(episode).practice_disposition.value == "sealed_candidate_replay_closed"


        def test_outcomes_choose_each_attempts_replay(sealed_trace_episodes):
            records = sealed_trace_episodes.records(
                "sealed_candidate_replay_closed",
                outcomes=["contract_and_proof_closed", "contract_replay_unavailable"])
            assert len(records.replay_results) == 1 and len(records.replay_refusals) == 1


        def test_inconsistent_request_is_a_value_error(sealed_trace_episodes):
            with pytest.raises(ValueError, match="no candidate attempts"):
                sealed_trace_episodes.episode("sealed_original_refusal", attempts=2)
            with pytest.raises(ValueError, match="does not occur in the problem text"):
                sealed_trace_episodes.episode(spec=sealed_trace_episodes.spec(
                    attempt_spans=("absent words",)))


        @pytest.mark.parametrize("name", sorted(TAMPERS))
        def test_tamper_and_refused(sealed_trace_episodes, name):
            case = sealed_trace_episodes.refused(name)
            assert case.name == name and case.description
            outcome = seal(sealed_trace_episodes.tamper(name))
            assert isinstance(outcome, PracticeTraceRefusal)
            assert outcome.practice_disposition.value == case.practice_disposition
            assert case.reason_code in outcome.reason_codes


        def test_unknown_tamper_is_a_key_error(sealed_trace_episodes):
            with pytest.raises(KeyError):
                sealed_trace_episodes.tamper("no_such_tamper")


        def test_practice_episode_is_the_two_attempt_closed_episode(practice_episode):
            outcome = seal(practice_episode)
            assert outcome.practice_disposition.value == "sealed_candidate_replay_closed"
            assert len(practice_episode.geometric_search_run.candidate_attempts) == 2


        def test_factory_is_session_scoped(request, sealed_trace_episodes):
            assert request.getfixturevalue("sealed_trace_episodes") is sealed_trace_episodes
        """
    )
    result = pytester.runpytest(*NO_CACHE)
    result.assert_outcomes(passed=len(SEALED_DISPOSITION_NAMES) + 3 + 4 + len(TAMPERS) + 3)


def test_sealed_practice_episode_runs_once_per_sealed_disposition(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_sealed="""
        from sealed_trace import SealedPracticeTrace, seal


        def test_seals(sealed_practice_episode):
            outcome = seal(sealed_practice_episode.episode)
            assert isinstance(outcome, SealedPracticeTrace)
            assert outcome.practice_disposition.value == (
                sealed_practice_episode.practice_disposition)
        """
    )
    result = pytester.runpytest("-v", *NO_CACHE)
    result.assert_outcomes(passed=len(SEALED_DISPOSITION_NAMES))
    result.stdout.fnmatch_lines_random(
        [f"*test_sealed.py::test_seals[[]{name}[]] PASSED*" for name in SEALED_DISPOSITION_NAMES]
    )


def test_refused_practice_episode_runs_once_per_refusal_kind(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_refused="""
        from sealed_trace import PracticeTraceRefusal, seal


        def test_refuses(refused_practice_episode):
            case = refused_practice_episode
            outcome = seal(case.episode)
            assert isinstance(outcome, PracticeTraceRefusal), outcome
            assert outcome.practice_disposition.value == case.practice_disposition
            assert case.reason_code in outcome.reason_codes
        """
    )
    result = pytester.runpytest("-v", *NO_CACHE)
    result.assert_outcomes(passed=len(TAMPERS))
    result.stdout.fnmatch_lines_random(
        [f"*test_refused.py::test_refuses[[]{name}[]] PASSED*" for name in sorted(TAMPERS)]
    )


def test_every_refusal_kind_has_its_own_disposition_family() -> None:
    # The parametrization above covers all four refusal dispositions.
    assert {t.practice_disposition for t in TAMPERS.values()} == {
        d.value for d in sealed_trace.REFUSAL_DISPOSITIONS
    }


def test_host_record_types_from_the_ini_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(hostrec=host_records_source(), test_host=HOST_CHECKS)
    pytester.makeini("[pytest]\nsealed_trace_record_types = hostrec\n")
    pytester.syspathinsert()
    result = pytester.runpytest(*NO_CACHE)
    result.assert_outcomes(passed=HOST_PASSED)


def test_host_record_types_from_several_modules_in_pyproject(pytester: pytest.Pytester) -> None:
    # Spans in one module, every other record and enum in the other.
    rest = tuple(name for name in REFERENCE_NAMES if name != "SourceSpan")
    pytester.makepyfile(
        hostspans=host_records_source(("SourceSpan",)),
        hostrec=host_records_source(rest),
        test_host=HOST_CHECKS.replace('{"hostrec"}\n', '{"hostrec", "hostspans"}\n', 1),
    )
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\nsealed_trace_record_types = ["hostrec", "hostspans"]\n'
    )
    pytester.syspathinsert()
    result = pytester.runpytest(*NO_CACHE)
    result.assert_outcomes(passed=HOST_PASSED)


HOOK_CONFTEST = """
import pytest

import hostrec


{decorator}def pytest_sealed_trace_record_types(config):
    return {{name: getattr(hostrec, name) for name in dir(hostrec)
            if name[0].isupper() and name not in ("Any", "Enum")}}
"""


@pytest.mark.parametrize("decorator", ["", "@pytest.hookimpl\n"], ids=["plain", "hookimpl"])
def test_host_record_types_from_the_hook_in_a_conftest(
    pytester: pytest.Pytester, decorator: str
) -> None:
    pytester.makepyfile(hostrec=host_records_source(), test_host=HOST_CHECKS)
    pytester.makeconftest(HOOK_CONFTEST.format(decorator=decorator))
    pytester.syspathinsert()
    result = pytester.runpytest(*NO_CACHE)
    result.assert_outcomes(passed=HOST_PASSED)


def test_the_hook_wins_over_the_ini_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(hostrec=host_records_source(), test_host=HOST_CHECKS)
    pytester.makeconftest(HOOK_CONFTEST.format(decorator=""))
    # The ini names a module that does not exist: it is never read when the hook answers.
    pytester.makeini("[pytest]\nsealed_trace_record_types = no_such_host_module\n")
    pytester.syspathinsert()
    result = pytester.runpytest(*NO_CACHE)
    result.assert_outcomes(passed=HOST_PASSED)


def test_a_hook_answering_none_leaves_the_ini_option_in_charge(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(hostrec=host_records_source(), test_host=HOST_CHECKS)
    pytester.makeini("[pytest]\nsealed_trace_record_types = hostrec\n")
    pytester.makeconftest(
        """
        import pytest


        @pytest.hookimpl
        def pytest_sealed_trace_record_types(config):
            return None
        """
    )
    pytester.syspathinsert()
    result = pytester.runpytest(*NO_CACHE)
    result.assert_outcomes(passed=HOST_PASSED)


def test_reference_types_without_hook_or_ini(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_ref="""
        from sealed_trace import PracticeEpisode


        def test_reference(practice_episode, sealed_trace_episodes):
            assert type(practice_episode) is PracticeEpisode
            assert sealed_trace_episodes.record_types == {}
        """
    )
    pytester.runpytest(*NO_CACHE).assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("module_source", "message"),
    [
        (None, "*sealed_trace_record_types: cannot import 'hostbad': No module named 'hostbad'*"),
        (
            "class Unrelated:\n    pass\n",
            "*sealed_trace_record_types: 'hostbad' defines none of PracticeEpisode, *",
        ),
    ],
    ids=["missing-module", "no-record-classes"],
)
def test_bad_record_types_module_is_a_usage_error(
    pytester: pytest.Pytester, module_source: str | None, message: str
) -> None:
    if module_source is not None:
        pytester.makepyfile(hostbad=module_source)
    pytester.syspathinsert()
    pytester.makeini("[pytest]\nsealed_trace_record_types = hostbad\n")
    pytester.makepyfile(
        test_uses="""
        def test_uses_fixture(practice_episode):
            pass


        def test_without_fixture():
            pass
        """
    )
    result = pytester.runpytest("-rA", *NO_CACHE)
    # One usage error before any test runs, not one traceback per test that needs an episode.
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message.replace("*sealed_trace", "ERROR: sealed_trace")])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
