"""ADR-0230 §6.1 items 1-5 and 9: the frame, the refused assessment, its residuals, the
gate and the budget reproduce and bind to one another (sealing-policy §3, §9, §11).

Each check takes the typed copies and adds its reason codes; a record that is absent or
malformed skips the checks that need it (its problem was reported when it was read).
"""

from __future__ import annotations

from sealed_trace._reader import Problems
from sealed_trace.trace._copies import Copies
from sealed_trace.upstream.budget import budget_id
from sealed_trace.upstream.frame import contract_assessment_id, problem_frame_digest
from sealed_trace.upstream.gate import gate_decision_id, gate_input_digest
from sealed_trace.upstream.residuals import residual_id

__all__ = [
    "assessment_binds_to_frame",
    "budget_binds_to_gate",
    "frame_digest_reproduces",
    "gate_binds_to_residuals",
    "reproduces",
    "residuals_bind_to_assessment",
]


def reproduces(p: Problems, claimed: str, actual: str, code: str, where: str) -> bool:
    """Compare a claimed id with its recomputation; on a difference add ``code``."""
    if actual == claimed:
        return True
    p.add(code, f"{where} is {claimed}, recomputed {actual}")
    return False


def frame_digest_reproduces(c: Copies, p: Problems) -> None:
    """Item 1: ``problem_frame_digest`` reproduces from the supplied immutable frame."""
    if c.frame is not None:
        actual = problem_frame_digest(c.frame, checked=False)
        reproduces(
            p,
            c.frame.frame_digest,
            actual,
            "problem_frame_digest_mismatch",
            "problem_frame.frame_digest",
        )


def assessment_binds_to_frame(c: Copies, p: Problems) -> None:
    """Item 2: the assessment id reproduces, the assessment is refused (not runnable), and
    it assesses the supplied frame."""
    assessment = c.assessment
    if assessment is None:
        return
    reproduces(
        p,
        assessment.assessment_id,
        contract_assessment_id(assessment, checked=False),
        "contract_assessment_id_mismatch",
        "contract_assessment.assessment_id",
    )
    if assessment.runnable:
        p.add("runnable_contract_assessment", "the original assessment is runnable, not refused")
    if c.frame is not None and assessment.problem_frame_digest != c.frame.frame_digest:
        p.add(
            "assessment_frame_mismatch",
            "contract_assessment.problem_frame_digest is not the frame's digest",
        )


def residuals_bind_to_assessment(c: Copies, p: Problems) -> None:
    """Items 3, 9: every residual id reproduces and binds to the refused assessment (same
    organ and spans, a code of the assessment, codes unique, every code covered, ascending
    ids; sealing-policy §3)."""
    residuals, a = c.residuals, c.assessment
    if residuals is None:
        return
    codes = (*a.missing_bindings, *a.unresolved_hazards) if a is not None else ()
    seen: set[str] = set()
    for index, res in enumerate(residuals):
        where = f"residuals[{index}]"
        actual = residual_id(res, checked=False)
        reproduces(p, res.residual_id, actual, "residual_id_mismatch", f"{where}.residual_id")
        if res.residual_code in seen:
            p.add("duplicate_residual_code", f"{where} repeats {res.residual_code!r}")
        seen.add(res.residual_code)
        if a is not None and (
            res.candidate_organ != a.candidate_organ
            or res.evidence_spans != a.evidence_spans
            or res.residual_code not in codes
        ):
            p.add(
                "residual_assessment_mismatch", f"{where} does not bind to the refused assessment"
            )
    ids = [res.residual_id for res in residuals]
    if any(ids[i] >= ids[i + 1] for i in range(len(ids) - 1)):
        p.add("residual_order_violation", "residuals are not in ascending id order")
    for code in dict.fromkeys(codes):
        if code not in seen:
            p.add("missing_residual", f"no residual for assessment code {code!r}")


def gate_binds_to_residuals(c: Copies, p: Problems) -> None:
    """Items 4, 9: the gate decision id reproduces, and the gate names exactly the residuals,
    in order, with their input digest (a named id with no residual is a missing record; a
    residual the gate does not name is an orphan)."""
    gate, residuals = c.gate, c.residuals
    if gate is None:
        return
    actual = gate_decision_id(gate, checked=False)
    where = "search_gate_decision.decision_id"
    reproduces(p, gate.decision_id, actual, "gate_decision_id_mismatch", where)
    if residuals is None:
        return
    supplied = [res.residual_id for res in residuals]
    named = set(gate.residual_ids)
    for rid in gate.residual_ids:
        if rid not in supplied:
            p.add("missing_residual", f"the gate names residual {rid} that is absent")
    for rid in supplied:
        if rid not in named:
            p.add("orphan_residual", f"residual {rid} is not named by the gate")
    if set(supplied) != named:
        return
    if tuple(supplied) != gate.residual_ids:
        p.add("gate_residual_mismatch", "gate.residual_ids differ from the residuals")
    actual = gate_input_digest(residuals, checked=False)
    where = "search_gate_decision.input_digest"
    reproduces(p, gate.input_digest, actual, "gate_residual_mismatch", where)


def budget_binds_to_gate(c: Copies, p: Problems) -> None:
    """Item 5: the budget id reproduces and the budget binds to the gate decision (its id,
    policy version, input digest and evidence spans are the gate's)."""
    gate, budget = c.gate, c.budget
    if budget is None:
        return
    actual = budget_id(budget, checked=False)
    where = "compute_budget_decision.budget_id"
    reproduces(p, budget.budget_id, actual, "budget_id_mismatch", where)
    if gate is not None and (
        budget.gate_decision_id != gate.decision_id
        or budget.gate_policy_version != gate.policy_version
        or budget.gate_input_digest != gate.input_digest
        or budget.evidence_spans != gate.evidence_spans
    ):
        p.add("budget_gate_mismatch", "the budget's gate fields are not the gate's")
