"""Names the plugin's parametrized fixtures need at import time, kept light on purpose.

Importing the sealing core costs tens of milliseconds, so the plugin does not import it until
a fixture is used. ``tests/plugin`` checks these lists against :mod:`sealed_trace.builder`.
"""

SEALED_DISPOSITION_NAMES = (
    "sealed_original_refusal",
    "sealed_exhausted_no_candidate",
    "sealed_all_candidates_refused",
    "sealed_replay_unavailable",
    "sealed_contract_closed_proof_refused",
    "sealed_candidate_replay_closed",
)

TAMPER_NAMES = (
    "attempts_out_of_order",
    "duplicate_replay_record",
    "forged_run_id",
    "inexact_evidence_span",
    "missing_budget",
    "missing_replay_record",
    "orphan_replay_result",
    "residual_from_another_assessment",
    "unsupported_trace_policy",
)

#: The sealed dispositions a bound episode (ADR-0233) can have.
BOUND_DISPOSITION_NAMES = (
    "sealed_all_candidates_refused",
    "sealed_replay_unavailable",
    "sealed_contract_closed_proof_refused",
    "sealed_candidate_replay_closed",
)

#: The tampers of a bound episode, one per rule of sealing-policy §10.
BOUND_TAMPER_NAMES = (
    "bound_attempt_index_decreasing",
    "bound_binding_count_mismatch",
    "bound_binding_names_another_run",
    "bound_bindings_swapped",
    "bound_duplicate_replay_record",
    "bound_forged_binding_id",
    "bound_forged_candidate_digest",
    "bound_forged_operator_result_id",
    "bound_inexact_evidence_span",
    "bound_missing_replay_record",
    "bound_run_with_attempts",
    "bound_unsupported_binding_policy",
)
