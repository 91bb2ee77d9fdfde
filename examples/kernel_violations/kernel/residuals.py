"""Refused assessment -> ContractResidual records (ADR-0225 projection, a label-table subset).

Codes are ``missing_bindings`` then ``unresolved_hazards`` (first occurrence kept), one
residual per code, each carrying the assessment's whole span tuple; the result is sorted by
``residual_id``. A label outside the kernel's table is ``contract_gap_unclassified``.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from kernel.identity import digest, spans
from kernel.records import (
    ContractAssessmentProjection,
    ContractResidual,
    ResidualKind,
    ResidualSourceAxis,
)

_K, _A = ResidualKind, ResidualSourceAxis
#: The labels the kernel's organs can emit, with their ADR-0225 kind and axis.
LABELS: Final = {
    "unary_delta_proposal_required": (_K.MISSING_PROPOSAL, _A.PROPOSAL),
    "local_binding_relation_unbound": (_K.MISSING_RELATION, _A.RELATION),
    "state_entity_unbound": (_K.MISSING_ROLE, _A.ROLE),
    "action_cue_unbound": (_K.MISSING_ROLE, _A.ROLE),
    "delta_quantity_unbound": (_K.MISSING_ROLE, _A.ROLE),
    "changed_object_unbound": (_K.MISSING_ROLE, _A.ROLE),
    "direction_unbound": (_K.MISSING_ROLE, _A.ROLE),
    "delta_quantity_ambiguous": (_K.AMBIGUOUS_ROLE, _A.ROLE),
    "pronoun_antecedent_unresolved": (_K.NONLOCAL_BINDING, _A.LOCALITY),
    "passive_voice_unsupported": (_K.UNSUPPORTED_TOPOLOGY, _A.TOPOLOGY),
    "multiple_actor_surface": (_K.UNSUPPORTED_TOPOLOGY, _A.TOPOLOGY),
    "state_entity_continuity_unproven": (_K.HAZARD_BLOCKED, _A.HAZARD),
    "grounded_question_target": (_K.TARGET_UNBOUND, _A.TARGET),
}
FAMILY_BY_ORGAN: Final = {"unary_delta_transition": "state_change.unary_delta"}


def residual_id(residual: ContractResidual) -> str:
    """Recompute ``residual_id`` over organ, kind, code and spans (no self key)."""
    return digest(
        {
            "candidate_organ": residual.candidate_organ,
            "residual_kind": residual.residual_kind,
            "residual_code": residual.residual_code,
            "evidence_spans": spans(residual.evidence_spans),
        }
    )


def project(assessment: ContractAssessmentProjection) -> tuple[ContractResidual, ...]:
    """Project a refused assessment into residuals sorted by id; a runnable one projects none."""
    if assessment.runnable:
        return ()
    codes = dict.fromkeys((*assessment.missing_bindings, *assessment.unresolved_hazards))
    out = []
    for code in codes:
        kind, axis = LABELS.get(code, (_K.CONTRACT_GAP_UNCLASSIFIED, _A.UNKNOWN))
        residual = ContractResidual(
            "",
            assessment.candidate_organ,
            FAMILY_BY_ORGAN.get(assessment.candidate_organ),
            kind,
            code,
            axis,
            assessment.evidence_spans,
            assessment.explanation,
        )
        out.append(dataclasses.replace(residual, residual_id=residual_id(residual)))
    return tuple(sorted(out, key=lambda r: r.residual_id))
