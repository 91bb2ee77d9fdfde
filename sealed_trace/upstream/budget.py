"""ComputeBudgetDecision, the ADR-0227 compute envelope (upstream-records §7).

``budget_id`` hashes ``policy_version``, the three gate copies, ``status``, ``reason_code``, the
four limits and ``evidence_spans`` (no self key); ``max_wallclock_ms`` is never hashed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from sealed_trace.identity import identity_digest
from sealed_trace.upstream.spans import SourceSpan, spans_payload

__all__ = [
    "COMPUTE_BUDGET_POLICY_VERSION",
    "ComputeBudgetDecision",
    "ComputeBudgetStatus",
    "budget_id",
]

COMPUTE_BUDGET_POLICY_VERSION: Final = "compute_budget.v1"


class ComputeBudgetStatus(str, Enum):
    """Closed budget statuses (``budget_zero`` is declared but never produced in v1)."""

    BUDGET_ALLOWED = "budget_allowed"
    BUDGET_BLOCKED = "budget_blocked"
    BUDGET_ZERO = "budget_zero"
    BUDGET_UNASSESSABLE = "budget_unassessable"


@dataclass(frozen=True, slots=True)
class ComputeBudgetDecision:
    """One compute budget allocated against one gate decision (limits are counts, not time)."""

    budget_id: str
    policy_version: str
    gate_decision_id: str
    gate_policy_version: str
    gate_input_digest: str
    status: ComputeBudgetStatus
    reason_code: str
    max_candidates: int
    max_depth: int
    max_steps: int
    max_wallclock_ms: int | None
    max_parallelism: int
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


def budget_id(budget: ComputeBudgetDecision, *, checked: bool = True) -> str:
    """Recompute ``budget_id`` from the budget's hashed fields."""
    return identity_digest(
        {
            "policy_version": budget.policy_version,
            "gate_decision_id": budget.gate_decision_id,
            "gate_policy_version": budget.gate_policy_version,
            "gate_input_digest": budget.gate_input_digest,
            "status": budget.status.value,
            "reason_code": budget.reason_code,
            "max_candidates": budget.max_candidates,
            "max_depth": budget.max_depth,
            "max_steps": budget.max_steps,
            "max_parallelism": budget.max_parallelism,
            "evidence_spans": spans_payload(budget.evidence_spans),
        },
        checked=checked,
    )
