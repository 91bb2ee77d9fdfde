"""CandidateAttemptRunBinding (ADR-0232; sealing-policy §10).

The membership record that binds one operator result's attempt to the original, immutable
GeometricSearchRun without changing its ``run_id`` (ADR-0232 §13).

Identity payloads:
- ``binding_id`` (self key blanked; ADR-0232 §15): ``binding_policy_version``,
  ``input_digest``, ``original_run_id``, ``operator_result_id``, ``candidate_attempt_id``,
  ``attempt_index``, ``candidate_digest``, ``candidate_reconstruction_digest``,
  ``candidate_attempt_ref``, ``budget_charge`` ``{candidates, steps}``, ``depth``,
  ``step_index``, ``run_attempt_membership``, ``evidence_spans``, ``reason_codes``.
  The upstream producer writes the policy version ``candidate_attempt_run_binding.v1``,
  the membership ``structurally_bound`` and ``reason_codes`` ``[]`` into the payload as
  constants, whatever the record holds; :func:`binding_id` hashes the record's own values,
  which equal those constants for every binding that can seal.

Not recomputable from the records: the binding's ``input_digest`` (it hashes the run's
policy version and input digest, the operator policy version and caller version lists that
no bound record carries; sealing-policy §10 checks it for form only). Prose
(``explanation``) is never hashed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from sealed_trace.identity import identity_digest
from sealed_trace.upstream.run import BudgetCharge
from sealed_trace.upstream.spans import SourceSpan, spans_payload

__all__ = [
    "CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION",
    "CandidateAttemptRunBinding",
    "RunAttemptMembership",
    "binding_id",
    "binding_payload",
]

CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION: Final = "candidate_attempt_run_binding.v1"


class RunAttemptMembership(str, Enum):
    """The closed membership tag of a binding (ADR-0232 §7): v1 has one value."""

    STRUCTURALLY_BOUND = "structurally_bound"


@dataclass(frozen=True, slots=True)
class CandidateAttemptRunBinding:
    """One operator result's attempt bound, as a member, to the original run (ADR-0232 §7).

    Identities: ``binding_id``, ``input_digest``, ``original_run_id``, ``operator_result_id``,
    ``candidate_attempt_id``, ``candidate_digest``, ``candidate_reconstruction_digest``,
    ``candidate_attempt_ref``. ``binding_policy_version`` is a version value
    (``candidate_attempt_run_binding.v1``). ``attempt_index``, ``budget_charge``, ``depth``
    and ``step_index`` copy the bound attempt's; ``evidence_spans`` equal its spans. A binding
    that can seal has membership ``structurally_bound`` and empty ``reason_codes``.
    """

    binding_id: str
    binding_policy_version: str
    input_digest: str
    original_run_id: str
    operator_result_id: str
    candidate_attempt_id: str
    attempt_index: int
    candidate_digest: str
    candidate_reconstruction_digest: str
    candidate_attempt_ref: str
    budget_charge: BudgetCharge
    depth: int
    step_index: int
    run_attempt_membership: RunAttemptMembership
    evidence_spans: tuple[SourceSpan, ...]
    reason_codes: tuple[str, ...]
    explanation: str = ""


def binding_payload(binding: CandidateAttemptRunBinding) -> dict[str, object]:
    """Return the ``binding_id`` payload of ``binding`` (own key blanked), from the record's
    fields as given: the 15 keys listed in the module docstring plus ``"binding_id": ""``."""
    return {
        "binding_id": "",
        "binding_policy_version": binding.binding_policy_version,
        "input_digest": binding.input_digest,
        "original_run_id": binding.original_run_id,
        "operator_result_id": binding.operator_result_id,
        "candidate_attempt_id": binding.candidate_attempt_id,
        "attempt_index": binding.attempt_index,
        "candidate_digest": binding.candidate_digest,
        "candidate_reconstruction_digest": binding.candidate_reconstruction_digest,
        "candidate_attempt_ref": binding.candidate_attempt_ref,
        "budget_charge": {
            "candidates": binding.budget_charge.candidates,
            "steps": binding.budget_charge.steps,
        },
        "depth": binding.depth,
        "step_index": binding.step_index,
        "run_attempt_membership": binding.run_attempt_membership.value,
        "evidence_spans": spans_payload(binding.evidence_spans),
        "reason_codes": list(binding.reason_codes),
    }


def binding_id(binding: CandidateAttemptRunBinding, *, checked: bool = True) -> str:
    """Recompute ``binding_id`` (ADR-0232 §15) from the binding's fields as given.

    Payload: see :func:`binding_payload` (``binding_id`` blanked). The upstream producer
    hashes ``binding_policy_version``, ``run_attempt_membership`` and ``reason_codes`` as the
    constants ``candidate_attempt_run_binding.v1``, ``structurally_bound`` and ``[]``; these are
    the only values that can seal (sealing-policy §10), and for them this function returns the
    upstream's id byte for byte. A binding holding any other value gets a different id here,
    one the upstream never emits: it does not reproduce, and the binding rules of §10 refuse
    it on their own account.

    Returns:
        64 lowercase hex characters.
    """
    return identity_digest(binding_payload(binding), checked=checked)
