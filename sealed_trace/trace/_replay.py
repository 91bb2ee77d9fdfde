"""ADR-0230 §6.1 items 8 and 9, §10: every replay result and refusal reproduces and binds to
the run, one of the trace's attempts and that attempt's candidate; every attempt has exactly
one replay record (sealing-policy §3; §10 for bound attempts).
"""

from __future__ import annotations

from sealed_trace._reader import Problems
from sealed_trace.trace._chain import reproduces
from sealed_trace.trace._copies import Copies
from sealed_trace.upstream.replay import (
    ReplayAdapterRefusal,
    ReplayAdapterResult,
    replay_refusal_id,
    replay_result_id,
)
from sealed_trace.upstream.run import CandidateAttempt

__all__ = ["every_attempt_has_one_replay_record", "replay_records_bind_to_attempts"]

_Record = ReplayAdapterResult | ReplayAdapterRefusal


def _records(c: Copies) -> list[tuple[str, int, _Record]]:
    """Every replay record with the array and position it came from, results first."""
    out: list[tuple[str, int, _Record]] = []
    out += [("replay_results", i, record) for i, record in enumerate(c.results or ())]
    out += [("replay_refusals", i, record) for i, record in enumerate(c.refusals or ())]
    return out


def _reproduces(p: Problems, array: str, index: int, record: _Record) -> None:
    if isinstance(record, ReplayAdapterResult):
        actual = replay_result_id(record, checked=False)
        where = f"{array}[{index}].replay_result_id"
        reproduces(p, record.replay_result_id, actual, "replay_result_id_mismatch", where)
    else:
        actual = replay_refusal_id(record, checked=False)
        where = f"{array}[{index}].replay_refusal_id"
        reproduces(p, record.replay_refusal_id, actual, "replay_refusal_id_mismatch", where)


def _binds(record: _Record, run_id: str, attempts: dict[str, CandidateAttempt]) -> bool:
    attempt = attempts.get(record.attempt_id) if record.attempt_id else None
    return (
        record.run_id == run_id
        and attempt is not None
        and record.candidate_digest == attempt.candidate_digest
    )


def replay_records_bind_to_attempts(c: Copies, p: Problems) -> None:
    """Items 8, 9: each replay record's id reproduces; it names the run's ``run_id``, one of
    the trace's attempts and that attempt's ``candidate_digest``; next to a run refusal
    (which has no attempts) it is an orphan."""
    trace_attempts = c.attempts()
    attempts = {a.attempt_id: a for a in trace_attempts or ()}
    # Attempts that did not read cannot be bound to: their own problem is reported.
    judge = c.run is not None and trace_attempts is not None
    for array, index, record in _records(c):
        _reproduces(p, array, index, record)
        orphan = (
            "orphan_replay_result"
            if isinstance(record, ReplayAdapterResult)
            else "orphan_replay_refusal"
        )
        if c.run_refusal is not None:
            p.add(orphan, f"{array}[{index}] sits next to a run refusal, which has no attempts")
        elif judge and c.run is not None and not _binds(record, c.run.run_id, attempts):
            p.add(
                orphan,
                f"{array}[{index}] does not bind to the run, an attempt of it and that "
                "attempt's candidate",
            )


def every_attempt_has_one_replay_record(c: Copies, p: Problems) -> None:
    """Item 9, sealing-policy §3 coverage: every attempt of the trace has exactly one replay
    record (none: a missing record; two: malformed input)."""
    attempts = c.attempts()
    if c.run is None or attempts is None or c.results is None or c.refusals is None:
        return
    named: dict[str, int] = {}
    for _, _, record in _records(c):
        if record.attempt_id is not None:
            named[record.attempt_id] = named.get(record.attempt_id, 0) + 1
    for position, attempt in enumerate(attempts):
        count = named.get(attempt.attempt_id, 0)
        label = f"attempt {attempt.attempt_index}" if not c.bound else f"bound attempt {position}"
        if count == 0:
            p.add("missing_replay_record", f"{label} has no replay record")
        elif count > 1:
            p.add("duplicate_replay_record", f"{label} has {count} replay records")
