"""CandidateOperatorResult and CandidateReconstruction (ADR-0231; sealing-policy §10).

The records a bound practice episode carries for each bound attempt, as the sealer consumes
them: the operator result, its ``CandidateAttempt`` (the ADR-0228 type of
:mod:`sealed_trace.upstream.run`, whose fields the upstream operator fills) and its
``CandidateReconstruction``. Operator refusals never reach a sealed trace (ADR-0233 §1) and
have no type here.

Identity payloads:
- ``candidate_digest`` (no self key; ADR-0231 §9): ``problem_frame_digest``,
  ``candidate_organ``, ``candidate_payload`` (array of ``[key, value]`` pairs in stored
  order) and ``evidence_spans``.
- ``operator_result_id`` (self key blanked; ADR-0231 §14): ``operator_policy_version``,
  ``input_digest``, ``geometric_search_run_id``, ``attempt_id``, ``attempt_index``,
  ``candidate_digest``, ``candidate_reconstruction_digest``, ``candidate_organ``,
  ``operator_name``, ``operator_version``, ``reason_codes``, ``evidence_spans``. The nested
  attempt and reconstruction are not embedded; they are named by ``attempt_id``,
  ``candidate_digest`` and ``candidate_reconstruction_digest``.
- ``candidate_attempt_ref`` (ADR-0232 §7): the 13-key attempt object of ADR-0228 with the
  real ``attempt_id``, no key blanked.

Not recomputable from the records (they hash version lists and gate/budget/residual values
no record carries; sealing-policy §10 checks them for form only): the result's
``input_digest`` (the operator-input digest, which the attempt also carries) and
``candidate_reconstruction_digest``. Prose (``explanation``) is never hashed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sealed_trace.identity import identity_digest
from sealed_trace.upstream.run import CandidateAttempt, attempt_payload
from sealed_trace.upstream.spans import SourceSpan, spans_payload

__all__ = [
    "CANDIDATE_OPERATOR_POLICY_VERSION",
    "CandidateOperatorResult",
    "CandidateReconstruction",
    "candidate_attempt_ref",
    "candidate_digest",
    "operator_result_id",
]

CANDIDATE_OPERATOR_POLICY_VERSION: Final = "candidate_operator.v1"


@dataclass(frozen=True, slots=True)
class CandidateReconstruction:
    """The reconstruction envelope of one candidate (ADR-0231 §8.1).

    Fields: ``candidate_digest`` and ``candidate_reconstruction_digest`` (identities),
    ``candidate_organ`` (opaque str), ``candidate_payload`` (the organ-specific content as
    ``(key, value)`` string pairs, in stored order), ``evidence_spans``, ``operator_name`` and
    ``operator_version`` (opaque str), ``operator_provenance`` (``(key, value)`` string pairs:
    ``operator_family``, ``operator_name``, ``operator_version``, ``operator_set_id``,
    ``operator_set_version`` upstream), ``source_residual_id``, ``problem_frame_digest`` and
    ``original_contract_assessment_id`` (identities).
    """

    candidate_digest: str
    candidate_reconstruction_digest: str
    candidate_organ: str
    candidate_payload: tuple[tuple[str, str], ...]
    evidence_spans: tuple[SourceSpan, ...]
    operator_name: str
    operator_version: str
    operator_provenance: tuple[tuple[str, str], ...]
    source_residual_id: str
    problem_frame_digest: str
    original_contract_assessment_id: str


@dataclass(frozen=True, slots=True)
class CandidateOperatorResult:
    """One candidate built by a candidate operator (ADR-0231 §8.2, with the upstream code's
    two nested records).

    Identities: ``operator_result_id``, ``input_digest`` (the operator-input digest),
    ``geometric_search_run_id``, ``attempt_id``, ``candidate_digest``,
    ``candidate_reconstruction_digest``. ``operator_policy_version`` is a version value
    (``candidate_operator.v1``); ``candidate_organ``, ``operator_name`` and
    ``operator_version`` are opaque strings; ``attempt_index`` an int. ``candidate_attempt``
    is the attempt the operator emitted and ``candidate_reconstruction`` its envelope.
    """

    operator_result_id: str
    operator_policy_version: str
    input_digest: str
    geometric_search_run_id: str
    attempt_id: str
    attempt_index: int
    candidate_digest: str
    candidate_reconstruction_digest: str
    candidate_organ: str
    operator_name: str
    operator_version: str
    candidate_attempt: CandidateAttempt
    candidate_reconstruction: CandidateReconstruction
    reason_codes: tuple[str, ...]
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


def candidate_digest(reconstruction: CandidateReconstruction, *, checked: bool = True) -> str:
    """Recompute ``reconstruction.candidate_digest`` (ADR-0231 §9; the upstream operator's
    recipe) from the reconstruction's own frame digest, organ, payload pairs and spans.

    Payload keys (no self key): ``problem_frame_digest``, ``candidate_organ``,
    ``candidate_payload`` (array of ``[key, value]`` arrays in stored order) and
    ``evidence_spans`` (4-key span objects in stored order). Attempt, operator and
    reconstruction identities are not hashed: the digest names candidate content only.

    Returns:
        64 lowercase hex characters.

    Raises:
        IdentityError: (checked) a value canonical JSON refuses.
    """
    return identity_digest(
        {
            "problem_frame_digest": reconstruction.problem_frame_digest,
            "candidate_organ": reconstruction.candidate_organ,
            "candidate_payload": [[key, value] for key, value in reconstruction.candidate_payload],
            "evidence_spans": spans_payload(reconstruction.evidence_spans),
        },
        checked=checked,
    )


def operator_result_id(result: CandidateOperatorResult, *, checked: bool = True) -> str:
    """Recompute ``operator_result_id`` (ADR-0231 §14; the upstream code's recipe).

    Payload keys: ``operator_result_id`` (blanked to ``""``), ``operator_policy_version``,
    ``input_digest``, ``geometric_search_run_id``, ``attempt_id``, ``attempt_index``,
    ``candidate_digest``, ``candidate_reconstruction_digest``, ``candidate_organ``,
    ``operator_name``, ``operator_version``, ``reason_codes`` (array) and ``evidence_spans``.
    ``candidate_attempt``, ``candidate_reconstruction`` and ``explanation`` are not hashed.

    Returns:
        64 lowercase hex characters.
    """
    return identity_digest(
        {
            "operator_result_id": "",
            "operator_policy_version": result.operator_policy_version,
            "input_digest": result.input_digest,
            "geometric_search_run_id": result.geometric_search_run_id,
            "attempt_id": result.attempt_id,
            "attempt_index": result.attempt_index,
            "candidate_digest": result.candidate_digest,
            "candidate_reconstruction_digest": result.candidate_reconstruction_digest,
            "candidate_organ": result.candidate_organ,
            "operator_name": result.operator_name,
            "operator_version": result.operator_version,
            "reason_codes": list(result.reason_codes),
            "evidence_spans": spans_payload(result.evidence_spans),
        },
        checked=checked,
    )


def candidate_attempt_ref(attempt: CandidateAttempt, *, checked: bool = True) -> str:
    """Recompute a binding's ``candidate_attempt_ref`` (ADR-0232 §7; the upstream code's
    recipe).

    Payload: the 13-key attempt object of ADR-0228 (``attempt_id`` with its real value,
    ``attempt_index``, ``parent_attempt_id``, ``operator_id``, ``operator_version``,
    ``input_digest``, ``candidate_digest``, ``budget_charge`` ``{candidates, steps}``,
    ``depth``, ``step_index``, ``replay_status``, ``replay_blockers``, ``evidence_spans``);
    no key is blanked, so it differs from ``attempt_id`` (which blanks its own key).

    Returns:
        64 lowercase hex characters.
    """
    return identity_digest(attempt_payload(attempt), checked=checked)
