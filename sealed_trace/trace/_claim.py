"""ADR-0230 §6.1 item 13: a claimed trace input reproduces from the complete structural
payload (sealing-policy §8, §9, §11).

A claimed input is compared field by field with the one the sealer builds from the records;
its version values are judged against the manifest entry by entry, even after a malformed
entry; next to a missing record the comparison cannot be judged and is skipped.
"""

from __future__ import annotations

from typing import Final

from sealed_trace._reader import ID, IDS, PAIRS, TEXT, Claim, Kind, Problems, RecordSchema
from sealed_trace.reasons import INCOMPLETE, REASON_CODES
from sealed_trace.trace._outcome import input_payload
from sealed_trace.trace._versions import claimed_entries_are_supported
from sealed_trace.trace.model import (
    SEALED_PRACTICE_TRACE_POLICY_VERSION,
    IdentityLayout,
    PracticeTraceInput,
)

__all__ = ["CLAIM_SCHEMAS", "claimed_input_reproduces"]

_FIELDS: Final = (
    ("input_digest", ID),
    ("trace_policy_version", TEXT),
    ("problem_frame_digest", ID),
    ("original_contract_assessment_id", ID),
    ("residual_ids", IDS),
    ("search_gate_decision_id", ID),
    ("compute_budget_id", ID),
    ("geometric_search_run_id", ID),
    ("candidate_attempt_ids", IDS),
    ("replay_result_ids", IDS),
    ("replay_refusal_ids", IDS),
)


def _schema(bound: bool) -> RecordSchema:
    fields: tuple[tuple[str, Kind], ...] = (
        *_FIELDS,
        ("schema_versions", PAIRS),
        ("policy_versions", PAIRS),
        ("candidate_attempt_binding_ids", IDS),
    )
    # Under adr-0230 a claim need not carry binding ids; one that does is compared all the
    # same (any difference is a mismatch).
    defaults = () if bound else (("candidate_attempt_binding_ids", ()),)
    return RecordSchema(
        "PracticeTraceInput", "malformed_trace_input", PracticeTraceInput, fields, defaults
    )


#: How a claimed trace input is read under each identity layout: under ``adr-0230`` it may
#: have no binding ids (ADR-0230 §6.1); under ``adr-0233`` it must (ADR-0233 §2).
CLAIM_SCHEMAS: Final = {
    IdentityLayout.ADR_0230: _schema(False),
    IdentityLayout.ADR_0233: _schema(True),
}


def claimed_versions_are_supported(claim: Claim, p: Problems) -> None:
    """Item 10 for the claim: its trace policy and every list entry within the manifest."""
    policy = claim.trace_policy_version
    if policy is not None and policy != SEALED_PRACTICE_TRACE_POLICY_VERSION:
        p.add(
            "unsupported_trace_policy_version",
            f"trace_input.trace_policy_version is {policy!r}, not "
            f"{SEALED_PRACTICE_TRACE_POLICY_VERSION!r}",
        )
    claimed_entries_are_supported(claim.schema_versions, "trace_input.schema_versions", p)
    claimed_entries_are_supported(claim.policy_versions, "trace_input.policy_versions", p)


def claimed_input_reproduces(
    claim: Claim, built: PracticeTraceInput | None, layout: IdentityLayout, p: Problems
) -> None:
    """Item 13: the claim reads, its versions are supported, and it equals the built input
    field by field (skipped when a record is missing: sealing-policy §9)."""
    p.extend(claim.problems)
    claimed_versions_are_supported(claim, p)
    record = claim.record.record
    incomplete = any(REASON_CODES[code][0] == INCOMPLETE for code in p.codes)
    if not isinstance(record, PracticeTraceInput) or built is None or incomplete:
        return
    have, want = input_payload(record, layout), input_payload(built, layout)
    differing = [key for key in have if have[key] != want[key]]
    if record.input_digest != built.input_digest:
        differing.insert(0, "input_digest")
    bindings = "candidate_attempt_binding_ids"
    if bindings not in have and record.candidate_attempt_binding_ids:
        differing.append(bindings)  # not hashed under adr-0230, compared all the same
    if differing:
        p.add("trace_input_mismatch", "the claimed trace input differs in " + ", ".join(differing))
