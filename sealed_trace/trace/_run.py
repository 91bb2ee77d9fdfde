"""ADR-0230 §6.1 items 6, 7 and 9: the search run (or its lawful refusal) reproduces and
binds to the episode's records, and its attempts reproduce in canonical order
(sealing-policy §3, §9, §11).
"""

from __future__ import annotations

from sealed_trace._reader import Problems
from sealed_trace.identity import canonical_json, digest_of_canonical, with_leading_key
from sealed_trace.trace._chain import reproduces
from sealed_trace.trace._copies import Copies
from sealed_trace.upstream.budget import ComputeBudgetStatus
from sealed_trace.upstream.gate import SearchGateStatus
from sealed_trace.upstream.run import (
    GeometricSearchRun,
    SearchRunDisposition,
    attempt_payload,
    run_input_digest_of,
    run_json,
    run_refusal_outcome_id,
)

__all__ = [
    "run_attempts_are_in_order",
    "run_binds_to_records",
    "run_is_authorized",
    "run_refusal_binds_to_records",
    "run_reproduces",
]

_WHERE = "geometric_search_run.candidate_attempts[{}]"


def run_reproduces(c: Copies, p: Problems) -> None:
    """Items 6, 7: ``run_id`` reproduces from the run with every attempt embedded, each
    embedded ``attempt_id`` reproduces (ADR-0228 §10), and the run's ``input_digest`` from
    the run, gate and budget (when both are supplied)."""
    run, gate, budget = c.run, c.gate, c.budget
    if run is None:
        return
    # Each attempt is encoded once, blanked, for its attempt_id; the run_id payload embeds
    # the same text with the real id spliced in (the bytes hashed are unchanged, ADR §12).
    attempts = run.candidate_attempts
    blanked = _blanked(run)
    embedded = [
        with_leading_key(text, "attempt_id", attempt.attempt_id)
        for text, attempt in zip(blanked, attempts, strict=True)
    ]
    actual = digest_of_canonical(run_json(run, embedded))
    reproduces(p, run.run_id, actual, "run_id_mismatch", "geometric_search_run.run_id")
    if gate is not None and budget is not None:
        actual = run_input_digest_of(
            run,
            gate_policy_version=gate.policy_version,
            gate_input_digest=gate.input_digest,
            budget_policy_version=budget.policy_version,
            checked=False,
        )
        where = "geometric_search_run.input_digest"
        reproduces(p, run.input_digest, actual, "run_input_digest_mismatch", where)
    for index, (text, attempt) in enumerate(zip(blanked, attempts, strict=True)):
        where = f"{_WHERE.format(index)}.attempt_id"
        actual = digest_of_canonical(text)
        reproduces(p, attempt.attempt_id, actual, "attempt_id_mismatch", where)


def _blanked(run: GeometricSearchRun) -> list[str]:
    """Each attempt's canonical payload with its own id blanked (ADR-0228 §10)."""
    return [
        canonical_json(attempt_payload(attempt, blank_id=True), checked=False)
        for attempt in run.candidate_attempts
    ]


def run_is_authorized(c: Copies, p: Problems) -> None:
    """Item 9 (sealing-policy §3, §11): a GeometricSearchRun needs an eligible gate and an
    allowed budget. A supplied gate that is not eligible, or budget that is not allowed, is
    the root cause even when the other record is absent."""
    if c.run is None:
        return
    blocked_gate = c.gate is not None and c.gate.status is not SearchGateStatus.ELIGIBLE
    blocked_budget = (
        c.budget is not None and c.budget.status is not ComputeBudgetStatus.BUDGET_ALLOWED
    )
    if blocked_gate or blocked_budget:
        p.add("run_not_authorized", "a run exists without an eligible gate and an allowed budget")


def run_binds_to_records(c: Copies, p: Problems) -> None:
    """Items 6, 9: the run names the supplied frame, assessment, gate, budget and the gate's
    residual ids. A binding whose other record is absent is not judged (sealing-policy §9):
    with no gate, neither ``gate_decision_id`` nor ``residual_ids`` is. A run with no
    attempts is ``exhausted_no_candidate``."""
    run = c.run
    if run is None:
        return
    pairs = (
        ("problem_frame_digest", run.problem_frame_digest, c.frame and c.frame.frame_digest),
        (
            "contract_assessment_id",
            run.contract_assessment_id,
            c.assessment and c.assessment.assessment_id,
        ),
        ("residual_ids", run.residual_ids, c.gate and c.gate.residual_ids),
        ("gate_decision_id", run.gate_decision_id, c.gate and c.gate.decision_id),
        ("budget_id", run.budget_id, c.budget and c.budget.budget_id),
    )
    for name, have, want in pairs:
        if want is not None and have != want:
            p.add("run_binding_mismatch", f"the run's {name} is not the record's")
    if not run.candidate_attempts and (
        run.run_disposition is not SearchRunDisposition.EXHAUSTED_NO_CANDIDATE
    ):
        p.add(
            "run_without_attempts_not_exhausted",
            f"a run with no attempts is {run.run_disposition.value}",
        )


def run_attempts_are_in_order(c: Copies, p: Problems) -> None:
    """Items 7, 9: each embedded attempt's ``attempt_index`` is its position, its
    ``input_digest`` is the run's, ids are unique, and a parent is an earlier attempt."""
    run = c.run
    if run is None:
        return
    seen: set[str] = set()
    for index, attempt in enumerate(run.candidate_attempts):
        where = _WHERE.format(index)
        if attempt.attempt_index != index:
            p.add("attempt_order_violation", f"{where}.attempt_index is {attempt.attempt_index}")
        if attempt.input_digest != run.input_digest:
            p.add("attempt_input_digest_mismatch", f"{where}.input_digest is not the run's")
        if attempt.parent_attempt_id is not None and attempt.parent_attempt_id not in seen:
            p.add(
                "orphan_parent_attempt",
                f"{where}.parent_attempt_id names no earlier attempt of this run",
            )
        if attempt.attempt_id in seen:
            p.add("duplicate_attempt_id", f"{where}.attempt_id repeats an earlier attempt")
        seen.add(attempt.attempt_id)


def run_refusal_binds_to_records(c: Copies, p: Problems) -> None:
    """Item 6, ADR §6.2: a lawful run refusal: its ``outcome_id`` reproduces and it names
    the supplied gate and budget."""
    refusal = c.run_refusal
    if refusal is None:
        return
    actual = run_refusal_outcome_id(refusal, checked=False)
    where = "search_run_refusal.outcome_id"
    reproduces(p, refusal.outcome_id, actual, "run_refusal_outcome_id_mismatch", where)
    if c.gate is not None and refusal.gate_decision_id != c.gate.decision_id:
        p.add(
            "run_refusal_binding_mismatch",
            "search_run_refusal.gate_decision_id is not the gate's id",
        )
    if c.budget is not None and refusal.budget_id != c.budget.budget_id:
        p.add("run_refusal_binding_mismatch", "search_run_refusal.budget_id is not the budget's id")
