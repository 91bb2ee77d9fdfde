"""GeometricSearchRun, SearchRunRefusal and CandidateAttempt (ADR-0228; upstream-records §8).

Identity payloads:
- run ``input_digest`` (no self key): frame digest, assessment id, residual ids, gate id, gate
  policy version, gate input digest, budget id, budget policy version, operator set id and
  version, run policy version, schema version.
- ``attempt_id`` (self key blanked): the 13 attempt keys.
- ``run_id`` (self key blanked): the run fields with every attempt's full payload embedded.
- refusal ``outcome_id`` (self key blanked): policy version, input digest, gate id, budget id,
  disposition, reason codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from sealed_trace.identity import canonical_json_with, identity_digest
from sealed_trace.upstream.spans import SourceSpan, spans_payload

__all__ = [
    "GEOMETRIC_SEARCH_RUN_POLICY_VERSION",
    "GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION",
    "BudgetCharge",
    "BudgetConsumed",
    "CandidateAttempt",
    "CandidateReplayStatus",
    "GeometricSearchRun",
    "RunExhaustionCode",
    "SearchRunDisposition",
    "SearchRunRefusal",
    "attempt_id",
    "attempt_payload",
    "run_id",
    "run_input_digest",
    "run_input_digest_of",
    "run_json",
    "run_payload",
    "run_refusal_outcome_id",
]

GEOMETRIC_SEARCH_RUN_POLICY_VERSION: Final = "geometric_search_run.v1"
GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION: Final = "geometric_search_run.schema.v1"


class SearchRunDisposition(str, Enum):
    """Closed run dispositions: refusals carry the first four, runs the last four (ADR-0228)."""

    NOT_STARTED = "not_started"
    BLOCKED_BY_BUDGET = "blocked_by_budget"
    BLOCKED_BY_GATE = "blocked_by_gate"
    INVALID_INPUT = "invalid_input"
    EXHAUSTED_NO_CANDIDATE = "exhausted_no_candidate"
    CANDIDATE_REPLAY_PENDING = "candidate_replay_pending"
    CANDIDATE_REPLAY_CLOSED = "candidate_replay_closed"
    CANDIDATE_REPLAY_REFUSED = "candidate_replay_refused"


class RunExhaustionCode(str, Enum):
    """Why a run stopped exploring."""

    OPERATOR_SET_EMPTY = "operator_set_empty"
    OPERATOR_SPACE_DEPLETED = "operator_space_depleted"
    MAX_CANDIDATES_REACHED = "max_candidates_reached"
    MAX_DEPTH_REACHED = "max_depth_reached"
    MAX_STEPS_REACHED = "max_steps_reached"


class CandidateReplayStatus(str, Enum):
    """An attempt's replay status as the run recorded it."""

    REPLAY_PENDING = "replay_pending"
    REPLAY_CLOSED = "replay_closed"
    REPLAY_REFUSED = "replay_refused"


@dataclass(frozen=True, slots=True)
class BudgetCharge:
    """What one attempt charged: ``candidates`` (count) and ``steps`` (count)."""

    candidates: int
    steps: int


@dataclass(frozen=True, slots=True)
class BudgetConsumed:
    """What a run consumed against its budget's limits (all counts; ``exhausted`` a flag)."""

    candidates_considered: int
    max_candidates: int
    depth_reached: int
    max_depth: int
    steps_used: int
    max_steps: int
    parallelism_used: int
    max_parallelism: int
    exhausted: bool


@dataclass(frozen=True, slots=True)
class CandidateAttempt:
    """One candidate attempt of a run; ``attempt_index`` is its 0-based position in the run."""

    attempt_id: str
    attempt_index: int
    parent_attempt_id: str | None
    operator_id: str
    operator_version: str
    input_digest: str
    candidate_digest: str
    budget_charge: BudgetCharge
    depth: int
    step_index: int
    replay_status: CandidateReplayStatus
    replay_blockers: tuple[str, ...]
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class GeometricSearchRun:
    """One search run under an eligible gate and an allowed budget."""

    run_id: str
    run_policy_version: str
    schema_version: str
    problem_frame_digest: str
    contract_assessment_id: str
    residual_ids: tuple[str, ...]
    gate_decision_id: str
    budget_id: str
    operator_set_id: str
    operator_set_version: str
    input_digest: str
    candidate_attempts: tuple[CandidateAttempt, ...]
    budget_consumed: BudgetConsumed
    run_disposition: SearchRunDisposition
    exhaustion_code: RunExhaustionCode | None
    explanation: str = ""


@dataclass(frozen=True, slots=True)
class SearchRunRefusal:
    """A lawful refusal to run search (e.g. blocked by the gate or the budget)."""

    outcome_id: str
    run_policy_version: str
    input_digest: str | None
    gate_decision_id: str | None
    budget_id: str | None
    run_disposition: SearchRunDisposition
    reason_codes: tuple[str, ...]
    explanation: str = ""


def attempt_payload(attempt: CandidateAttempt, *, blank_id: bool = False) -> dict[str, object]:
    """Return the 13-key attempt object; with ``blank_id`` its ``attempt_id`` is ``""``."""
    return {
        "attempt_id": "" if blank_id else attempt.attempt_id,
        "attempt_index": attempt.attempt_index,
        "parent_attempt_id": attempt.parent_attempt_id,
        "operator_id": attempt.operator_id,
        "operator_version": attempt.operator_version,
        "input_digest": attempt.input_digest,
        "candidate_digest": attempt.candidate_digest,
        "budget_charge": {
            "candidates": attempt.budget_charge.candidates,
            "steps": attempt.budget_charge.steps,
        },
        "depth": attempt.depth,
        "step_index": attempt.step_index,
        "replay_status": attempt.replay_status.value,
        "replay_blockers": list(attempt.replay_blockers),
        "evidence_spans": spans_payload(attempt.evidence_spans),
    }


def attempt_id(attempt: CandidateAttempt, *, checked: bool = True) -> str:
    """Recompute ``attempt_id`` as ADR-0228 §10 defines it (13 keys, own key blanked)."""
    return identity_digest(attempt_payload(attempt, blank_id=True), checked=checked)


def run_input_digest(
    *,
    problem_frame_digest: str,
    contract_assessment_id: str,
    residual_ids: tuple[str, ...],
    gate_decision_id: str,
    gate_policy_version: str,
    gate_input_digest: str,
    budget_id: str,
    budget_policy_version: str,
    operator_set_id: str,
    operator_set_version: str,
    run_policy_version: str,
    schema_version: str,
    checked: bool = True,
) -> str:
    """Recompute a run's ``input_digest`` from the run fields and its gate and budget records."""
    return identity_digest(
        {
            "problem_frame_digest": problem_frame_digest,
            "contract_assessment_id": contract_assessment_id,
            "residual_ids": list(residual_ids),
            "gate_decision_id": gate_decision_id,
            "gate_policy_version": gate_policy_version,
            "gate_input_digest": gate_input_digest,
            "budget_id": budget_id,
            "budget_policy_version": budget_policy_version,
            "operator_set_id": operator_set_id,
            "operator_set_version": operator_set_version,
            "run_policy_version": run_policy_version,
            "schema_version": schema_version,
        },
        checked=checked,
    )


def run_input_digest_of(
    run: GeometricSearchRun,
    *,
    gate_policy_version: str,
    gate_input_digest: str,
    budget_policy_version: str,
    checked: bool = True,
) -> str:
    """Recompute ``run.input_digest`` from the run's own fields and its gate's and budget's
    versions and digest (the three values a run does not store)."""
    return run_input_digest(
        problem_frame_digest=run.problem_frame_digest,
        contract_assessment_id=run.contract_assessment_id,
        residual_ids=run.residual_ids,
        gate_decision_id=run.gate_decision_id,
        gate_policy_version=gate_policy_version,
        gate_input_digest=gate_input_digest,
        budget_id=run.budget_id,
        budget_policy_version=budget_policy_version,
        operator_set_id=run.operator_set_id,
        operator_set_version=run.operator_set_version,
        run_policy_version=run.run_policy_version,
        schema_version=run.schema_version,
        checked=checked,
    )


def run_payload(
    run: GeometricSearchRun, attempt_payloads: list[dict[str, object]] | None = None
) -> dict[str, object]:
    """Return the ``run_id`` payload (own key blanked).

    ``attempt_payloads`` may pass the attempts' :func:`attempt_payload` objects already built
    (in run order, real ids); they are computed from the run otherwise.
    """
    consumed = run.budget_consumed
    if attempt_payloads is None:
        attempt_payloads = [attempt_payload(a) for a in run.candidate_attempts]
    return {
        "run_id": "",
        "run_policy_version": run.run_policy_version,
        "schema_version": run.schema_version,
        "problem_frame_digest": run.problem_frame_digest,
        "contract_assessment_id": run.contract_assessment_id,
        "residual_ids": list(run.residual_ids),
        "gate_decision_id": run.gate_decision_id,
        "budget_id": run.budget_id,
        "operator_set_id": run.operator_set_id,
        "operator_set_version": run.operator_set_version,
        "input_digest": run.input_digest,
        "candidate_attempts": attempt_payloads,
        "budget_consumed": {
            "candidates_considered": consumed.candidates_considered,
            "max_candidates": consumed.max_candidates,
            "depth_reached": consumed.depth_reached,
            "max_depth": consumed.max_depth,
            "steps_used": consumed.steps_used,
            "max_steps": consumed.max_steps,
            "parallelism_used": consumed.parallelism_used,
            "max_parallelism": consumed.max_parallelism,
            "exhausted": consumed.exhausted,
        },
        "run_disposition": run.run_disposition.value,
        "exhaustion_code": None if run.exhaustion_code is None else run.exhaustion_code.value,
    }


def run_json(run: GeometricSearchRun, attempt_texts: Sequence[str]) -> str:
    """Return the canonical JSON text of :func:`run_payload` from pre-encoded attempts.

    ``attempt_texts`` holds, in run order, the canonical JSON text of each attempt's full
    :func:`attempt_payload` (real ids); they are spliced in rather than encoded again, so a
    sealer that already encoded every attempt to check its ``attempt_id`` encodes the run's
    own fields only. The run's fields must already be normalised (they are not checked).

    Raises:
        ValueError: only if the payload could not be assembled (never for a run read by the
            sealer).
    """
    payload = run_payload(run, [])
    del payload["candidate_attempts"]
    return canonical_json_with(payload, {"candidate_attempts": "[" + ",".join(attempt_texts) + "]"})


def run_id(run: GeometricSearchRun, *, checked: bool = True) -> str:
    """Recompute ``run_id`` (own key blanked; every attempt's full payload embedded in order)."""
    return identity_digest(run_payload(run), checked=checked)


def run_refusal_outcome_id(refusal: SearchRunRefusal, *, checked: bool = True) -> str:
    """Recompute a SearchRunRefusal's ``outcome_id`` (own key blanked)."""
    return identity_digest(
        {
            "outcome_id": "",
            "run_policy_version": refusal.run_policy_version,
            "input_digest": refusal.input_digest,
            "gate_decision_id": refusal.gate_decision_id,
            "budget_id": refusal.budget_id,
            "run_disposition": refusal.run_disposition.value,
            "reason_codes": list(refusal.reason_codes),
        },
        checked=checked,
    )
