"""The one read path (issue 10 §1; sealing-policy §9 "Reading host objects").

Every record, reference type or host object, is read attribute by attribute, each attribute
exactly once, and copied before any check runs. Any exception while reading (StopIteration
included) is a malformed record at that path: no record is ever dropped, shortened or read
twice, and a record changed after it was read cannot change the outcome.
"""

from __future__ import annotations

import dataclasses as dc

import independent as ind
import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import build_episode
from sealed_trace.upstream.replay import ReplayDisposition


class _Host:
    """A host record: the fields of ``record`` as attributes, one of which raises ``error``
    when read; every read is counted."""

    def __init__(self, record: object, raising: str | None = None,
                 error: BaseException | None = None) -> None:
        object.__setattr__(self, "_values", {f.name: getattr(record, f.name)
                                              for f in dc.fields(record)})  # type: ignore[arg-type]
        object.__setattr__(self, "_raising", raising)
        object.__setattr__(self, "_error", error)
        object.__setattr__(self, "reads", {})

    def __getattr__(self, name: str) -> object:
        values = object.__getattribute__(self, "_values")
        if name not in values:
            raise AttributeError(name)
        reads = object.__getattribute__(self, "reads")
        reads[name] = reads.get(name, 0) + 1
        if name == object.__getattribute__(self, "_raising"):
            raise object.__getattribute__(self, "_error")
        return values[name]


def _many_results(count: int):  # type: ignore[no-untyped-def]
    episode = build_episode("sealed_candidate_replay_closed", attempts=count)
    assert len(episode.replay_results) == count
    return episode


@pytest.mark.parametrize("count", [1, 7, 8, 9, 40])
@pytest.mark.parametrize("position", ["first", "last"])
def test_a_stop_iteration_in_any_record_is_malformed_never_the_end_of_the_records(
        count: int, position: str) -> None:
    episode = _many_results(count)
    results = list(episode.replay_results)
    index = 0 if position == "first" else count - 1
    results[index] = _Host(results[index], "replay_disposition", StopIteration())
    outcome = seal(dc.replace(episode, replay_results=tuple(results)))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_replay_result" in outcome.reason_codes
    assert f"episode.replay_results[{index}] could not read field replay_disposition" \
        in outcome.explanation


@pytest.mark.parametrize("error", [
    StopIteration(), StopAsyncIteration(), GeneratorExit(), SystemExit(3), RuntimeError(),
    RecursionError(), MemoryError(), ValueError(), TypeError(), LookupError(),
    UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), ArithmeticError(), OSError(),
    BaseException(),
], ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("where", ["residuals", "replay_results", "candidate_attempts"])
def test_any_exception_while_reading_is_a_malformed_record_at_that_path(
        error: BaseException, where: str) -> None:
    episode = _many_results(9)
    if where == "candidate_attempts":
        run = episode.geometric_search_run
        attempts = list(run.candidate_attempts)
        attempts[4] = _Host(attempts[4], "step_index", error)
        bad = dc.replace(episode, geometric_search_run=dc.replace(
            run, candidate_attempts=tuple(attempts)))
        code, path = "malformed_candidate_attempt", "candidate_attempts[4]"
    else:
        items = list(getattr(episode, where))
        position = len(items) - 1
        items[position] = _Host(items[position], "explanation", error)
        bad = dc.replace(episode, **{where: tuple(items)})
        code = "malformed_residual" if where == "residuals" else "malformed_replay_result"
        path = f"episode.{where}[{position}]"
    outcome = seal(bad)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert code in outcome.reason_codes
    assert f"{path} could not read field" in outcome.explanation


@pytest.mark.parametrize("count", [1, 9, 30])
def test_each_attribute_of_a_host_record_is_read_exactly_once(count: int) -> None:
    episode = _many_results(count)
    hosts = [_Host(result) for result in episode.replay_results]
    run = episode.geometric_search_run
    attempts = [_Host(attempt) for attempt in run.candidate_attempts]
    outcome = seal(dc.replace(
        episode, replay_results=tuple(hosts),
        geometric_search_run=dc.replace(run, candidate_attempts=tuple(attempts))))
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.trace_id == ind.trace_id(episode)
    for host in (*hosts, *attempts):
        assert set(host.reads.values()) == {1}, host.reads
        assert len(host.reads) == len(object.__getattribute__(host, "_values"))


def test_a_malformed_host_record_is_still_read_once() -> None:
    episode = _many_results(9)
    results = list(episode.replay_results)
    host = _Host(dc.replace(results[2], replay_disposition="no such disposition"))
    results[2] = host
    outcome = seal(dc.replace(episode, replay_results=tuple(results)))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_replay_result" in outcome.reason_codes
    assert set(host.reads.values()) == {1}, host.reads


def test_a_record_changed_after_it_was_read_cannot_change_the_outcome() -> None:
    episode = _many_results(9)
    results = list(episode.replay_results)
    first = results[0]
    assert first.replay_disposition is ReplayDisposition.CONTRACT_AND_PROOF_CLOSED

    class Flipper(_Host):
        """Reading its explanation rewrites a frozen record that was read before it."""

        def __getattr__(self, name: str) -> object:
            if name == "explanation":
                object.__setattr__(first, "replay_disposition",
                                   ReplayDisposition.CONTRACT_REFUSED)
            return super().__getattr__(name)

    results[-1] = Flipper(results[-1])
    outcome = seal(dc.replace(episode, replay_results=tuple(results)))
    object.__setattr__(first, "replay_disposition", ReplayDisposition.CONTRACT_AND_PROOF_CLOSED)
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.practice_disposition.value == "sealed_candidate_replay_closed"
    assert outcome.trace_id == ind.trace_id(episode)


def test_the_sealed_trace_holds_copies_not_the_callers_objects() -> None:
    episode = _many_results(3)
    outcome = seal(episode)
    assert isinstance(outcome, SealedPracticeTrace)
    given = {id(span) for record in (episode.contract_assessment, *episode.residuals,
                                     *episode.replay_results)
             for span in record.evidence_spans}
    assert given
    assert not any(id(span) in given for span in outcome.evidence_spans)
