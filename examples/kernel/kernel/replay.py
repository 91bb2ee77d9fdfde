"""Contract/proof replay adapter: classify each candidate by re-checking it (ADR-0229).

For every attempt the adapter rebuilds the candidate from the frame and the attempt's
operator (a different candidate digest is an identity mismatch), then replays:

- the contract: the changed object must be the start state's object *and* the noun that
  follows the delta (comparatives skipped), and the direction must agree with the polarity
  words of the change sentence. No polarity word, or conflicting ones: the adapter cannot
  classify (a refusal, not a semantic verdict).
- the proof obligation ``conservation_of_count``: the arithmetic, re-done, gives the
  candidate's result and a count that is not negative.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from kernel.frame import read_change
from kernel.identity import digest, spans
from kernel.records import (
    CONTRACT_PROOF_REPLAY_POLICY_VERSION,
    CandidateAttempt,
    ContractAssessmentProjection,
    GeometricSearchRun,
    ProblemFrameProjection,
    ProofReplayRef,
    ReplayAdapterRefusal,
    ReplayAdapterResult,
    ReplayDisposition,
    ReplayRefusalReason,
)
from kernel.search import Candidate, propose

POLARITY: Final = {
    "gained": "increase",
    "found": "increase",
    "received": "increase",
    "more": "increase",
    "lost": "decrease",
    "gave": "decrease",
    "ate": "decrease",
    "spent": "decrease",
    "fewer": "decrease",
}
COMPARATIVES: Final = frozenset({"more", "fewer", "extra", "less"})
OBLIGATION: Final = ("conservation_of_count", "conservation_of_count.v1")
TARGET: Final = "problem_frame_contracts.unary_delta"


def result_id(result: ReplayAdapterResult) -> str:
    """Recompute ``replay_result_id`` (own key blanked)."""
    payload = {name: getattr(result, name) for name in result.__dataclass_fields__}
    del payload["explanation"]
    payload["replay_result_id"] = ""
    payload["proof_replay_refs"] = [dataclasses.asdict(ref) for ref in result.proof_replay_refs]
    payload["evidence_spans"] = spans(result.evidence_spans)
    return digest(payload)


def refusal_id(refusal: ReplayAdapterRefusal) -> str:
    """Recompute ``replay_refusal_id`` (own key blanked; absent ids are null)."""
    payload = {name: getattr(refusal, name) for name in refusal.__dataclass_fields__}
    del payload["explanation"]
    payload["replay_refusal_id"] = ""
    return digest(payload)


def replay_input_digest(
    run: GeometricSearchRun, attempt: CandidateAttempt, candidate: Candidate, organ: str
) -> str:
    """Digest of the adapter's 18-field input for one attempt."""
    return digest(
        {
            "replay_policy_version": CONTRACT_PROOF_REPLAY_POLICY_VERSION,
            "run_id": run.run_id,
            "run_policy_version": run.run_policy_version,
            "attempt_id": attempt.attempt_id,
            "attempt_index": attempt.attempt_index,
            "candidate_digest": attempt.candidate_digest,
            "candidate_reconstruction_digest": candidate.digest(),
            "problem_frame_digest": run.problem_frame_digest,
            "original_contract_assessment_id": run.contract_assessment_id,
            "candidate_organ": organ,
            "residual_ids": list(run.residual_ids),
            "gate_decision_id": run.gate_decision_id,
            "budget_id": run.budget_id,
            "operator_set_id": run.operator_set_id,
            "operator_set_version": run.operator_set_version,
            "contract_replay_target": TARGET,
            "proof_obligation_refs": [OBLIGATION[0]],
            "schema_versions": [list(OBLIGATION)],
        }
    )


def _refusal(
    run: GeometricSearchRun,
    attempt: CandidateAttempt,
    input_digest: str | None,
    reason: ReplayRefusalReason,
    code: str,
) -> ReplayAdapterRefusal:
    refusal = ReplayAdapterRefusal(
        "",
        CONTRACT_PROOF_REPLAY_POLICY_VERSION,
        input_digest,
        run.run_id,
        attempt.attempt_id,
        attempt.candidate_digest,
        reason,
        (code,),
        f"Candidate {attempt.attempt_index} could not be replayed: {code}.",
    )
    return dataclasses.replace(refusal, replay_refusal_id=refusal_id(refusal))


def _contract(frame: ProblemFrameProjection, candidate: Candidate) -> tuple[str, ...] | None:
    """Reasons the contract refuses (empty: closed), or None when it cannot be replayed."""
    r = read_change(frame)
    polarities = {POLARITY[w.text] for w in r.change_words if w.text in POLARITY}
    if len(polarities) != 1:
        return None
    noun = next((w.text for w in r.after_delta if w.text not in COMPARATIVES), None)
    reasons = []
    state_object = r.state_object.text if r.state_object else None
    if not candidate.changed_object == state_object == noun:
        reasons.append("changed_object_mismatch")
    if candidate.direction not in polarities:
        reasons.append("direction_contradicted")
    return tuple(reasons)


def replay_attempt(
    frame: ProblemFrameProjection, organ: str, run: GeometricSearchRun, attempt: CandidateAttempt
) -> ReplayAdapterResult | ReplayAdapterRefusal:
    """Classify one attempt of ``run``: a replay result, or the adapter's refusal."""
    candidate = propose(frame, attempt.operator_id)
    if candidate is None or candidate.digest() != attempt.candidate_digest:
        return _refusal(
            run,
            attempt,
            None,
            ReplayRefusalReason.CANDIDATE_IDENTITY_MISMATCH,
            "candidate_digest_mismatch",
        )
    input_digest = replay_input_digest(run, attempt, candidate, organ)
    refused = _contract(frame, candidate)
    if refused is None:
        return _refusal(
            run,
            attempt,
            input_digest,
            ReplayRefusalReason.CONTRACT_REPLAY_UNAVAILABLE,
            "polarity_undetermined",
        )
    refs: tuple[ProofReplayRef, ...] = ()
    if refused:
        disposition, reasons = ReplayDisposition.CONTRACT_REFUSED, refused
    else:
        sign = 1 if candidate.direction == "increase" else -1
        recomputed = candidate.start + sign * candidate.delta
        proved = candidate.result == recomputed and recomputed >= 0
        code = "proof_closed" if proved else "negative_count"
        proof_id = digest({"obligation": OBLIGATION[0], "candidate": candidate.digest()})
        refs = (ProofReplayRef(OBLIGATION[0], OBLIGATION[1], proof_id, proved, code),)
        disposition = (
            ReplayDisposition.CONTRACT_AND_PROOF_CLOSED
            if proved
            else ReplayDisposition.CONTRACT_CLOSED_BUT_PROOF_REFUSED
        )
        reasons = () if proved else ("proof_not_closed",)
    contract_id = digest({"target": TARGET, "candidate": candidate.digest(), "refused": refused})
    result = ReplayAdapterResult(
        "",
        CONTRACT_PROOF_REPLAY_POLICY_VERSION,
        input_digest,
        run.run_id,
        attempt.attempt_id,
        attempt.candidate_digest,
        contract_id,
        (OBLIGATION[0],),
        refs,
        disposition,
        reasons,
        attempt.evidence_spans,
        f"Candidate {attempt.attempt_index}: {disposition.value}.",
    )
    return dataclasses.replace(result, replay_result_id=result_id(result))


def replay_run(
    frame: ProblemFrameProjection,
    assessment: ContractAssessmentProjection,
    run: GeometricSearchRun,
) -> tuple[tuple[ReplayAdapterResult, ...], tuple[ReplayAdapterRefusal, ...]]:
    """Replay every attempt of ``run``, in run order: (results, refusals)."""
    records = [
        replay_attempt(frame, assessment.candidate_organ, run, a) for a in run.candidate_attempts
    ]
    results = tuple(r for r in records if isinstance(r, ReplayAdapterResult))
    refusals = tuple(r for r in records if isinstance(r, ReplayAdapterRefusal))
    return results, refusals
