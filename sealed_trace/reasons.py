"""Stable reason codes of PracticeTraceRefusal (ADR-0230 §13, §16; sealing-policy §6).

Every failed check adds one code from :data:`REASON_CODES`; codes are de-duplicated in check
order, and the refusal's ``practice_disposition`` is the first family that applies in the order
``trace_policy_unsupported``, ``trace_invalid_input``, ``trace_identity_mismatch``,
``trace_upstream_incomplete``. This table is a static policy manifest: it never changes meaning
within ``sealed_practice_trace.v1``; ``docs/reason-codes.md`` is generated from it.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "DISPOSITION_MEANINGS",
    "FAMILY_ORDER",
    "INCOMPLETE",
    "INVALID",
    "MISMATCH",
    "POLICY",
    "REASON_CODES",
]

POLICY: Final = "trace_policy_unsupported"
INVALID: Final = "trace_invalid_input"
MISMATCH: Final = "trace_identity_mismatch"
INCOMPLETE: Final = "trace_upstream_incomplete"

#: Refusal dispositions in precedence order (sealing-policy §6).
FAMILY_ORDER: Final = (POLICY, INVALID, MISMATCH, INCOMPLETE)


def _r(family: str, meaning: str) -> tuple[str, str]:
    return (family, meaning)


#: code -> (refusal disposition it implies, what it means)
REASON_CODES: Final[dict[str, tuple[str, str]]] = {
    # --- trace_policy_unsupported ---
    "unsupported_trace_policy_version": _r(
        POLICY, "The episode's trace_policy_version is not sealed_practice_trace.v1."
    ),
    "unsupported_record_version": _r(
        POLICY,
        "A record carries a policy or schema version outside the supported manifest "
        "(gate/budget policy_version, run_policy_version, schema_version, "
        "replay_policy_version, frame_schema_version).",
    ),
    "unsupported_version_entry": _r(
        POLICY,
        "schema_versions or policy_versions (the episode's, or a claimed trace input's) "
        "holds a version outside the supported manifest: under a known name, an unknown one, "
        "or an entry the episode does not use.",
    ),
    # --- trace_invalid_input ---
    "invalid_trace_input_type": _r(
        INVALID, "The episode is not a practice episode: it has none of the episode fields."
    ),
    "missing_episode_field": _r(
        INVALID,
        "A required episode field is absent: trace_policy_version, residuals, "
        "replay_results, replay_refusals, schema_versions or policy_versions.",
    ),
    "malformed_trace_policy_version": _r(
        INVALID, "trace_policy_version is not a non-empty string."
    ),
    "malformed_problem_frame": _r(
        INVALID,
        "The ProblemFrame projection has a missing or wrongly typed field, a "
        "malformed digest, or facts that are not float-free JSON or hold more than "
        "100 000 values.",
    ),
    "malformed_contract_assessment": _r(
        INVALID,
        "The ContractAssessment projection has a missing or wrongly typed field or a malformed id.",
    ),
    "malformed_residual": _r(
        INVALID,
        "A ContractResidual has a missing or wrongly typed field, an unknown enum "
        "value or a malformed id; or residuals is not a tuple of records.",
    ),
    "malformed_search_gate_decision": _r(
        INVALID,
        "The SearchGateDecision has a missing or wrongly typed field, an unknown "
        "status or a malformed id.",
    ),
    "malformed_compute_budget_decision": _r(
        INVALID,
        "The ComputeBudgetDecision has a missing or wrongly typed field, an unknown "
        "status, a bool where an int belongs, or a malformed id.",
    ),
    "malformed_geometric_search_run": _r(
        INVALID,
        "The GeometricSearchRun has a missing or wrongly typed field, an unknown "
        "enum value or a malformed id.",
    ),
    "malformed_candidate_attempt": _r(
        INVALID,
        "A CandidateAttempt has a missing or wrongly typed field, an unknown enum "
        "value or a malformed id.",
    ),
    "malformed_search_run_refusal": _r(
        INVALID,
        "The SearchRunRefusal has a missing or wrongly typed field, an unknown "
        "disposition or a malformed id.",
    ),
    "malformed_replay_result": _r(
        INVALID,
        "A ReplayAdapterResult has a missing or wrongly typed field, an unknown "
        "disposition or a malformed id; or replay_results is not a tuple of records.",
    ),
    "malformed_replay_refusal": _r(
        INVALID,
        "A ReplayAdapterRefusal has a missing or wrongly typed field, an unknown "
        "reason or a malformed id; or replay_refusals is not a tuple of records.",
    ),
    "malformed_evidence_span": _r(
        INVALID,
        "An evidence span is not well formed: text not a str, start/end not ints "
        "(bools rejected), sentence_index not an int or null, or not 0 <= start <= end; or a "
        "span collection is not a tuple.",
    ),
    "inexact_evidence_span": _r(
        INVALID,
        "A span the trace copies is not exact: it must satisfy "
        "0 <= start < end <= len(problem_text) and problem_text[start:end] == text.",
    ),
    "malformed_version_list": _r(
        INVALID,
        "schema_versions or policy_versions is not a tuple of (name, version) "
        "string pairs, or holds an empty string.",
    ),
    "missing_version_entry": _r(
        INVALID, "schema_versions or policy_versions lacks an entry the episode requires."
    ),
    "unexpected_version_entry": _r(
        INVALID, "schema_versions or policy_versions holds an entry the episode does not use."
    ),
    "duplicate_version_entry": _r(
        INVALID, "schema_versions or policy_versions names one entry twice."
    ),
    "unordered_version_entries": _r(
        INVALID, "schema_versions or policy_versions is not in ascending name order."
    ),
    "both_run_kinds_present": _r(
        INVALID, "The episode holds both a GeometricSearchRun and a SearchRunRefusal."
    ),
    "runnable_contract_assessment": _r(
        INVALID,
        "The original ContractAssessment is runnable; only a refused assessment "
        "starts a practice episode.",
    ),
    "duplicate_replay_record": _r(
        INVALID, "Two replay records (results and/or refusals) name the same attempt."
    ),
    "malformed_trace_input": _r(
        INVALID, "The claimed PracticeTraceInput has a missing or wrongly typed field."
    ),
    "malformed_explanation": _r(INVALID, "The explanation passed to the sealer is not a string."),
    "malformed_episode_document": _r(
        INVALID,
        "The episode document is not a valid episode: wrong or missing format, an "
        "unknown key, a duplicate key, a float, NaN/Infinity, an integer beyond the limit, "
        "nesting beyond the limit, or a record that is not an object.",
    ),
    "malformed_candidate_operator_result": _r(
        INVALID,
        "A CandidateOperatorResult (or its CandidateReconstruction) has a missing or wrongly "
        "typed field or a malformed id; or candidate_operator_results is not a tuple of "
        "records.",
    ),
    "malformed_candidate_attempt_run_binding": _r(
        INVALID,
        "A CandidateAttemptRunBinding has a missing or wrongly typed field, an unknown "
        "membership or a malformed id; or candidate_attempt_bindings is not a tuple of "
        "records.",
    ),
    "bound_episode_under_adr_0230": _r(
        INVALID,
        "The episode carries candidate operator results or bindings (ADR-0233) but was sealed "
        "under the adr-0230 identity layout, which has no place for binding ids: seal it "
        "under adr-0233.",
    ),
    "bound_run_not_original": _r(
        INVALID,
        "Next to bindings, the run is not the original run: it embeds attempts of its own, "
        "or the episode holds a SearchRunRefusal.",
    ),
    "sealer_internal_fault": _r(
        INVALID,
        "An input object raised while being read or compared (for example a hostile "
        "__eq__ or property); the episode is refused rather than sealed.",
    ),
    # --- trace_identity_mismatch ---
    "problem_frame_digest_mismatch": _r(
        MISMATCH, "frame_digest does not reproduce from the ProblemFrame projection."
    ),
    "contract_assessment_id_mismatch": _r(
        MISMATCH, "assessment_id does not reproduce from the ContractAssessment projection."
    ),
    "assessment_frame_mismatch": _r(
        MISMATCH, "The assessment's problem_frame_digest is not the supplied frame's digest."
    ),
    "residual_id_mismatch": _r(MISMATCH, "A residual_id does not reproduce from its residual."),
    "residual_assessment_mismatch": _r(
        MISMATCH,
        "A residual does not bind to the refused assessment: different organ or "
        "evidence spans, or a code the assessment does not carry.",
    ),
    "duplicate_residual_code": _r(MISMATCH, "Two residuals carry the same residual_code."),
    "residual_order_violation": _r(MISMATCH, "Residuals are not in ascending residual_id order."),
    "orphan_residual": _r(MISMATCH, "A supplied residual is not named by the gate's residual_ids."),
    "gate_residual_mismatch": _r(
        MISMATCH, "The gate's residual_ids or input_digest does not match the residual records."
    ),
    "gate_decision_id_mismatch": _r(MISMATCH, "The gate's decision_id does not reproduce."),
    "budget_id_mismatch": _r(MISMATCH, "The budget's budget_id does not reproduce."),
    "budget_gate_mismatch": _r(
        MISMATCH,
        "The budget does not bind to the gate (gate_decision_id, "
        "gate_policy_version, gate_input_digest or evidence_spans differ).",
    ),
    "run_input_digest_mismatch": _r(
        MISMATCH, "The run's input_digest does not reproduce from the run, gate and budget."
    ),
    "run_id_mismatch": _r(MISMATCH, "The run's run_id does not reproduce."),
    "run_binding_mismatch": _r(
        MISMATCH, "The run does not bind to the frame, assessment, residuals, gate or budget."
    ),
    "run_not_authorized": _r(
        MISMATCH, "A GeometricSearchRun exists without an eligible gate and an allowed budget."
    ),
    "run_without_attempts_not_exhausted": _r(
        MISMATCH, "A run with no attempts is not exhausted_no_candidate."
    ),
    "run_refusal_outcome_id_mismatch": _r(
        MISMATCH, "The SearchRunRefusal's outcome_id does not reproduce."
    ),
    "run_refusal_binding_mismatch": _r(
        MISMATCH, "The SearchRunRefusal's gate_decision_id or budget_id is not the records' id."
    ),
    "attempt_id_mismatch": _r(MISMATCH, "An attempt_id does not reproduce (ADR-0228 §10)."),
    "attempt_order_violation": _r(
        MISMATCH,
        "An attempt's attempt_index is not its position in the run (in a bound episode: "
        "attempt_index decreases in binding order).",
    ),
    "attempt_input_digest_mismatch": _r(
        MISMATCH, "An attempt's input_digest is not the run's input_digest."
    ),
    "duplicate_attempt_id": _r(MISMATCH, "Two attempts of the run carry the same attempt_id."),
    "orphan_parent_attempt": _r(
        MISMATCH, "A parent_attempt_id is not the id of an earlier attempt of the same run."
    ),
    "replay_result_id_mismatch": _r(MISMATCH, "A replay_result_id does not reproduce."),
    "replay_refusal_id_mismatch": _r(MISMATCH, "A replay_refusal_id does not reproduce."),
    "orphan_replay_result": _r(
        MISMATCH,
        "A replay result does not bind to the run, one of its attempts and that "
        "attempt's candidate_digest (or sits next to a run refusal).",
    ),
    "orphan_replay_refusal": _r(
        MISMATCH,
        "A replay refusal does not bind to the run, one of its attempts and that "
        "attempt's candidate_digest (or sits next to a run refusal).",
    ),
    "bound_record_count_mismatch": _r(
        MISMATCH, "A bound episode holds unequal numbers of operator results and bindings."
    ),
    "candidate_digest_mismatch": _r(
        MISMATCH,
        "A CandidateReconstruction's candidate_digest does not reproduce from its frame "
        "digest, organ, payload and spans (ADR-0231).",
    ),
    "operator_result_id_mismatch": _r(
        MISMATCH, "A CandidateOperatorResult's operator_result_id does not reproduce (ADR-0231)."
    ),
    "candidate_attempt_ref_mismatch": _r(
        MISMATCH,
        "A binding's candidate_attempt_ref does not reproduce from the bound attempt (ADR-0232).",
    ),
    "binding_id_mismatch": _r(
        MISMATCH, "A CandidateAttemptRunBinding's binding_id does not reproduce (ADR-0232)."
    ),
    "operator_result_mismatch": _r(
        MISMATCH,
        "An operator result, its attempt and its reconstruction disagree (candidate digest, "
        "input digest, operator name or version), the attempt is not replay_pending with no "
        "blockers, or the result does not name the run, the frame, the assessment, one of "
        "the run's residuals or the run's operator set.",
    ),
    "binding_mismatch": _r(
        MISMATCH,
        "A binding does not hold: it does not name the run or its paired operator result, "
        "does not carry that result's attempt id, index, digests or the attempt's budget "
        "charge, depth and step index, is not structurally_bound with empty reason codes, or "
        "its spans (or the result's, or the reconstruction's) are not the attempt's.",
    ),
    "duplicate_bound_record": _r(
        MISMATCH, "Two bound attempts share a binding id, an attempt id or a candidate digest."
    ),
    "version_entry_mismatch": _r(
        MISMATCH,
        "A schema_versions or policy_versions entry differs from the version its records carry.",
    ),
    "trace_input_mismatch": _r(
        MISMATCH, "The claimed PracticeTraceInput differs from the one built from the records."
    ),
    # --- trace_upstream_incomplete ---
    "missing_problem_frame": _r(INCOMPLETE, "The episode has no ProblemFrame projection."),
    "missing_contract_assessment": _r(
        INCOMPLETE, "The episode has no original ContractAssessment."
    ),
    "missing_residual": _r(
        INCOMPLETE, "A residual is missing for an assessment code or for an id the gate names."
    ),
    "missing_search_gate_decision": _r(INCOMPLETE, "The episode has no SearchGateDecision."),
    "missing_compute_budget_decision": _r(INCOMPLETE, "The episode has no ComputeBudgetDecision."),
    "missing_search_run": _r(
        INCOMPLETE, "The episode has neither a GeometricSearchRun nor a SearchRunRefusal."
    ),
    "missing_replay_record": _r(
        INCOMPLETE,
        "An attempt of the run (in a bound episode, a bound attempt) has no replay result or "
        "replay refusal.",
    ),
}


_REFUSAL_NOT: Final = "A refusal is not a partial sealed trace and not a practice success"

#: What each practice_disposition means and does not mean, one sentence each (ADR-0230 §8.1
#: for the sealed dispositions; §4, §7.2 and §13 for the refusal dispositions).
DISPOSITION_MEANINGS: Final[dict[str, tuple[str, str]]] = {
    "sealed_original_refusal": (
        "The episode never advanced beyond the original refused assessment in a way that "
        "produced candidate exploration or replay evidence; the trace preserves the original "
        "refusal posture.",
        "It does not authorize result production, serving, or promotion.",
    ),
    "sealed_exhausted_no_candidate": (
        "Exploration ran under a lawful budget but produced no candidate attempts before "
        "exhaustion.",
        "Budget or operator exhaustion is not correctness: it neither confirms nor changes the "
        "original refusal.",
    ),
    "sealed_all_candidates_refused": (
        "Candidate attempts exist and every lawful replay result reported contract_refused.",
        "Adapter refusals do not count as lawful candidate replay results, and the trace does "
        "not decide truth about the problem.",
    ),
    "sealed_replay_unavailable": (
        "Candidate attempts exist, but every supplied replay record is an adapter refusal and "
        "no lawful ReplayAdapterResult exists.",
        "An adapter refusal means the adapter could not lawfully classify the candidate; it is "
        "not candidate semantic refusal.",
    ),
    "sealed_contract_closed_proof_refused": (
        "At least one lawful replay result reported contract_closed_but_proof_refused and none "
        "reported contract_and_proof_closed.",
        "Contract closure did not satisfy the applicable proof obligations: it is not proof "
        "closure, serving eligibility, or promotion.",
    ),
    "sealed_candidate_replay_closed": (
        "At least one lawful replay result reported contract_and_proof_closed under ADR-0229; "
        "it is replay evidence only.",
        "It is not result production, serving eligibility, promotion, or global uniqueness; "
        "several closed candidates stay side by side, none preferred.",
    ),
    INVALID: (
        "The trace could not lawfully seal the episode: the trace input, an upstream record or "
        "an evidence span is malformed.",
        f"{_REFUSAL_NOT} disposition: nothing was repaired or coerced, and it says nothing "
        "about the candidates.",
    ),
    MISMATCH: (
        "The trace could not lawfully seal the episode: an upstream identity does not "
        "reproduce, or a record does not bind to the run, attempt or candidate it names.",
        f"{_REFUSAL_NOT} disposition: equal id strings are not proof, and it says nothing "
        "about the candidates.",
    ),
    POLICY: (
        "The trace could not lawfully seal the episode: its trace policy version, or a schema "
        "or policy version it uses, is not supported explicitly.",
        f"{_REFUSAL_NOT} disposition: the records were not judged under any other policy.",
    ),
    INCOMPLETE: (
        "The trace could not lawfully seal the episode: a required upstream record is missing, "
        "or replay records are absent where the episode shape requires them.",
        f"{_REFUSAL_NOT} disposition: missing evidence is not filled in with defaults.",
    ),
}


def markdown_table() -> str:
    """Return the reason-code table of ``docs/reason-codes.md`` (Markdown, one row per code)."""
    lines = [
        "# Reason codes of `PracticeTraceRefusal`",
        "",
        "Generated from `sealed_trace/reasons.py` by `sealed-trace explain --all`. Each "
        "code is stable within `sealed_practice_trace.v1`; `sealed-trace explain CODE` prints "
        "its row. A refusal's `practice_disposition` is the first family in this order that "
        "any of its codes belongs to: " + ", ".join(f"`{f}`" for f in FAMILY_ORDER) + ".",
        "",
        "| code | disposition | meaning |",
        "|---|---|---|",
    ]
    for family in FAMILY_ORDER:
        for code, (fam, meaning) in REASON_CODES.items():
            if fam == family:
                lines.append(f"| `{code}` | `{family}` | {meaning} |")
    return "\n".join(lines) + "\n"
