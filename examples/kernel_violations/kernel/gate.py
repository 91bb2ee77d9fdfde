"""Residuals -> SearchGateDecision under the v1 gate rules (ADR-0226; upstream-records §6)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Final

from kernel.identity import digest, spans
from kernel.records import (
    SEARCH_GATE_POLICY_VERSION,
    ContractResidual,
    SearchGateDecision,
    SearchGateStatus,
)

#: Searchable residual kinds and their reason codes, best first.
ELIGIBLE: Final = {
    "missing_proposal": "eligible_missing_proposal",
    "missing_relation": "eligible_missing_relation",
    "missing_role": "eligible_missing_role",
    "target_unbound": "eligible_target_unbound",
}
#: Blocking residual kinds and their reason codes, best first; unknown kinds block last.
BLOCKED: Final = {
    "hazard_blocked": "blocked_hazard",
    "unit_object_conflict": "blocked_unit_object_conflict",
    "unsupported_topology": "blocked_unsupported_topology",
    "nonlocal_binding": "blocked_nonlocal_binding",
    "inexact_provenance": "blocked_inexact_provenance",
    "ambiguous_relation": "blocked_ambiguous_relation",
    "ambiguous_role": "blocked_ambiguous_role",
    "contract_gap_unclassified": "blocked_unclassified_gap",
}


def gate_input_digest(residuals: Sequence[ContractResidual]) -> str:
    """Digest of the full residual records, in the given (residual-id) order."""
    return digest(
        {
            "residuals": [
                {
                    "residual_id": r.residual_id,
                    "candidate_organ": r.candidate_organ,
                    "family_id": r.family_id,
                    "residual_kind": r.residual_kind,
                    "residual_code": r.residual_code,
                    "source_axis": r.source_axis,
                    "evidence_spans": spans(r.evidence_spans),
                }
                for r in residuals
            ]
        }
    )


def decision_id(gate: SearchGateDecision) -> str:
    """Recompute ``decision_id`` from the gate's own fields (no self key)."""
    return digest(
        {
            "policy_version": gate.policy_version,
            "input_digest": gate.input_digest,
            "residual_ids": list(gate.residual_ids),
            "candidate_organ": gate.candidate_organ,
            "status": gate.status,
            "reason_code": gate.reason_code,
            "evidence_spans": spans(gate.evidence_spans),
        }
    )


def _best(codes: Sequence[str], order: Sequence[str]) -> str:
    return min(codes, key=list(order).index)


def decide(residuals: Sequence[ContractResidual]) -> SearchGateDecision:
    """One v1 gate decision over the residual context of one refused assessment."""
    residuals = sorted(residuals, key=lambda r: r.residual_id)
    kinds = [r.residual_kind for r in residuals]  # str enums: compare and hash by value
    organs = {r.candidate_organ for r in residuals}
    organ = residuals[0].candidate_organ if len(organs) == 1 else None
    if not residuals:
        status, reason = SearchGateStatus.UNASSESSABLE, "unassessable_empty_context"
    elif organ is None:
        status, reason = SearchGateStatus.UNASSESSABLE, "unassessable_mixed_candidate_organs"
    elif all(kind in ELIGIBLE for kind in kinds):
        status = SearchGateStatus.ELIGIBLE
        reason = _best([ELIGIBLE[k] for k in kinds], list(ELIGIBLE.values()))
    else:
        status = SearchGateStatus.BLOCKED
        blocking = [BLOCKED.get(k, "blocked_unclassified_gap") for k in kinds if k not in ELIGIBLE]
        reason = _best(blocking, list(BLOCKED.values()))
    gate = SearchGateDecision(
        "",
        SEARCH_GATE_POLICY_VERSION,
        gate_input_digest(residuals),
        tuple(r.residual_id for r in residuals),
        organ,
        status,
        reason,
        tuple(s for r in residuals for s in r.evidence_spans),
        f"Search gate: {status.value} ({reason}).",
    )
    return dataclasses.replace(gate, decision_id=decision_id(gate))


def seal_gate_only(residuals: Sequence[ContractResidual]) -> object:
    """Seal a gate-only preview. PLANTED VIOLATION: the gate reaches back into the boundary."""
    from . import sealing

    return sealing.seal_episode, decide(residuals)
