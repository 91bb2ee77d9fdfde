"""SearchGateDecision, the ADR-0226 search-eligibility record (upstream-records §6).

``input_digest`` hashes ``{"residuals": [...]}`` (each residual's 7 identity keys, residual-id
order); ``decision_id`` hashes ``policy_version``, ``input_digest``, ``residual_ids``,
``candidate_organ``, ``status``, ``reason_code`` and ``evidence_spans``. Neither has a self key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from sealed_trace.identity import identity_digest
from sealed_trace.upstream.residuals import ContractResidual
from sealed_trace.upstream.spans import SourceSpan, spans_payload

__all__ = [
    "SEARCH_GATE_POLICY_VERSION",
    "SearchGateDecision",
    "SearchGateStatus",
    "gate_decision_id",
    "gate_input_digest",
]

SEARCH_GATE_POLICY_VERSION: Final = "search_gate.v1"


class SearchGateStatus(str, Enum):
    """Closed gate statuses (``ineligible`` is declared but unreachable in v1)."""

    ELIGIBLE = "eligible"
    INELIGIBLE = "ineligible"
    BLOCKED = "blocked"
    UNASSESSABLE = "unassessable"


@dataclass(frozen=True, slots=True)
class SearchGateDecision:
    """One gate decision over the residual context of a refused assessment."""

    decision_id: str
    policy_version: str
    input_digest: str
    residual_ids: tuple[str, ...]
    candidate_organ: str | None
    status: SearchGateStatus
    reason_code: str
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


def gate_input_digest(residuals: Sequence[ContractResidual], *, checked: bool = True) -> str:
    """Recompute a gate's ``input_digest`` from the full residual records, in the given order."""
    return identity_digest(
        {
            "residuals": [
                {
                    "residual_id": r.residual_id,
                    "candidate_organ": r.candidate_organ,
                    "family_id": r.family_id,
                    "residual_kind": r.residual_kind.value,
                    "residual_code": r.residual_code,
                    "source_axis": r.source_axis.value,
                    "evidence_spans": spans_payload(r.evidence_spans),
                }
                for r in residuals
            ]
        },
        checked=checked,
    )


def gate_decision_id(gate: SearchGateDecision, *, checked: bool = True) -> str:
    """Recompute ``decision_id`` from the gate's own hashed fields."""
    return identity_digest(
        {
            "policy_version": gate.policy_version,
            "input_digest": gate.input_digest,
            "residual_ids": list(gate.residual_ids),
            "candidate_organ": gate.candidate_organ,
            "status": gate.status.value,
            "reason_code": gate.reason_code,
            "evidence_spans": spans_payload(gate.evidence_spans),
        },
        checked=checked,
    )
