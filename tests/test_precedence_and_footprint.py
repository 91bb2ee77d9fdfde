"""Where rules meet, and what the sealer leaves behind (sealing-policy §9, §11).

The precedence cases the adversarial review settled, each as the disposition it must give;
and the footprint: records tracked by identity only, host mappings read within the limits
whatever they claim, control flow passed through, identity checks at any stack depth.
"""

from __future__ import annotations

import dataclasses as dc
import itertools
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal, seal_practice_trace
from sealed_trace.builder import build_episode, refresh_ids
from sealed_trace.identity import identity_digest
from sealed_trace.trace import build_practice_trace_input
from sealed_trace.upstream.gate import SearchGateStatus

CLOSED = build_episode("sealed_candidate_replay_closed", attempts=2)


def _refusal(outcome: object) -> PracticeTraceRefusal:
    assert isinstance(outcome, PracticeTraceRefusal), outcome
    return outcome


# -- precedence (sealing-policy §11) --------------------------------------------------------


@pytest.mark.parametrize("status", [SearchGateStatus.BLOCKED, SearchGateStatus.UNASSESSABLE])
def test_a_run_beside_a_gate_that_is_not_eligible_is_a_mismatch_with_the_budget_absent(
    status: SearchGateStatus,
) -> None:
    gate = dc.replace(CLOSED.search_gate_decision, status=status)
    episode = dc.replace(refresh_ids(dc.replace(CLOSED, search_gate_decision=gate)))
    outcome = _refusal(seal(dc.replace(episode, compute_budget_decision=None)))
    assert "run_not_authorized" in outcome.reason_codes
    assert "missing_compute_budget_decision" in outcome.reason_codes
    assert outcome.practice_disposition.value == "trace_identity_mismatch"


def test_with_the_gate_absent_the_runs_residual_binding_is_not_judged() -> None:
    residuals = CLOSED.residuals[1:]  # one residual dropped too
    outcome = _refusal(seal(dc.replace(CLOSED, search_gate_decision=None, residuals=residuals)))
    assert "run_binding_mismatch" not in outcome.reason_codes
    assert "missing_search_gate_decision" in outcome.reason_codes
    assert outcome.practice_disposition.value == "trace_upstream_incomplete"


def test_with_the_gate_present_the_runs_residual_binding_is_judged() -> None:
    run = CLOSED.geometric_search_run
    assert run is not None
    forged = dc.replace(run, residual_ids=run.residual_ids[:1])
    outcome = _refusal(seal(dc.replace(CLOSED, geometric_search_run=forged)))
    assert "run_binding_mismatch" in outcome.reason_codes


@pytest.mark.parametrize("bad", [("policy",), ("", "x"), 7, ("a", "b", "c")], ids=repr)
def test_a_malformed_pair_in_a_claimed_list_hides_no_unsupported_entry_after_it(bad: Any) -> None:
    built = build_practice_trace_input(CLOSED)
    assert not isinstance(built, PracticeTraceRefusal)
    versions = (bad, *built.policy_versions[:-1], ("search_gate", "search_gate.v9"))
    claim = dc.replace(built, policy_versions=versions)
    outcome = _refusal(seal_practice_trace(claim, CLOSED))
    assert "malformed_trace_input" in outcome.reason_codes
    assert "unsupported_version_entry" in outcome.reason_codes
    assert outcome.practice_disposition.value == "trace_policy_unsupported"


@pytest.mark.parametrize("where", ["trace_policy_version", "gate", "list"])
def test_a_lone_surrogate_version_is_outside_the_manifest(where: str) -> None:
    odd = "search_gate.v1\ud800"
    if where == "trace_policy_version":
        episode = dc.replace(CLOSED, trace_policy_version="sealed_practice_trace.v1\ud800")
    elif where == "gate":
        gate = dc.replace(CLOSED.search_gate_decision, policy_version=odd)
        episode = dc.replace(CLOSED, search_gate_decision=gate)
    else:
        versions = tuple(
            (name, odd if name == "search_gate" else value)
            for name, value in CLOSED.policy_versions
        )
        episode = dc.replace(CLOSED, policy_versions=versions)
    outcome = _refusal(seal(episode))
    assert outcome.practice_disposition.value == "trace_policy_unsupported"


def test_an_empty_version_is_only_malformed() -> None:
    gate = dc.replace(CLOSED.search_gate_decision, policy_version="")
    outcome = _refusal(seal(dc.replace(CLOSED, search_gate_decision=gate)))
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert "unsupported_record_version" not in outcome.reason_codes


# -- footprint (sealing-policy §11) ---------------------------------------------------------


class _Meta(type):
    """A metaclass whose classes are unhashable and equal to everything."""

    def __eq__(cls, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


def _host_copy(record: Any) -> Any:
    """``record`` as an instance of a host class made by :class:`_Meta`, field by field."""
    fields = {f.name: getattr(record, f.name) for f in dc.fields(record)}
    host = _Meta(type(record).__name__, (), {})
    instance = host()
    for name, value in fields.items():
        setattr(instance, name, value)
    return instance


def test_records_of_an_unhashable_host_class_seal_like_reference_records() -> None:
    with pytest.raises(TypeError):
        hash(_Meta("Probe", (), {}))
    residuals = tuple(_host_copy(r) for r in CLOSED.residuals)
    episode = dc.replace(
        CLOSED, residuals=residuals, search_gate_decision=_host_copy(CLOSED.search_gate_decision)
    )
    assert seal(episode) == seal(CLOSED)


class _EndlessFacts(Mapping[str, object]):
    """Says it holds one fact; its items never end."""

    def __init__(self) -> None:
        self.read = 0

    def __len__(self) -> int:
        return 1

    def __getitem__(self, key: str) -> object:
        return 1

    def __iter__(self) -> Iterator[str]:
        return (str(i) for i in itertools.count())

    def items(self) -> Any:
        for i in itertools.count():
            self.read += 1
            yield str(i), 1


def test_facts_that_never_end_are_read_only_past_their_stated_length() -> None:
    facts = _EndlessFacts()
    frame = dc.replace(CLOSED.problem_frame, facts=facts)
    outcome = _refusal(seal(dc.replace(CLOSED, problem_frame=frame)))
    assert "malformed_problem_frame" in outcome.reason_codes
    assert facts.read <= 2


class _Interrupting(Mapping[str, object]):
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __len__(self) -> int:
        raise self.error

    def __getitem__(self, key: str) -> object:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())


@pytest.mark.parametrize("error", [SystemExit(4), KeyboardInterrupt(), GeneratorExit()])
def test_control_flow_inside_facts_propagates(error: BaseException) -> None:
    frame = dc.replace(CLOSED.problem_frame, facts=_Interrupting(error))
    with pytest.raises(type(error)):
        seal(dc.replace(CLOSED, problem_frame=frame))


class _Bomb:
    """A host record whose every read raises a timeout, as a signal handler would."""

    def __getattr__(self, name: str) -> object:
        raise TimeoutError(name)


def test_a_timeout_exception_while_reading_is_malformed_and_the_next_seal_is_unaffected() -> None:
    outcome = _refusal(seal(dc.replace(CLOSED, search_gate_decision=_Bomb())))
    assert "malformed_search_gate_decision" in outcome.reason_codes
    assert isinstance(seal(CLOSED), SealedPracticeTrace)


def _deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


def test_identity_checks_need_no_stack_that_grows_with_the_value() -> None:
    value = {"v": _deep(62)}  # 63 containers: legal
    expected = identity_digest(value)

    def down(frames: int) -> str:
        return down(frames - 1) if frames > 0 else identity_digest(value, checked=True)

    depth = len(_frames())
    room = 80 if sys.version_info < (3, 12) else 20
    assert down(sys.getrecursionlimit() - depth - room) == expected


def _frames() -> list[object]:
    frame = sys._getframe()
    out = []
    while frame is not None:
        out.append(frame)
        frame = frame.f_back  # type: ignore[assignment]
    return out
