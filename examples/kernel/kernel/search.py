"""Gate + budget -> GeometricSearchRun (or SearchRunRefusal): a tiny deterministic search.

The operator set is closed and ordered. Each operator proposes one completed unary-delta
binding (changed object, direction) from the frame's reading; the run tries them in order,
charging one candidate and one step each, until the operators or the budget run out. Attempt
ids follow ADR-0228 §10: the 13 attempt keys with ``attempt_id`` blanked.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Final

from kernel.frame import read_change
from kernel.identity import digest, spans
from kernel.records import (
    GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
    GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
    BudgetCharge,
    BudgetConsumed,
    CandidateAttempt,
    CandidateReplayStatus,
    ComputeBudgetDecision,
    ContractAssessmentProjection,
    GeometricSearchRun,
    ProblemFrameProjection,
    RunExhaustionCode,
    SearchGateDecision,
    SearchRunDisposition,
    SearchRunRefusal,
    SourceSpan,
)

OPERATOR_SET_ID: Final = "unary_delta.operators"
OPERATOR_SET_VERSION: Final = "unary_delta.operators.v1"
OPERATOR_VERSION: Final = "candidate_operator.v1"
_EXHAUSTED: Final = SearchRunDisposition.EXHAUSTED_NO_CANDIDATE
#: operator id -> (where the changed object comes from, direction), in canonical order.
OPERATORS: Final = {
    "unary_delta.increase_state_object": ("state_object", "increase"),
    "unary_delta.decrease_state_object": ("state_object", "decrease"),
    "unary_delta.increase_next_word": ("next_word", "increase"),
}


@dataclass(frozen=True, slots=True)
class Candidate:
    """One completed binding: ``start`` then ``direction`` by ``delta`` gives ``result``."""

    operator_id: str
    changed_object: str
    direction: str
    start: int
    delta: int
    result: int
    evidence_spans: tuple[SourceSpan, ...]

    def digest(self) -> str:
        """The candidate's content identity (spans excluded: they are the attempt's)."""
        return digest(
            {
                "operator_id": self.operator_id,
                "changed_object": self.changed_object,
                "direction": self.direction,
                "start": self.start,
                "delta": self.delta,
                "result": self.result,
            }
        )


def propose(frame: ProblemFrameProjection, operator_id: str) -> Candidate | None:
    """The candidate ``operator_id`` proposes for ``frame``, or None when it cannot apply."""
    r = read_change(frame)
    if operator_id not in OPERATORS or r.start_quantity is None or r.state_object is None:
        return None
    if len(r.delta_quantities) != 1 or not r.after_delta:
        return None
    source, direction = OPERATORS[operator_id]
    changed = r.state_object if source == "state_object" else r.after_delta[0]
    start, delta = int(r.start_quantity.text), int(r.delta_quantities[0].text)
    result = start + delta if direction == "increase" else start - delta
    evidence = (r.delta_quantities[0], r.after_delta[0])
    return Candidate(operator_id, changed.text, direction, start, delta, result, evidence)


def attempt_payload(attempt: CandidateAttempt, *, blank_id: bool = False) -> dict[str, object]:
    """The 13-key attempt object of ADR-0228 §10 (``attempt_id`` blanked on request)."""
    a = attempt
    return {
        "attempt_id": "" if blank_id else a.attempt_id,
        "attempt_index": a.attempt_index,
        "parent_attempt_id": a.parent_attempt_id,
        "operator_id": a.operator_id,
        "operator_version": a.operator_version,
        "input_digest": a.input_digest,
        "candidate_digest": a.candidate_digest,
        "budget_charge": {"candidates": a.budget_charge.candidates, "steps": a.budget_charge.steps},
        "depth": a.depth,
        "step_index": a.step_index,
        "replay_status": a.replay_status,
        "replay_blockers": list(a.replay_blockers),
        "evidence_spans": spans(a.evidence_spans),
    }


def attempt_id(attempt: CandidateAttempt) -> str:
    """Recompute ``attempt_id`` (13 keys, own key blanked)."""
    return digest(attempt_payload(attempt, blank_id=True))


def run_input_digest(
    frame_digest: str,
    assessment_id: str,
    gate: SearchGateDecision,
    budget: ComputeBudgetDecision,
) -> str:
    """The run's input digest over frame, assessment, gate, budget, operator set and versions."""
    return digest(
        {
            "problem_frame_digest": frame_digest,
            "contract_assessment_id": assessment_id,
            "residual_ids": list(gate.residual_ids),
            "gate_decision_id": gate.decision_id,
            "gate_policy_version": gate.policy_version,
            "gate_input_digest": gate.input_digest,
            "budget_id": budget.budget_id,
            "budget_policy_version": budget.policy_version,
            "operator_set_id": OPERATOR_SET_ID,
            "operator_set_version": OPERATOR_SET_VERSION,
            "run_policy_version": GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
            "schema_version": GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
        }
    )


def run_id(run: GeometricSearchRun) -> str:
    """Recompute ``run_id`` (own key blanked; every attempt embedded in run order)."""
    payload = {name: getattr(run, name) for name in run.__dataclass_fields__}
    del payload["explanation"]
    payload["run_id"] = ""
    payload["candidate_attempts"] = [attempt_payload(a) for a in run.candidate_attempts]
    payload["budget_consumed"] = dataclasses.asdict(run.budget_consumed)
    return digest(payload)


def refusal_outcome_id(refusal: SearchRunRefusal) -> str:
    """Recompute a SearchRunRefusal's ``outcome_id`` (own key blanked)."""
    payload = {name: getattr(refusal, name) for name in refusal.__dataclass_fields__}
    del payload["explanation"]
    payload["outcome_id"] = ""
    return digest(payload)


def _refuse(
    gate: SearchGateDecision, budget: ComputeBudgetDecision, input_digest: str
) -> SearchRunRefusal:
    by_gate = gate.status != "eligible"
    refusal = SearchRunRefusal(
        "",
        GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
        input_digest,
        gate.decision_id,
        budget.budget_id,
        SearchRunDisposition.BLOCKED_BY_GATE if by_gate else SearchRunDisposition.BLOCKED_BY_BUDGET,
        ("gate_not_eligible",) if by_gate else ("budget_not_allowed",),
        "Search did not run: " + ("the gate is not eligible." if by_gate else "no budget."),
    )
    return dataclasses.replace(refusal, outcome_id=refusal_outcome_id(refusal))


def search(
    frame: ProblemFrameProjection,
    assessment: ContractAssessmentProjection,
    gate: SearchGateDecision,
    budget: ComputeBudgetDecision,
) -> GeometricSearchRun | SearchRunRefusal:
    """Run the operator set under ``budget``, or refuse when the gate or budget forbid it."""
    input_digest = run_input_digest(frame.frame_digest, assessment.assessment_id, gate, budget)
    if gate.status != "eligible" or budget.status != "budget_allowed":
        return _refuse(gate, budget, input_digest)
    attempts: list[CandidateAttempt] = []
    exhaustion = RunExhaustionCode.OPERATOR_SPACE_DEPLETED
    for operator_id in OPERATORS:
        candidate = propose(frame, operator_id)
        if candidate is None:
            continue
        if len(attempts) >= budget.max_candidates or len(attempts) >= budget.max_steps:
            exhaustion = RunExhaustionCode.MAX_CANDIDATES_REACHED
            break
        attempt = CandidateAttempt(
            "",
            len(attempts),
            None,
            operator_id,
            OPERATOR_VERSION,
            input_digest,
            candidate.digest(),
            BudgetCharge(candidates=1, steps=1),
            1,
            len(attempts),
            CandidateReplayStatus.REPLAY_PENDING,
            (),
            candidate.evidence_spans,
            f"{operator_id}: {candidate.start} {candidate.direction} by {candidate.delta} "
            f"{candidate.changed_object}.",
        )
        attempts.append(dataclasses.replace(attempt, attempt_id=attempt_id(attempt)))
    n = len(attempts)
    run = GeometricSearchRun(
        "",
        GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
        GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
        frame.frame_digest,
        assessment.assessment_id,
        gate.residual_ids,
        gate.decision_id,
        budget.budget_id,
        OPERATOR_SET_ID,
        OPERATOR_SET_VERSION,
        input_digest,
        tuple(attempts),
        BudgetConsumed(
            n,
            budget.max_candidates,
            1 if n else 0,
            budget.max_depth,
            n,
            budget.max_steps,
            1 if n else 0,
            budget.max_parallelism,
            exhaustion is not RunExhaustionCode.OPERATOR_SPACE_DEPLETED,
        ),
        SearchRunDisposition.CANDIDATE_REPLAY_PENDING if n else _EXHAUSTED,
        exhaustion,
        f"Search run: {n} candidate attempt(s), {exhaustion.value}.",
    )
    return dataclasses.replace(run, run_id=run_id(run))
