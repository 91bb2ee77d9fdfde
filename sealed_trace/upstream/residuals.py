"""ContractResidual, the ADR-0225 read model of a refused assessment (upstream-records §5).

``residual_id`` hashes ``candidate_organ``, ``residual_kind`` (value), ``residual_code`` and
``evidence_spans`` (no self key); ``family_id`` and ``source_axis`` are not hashed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from sealed_trace.identity import identity_digest
from sealed_trace.upstream.spans import SourceSpan, spans_payload

__all__ = [
    "FAMILY_BY_ORGAN",
    "LABEL_TABLE",
    "ContractResidual",
    "ResidualKind",
    "ResidualSourceAxis",
    "classify_residual_label",
    "residual_id",
]


class ResidualKind(str, Enum):
    """Closed residual kinds of ADR-0225."""

    MISSING_PROPOSAL = "missing_proposal"
    MISSING_RELATION = "missing_relation"
    MISSING_ROLE = "missing_role"
    AMBIGUOUS_RELATION = "ambiguous_relation"
    AMBIGUOUS_ROLE = "ambiguous_role"
    INEXACT_PROVENANCE = "inexact_provenance"
    NONLOCAL_BINDING = "nonlocal_binding"
    UNSUPPORTED_TOPOLOGY = "unsupported_topology"
    UNIT_OBJECT_CONFLICT = "unit_object_conflict"
    HAZARD_BLOCKED = "hazard_blocked"
    TARGET_UNBOUND = "target_unbound"
    CONTRACT_GAP_UNCLASSIFIED = "contract_gap_unclassified"


class ResidualSourceAxis(str, Enum):
    """Closed residual source axes of ADR-0225."""

    PROPOSAL = "proposal"
    RELATION = "relation"
    ROLE = "role"
    PROVENANCE = "provenance"
    LOCALITY = "locality"
    TOPOLOGY = "topology"
    UNIT_OBJECT = "unit_object"
    HAZARD = "hazard"
    TARGET = "target"
    UNKNOWN = "unknown"


#: Candidate organ -> residual family id; any other organ has family ``None``.
FAMILY_BY_ORGAN: Final[dict[str, str]] = {
    "fraction_decrease": "proportional_change.decrease_to_fraction",
    "percent_partition": "partition.percent_partition",
    "quantity_entity_binding": "binding.quantity_entity",
    "unary_delta_transition": "state_change.unary_delta",
}

_K, _A = ResidualKind, ResidualSourceAxis
_GROUPS: Final[tuple[tuple[ResidualKind, ResidualSourceAxis, tuple[str, ...]], ...]] = (
    (
        _K.MISSING_PROPOSAL,
        _A.PROPOSAL,
        ("quantity_entity_proposal_required", "unary_delta_proposal_required"),
    ),
    (_K.MISSING_RELATION, _A.RELATION, ("local_binding_relation_unbound",)),
    (
        _K.MISSING_ROLE,
        _A.ROLE,
        (
            "quantity_unbound",
            "entity_unbound",
            "quantity_kind_unresolved",
            "base_quantity_unbound",
            "scale_unbound",
            "state_entity_unbound",
            "grounded_partition_subgroup",
            "grounded_whole_entity",
            "original_whole_unbound",
            "action_cue_unbound",
            "delta_quantity_unbound",
            "changed_object_unbound",
            "direction_unbound",
        ),
    ),
    (
        _K.AMBIGUOUS_RELATION,
        _A.RELATION,
        (
            "local_binding_relation_ambiguous",
            "decrease_relation_ambiguous",
            "unary_delta_relation_ambiguous",
        ),
    ),
    (
        _K.AMBIGUOUS_ROLE,
        _A.ROLE,
        (
            "quantity_ambiguous",
            "entity_ambiguous",
            "multiple_original_whole_candidates",
            "delta_quantity_ambiguous",
            "changed_object_ambiguous",
        ),
    ),
    (
        _K.INEXACT_PROVENANCE,
        _A.PROVENANCE,
        ("provenance_span_inexact", "base_quantity_provenance_missing", "scale_provenance_missing"),
    ),
    (
        _K.NONLOCAL_BINDING,
        _A.LOCALITY,
        ("quantity_entity_nonlocal", "pronoun_antecedent_unresolved"),
    ),
    (
        _K.UNSUPPORTED_TOPOLOGY,
        _A.TOPOLOGY,
        (
            "percent_subgroup_links_incomplete",
            "inverse_topology_unlicensed",
            "event_assertion_unlicensed",
            "passive_voice_unsupported",
            "multiple_actor_surface",
        ),
    ),
    (
        _K.UNIT_OBJECT_CONFLICT,
        _A.UNIT_OBJECT,
        ("unit_kind_conflict", "unit_continuity_unproven", "unit_object_conflict"),
    ),
    (
        _K.HAZARD_BLOCKED,
        _A.HAZARD,
        (
            "competing_family_context",
            "percent_change_vs_percent_of",
            "state_entity_continuity_unproven",
            "scale_out_of_range",
            "partition_subgroups_not_distinct",
        ),
    ),
    (
        _K.TARGET_UNBOUND,
        _A.TARGET,
        (
            "delta_decrease_target_unbound",
            "delta_decrease_target_required",
            "grounded_question_target",
            "forward_aggregate_target_required",
        ),
    ),
)

#: Assessment label -> (kind, axis), the 46 labels of ADR-0225.
LABEL_TABLE: Final[dict[str, tuple[ResidualKind, ResidualSourceAxis]]] = {
    label: (kind, axis) for kind, axis, labels in _GROUPS for label in labels
}


def classify_residual_label(label: str) -> tuple[ResidualKind, ResidualSourceAxis]:
    """Return the (kind, axis) of an assessment label; unknown labels are unclassified/unknown."""
    return LABEL_TABLE.get(label, (_K.CONTRACT_GAP_UNCLASSIFIED, _A.UNKNOWN))


@dataclass(frozen=True, slots=True)
class ContractResidual:
    """One residual of a refused ContractAssessment (ADR-0225; upstream-records §5)."""

    residual_id: str
    candidate_organ: str
    family_id: str | None
    residual_kind: ResidualKind
    residual_code: str
    source_axis: ResidualSourceAxis
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


def residual_id(residual: ContractResidual, *, checked: bool = True) -> str:
    """Recompute ``residual_id`` from the residual's hashed fields (no self key)."""
    return identity_digest(
        {
            "candidate_organ": residual.candidate_organ,
            "residual_kind": residual.residual_kind.value,
            "residual_code": residual.residual_code,
            "evidence_spans": spans_payload(residual.evidence_spans),
        },
        checked=checked,
    )
