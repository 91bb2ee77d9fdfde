"""Contract/Proof Replay Adapter records (ADR-0229; upstream-records §9).

``replay_result_id`` and ``replay_refusal_id`` blank their own key and hash the record's binding
fields; the replay ``input_digest`` hashes the 18 other ReplayAdapterInput fields (no self key).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from sealed_trace.identity import identity_digest
from sealed_trace.upstream.spans import SourceSpan, spans_payload

__all__ = [
    "CONTRACT_PROOF_REPLAY_POLICY_VERSION",
    "VACUOUS_PROOF_DECLARATION",
    "ProofReplayRef",
    "ReplayAdapterInput",
    "ReplayAdapterRefusal",
    "ReplayAdapterResult",
    "ReplayDisposition",
    "ReplayRefusalReason",
    "replay_input_digest",
    "replay_refusal_id",
    "replay_result_id",
]

CONTRACT_PROOF_REPLAY_POLICY_VERSION: Final = "contract_proof_replay.v1"
VACUOUS_PROOF_DECLARATION: Final = ("proof_obligations", "none_applicable.v1")


class ReplayDisposition(str, Enum):
    """Lawful replay classifications (results only)."""

    CONTRACT_REFUSED = "contract_refused"
    CONTRACT_CLOSED_BUT_PROOF_REFUSED = "contract_closed_but_proof_refused"
    CONTRACT_AND_PROOF_CLOSED = "contract_and_proof_closed"


class ReplayRefusalReason(str, Enum):
    """Why the adapter could not classify a candidate (refusals only)."""

    INVALID_REPLAY_INPUT = "invalid_replay_input"
    CANDIDATE_IDENTITY_MISMATCH = "candidate_identity_mismatch"
    CONTRACT_REPLAY_UNAVAILABLE = "contract_replay_unavailable"
    PROOF_REPLAY_UNAVAILABLE = "proof_replay_unavailable"
    UNSUPPORTED_REPLAY_POLICY = "unsupported_replay_policy"
    UNSUPPORTED_SCHEMA_VERSION = "unsupported_schema_version"
    UNSUPPORTED_PROOF_OBLIGATION = "unsupported_proof_obligation"


@dataclass(frozen=True, slots=True)
class ProofReplayRef:
    """One proof obligation's replay reference."""

    proof_obligation_id: str
    proof_obligation_version: str
    proof_replay_id: str
    closed: bool
    reason_code: str


@dataclass(frozen=True, slots=True)
class ReplayAdapterInput:
    """The adapter's input for one attempt; only its digest reaches the trace."""

    input_digest: str
    replay_policy_version: str
    run_id: str
    run_policy_version: str
    attempt_id: str
    attempt_index: int
    candidate_digest: str
    candidate_reconstruction_digest: str
    problem_frame_digest: str
    original_contract_assessment_id: str
    candidate_organ: str
    residual_ids: tuple[str, ...]
    gate_decision_id: str
    budget_id: str
    operator_set_id: str
    operator_set_version: str
    contract_replay_target: str
    proof_obligation_refs: tuple[str, ...]
    schema_versions: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class ReplayAdapterResult:
    """A lawful replay classification of one candidate attempt."""

    replay_result_id: str
    replay_policy_version: str
    input_digest: str
    run_id: str
    attempt_id: str
    candidate_digest: str
    contract_replay_assessment_id: str
    proof_obligation_refs: tuple[str, ...]
    proof_replay_refs: tuple[ProofReplayRef, ...]
    replay_disposition: ReplayDisposition
    reason_codes: tuple[str, ...]
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class ReplayAdapterRefusal:
    """The adapter's refusal to classify one candidate (not a semantic refusal)."""

    replay_refusal_id: str
    replay_policy_version: str
    input_digest: str | None
    run_id: str | None
    attempt_id: str | None
    candidate_digest: str | None
    replay_disposition: ReplayRefusalReason
    reason_codes: tuple[str, ...]
    explanation: str = ""


def replay_input_digest(replay_input: ReplayAdapterInput, *, checked: bool = True) -> str:
    """Recompute a ReplayAdapterInput's ``input_digest`` (18 keys, no self key)."""
    i = replay_input
    return identity_digest(
        {
            "replay_policy_version": i.replay_policy_version,
            "run_id": i.run_id,
            "run_policy_version": i.run_policy_version,
            "attempt_id": i.attempt_id,
            "attempt_index": i.attempt_index,
            "candidate_digest": i.candidate_digest,
            "candidate_reconstruction_digest": i.candidate_reconstruction_digest,
            "problem_frame_digest": i.problem_frame_digest,
            "original_contract_assessment_id": i.original_contract_assessment_id,
            "candidate_organ": i.candidate_organ,
            "residual_ids": list(i.residual_ids),
            "gate_decision_id": i.gate_decision_id,
            "budget_id": i.budget_id,
            "operator_set_id": i.operator_set_id,
            "operator_set_version": i.operator_set_version,
            "contract_replay_target": i.contract_replay_target,
            "proof_obligation_refs": list(i.proof_obligation_refs),
            "schema_versions": [[name, version] for name, version in i.schema_versions],
        },
        checked=checked,
    )


def replay_result_id(result: ReplayAdapterResult, *, checked: bool = True) -> str:
    """Recompute ``replay_result_id`` (own key blanked)."""
    return identity_digest(
        {
            "replay_result_id": "",
            "replay_policy_version": result.replay_policy_version,
            "input_digest": result.input_digest,
            "run_id": result.run_id,
            "attempt_id": result.attempt_id,
            "candidate_digest": result.candidate_digest,
            "contract_replay_assessment_id": result.contract_replay_assessment_id,
            "proof_obligation_refs": list(result.proof_obligation_refs),
            "proof_replay_refs": [
                {
                    "proof_obligation_id": ref.proof_obligation_id,
                    "proof_obligation_version": ref.proof_obligation_version,
                    "proof_replay_id": ref.proof_replay_id,
                    "closed": ref.closed,
                    "reason_code": ref.reason_code,
                }
                for ref in result.proof_replay_refs
            ],
            "replay_disposition": result.replay_disposition.value,
            "reason_codes": list(result.reason_codes),
            "evidence_spans": spans_payload(result.evidence_spans),
        },
        checked=checked,
    )


def replay_refusal_id(refusal: ReplayAdapterRefusal, *, checked: bool = True) -> str:
    """Recompute ``replay_refusal_id`` (own key blanked; absent ids are null)."""
    return identity_digest(
        {
            "replay_refusal_id": "",
            "replay_policy_version": refusal.replay_policy_version,
            "input_digest": refusal.input_digest,
            "run_id": refusal.run_id,
            "attempt_id": refusal.attempt_id,
            "candidate_digest": refusal.candidate_digest,
            "replay_disposition": refusal.replay_disposition.value,
            "reason_codes": list(refusal.reason_codes),
        },
        checked=checked,
    )
