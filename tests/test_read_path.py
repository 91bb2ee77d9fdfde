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

    def __init__(
        self, record: object, raising: str | None = None, error: BaseException | None = None
    ) -> None:
        object.__setattr__(
            self, "_values", {f.name: getattr(record, f.name) for f in dc.fields(record)}
        )  # type: ignore[arg-type]
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
    count: int, position: str
) -> None:
    episode = _many_results(count)
    results = list(episode.replay_results)
    index = 0 if position == "first" else count - 1
    results[index] = _Host(results[index], "replay_disposition", StopIteration())
    outcome = seal(dc.replace(episode, replay_results=tuple(results)))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_replay_result" in outcome.reason_codes
    assert (
        f"episode.replay_results[{index}] could not read field replay_disposition"
        in outcome.explanation
    )


@pytest.mark.parametrize(
    "error",
    [
        StopIteration(),
        StopAsyncIteration(),
        RuntimeError(),
        MemoryError(),
        ValueError(),
        TypeError(),
        LookupError(),
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"),
        ArithmeticError(),
        OSError(),
    ],
    ids=lambda e: type(e).__name__,
)
@pytest.mark.parametrize("where", ["residuals", "replay_results", "candidate_attempts"])
def test_any_exception_while_reading_is_a_malformed_record_at_that_path(
    error: BaseException, where: str
) -> None:
    episode = _many_results(9)
    if where == "candidate_attempts":
        run = episode.geometric_search_run
        attempts = list(run.candidate_attempts)
        attempts[4] = _Host(attempts[4], "step_index", error)
        bad = dc.replace(
            episode, geometric_search_run=dc.replace(run, candidate_attempts=tuple(attempts))
        )
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


def test_a_recursion_error_while_reading_refuses_the_whole_episode_as_an_internal_fault() -> None:
    """A RecursionError says the caller's stack ran out, not that the record is malformed
    (sealing-policy §11): the episode refuses as sealer_internal_fault."""
    episode = _many_results(9)
    items = list(episode.replay_results)
    items[3] = _Host(items[3], "explanation", RecursionError())
    outcome = seal(dc.replace(episode, replay_results=tuple(items)))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == ("sealer_internal_fault",)


@pytest.mark.parametrize(
    "error",
    [GeneratorExit(), SystemExit(3), KeyboardInterrupt(), BaseException()],
    ids=lambda e: type(e).__name__,
)
def test_control_flow_while_reading_propagates_and_produces_nothing(error: BaseException) -> None:
    """sealing-policy §11: a BaseException that is not an Exception is control flow: it
    leaves the seal as it was raised, and no outcome is produced."""
    episode = _many_results(9)
    items = list(episode.replay_results)
    items[3] = _Host(items[3], "explanation", error)
    with pytest.raises(type(error)):
        seal(dc.replace(episode, replay_results=tuple(items)))


@pytest.mark.parametrize("count", [1, 9, 30])
def test_each_attribute_of_a_host_record_is_read_exactly_once(count: int) -> None:
    episode = _many_results(count)
    hosts = [_Host(result) for result in episode.replay_results]
    run = episode.geometric_search_run
    attempts = [_Host(attempt) for attempt in run.candidate_attempts]
    outcome = seal(
        dc.replace(
            episode,
            replay_results=tuple(hosts),
            geometric_search_run=dc.replace(run, candidate_attempts=tuple(attempts)),
        )
    )
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
                object.__setattr__(first, "replay_disposition", ReplayDisposition.CONTRACT_REFUSED)
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
    given = {
        id(span)
        for record in (episode.contract_assessment, *episode.residuals, *episode.replay_results)
        for span in record.evidence_spans
    }
    assert given
    assert not any(id(span) in given for span in outcome.evidence_spans)


_EPISODE_RECORDS = {
    "problem_frame": "malformed_problem_frame",
    "contract_assessment": "malformed_contract_assessment",
    "residuals": "malformed_residual",
    "search_gate_decision": "malformed_search_gate_decision",
    "compute_budget_decision": "malformed_compute_budget_decision",
    "geometric_search_run": "malformed_geometric_search_run",
    "search_run_refusal": "malformed_search_run_refusal",
    "replay_results": "malformed_replay_result",
    "replay_refusals": "malformed_replay_refusal",
    "trace_policy_version": "malformed_trace_policy_version",
    "schema_versions": "malformed_version_list",
    "policy_versions": "malformed_version_list",
}


@pytest.mark.parametrize(
    "disposition", ["sealed_candidate_replay_closed", "sealed_original_refusal"]
)
@pytest.mark.parametrize(("field", "code"), sorted(_EPISODE_RECORDS.items()))
@pytest.mark.parametrize("error", [RuntimeError(), StopIteration()], ids=["runtime", "stop"])
def test_an_episode_field_whose_read_raises_is_malformed_never_absent(
    disposition: str, field: str, code: str, error: BaseException
) -> None:
    episode = build_episode(disposition)

    class HostEpisode:
        def __getattr__(self, name: str) -> object:
            if name == field:
                raise error
            return getattr(episode, name)

    outcome = seal(HostEpisode())
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert code in outcome.reason_codes
    assert f"episode.{field} could not be read" in outcome.explanation


class _Shifty:
    """A span that answers ``first`` on the first read of each attribute, ``then`` after."""

    def __init__(self, first: object, then: object) -> None:
        self.first, self.then, self.reads = first, then, {}

    def __getattr__(self, name: str) -> object:
        if name not in ("text", "start", "end", "sentence_index"):
            raise AttributeError(name)
        self.reads[name] = self.reads.get(name, 0) + 1
        return getattr(self.first if self.reads[name] == 1 else self.then, name)


def test_an_object_in_two_places_is_read_once_and_both_get_the_same_copy() -> None:
    from sealed_trace.builder import refresh_ids

    base = build_episode("sealed_candidate_replay_closed")
    run = base.geometric_search_run
    assert run is not None
    attempt, result = run.candidate_attempts[0], base.replay_results[0]
    span_a, span_b = attempt.evidence_spans[0], base.contract_assessment.evidence_spans[0]
    assert span_a != span_b
    # The replay result's id is computed over span B; the attempt's over span A.
    episode = refresh_ids(
        dc.replace(
            base,
            replay_results=(dc.replace(result, evidence_spans=(span_b,)), *base.replay_results[1:]),
        )
    )
    run = episode.geometric_search_run
    assert run is not None
    shared = _Shifty(span_a, span_b)
    host_attempt = _Host(run.candidate_attempts[0])
    object.__getattribute__(host_attempt, "_values")["evidence_spans"] = (shared,)
    host_result = _Host(episode.replay_results[0])
    object.__getattribute__(host_result, "_values")["evidence_spans"] = (shared,)
    outcome = seal(
        dc.replace(
            episode,
            geometric_search_run=dc.replace(
                run, candidate_attempts=(host_attempt, *run.candidate_attempts[1:])
            ),
            replay_results=(host_result, *episode.replay_results[1:]),
        )
    )
    assert set(shared.reads.values()) == {1}, shared.reads
    # Both places hold span A: the result's id (over B) does not reproduce.
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "replay_result_id_mismatch" in outcome.reason_codes


def test_a_shared_nested_record_is_read_once() -> None:
    episode = _many_results(20)
    run = episode.geometric_search_run
    charge = _Host(run.candidate_attempts[0].budget_charge)
    attempts = tuple(dc.replace(a, budget_charge=charge) for a in run.candidate_attempts)
    seal(dc.replace(episode, geometric_search_run=dc.replace(run, candidate_attempts=attempts)))
    assert set(charge.reads.values()) == {1}, charge.reads


# -- facts: host containers are read by their real content, once each ------------------------

from collections.abc import Mapping as _Mapping  # noqa: E402


class _ShortList(list):
    """A list whose own __iter__ ends after its first item (a StopIteration passing for the
    end): the facts are its real items."""

    def __iter__(self):
        yield list.__getitem__(self, 0)


class _ShortDict(dict):
    """A dict whose items() leaves items out: the facts are its real items."""

    def items(self):
        return list(dict.items(self))[:1]


class _HostMapping(_Mapping):
    """A host Mapping counting its items() calls; ``stop_after`` ends its iteration early."""

    def __init__(self, data: dict, stop_after: int | None = None) -> None:
        self.data, self.stop_after, self.calls = data, stop_after, 0

    def __getitem__(self, key):
        return self.data[key]

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self):
        for position, key in enumerate(self.data):
            if position == self.stop_after:
                return
            yield key

    def items(self):
        self.calls += 1
        return [(key, self.data[key]) for key in self]


def _with_facts(episode, facts):
    return dc.replace(episode, problem_frame=dc.replace(episode.problem_frame, facts=facts))


def test_list_and_dict_subclasses_in_facts_are_read_by_their_real_items() -> None:
    episode = build_episode("sealed_candidate_replay_closed")
    facts = dict(episode.problem_frame.facts)
    assert len(facts["quantities"]) == 2
    assert len(facts) == 3
    for hostile in (
        {**facts, "quantities": _ShortList(facts["quantities"])},
        _ShortDict(facts),
    ):
        assert seal(_with_facts(episode, hostile)) == seal(episode)


def test_a_host_mapping_whose_items_end_early_is_malformed_not_shorter() -> None:
    episode = build_episode("sealed_candidate_replay_closed")
    facts = dict(episode.problem_frame.facts)
    # Ids recomputed over the shortened view: only the refusal keeps it from sealing.
    short = {key: facts[key] for key in list(facts)[:1]}
    frame = dc.replace(episode.problem_frame, facts=short)
    digest = ind.frame_digest(frame)
    frame = dc.replace(frame, facts=_HostMapping(facts, stop_after=1), frame_digest=digest)
    outcome = seal(dc.replace(episode, problem_frame=frame))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_problem_frame" in outcome.reason_codes


def test_a_host_mapping_shared_in_facts_is_read_once() -> None:
    from sealed_trace.builder import EpisodeSpec

    inner = {"count": 12, "unit": "marbles"}
    plain_facts = {**EpisodeSpec().facts, "left": inner, "right": inner}
    lawful = build_episode("sealed_candidate_replay_closed", spec=EpisodeSpec(facts=plain_facts))
    expected = seal(lawful)
    assert isinstance(expected, SealedPracticeTrace)
    host = _HostMapping(inner)
    hostile = _with_facts(lawful, {**plain_facts, "left": host, "right": host})
    assert seal(hostile) == expected
    assert host.calls == 1


# -- one object in two kinds of place ----------------------------------------------------------


class _Both:
    """A host object with the fields of two records (the first's win where both have one);
    every read is counted."""

    def __init__(self, first: object, second: object) -> None:
        self.values = {f.name: getattr(second, f.name) for f in dc.fields(second)}
        self.values.update({f.name: getattr(first, f.name) for f in dc.fields(first)})
        self.reads: dict[str, int] = {}

    def __getattr__(self, name: str) -> object:
        if name in ("values", "reads"):
            raise AttributeError(name)
        if name not in self.values:
            raise AttributeError(name)
        self.reads[name] = self.reads.get(name, 0) + 1
        return self.values[name]


def test_one_object_as_the_budget_and_the_runs_consumption_is_refused_read_once() -> None:
    """Its values would fit both places, but it cannot be read twice: the second place is a
    malformed record, and no attribute is read more than once."""
    episode = build_episode("sealed_candidate_replay_closed")
    run = episode.geometric_search_run
    both = _Both(episode.compute_budget_decision, run.budget_consumed)
    outcome = seal(
        dc.replace(
            episode,
            compute_budget_decision=both,
            geometric_search_run=dc.replace(run, budget_consumed=both),
        )
    )
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_geometric_search_run" in outcome.reason_codes
    assert "one object cannot be two kinds of record" in outcome.explanation
    assert max(both.reads.values()) == 1


def test_the_episode_itself_as_its_claimed_trace_input_is_refused_read_once() -> None:
    from sealed_trace import build_practice_trace_input, seal_practice_trace

    episode = build_episode("sealed_candidate_replay_closed")
    claimed = build_practice_trace_input(episode)
    both = _Both(episode, claimed)
    outcome = seal_practice_trace(both, both)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_trace_input" in outcome.reason_codes
    assert max(both.reads.values()) == 1


def test_one_object_as_a_span_and_a_record_is_refused_read_once() -> None:
    episode = build_episode("sealed_candidate_replay_closed")
    residual = episode.residuals[0]
    both = _Both(residual, residual.evidence_spans[0])
    assessment = episode.contract_assessment
    outcome = seal(
        dc.replace(
            episode,
            residuals=(both, *episode.residuals[1:]),
            contract_assessment=dc.replace(assessment, evidence_spans=(both,)),
        )
    )
    assert isinstance(outcome, PracticeTraceRefusal)
    assert max(both.reads.values()) == 1


# -- a host enum member is read once per seal, wherever it stands ------------------------------

from collections import Counter as _Counter  # noqa: E402
from enum import Enum as _Enum  # noqa: E402
from types import DynamicClassAttribute as _Dynamic  # noqa: E402

_VALUE_READS: _Counter[str] = _Counter()


class _ChangingDisposition(str, _Enum):
    """A host replay disposition whose ``value`` is counted, and answers
    ``contract_and_proof_closed`` from its second read on."""

    CONTRACT_REFUSED = "contract_refused"
    CONTRACT_CLOSED_BUT_PROOF_REFUSED = "contract_closed_but_proof_refused"
    CONTRACT_AND_PROOF_CLOSED = "contract_and_proof_closed"

    @_Dynamic
    def value(self) -> str:  # type: ignore[override]
        _VALUE_READS[self.name] += 1
        first = _VALUE_READS[self.name] == 1
        return self._value_ if first else "contract_and_proof_closed"  # type: ignore[return-value]


def test_a_host_enum_member_in_many_records_is_read_once_per_seal() -> None:
    plain = seal(build_episode("sealed_candidate_replay_closed", attempts=5))
    episode = build_episode(
        "sealed_candidate_replay_closed",
        attempts=5,
        record_types={"ReplayDisposition": _ChangingDisposition},
    )
    for _ in range(2):  # each seal reads each member once, afresh
        _VALUE_READS.clear()
        assert seal(episode) == plain
        assert _VALUE_READS
        assert set(_VALUE_READS.values()) == {1}


def test_a_record_that_is_its_own_field_is_not_read_as_two_kinds() -> None:
    episode = build_episode("sealed_candidate_replay_closed")
    run = episode.geometric_search_run
    first = run.candidate_attempts[0]
    both = _Both(first, first.budget_charge)
    both.values["budget_charge"] = both
    attempts = (both, *run.candidate_attempts[1:])
    outcome = seal(
        dc.replace(episode, geometric_search_run=dc.replace(run, candidate_attempts=attempts))
    )
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_candidate_attempt" in outcome.reason_codes
    assert max(both.reads.values()) == 1


class _SelfMapping(_Mapping):
    """A host Mapping holding itself under "a"; counts its reads."""

    def __init__(self) -> None:
        self.calls = 0

    def __getitem__(self, key):
        return self

    def __len__(self) -> int:
        return 1

    def __iter__(self):
        return iter(["a"])

    def items(self):
        self.calls += 1
        return [("a", self)]


def test_a_host_mapping_that_holds_itself_is_read_once_and_refused() -> None:
    episode = build_episode("sealed_candidate_replay_closed")
    host = _SelfMapping()
    outcome = seal(_with_facts(episode, {"loop": host}))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_problem_frame" in outcome.reason_codes
    assert host.calls == 1


def test_a_host_mapping_that_repeats_a_key_is_unreadable() -> None:
    class Repeating(_HostMapping):
        def items(self):
            return [("a", 1), ("a", 2)]

    episode = build_episode("sealed_candidate_replay_closed")
    outcome = seal(_with_facts(episode, {"m": Repeating({"a": 2})}))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_problem_frame" in outcome.reason_codes
