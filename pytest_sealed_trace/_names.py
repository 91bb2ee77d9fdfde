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
