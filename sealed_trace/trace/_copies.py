"""The episode's copies as the checks see them: typed, and nothing else (sealing-policy §9).

:func:`typed_copies` narrows the reader's :class:`~sealed_trace._reader.EpisodeCopy` to the
reference types, once, so every check takes exact values and no check reads the caller's
objects. A record that did not read whole is None here (its checks are skipped: its problems
were reported when it was read); the reader's copy keeps the fields that did read, for the
version values and ids that the refusal's ``input_digest`` may still use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar, cast

from sealed_trace._reader import ArrayCopy, EpisodeCopy, RecordCopy
from sealed_trace.trace.model import IdentityLayout
from sealed_trace.upstream.binding import CandidateAttemptRunBinding
from sealed_trace.upstream.budget import ComputeBudgetDecision
from sealed_trace.upstream.frame import ContractAssessmentProjection, ProblemFrameProjection
from sealed_trace.upstream.gate import SearchGateDecision
from sealed_trace.upstream.operator import CandidateOperatorResult
from sealed_trace.upstream.replay import ReplayAdapterRefusal, ReplayAdapterResult
from sealed_trace.upstream.residuals import ContractResidual
from sealed_trace.upstream.run import CandidateAttempt, GeometricSearchRun, SearchRunRefusal

__all__ = ["Copies", "typed_copies"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Copies:
    """The typed copies of one episode, and the identity layout it is sealed under.

    Each record is None when absent or malformed; each array None when absent, malformed, or
    any item malformed. ``run`` and ``run_refusal`` are both None when both were supplied
    (that is malformed input). ``bound`` tells whether the episode carries bindings or
    operator results (ADR-0233; sealing-policy §10).
    """

    read: EpisodeCopy
    layout: IdentityLayout
    frame: ProblemFrameProjection | None
    assessment: ContractAssessmentProjection | None
    residuals: tuple[ContractResidual, ...] | None
    gate: SearchGateDecision | None
    budget: ComputeBudgetDecision | None
    run: GeometricSearchRun | None
    run_refusal: SearchRunRefusal | None
    results: tuple[ReplayAdapterResult, ...] | None
    refusals: tuple[ReplayAdapterRefusal, ...] | None
    operator_results: tuple[CandidateOperatorResult, ...] | None
    bindings: tuple[CandidateAttemptRunBinding, ...] | None
    bound: bool

    def attempts(self) -> tuple[CandidateAttempt, ...] | None:
        """The attempts the trace binds, in trace order: the bound attempts in binding order
        (sealing-policy §10), else the run's own; None when they did not read."""
        if self.bound:
            results = self.operator_results
            return None if results is None else tuple(r.candidate_attempt for r in results)
        return None if self.run is None else self.run.candidate_attempts


def _record(copy: RecordCopy[object], cls: type[T]) -> T | None:
    record = copy.record
    return record if type(record) is cls else None


def _array(copy: ArrayCopy[object] | None, cls: type[T]) -> tuple[T, ...] | None:
    if copy is None:
        return None
    return cast(tuple[T, ...] | None, copy.complete())


def typed_copies(read: EpisodeCopy, layout: IdentityLayout) -> Copies:
    """The typed view of ``read`` under ``layout`` (no record is read again)."""
    records, arrays = read.records, read.arrays
    run_copy, refusal_copy = records["geometric_search_run"], records["search_run_refusal"]
    both = run_copy.present and refusal_copy.present
    operator_results = arrays.get("candidate_operator_results")
    bindings = arrays.get("candidate_attempt_bindings")
    return Copies(
        read=read,
        layout=layout,
        frame=_record(records["problem_frame"], ProblemFrameProjection),
        assessment=_record(records["contract_assessment"], ContractAssessmentProjection),
        residuals=_array(arrays["residuals"], ContractResidual),
        gate=_record(records["search_gate_decision"], SearchGateDecision),
        budget=_record(records["compute_budget_decision"], ComputeBudgetDecision),
        run=None if both else _record(run_copy, GeometricSearchRun),
        run_refusal=None if both else _record(refusal_copy, SearchRunRefusal),
        results=_array(arrays["replay_results"], ReplayAdapterResult),
        refusals=_array(arrays["replay_refusals"], ReplayAdapterRefusal),
        operator_results=_array(operator_results, CandidateOperatorResult),
        bindings=_array(bindings, CandidateAttemptRunBinding),
        bound=read.bound,
    )
