"""SearchGateDecision -> ComputeBudgetDecision under the v1 budget table (ADR-0227).

Limits are counts (candidates, depth, steps, parallelism); ``max_wallclock_ms`` is always
None in v1 and never hashed.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from kernel.identity import digest, spans
from kernel.records import (
    COMPUTE_BUDGET_POLICY_VERSION,
    ComputeBudgetDecision,
    ComputeBudgetStatus,
    SearchGateDecision,
)

#: Eligible gate reason -> (budget reason, max candidates, depth, steps, parallelism).
TABLE: Final[dict[str, tuple[str, int, int, int, int]]] = {
    "eligible_missing_role": ("budget_allowed_missing_role", 5, 2, 10, 1),
    "eligible_missing_relation": ("budget_allowed_missing_relation", 5, 2, 10, 1),
    "eligible_missing_proposal": ("budget_allowed_missing_proposal", 3, 1, 5, 1),
    "eligible_target_unbound": ("budget_allowed_target_unbound", 5, 2, 10, 1),
}


def budget_id(budget: ComputeBudgetDecision) -> str:
    """Recompute ``budget_id`` (no self key; ``max_wallclock_ms`` excluded)."""
    b = budget
    return digest(
        {
            "policy_version": b.policy_version,
            "gate_decision_id": b.gate_decision_id,
            "gate_policy_version": b.gate_policy_version,
            "gate_input_digest": b.gate_input_digest,
            "status": b.status,
            "reason_code": b.reason_code,
            "max_candidates": b.max_candidates,
            "max_depth": b.max_depth,
            "max_steps": b.max_steps,
            "max_parallelism": b.max_parallelism,
            "evidence_spans": spans(b.evidence_spans),
        }
    )


_NO_LIMITS: Final = (0, 0, 0, 0)
_GATE_FIELDS: Final = (
    ("decision_id", "budget_unassessable_missing_gate_decision_id"),
    ("policy_version", "budget_unassessable_missing_gate_policy_version"),
    ("input_digest", "budget_unassessable_missing_gate_input_digest"),
)


def _policy(gate: SearchGateDecision) -> tuple[ComputeBudgetStatus, str, tuple[int, ...]]:
    for name, reason in _GATE_FIELDS:
        value = getattr(gate, name)
        if not isinstance(value, str) or not value.strip():
            return ComputeBudgetStatus.BUDGET_UNASSESSABLE, reason, _NO_LIMITS
    if gate.status != "eligible":  # str enums compare by value
        return ComputeBudgetStatus.BUDGET_BLOCKED, "budget_blocked_gate_not_eligible", _NO_LIMITS
    row = TABLE.get(gate.reason_code)
    if row is None:
        unknown = "budget_unassessable_unknown_gate_reason"
        return ComputeBudgetStatus.BUDGET_UNASSESSABLE, unknown, _NO_LIMITS
    reason, *limits = row
    return ComputeBudgetStatus.BUDGET_ALLOWED, reason, tuple(limits)


def allocate(gate: SearchGateDecision) -> ComputeBudgetDecision:
    """One v1 budget for ``gate``: allowed only for an eligible gate with a known reason."""
    status, reason, (candidates, depth, steps, parallelism) = _policy(gate)
    budget = ComputeBudgetDecision(
        "",
        COMPUTE_BUDGET_POLICY_VERSION,
        gate.decision_id,
        gate.policy_version,
        gate.input_digest,
        status,
        reason,
        candidates,
        depth,
        steps,
        None,
        parallelism,
        gate.evidence_spans,
        f"Compute budget: {status.value} ({reason}).",
    )
    return dataclasses.replace(budget, budget_id=budget_id(budget))
