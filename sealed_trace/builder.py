"""Build valid practice episodes, and refresh ids after a deliberate change.

The builder makes a complete, lawful episode for any sealed disposition (ADR-0230 §8.1) from a
small word problem: the refused assessment, its residuals, the gate and budget decisions the v1
upstream policies would produce, a search run with any number of candidate attempts, and one
replay record per attempt, with every id computed by the upstream identity functions. Tests of
upstream modules can take the records one by one as inputs. With ``bound=True`` it builds a
*bound* episode instead (ADR-0231..0233; sealing-policy §10): the original run has no attempts,
and each candidate is a CandidateOperatorResult (with its CandidateAttempt and
CandidateReconstruction) bound to that run by a CandidateAttemptRunBinding.

:func:`refresh_ids` recomputes every id of an edited episode bottom-up and carries each new id
into the records that referenced the old one, so a test can break exactly one thing and keep
every other id valid. This module is not part of the sealing boundary: it is a fixture factory.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from sealed_trace.identity import identity_digest
from sealed_trace.trace import SEALED_PRACTICE_TRACE_POLICY_VERSION, PracticeEpisode
from sealed_trace.upstream import (
    CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION,
    CANDIDATE_OPERATOR_POLICY_VERSION,
    COMPUTE_BUDGET_POLICY_VERSION,
    CONTRACT_ASSESSMENT_IDENTITY_VERSION,
    CONTRACT_PROOF_REPLAY_POLICY_VERSION,
    GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
    GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
    PROBLEM_FRAME_IDENTITY_VERSION,
    SEARCH_GATE_POLICY_VERSION,
    VACUOUS_PROOF_DECLARATION,
    BudgetCharge,
    BudgetConsumed,
    CandidateAttempt,
    CandidateAttemptRunBinding,
    CandidateOperatorResult,
    CandidateReconstruction,
    CandidateReplayStatus,
    ComputeBudgetDecision,
    ComputeBudgetStatus,
    ContractAssessmentProjection,
    ContractResidual,
    GeometricSearchRun,
    ProblemFrameProjection,
    ProofReplayRef,
    ReplayAdapterInput,
    ReplayAdapterRefusal,
    ReplayAdapterResult,
    ReplayDisposition,
    ReplayRefusalReason,
    ResidualKind,
    RunAttemptMembership,
    RunExhaustionCode,
    SearchGateDecision,
    SearchGateStatus,
    SearchRunDisposition,
    SearchRunRefusal,
    SourceSpan,
    attempt_id,
    binding_id,
    budget_id,
    candidate_attempt_ref,
    candidate_digest,
    classify_residual_label,
    contract_assessment_id,
    gate_decision_id,
    gate_input_digest,
    operator_result_id,
    problem_frame_digest,
    replay_input_digest,
    replay_refusal_id,
    replay_result_id,
    residual_id,
    run_id,
    run_input_digest,
    run_refusal_outcome_id,
)
from sealed_trace.upstream.residuals import FAMILY_BY_ORGAN
from sealed_trace.upstream.run import run_input_digest_of
from sealed_trace.upstream.spans import spans_payload

__all__ = [
    "BOUND_DISPOSITION_NAMES",
    "BOUND_TAMPERS",
    "DEFAULT_PROBLEM_TEXT",
    "REPLAY_OUTCOMES",
    "SEALED_DISPOSITION_NAMES",
    "TAMPERS",
    "EpisodeSpec",
    "Tamper",
    "build_episode",
    "convert_records",
    "refresh_ids",
    "tampered_episode",
    "version_lists",
]

DEFAULT_PROBLEM_TEXT: Final = (
    "Maya had 12 marbles. She gained 5 more marbles at recess. How many marbles does Maya have now?"
)

#: Per-attempt replay outcomes: the three lawful replay dispositions and every refusal reason.
REPLAY_OUTCOMES: Final = (
    *(d.value for d in ReplayDisposition),
    *(r.value for r in ReplayRefusalReason),
)

SEALED_DISPOSITION_NAMES: Final = (
    "sealed_original_refusal",
    "sealed_exhausted_no_candidate",
    "sealed_all_candidates_refused",
    "sealed_replay_unavailable",
    "sealed_contract_closed_proof_refused",
    "sealed_candidate_replay_closed",
)
#: The sealed dispositions a bound episode can have (sealing-policy §10): every one but the
#: two without candidates (a bound episode has a run, and at least one bound attempt).
BOUND_DISPOSITION_NAMES: Final = tuple(
    name
    for name in SEALED_DISPOSITION_NAMES
    if name not in ("sealed_original_refusal", "sealed_exhausted_no_candidate")
)

_ELIGIBLE_KINDS: Final = {
    ResidualKind.MISSING_PROPOSAL: "eligible_missing_proposal",
    ResidualKind.MISSING_RELATION: "eligible_missing_relation",
    ResidualKind.MISSING_ROLE: "eligible_missing_role",
    ResidualKind.TARGET_UNBOUND: "eligible_target_unbound",
}
_BLOCKED_KINDS: Final = {
    ResidualKind.HAZARD_BLOCKED: "blocked_hazard",
    ResidualKind.UNIT_OBJECT_CONFLICT: "blocked_unit_object_conflict",
    ResidualKind.UNSUPPORTED_TOPOLOGY: "blocked_unsupported_topology",
    ResidualKind.NONLOCAL_BINDING: "blocked_nonlocal_binding",
    ResidualKind.INEXACT_PROVENANCE: "blocked_inexact_provenance",
    ResidualKind.AMBIGUOUS_RELATION: "blocked_ambiguous_relation",
    ResidualKind.AMBIGUOUS_ROLE: "blocked_ambiguous_role",
    ResidualKind.CONTRACT_GAP_UNCLASSIFIED: "blocked_unclassified_gap",
}
_BLOCKED_ORDER: Final = tuple(_BLOCKED_KINDS.values())
_ELIGIBLE_ORDER: Final = tuple(_ELIGIBLE_KINDS.values())
_BUDGET_TABLE: Final = {
    "eligible_missing_role": ("budget_allowed_missing_role", 5, 2, 10, 1),
    "eligible_missing_relation": ("budget_allowed_missing_relation", 5, 2, 10, 1),
    "eligible_missing_proposal": ("budget_allowed_missing_proposal", 3, 1, 5, 1),
    "eligible_target_unbound": ("budget_allowed_target_unbound", 5, 2, 10, 1),
}


@dataclass(frozen=True)
class EpisodeSpec:
    """What to build: a word problem, its refused assessment and the search that follows.

    Attributes:
        problem_text: the problem's text; every span must be a substring of it.
        facts: the host's canonical frame content (float-free JSON).
        candidate_organ: the contract organ that refused.
        missing_bindings / unresolved_hazards: the assessment's residual labels. For a
            search-eligible episode every label must be of a missing-* or target kind.
        assessment_spans: surface strings whose first occurrence is the assessment evidence.
        attempt_spans: surface strings used, in turn, as each attempt's and result's evidence.
        operator_set_id / operator_set_version: the run's operator set.
        blocked_hazard: the label added to make a gate-blocked (original refusal) episode.
    """

    problem_text: str = DEFAULT_PROBLEM_TEXT
    facts: Mapping[str, object] = field(
        default_factory=lambda: {
            "actors": ["Maya"],
            "quantities": [{"surface": "12", "value": [12, 1]}, {"surface": "5", "value": [5, 1]}],
            "question_target": "marbles",
        }
    )
    candidate_organ: str = "unary_delta_transition"
    missing_bindings: tuple[str, ...] = ("changed_object_unbound", "direction_unbound")
    unresolved_hazards: tuple[str, ...] = ()
    assessment_spans: tuple[str, ...] = ("gained",)
    attempt_spans: tuple[str, ...] = ("5 more marbles", "gained")
    operator_set_id: str = "unary_delta.operators"
    operator_set_version: str = "candidate_operators.v2"
    blocked_hazard: str = "passive_voice_unsupported"


def _span(text: str, surface: str, sentences: Sequence[int]) -> SourceSpan:
    start = text.find(surface)
    if start < 0 or not surface:
        raise ValueError(f"span {surface!r} does not occur in the problem text")
    return SourceSpan(surface, start, start + len(surface), _sentence_of(sentences, start))


def _sentence_of(starts: Sequence[int], offset: int) -> int:
    index = 0
    for i, begin in enumerate(starts):
        if begin <= offset:
            index = i
    return index


def _sentence_starts(text: str) -> list[int]:
    starts = [0]
    for i, char in enumerate(text[:-1]):
        if char in ".?!" and text[i + 1] == " ":
            starts.append(i + 2)
    return starts


def version_lists(
    *, run: bool, replay: bool, bound: bool = False
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """Return ``(schema_versions, policy_versions)`` an episode needs (sealing-policy §4;
    with ``bound``, the ``candidate_attempt_run_binding`` and ``candidate_operator`` policy
    entries of §10 too, first in name order)."""
    schema = [("contract_assessment_identity", CONTRACT_ASSESSMENT_IDENTITY_VERSION)]
    if run:
        schema.append(("geometric_search_run", GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION))
    schema.append(("problem_frame_identity", PROBLEM_FRAME_IDENTITY_VERSION))
    policy = []
    if bound:
        policy += [
            ("candidate_attempt_run_binding", CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION),
            ("candidate_operator", CANDIDATE_OPERATOR_POLICY_VERSION),
        ]
    policy.append(("compute_budget", COMPUTE_BUDGET_POLICY_VERSION))
    if replay:
        policy.append(("contract_proof_replay", CONTRACT_PROOF_REPLAY_POLICY_VERSION))
    policy += [
        ("geometric_search_run", GEOMETRIC_SEARCH_RUN_POLICY_VERSION),
        ("sealed_practice_trace", SEALED_PRACTICE_TRACE_POLICY_VERSION),
        ("search_gate", SEARCH_GATE_POLICY_VERSION),
    ]
    return tuple(schema), tuple(policy)


def _default_outcomes(disposition: str, attempts: int) -> list[str]:
    closed, proof_refused, refused = (
        d.value
        for d in (
            ReplayDisposition.CONTRACT_AND_PROOF_CLOSED,
            ReplayDisposition.CONTRACT_CLOSED_BUT_PROOF_REFUSED,
            ReplayDisposition.CONTRACT_REFUSED,
        )
    )
    if disposition == "sealed_all_candidates_refused":
        return [refused] * attempts
    if disposition == "sealed_replay_unavailable":
        return [ReplayRefusalReason.CONTRACT_REPLAY_UNAVAILABLE.value] * attempts
    first = closed if disposition == "sealed_candidate_replay_closed" else proof_refused
    return [first] + [refused] * (attempts - 1)


def build_episode(
    disposition: str = "sealed_candidate_replay_closed",
    *,
    attempts: int | None = None,
    outcomes: Sequence[str] | None = None,
    spec: EpisodeSpec | None = None,
    record_types: Mapping[str, Callable[..., Any]] | None = None,
    bound: bool = False,
) -> PracticeEpisode:
    """Build a lawful episode that seals as ``disposition``.

    With ``bound=True`` the episode is a *bound* episode (ADR-0233; sealing-policy §10), which
    seals under the ``adr-0233`` identity layout only: the original run embeds no attempts
    (``exhausted_no_candidate`` / ``operator_set_empty``, as the upstream kernel leaves it),
    and each candidate attempt is one ``CandidateOperatorResult`` (its ``CandidateAttempt`` and
    ``CandidateReconstruction`` nested) plus one ``CandidateAttemptRunBinding`` naming the run,
    in ``candidate_operator_results`` / ``candidate_attempt_bindings`` (paired by position).
    Every bound attempt has ``attempt_index`` 0, as the upstream operators emit; its replay
    record names the run's ``run_id``, the bound attempt's id and its candidate digest; the
    policy list adds the ``candidate_attempt_run_binding`` and ``candidate_operator`` entries.

    Args:
        disposition: one of :data:`SEALED_DISPOSITION_NAMES`.
        attempts: number of candidate attempts (default 2; 0 for the two dispositions that
            have none). Ignored when ``outcomes`` is given.
        outcomes: per-attempt replay outcome, each one of :data:`REPLAY_OUTCOMES`; it must be
            consistent with ``disposition`` (ADR-0230 §8.1).
        spec: the word problem and assessment; :class:`EpisodeSpec` defaults otherwise.
        record_types: optional host record classes by reference class name (``"SourceSpan"``,
            ``"ContractResidual"``, ...); see :func:`convert_records`.
        bound: build a bound episode; ``disposition`` must then be one of
            :data:`BOUND_DISPOSITION_NAMES` and ``attempts`` counts bound attempts.

    Returns:
        A :class:`PracticeEpisode` with every id computed.

    Raises:
        ValueError: unknown disposition or outcome, outcomes inconsistent with the
            disposition, a negative attempt count, a span that is not in the text, or a
            bound episode asked for a disposition it cannot have.
    """
    if disposition not in SEALED_DISPOSITION_NAMES:
        raise ValueError(f"unknown sealed disposition {disposition!r}")
    if bound and disposition not in BOUND_DISPOSITION_NAMES:
        raise ValueError(f"a bound episode is never {disposition} (sealing-policy §10)")
    spec = spec or EpisodeSpec()
    no_attempts = disposition in ("sealed_original_refusal", "sealed_exhausted_no_candidate")
    if outcomes is None and no_attempts:
        if attempts:
            raise ValueError(f"{disposition} has no candidate attempts")
        outcomes = []
    if outcomes is None:
        count = (0 if no_attempts else 2) if attempts is None else attempts
        if count < 0:
            raise ValueError("attempts must be >= 0")
        if no_attempts and count:
            raise ValueError(f"{disposition} has no candidate attempts")
        if not no_attempts and count == 0:
            raise ValueError(f"{disposition} needs at least one attempt")
        outcomes = _default_outcomes(disposition, count)
    for outcome in outcomes:
        if outcome not in REPLAY_OUTCOMES:
            raise ValueError(f"unknown replay outcome {outcome!r}")
    expected = _disposition_of(list(outcomes)) if not no_attempts else disposition
    if expected != disposition:
        raise ValueError(f"outcomes {list(outcomes)!r} seal as {expected}, not {disposition}")
    episode = _build(disposition, list(outcomes), spec, bound=bound)
    return convert_records(episode, record_types) if record_types else episode


def _disposition_of(outcomes: list[str]) -> str:
    if not outcomes:
        return "sealed_exhausted_no_candidate"
    if "contract_and_proof_closed" in outcomes:
        return "sealed_candidate_replay_closed"
    if "contract_closed_but_proof_refused" in outcomes:
        return "sealed_contract_closed_proof_refused"
    if "contract_refused" in outcomes:
        return "sealed_all_candidates_refused"
    return "sealed_replay_unavailable"


def _build(
    disposition: str, outcomes: list[str], spec: EpisodeSpec, *, bound: bool = False
) -> PracticeEpisode:
    text = spec.problem_text
    sentences = _sentence_starts(text)
    blocked = disposition == "sealed_original_refusal"
    hazards = spec.unresolved_hazards + ((spec.blocked_hazard,) if blocked else ())
    frame = ProblemFrameProjection("", PROBLEM_FRAME_IDENTITY_VERSION, text, dict(spec.facts))
    frame = dataclasses.replace(frame, frame_digest=problem_frame_digest(frame))
    spans = tuple(_span(text, s, sentences) for s in spec.assessment_spans)
    assessment = ContractAssessmentProjection(
        "",
        frame.frame_digest,
        spec.candidate_organ,
        spec.missing_bindings,
        hazards,
        False,
        spans,
        f"The {spec.candidate_organ} contract refused: unresolved bindings remain.",
    )
    assessment = dataclasses.replace(assessment, assessment_id=contract_assessment_id(assessment))
    residuals = []
    for code in dict.fromkeys((*assessment.missing_bindings, *assessment.unresolved_hazards)):
        kind, axis = classify_residual_label(code)
        res = ContractResidual(
            "",
            spec.candidate_organ,
            FAMILY_BY_ORGAN.get(spec.candidate_organ),
            kind,
            code,
            axis,
            spans,
            assessment.explanation,
        )
        residuals.append(dataclasses.replace(res, residual_id=residual_id(res)))
    residuals.sort(key=lambda x: x.residual_id)
    gate = _gate(tuple(residuals))
    budget = _budget(gate)
    run_outcome: GeometricSearchRun | SearchRunRefusal
    operator_results: tuple[CandidateOperatorResult, ...] = ()
    bindings: tuple[CandidateAttemptRunBinding, ...] = ()
    if gate.status is not SearchGateStatus.ELIGIBLE:
        run_outcome = _run_refusal(gate, budget)
        results: tuple[ReplayAdapterResult, ...] = ()
        refusals: tuple[ReplayAdapterRefusal, ...] = ()
    else:
        if blocked:
            raise ValueError("the assessment's labels make the gate eligible; cannot block it")
        count = 0 if bound else len(outcomes)
        run_outcome = _run(frame, assessment, gate, budget, spec, count, sentences)
        attempts = run_outcome.candidate_attempts
        if bound:
            operator_results, bindings = _bound_records(
                run_outcome, tuple(residuals), spec, len(outcomes), sentences
            )
            attempts = tuple(r.candidate_attempt for r in operator_results)
        results, refusals = _replay(run_outcome, assessment, attempts, outcomes, spec)
    is_run = isinstance(run_outcome, GeometricSearchRun)
    schema, policy = version_lists(
        run=is_run, replay=bool(results or refusals), bound=bool(bindings)
    )
    return PracticeEpisode(
        problem_frame=frame,
        contract_assessment=assessment,
        residuals=tuple(residuals),
        search_gate_decision=gate,
        compute_budget_decision=budget,
        geometric_search_run=run_outcome if is_run else None,  # type: ignore[arg-type]
        search_run_refusal=None if is_run else run_outcome,  # type: ignore[arg-type]
        replay_results=results,
        replay_refusals=refusals,
        schema_versions=schema,
        policy_versions=policy,
        candidate_operator_results=operator_results,
        candidate_attempt_bindings=bindings,
    )


def _gate(residuals: tuple[ContractResidual, ...]) -> SearchGateDecision:
    organs = {x.candidate_organ for x in residuals}
    status, organ = SearchGateStatus.UNASSESSABLE, None
    if not residuals:
        reason = "unassessable_empty_context"
    elif len(organs) > 1:
        reason = "unassessable_mixed_candidate_organs"
    else:
        organ = residuals[0].candidate_organ
        if all(x.residual_kind in _ELIGIBLE_KINDS for x in residuals):
            status = SearchGateStatus.ELIGIBLE
            reason = min(
                (_ELIGIBLE_KINDS[x.residual_kind] for x in residuals), key=_ELIGIBLE_ORDER.index
            )
        else:
            status = SearchGateStatus.BLOCKED
            reason = min(
                (
                    _BLOCKED_KINDS[x.residual_kind]
                    for x in residuals
                    if x.residual_kind in _BLOCKED_KINDS
                ),
                key=_BLOCKED_ORDER.index,
            )
    spans = tuple(span for x in residuals for span in x.evidence_spans)
    gate = SearchGateDecision(
        "",
        SEARCH_GATE_POLICY_VERSION,
        gate_input_digest(residuals),
        tuple(x.residual_id for x in residuals),
        organ,
        status,
        reason,
        spans,
        f"Search gate: {status.value} ({reason}).",
    )
    return dataclasses.replace(gate, decision_id=gate_decision_id(gate))


def _budget(gate: SearchGateDecision) -> ComputeBudgetDecision:
    if gate.status is SearchGateStatus.ELIGIBLE:
        reason, cand, depth, steps, par = _BUDGET_TABLE[gate.reason_code]
        status = ComputeBudgetStatus.BUDGET_ALLOWED
    else:
        reason, cand, depth, steps, par = "budget_blocked_gate_not_eligible", 0, 0, 0, 0
        status = ComputeBudgetStatus.BUDGET_BLOCKED
    budget = ComputeBudgetDecision(
        "",
        COMPUTE_BUDGET_POLICY_VERSION,
        gate.decision_id,
        gate.policy_version,
        gate.input_digest,
        status,
        reason,
        cand,
        depth,
        steps,
        None,
        par,
        gate.evidence_spans,
        f"Compute budget: {status.value}.",
    )
    return dataclasses.replace(budget, budget_id=budget_id(budget))


def _run_refusal(gate: SearchGateDecision, budget: ComputeBudgetDecision) -> SearchRunRefusal:
    refusal = SearchRunRefusal(
        "",
        GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
        None,
        gate.decision_id,
        budget.budget_id,
        SearchRunDisposition.BLOCKED_BY_GATE,
        ("gate_not_eligible",),
        "Search did not run: the gate is not eligible.",
    )
    return dataclasses.replace(refusal, outcome_id=run_refusal_outcome_id(refusal))


def _run(
    frame: ProblemFrameProjection,
    assessment: ContractAssessmentProjection,
    gate: SearchGateDecision,
    budget: ComputeBudgetDecision,
    spec: EpisodeSpec,
    count: int,
    sentences: Sequence[int],
) -> GeometricSearchRun:
    digest = run_input_digest(
        problem_frame_digest=frame.frame_digest,
        contract_assessment_id=assessment.assessment_id,
        residual_ids=gate.residual_ids,
        gate_decision_id=gate.decision_id,
        gate_policy_version=gate.policy_version,
        gate_input_digest=gate.input_digest,
        budget_id=budget.budget_id,
        budget_policy_version=budget.policy_version,
        operator_set_id=spec.operator_set_id,
        operator_set_version=spec.operator_set_version,
        run_policy_version=GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
        schema_version=GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
    )
    attempts: list[CandidateAttempt] = []
    surfaces = spec.attempt_spans or spec.assessment_spans
    for index in range(count):
        surface = surfaces[index % len(surfaces)]
        candidate = identity_digest(
            {"operator_set": spec.operator_set_id, "candidate": index, "binding": surface}
        )
        attempt = CandidateAttempt(
            "",
            index,
            None,
            f"{spec.candidate_organ}.bind_{index % 3}",
            "candidate_operator.v1",
            digest,
            candidate,
            BudgetCharge(1, 1),
            1,
            index,
            CandidateReplayStatus.REPLAY_PENDING,
            (),
            (_span(frame.problem_text, surface, sentences),),
            f"Candidate {index}: binds {surface!r}.",
        )
        attempts.append(dataclasses.replace(attempt, attempt_id=attempt_id(attempt)))
    if count:
        disposition, exhaustion = (
            SearchRunDisposition.CANDIDATE_REPLAY_PENDING,
            RunExhaustionCode.OPERATOR_SPACE_DEPLETED,
        )
    else:
        disposition, exhaustion = (
            SearchRunDisposition.EXHAUSTED_NO_CANDIDATE,
            RunExhaustionCode.OPERATOR_SET_EMPTY,
        )
    consumed = BudgetConsumed(
        count,
        max(budget.max_candidates, count),
        1 if count else 0,
        budget.max_depth,
        count,
        max(budget.max_steps, count),
        1 if count else 0,
        budget.max_parallelism,
        False,
    )
    run = GeometricSearchRun(
        "",
        GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
        GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
        frame.frame_digest,
        assessment.assessment_id,
        gate.residual_ids,
        gate.decision_id,
        budget.budget_id,
        spec.operator_set_id,
        spec.operator_set_version,
        digest,
        tuple(attempts),
        consumed,
        disposition,
        exhaustion,
        f"Search run: {count} candidate attempt(s).",
    )
    return dataclasses.replace(run, run_id=run_id(run))


def _bound_records(
    run: GeometricSearchRun,
    residuals: tuple[ContractResidual, ...],
    spec: EpisodeSpec,
    count: int,
    sentences: Sequence[int],
) -> tuple[tuple[CandidateOperatorResult, ...], tuple[CandidateAttemptRunBinding, ...]]:
    """``count`` operator results and their bindings to the original ``run`` (ADR-0231 §8,
    ADR-0232 §7), as the upstream operators and binding producer emit them.

    Result ``i`` takes its span from ``spec.attempt_spans[i % n]`` and its source residual
    from ``residuals[i % len(residuals)]``; its payload pairs name ``i``, so every candidate
    digest is distinct. Every attempt has index 0, step 0, depth 1, charge ``{1, 1}``, no
    parent, ``replay_pending`` and no blockers. The three digests no record lets the sealer
    recompute (operator input, reconstruction, binding input) hash the upstream's payload
    keys over this episode's values and version lists; the other ids are the upstream
    identity functions' (:func:`candidate_digest`, :func:`attempt_id`,
    :func:`operator_result_id`, :func:`candidate_attempt_ref`, :func:`binding_id`).

    Returns:
        ``(operator_results, bindings)``, each of length ``count``, paired by position.
    """
    text = spec.problem_text
    schema, policy = version_lists(run=True, replay=True, bound=True)
    versions = {"schema_versions": schema, "policy_versions": policy}
    surfaces = spec.attempt_spans or spec.assessment_spans
    organ = spec.candidate_organ
    results: list[CandidateOperatorResult] = []
    bindings: list[CandidateAttemptRunBinding] = []
    for index in range(count):
        surface = surfaces[index % len(surfaces)]
        residual = residuals[index % len(residuals)]
        name = f"{organ}.candidate_{index % 3}"
        version = f"{name}.v1"
        spans = (_span(text, surface, sentences),)
        operator = {
            "geometric_search_run_id": run.run_id,
            "operator_set_id": run.operator_set_id,
            "operator_set_version": run.operator_set_version,
            "operator_name": name,
            "operator_version": version,
            "residual_id": residual.residual_id,
            "residual_kind": residual.residual_kind.value,
            "residual_code": residual.residual_code,
            "attempt_index": 0,
            **versions,
        }
        operator_input = identity_digest(
            {
                **operator,
                "operator_policy_version": CANDIDATE_OPERATOR_POLICY_VERSION,
                "problem_frame_digest": run.problem_frame_digest,
                "original_contract_assessment_id": run.contract_assessment_id,
                "candidate_organ": organ,
                "search_gate_decision_id": run.gate_decision_id,
                "compute_budget_id": run.budget_id,
            }
        )
        reconstruction = CandidateReconstruction(
            "",
            "",
            organ,
            (
                ("binding", surface),
                ("candidate", str(index)),
                ("candidate_organ", organ),
                ("kind", "role_binding_delta"),
                ("source", name),
            ),
            spans,
            name,
            version,
            (
                ("operator_family", f"residual_{residual.residual_kind.value}"),
                ("operator_name", name),
                ("operator_version", version),
                ("operator_set_id", run.operator_set_id),
                ("operator_set_version", run.operator_set_version),
            ),
            residual.residual_id,
            run.problem_frame_digest,
            run.contract_assessment_id,
        )
        digest = candidate_digest(reconstruction)
        attempt = CandidateAttempt(
            "",
            0,
            None,
            name,
            version,
            operator_input,
            digest,
            BudgetCharge(1, 1),
            1,
            0,
            CandidateReplayStatus.REPLAY_PENDING,
            (),
            spans,
        )
        attempt = dataclasses.replace(attempt, attempt_id=attempt_id(attempt))
        reconstruction_digest = identity_digest(
            {
                **operator,
                "candidate_reconstruction_digest": "",
                "attempt_id": attempt.attempt_id,
                "candidate_digest": digest,
                "evidence_spans": spans_payload(spans),
            }
        )
        reconstruction = dataclasses.replace(
            reconstruction,
            candidate_digest=digest,
            candidate_reconstruction_digest=reconstruction_digest,
        )
        result = CandidateOperatorResult(
            "",
            CANDIDATE_OPERATOR_POLICY_VERSION,
            operator_input,
            run.run_id,
            attempt.attempt_id,
            0,
            digest,
            reconstruction_digest,
            organ,
            name,
            version,
            attempt,
            reconstruction,
            (),
            spans,
            f"Operator {name} proposed candidate {index}: binds {surface!r}.",
        )
        result = dataclasses.replace(result, operator_result_id=operator_result_id(result))
        binding_input = identity_digest(
            {
                "binding_policy_version": CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION,
                "original_run_id": run.run_id,
                "original_run_policy_version": run.run_policy_version,
                "original_run_input_digest": run.input_digest,
                "operator_result_id": result.operator_result_id,
                "operator_policy_version": CANDIDATE_OPERATOR_POLICY_VERSION,
                "candidate_attempt_id": attempt.attempt_id,
                "attempt_index": 0,
                "candidate_digest": digest,
                "candidate_reconstruction_digest": reconstruction_digest,
                "operator_set_id": run.operator_set_id,
                "operator_set_version": run.operator_set_version,
                "budget_id": run.budget_id,
                "gate_decision_id": run.gate_decision_id,
                "residual_ids": list(run.residual_ids),
                "problem_frame_digest": run.problem_frame_digest,
                "original_contract_assessment_id": run.contract_assessment_id,
                **versions,
            }
        )
        binding = CandidateAttemptRunBinding(
            "",
            CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION,
            binding_input,
            run.run_id,
            result.operator_result_id,
            attempt.attempt_id,
            0,
            digest,
            reconstruction_digest,
            candidate_attempt_ref(attempt),
            attempt.budget_charge,
            attempt.depth,
            attempt.step_index,
            RunAttemptMembership.STRUCTURALLY_BOUND,
            spans,
            (),
            f"Candidate {index} bound to the original run.",
        )
        results.append(result)
        bindings.append(dataclasses.replace(binding, binding_id=binding_id(binding)))
    return tuple(results), tuple(bindings)


def _replay(
    run: GeometricSearchRun,
    assessment: ContractAssessmentProjection,
    attempts: Sequence[CandidateAttempt],
    outcomes: list[str],
    spec: EpisodeSpec,
) -> tuple[tuple[ReplayAdapterResult, ...], tuple[ReplayAdapterRefusal, ...]]:
    """One replay record per attempt (the run's own, or the bound attempts in binding order),
    each naming the run's ``run_id``, the attempt's id and its candidate digest."""
    results: list[ReplayAdapterResult] = []
    refusals: list[ReplayAdapterRefusal] = []
    target = f"problem_frame_contracts.{spec.candidate_organ}"
    for attempt, outcome in zip(attempts, outcomes, strict=True):
        obligations = ("conservation_of_count",)
        replay_input = ReplayAdapterInput(
            "",
            CONTRACT_PROOF_REPLAY_POLICY_VERSION,
            run.run_id,
            run.run_policy_version,
            attempt.attempt_id,
            attempt.attempt_index,
            attempt.candidate_digest,
            identity_digest({"reconstruct": attempt.candidate_digest}),
            run.problem_frame_digest,
            run.contract_assessment_id,
            assessment.candidate_organ,
            run.residual_ids,
            run.gate_decision_id,
            run.budget_id,
            run.operator_set_id,
            run.operator_set_version,
            target,
            obligations,
            ((VACUOUS_PROOF_DECLARATION[0], VACUOUS_PROOF_DECLARATION[1]),),
        )
        digest = replay_input_digest(replay_input)
        if outcome in {d.value for d in ReplayDisposition}:
            kind = ReplayDisposition(outcome)
            closed = kind is ReplayDisposition.CONTRACT_AND_PROOF_CLOSED
            refs = (
                ()
                if kind is ReplayDisposition.CONTRACT_REFUSED
                else (
                    ProofReplayRef(
                        "conservation_of_count",
                        "proof_obligation.v1",
                        f"proof-replay-{attempt.attempt_index}",
                        closed,
                        "proof_closed" if closed else "proof_not_closed",
                    ),
                )
            )
            reasons = {
                "contract_refused": ("contract_not_closed",),
                "contract_closed_but_proof_refused": ("proof_not_closed",),
                "contract_and_proof_closed": (),
            }[outcome]
            result = ReplayAdapterResult(
                "",
                CONTRACT_PROOF_REPLAY_POLICY_VERSION,
                digest,
                run.run_id,
                attempt.attempt_id,
                attempt.candidate_digest,
                f"contract-replay-{attempt.attempt_index}",
                obligations,
                refs,
                kind,
                reasons,
                attempt.evidence_spans,
                f"Replay of candidate {attempt.attempt_index}: {outcome}.",
            )
            results.append(dataclasses.replace(result, replay_result_id=replay_result_id(result)))
        else:
            refusal = ReplayAdapterRefusal(
                "",
                CONTRACT_PROOF_REPLAY_POLICY_VERSION,
                digest,
                run.run_id,
                attempt.attempt_id,
                attempt.candidate_digest,
                ReplayRefusalReason(outcome),
                (outcome,),
                f"The replay adapter could not classify candidate {attempt.attempt_index}.",
            )
            refusals.append(
                dataclasses.replace(refusal, replay_refusal_id=replay_refusal_id(refusal))
            )
    return tuple(results), tuple(refusals)


def convert_records(value: Any, record_types: Mapping[str, Callable[..., Any]] | None) -> Any:
    """Rebuild every reference record inside ``value`` with a host class of the same name.

    ``record_types`` maps a reference class name (``"SourceSpan"``, ``"PracticeEpisode"``, ...)
    to a callable taking the record's fields as keyword arguments, and a reference enum name
    (``"ResidualKind"``, ...) to the host enum, called with the member's value; what is not
    mapped keeps its reference type. Tuples are rebuilt element by element.
    """
    if not record_types:
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {
            f.name: convert_records(getattr(value, f.name), record_types)
            for f in dataclasses.fields(value)
        }
        factory = record_types.get(type(value).__name__)
        accepted = _accepted(factory, fields, value) if factory is not None else None
        if factory is None or accepted is None:
            return dataclasses.replace(value, **fields)
        return factory(**accepted)
    if isinstance(value, tuple):
        return tuple(convert_records(item, record_types) for item in value)
    if isinstance(value, Enum) and type(value).__name__ in record_types:
        return record_types[type(value).__name__](value.value)
    return value


def _accepted(
    factory: Callable[..., Any], fields: dict[str, Any], value: Any
) -> dict[str, Any] | None:
    """``fields`` less those the host factory does not take and that hold their default (a
    host episode type written before ADR-0233 has no bound-record fields, and an episode
    that is not bound leaves them empty); None when the factory does not take a field that
    holds more (a bound episode for such a host type: it stays a reference episode, holding
    the host's records)."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return fields
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return fields
    defaults = {f.name: f.default for f in dataclasses.fields(value)}
    if any(
        name not in parameters and item != defaults.get(name, dataclasses.MISSING)
        for name, item in fields.items()
    ):
        return None
    return {name: item for name, item in fields.items() if name in parameters}


def refresh_ids(episode: PracticeEpisode, *, keep: Collection[str] = ()) -> PracticeEpisode:
    """Recompute every id of ``episode`` bottom-up, carrying new ids into their references.

    Every field that held an old id (a binding) is rewritten to the record's new id, so after
    a deliberate edit only the edited fact is wrong: an edited binding that now names another
    record, or a broken order, stays broken. Works on reference types only.

    Bound records (sealing-policy §10) too, after the run: each reconstruction's
    ``candidate_digest``, each bound attempt's ``attempt_id``, each ``operator_result_id``,
    each binding's ``candidate_attempt_ref`` (from the attempt it names, when the episode
    holds it) and ``binding_id``; the replay records' ``candidate_digest`` follows a renamed
    digest. The three digests the sealer checks for form only stay as they are.

    Args:
        episode: the edited episode.
        keep: claimed id values to leave as they are (a forged id stays forged, while every
            id that covers it is recomputed around it).

    Raises:
        IdentityError: a record holds a value that cannot be hashed.
    """
    renamed: dict[str, str] = {}

    def settle(old: str, new: str) -> str:
        if old in keep:
            return old
        if old != new:
            renamed[old] = new
        return new

    def ref(value: Any) -> Any:
        if isinstance(value, str):
            return renamed.get(value, value)
        if isinstance(value, tuple):
            return tuple(ref(v) for v in value)
        return value

    def fix(record: Any, id_field: str, compute: Callable[[Any], str], **refs: Any) -> Any:
        record = dataclasses.replace(record, **refs)
        new = settle(getattr(record, id_field), compute(record))
        return dataclasses.replace(record, **{id_field: new})

    e = episode
    frame = e.problem_frame and fix(e.problem_frame, "frame_digest", problem_frame_digest)
    assessment = e.contract_assessment and fix(
        e.contract_assessment,
        "assessment_id",
        contract_assessment_id,
        problem_frame_digest=ref(e.contract_assessment.problem_frame_digest),
    )
    residuals = tuple(fix(x, "residual_id", residual_id) for x in e.residuals)
    gate = e.search_gate_decision
    if gate is not None:
        gate = dataclasses.replace(gate, residual_ids=ref(gate.residual_ids))
        if set(gate.residual_ids) == {x.residual_id for x in residuals}:
            by_id = {x.residual_id: x for x in residuals}
            gate = dataclasses.replace(
                gate,
                input_digest=settle(
                    gate.input_digest,
                    gate_input_digest([by_id[i] for i in gate.residual_ids]),
                ),
            )
        gate = fix(gate, "decision_id", gate_decision_id)
    budget = e.compute_budget_decision
    if budget is not None:
        budget = fix(
            budget,
            "budget_id",
            budget_id,
            gate_decision_id=ref(budget.gate_decision_id),
            gate_input_digest=ref(budget.gate_input_digest),
        )
    run, refusal = e.geometric_search_run, e.search_run_refusal
    if run is not None:
        run = dataclasses.replace(
            run,
            problem_frame_digest=ref(run.problem_frame_digest),
            contract_assessment_id=ref(run.contract_assessment_id),
            residual_ids=ref(run.residual_ids),
            gate_decision_id=ref(run.gate_decision_id),
            budget_id=ref(run.budget_id),
        )
        if gate is not None and budget is not None:
            run = dataclasses.replace(
                run,
                input_digest=settle(
                    run.input_digest,
                    run_input_digest_of(
                        run,
                        gate_policy_version=gate.policy_version,
                        gate_input_digest=gate.input_digest,
                        budget_policy_version=budget.policy_version,
                    ),
                ),
            )
        attempts = []
        for a in run.candidate_attempts:
            attempts.append(
                fix(
                    a,
                    "attempt_id",
                    attempt_id,
                    input_digest=ref(a.input_digest),
                    parent_attempt_id=ref(a.parent_attempt_id),
                )
            )
        run = fix(dataclasses.replace(run, candidate_attempts=tuple(attempts)), "run_id", run_id)
    if refusal is not None:
        refusal = fix(
            refusal,
            "outcome_id",
            run_refusal_outcome_id,
            gate_decision_id=ref(refusal.gate_decision_id),
            budget_id=ref(refusal.budget_id),
        )
    operator_results = []
    bound_attempts: dict[str, CandidateAttempt] = {}
    for x in e.candidate_operator_results:
        rec = x.candidate_reconstruction
        rec = fix(
            rec,
            "candidate_digest",
            candidate_digest,
            problem_frame_digest=ref(rec.problem_frame_digest),
            original_contract_assessment_id=ref(rec.original_contract_assessment_id),
            source_residual_id=ref(rec.source_residual_id),
        )
        a = x.candidate_attempt
        a = fix(
            a,
            "attempt_id",
            attempt_id,
            candidate_digest=ref(a.candidate_digest),
            parent_attempt_id=ref(a.parent_attempt_id),
        )
        bound_attempts[a.attempt_id] = a
        operator_results.append(
            fix(
                x,
                "operator_result_id",
                operator_result_id,
                geometric_search_run_id=ref(x.geometric_search_run_id),
                attempt_id=ref(x.attempt_id),
                candidate_digest=ref(x.candidate_digest),
                candidate_attempt=a,
                candidate_reconstruction=rec,
            )
        )
    bindings = []
    for b in e.candidate_attempt_bindings:
        named = bound_attempts.get(ref(b.candidate_attempt_id))
        attempt_ref = (
            ref(b.candidate_attempt_ref)
            if named is None
            else settle(b.candidate_attempt_ref, candidate_attempt_ref(named))
        )
        bindings.append(
            fix(
                b,
                "binding_id",
                binding_id,
                original_run_id=ref(b.original_run_id),
                operator_result_id=ref(b.operator_result_id),
                candidate_attempt_id=ref(b.candidate_attempt_id),
                candidate_digest=ref(b.candidate_digest),
                candidate_attempt_ref=attempt_ref,
            )
        )
    results = tuple(
        fix(
            x,
            "replay_result_id",
            replay_result_id,
            run_id=ref(x.run_id),
            attempt_id=ref(x.attempt_id),
            candidate_digest=ref(x.candidate_digest),
        )
        for x in e.replay_results
    )
    refusals = tuple(
        fix(
            x,
            "replay_refusal_id",
            replay_refusal_id,
            run_id=ref(x.run_id),
            attempt_id=ref(x.attempt_id),
            candidate_digest=ref(x.candidate_digest),
        )
        for x in e.replay_refusals
    )
    return dataclasses.replace(
        e,
        problem_frame=frame,
        contract_assessment=assessment,
        residuals=residuals,
        search_gate_decision=gate,
        compute_budget_decision=budget,
        geometric_search_run=run,
        search_run_refusal=refusal,
        replay_results=results,
        replay_refusals=refusals,
        candidate_operator_results=tuple(operator_results),
        candidate_attempt_bindings=tuple(bindings),
    )


@dataclass(frozen=True)
class Tamper:
    """One deliberate fault: what it breaks and the refusal it must produce.

    ``apply`` takes a lawful episode with at least two attempts, replay results and
    ``sealed_candidate_replay_closed`` disposition, and returns the broken episode with every
    other id recomputed (:func:`refresh_ids`), so exactly one thing is wrong.
    """

    name: str
    description: str
    practice_disposition: str
    reason_code: str
    apply: Callable[[PracticeEpisode], PracticeEpisode]


def _with_run(episode: PracticeEpisode, **changes: Any) -> PracticeEpisode:
    run = episode.geometric_search_run
    if run is None:
        raise ValueError("this tamper needs an episode with a search run")
    return dataclasses.replace(episode, geometric_search_run=dataclasses.replace(run, **changes))


def _forge_run_id(e: PracticeEpisode) -> PracticeEpisode:
    run = e.geometric_search_run
    assert run is not None
    return _with_run(e, run_id=identity_digest({"forged": run.run_id}))


def _swap_attempts(e: PracticeEpisode) -> PracticeEpisode:
    run = e.geometric_search_run
    assert run is not None
    attempts = run.candidate_attempts
    return refresh_ids(_with_run(e, candidate_attempts=(attempts[1], attempts[0], *attempts[2:])))


def _orphan_result(e: PracticeEpisode) -> PracticeEpisode:
    first = e.replay_results[0]
    other = identity_digest({"another run": first.run_id})
    result = dataclasses.replace(first, run_id=other)
    result = dataclasses.replace(result, replay_result_id=replay_result_id(result))
    return dataclasses.replace(e, replay_results=(result, *e.replay_results[1:]))


def _foreign_residual(e: PracticeEpisode) -> PracticeEpisode:
    first = e.residuals[0]
    foreign = dataclasses.replace(first, candidate_organ="fraction_decrease")
    return refresh_ids(dataclasses.replace(e, residuals=(foreign, *e.residuals[1:])))


def _drop_replay(e: PracticeEpisode) -> PracticeEpisode:
    return dataclasses.replace(e, replay_results=e.replay_results[1:])


def _drop_budget(e: PracticeEpisode) -> PracticeEpisode:
    return dataclasses.replace(e, compute_budget_decision=None)


def _inexact_span(e: PracticeEpisode) -> PracticeEpisode:
    run = e.geometric_search_run
    assert run is not None
    first = run.candidate_attempts[0]
    span = first.evidence_spans[0]
    moved = dataclasses.replace(span, start=span.start + 1, end=span.end + 1)
    attempt = dataclasses.replace(first, evidence_spans=(moved,))
    return refresh_ids(_with_run(e, candidate_attempts=(attempt, *run.candidate_attempts[1:])))


def _unsupported_policy(e: PracticeEpisode) -> PracticeEpisode:
    return dataclasses.replace(e, trace_policy_version="sealed_practice_trace.v2")


def _duplicate_replay(e: PracticeEpisode) -> PracticeEpisode:
    first = e.replay_results[0]
    refusal = ReplayAdapterRefusal(
        "",
        first.replay_policy_version,
        first.input_digest,
        first.run_id,
        first.attempt_id,
        first.candidate_digest,
        ReplayRefusalReason.CONTRACT_REPLAY_UNAVAILABLE,
        ("contract_replay_unavailable",),
        "A second record for the same attempt.",
    )
    refusal = dataclasses.replace(refusal, replay_refusal_id=replay_refusal_id(refusal))
    return dataclasses.replace(e, replay_refusals=(*e.replay_refusals, refusal))


#: Every refusal kind the fixtures hand out, by name (ADR-0230 §13, §16).
TAMPERS: Final[dict[str, Tamper]] = {
    t.name: t
    for t in (
        Tamper(
            "forged_run_id",
            "the run's id is replaced by another well-formed id",
            "trace_identity_mismatch",
            "run_id_mismatch",
            _forge_run_id,
        ),
        Tamper(
            "attempts_out_of_order",
            "two attempts swap places (ids recomputed)",
            "trace_identity_mismatch",
            "attempt_order_violation",
            _swap_attempts,
        ),
        Tamper(
            "orphan_replay_result",
            "a replay result names another run",
            "trace_identity_mismatch",
            "orphan_replay_result",
            _orphan_result,
        ),
        Tamper(
            "residual_from_another_assessment",
            "a residual of a different organ",
            "trace_identity_mismatch",
            "residual_assessment_mismatch",
            _foreign_residual,
        ),
        Tamper(
            "missing_replay_record",
            "an attempt's replay result is dropped",
            "trace_upstream_incomplete",
            "missing_replay_record",
            _drop_replay,
        ),
        Tamper(
            "missing_budget",
            "the compute budget decision is dropped",
            "trace_upstream_incomplete",
            "missing_compute_budget_decision",
            _drop_budget,
        ),
        Tamper(
            "inexact_evidence_span",
            "an attempt's span is shifted by one character",
            "trace_invalid_input",
            "inexact_evidence_span",
            _inexact_span,
        ),
        Tamper(
            "duplicate_replay_record",
            "a result and a refusal name the same attempt",
            "trace_invalid_input",
            "duplicate_replay_record",
            _duplicate_replay,
        ),
        Tamper(
            "unsupported_trace_policy",
            "the trace policy version is not supported",
            "trace_policy_unsupported",
            "unsupported_trace_policy_version",
            _unsupported_policy,
        ),
    )
}


# --- bound tampers (sealing-policy §10): each breaks one rule of a bound episode ----------


def _other_id(value: str) -> str:
    """A well-formed id that is not ``value`` (and names nothing in the episode)."""
    return identity_digest({"forged": value})


def _swap_value(value: Any, old: str, new: str) -> Any:
    """``value`` with every string equal to ``old`` replaced by ``new``, through reference
    records (dataclasses) and tuples."""
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, tuple):
        return tuple(_swap_value(item, old, new) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _swap_value(getattr(value, f.name), old, new) for f in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **changes)
    return value


def _forged_everywhere(e: PracticeEpisode, old: str) -> PracticeEpisode:
    """Replace the id ``old`` by a forged one wherever the episode names it, then recompute
    every other id around it: only the record that claims it fails to reproduce."""
    forged = _other_id(old)
    return refresh_ids(_swap_value(e, old, forged), keep=(forged,))


def _bound_pair(e: PracticeEpisode) -> tuple[CandidateOperatorResult, CandidateAttemptRunBinding]:
    if len(e.candidate_attempt_bindings) < 2 or len(e.candidate_operator_results) < 2:
        raise ValueError("a bound tamper needs a bound episode with at least two bound attempts")
    return e.candidate_operator_results[0], e.candidate_attempt_bindings[0]


def _bound_forge_binding_id(e: PracticeEpisode) -> PracticeEpisode:
    _, binding = _bound_pair(e)
    forged = dataclasses.replace(binding, binding_id=_other_id(binding.binding_id))
    return dataclasses.replace(
        e, candidate_attempt_bindings=(forged, *e.candidate_attempt_bindings[1:])
    )


def _bound_forge_result_id(e: PracticeEpisode) -> PracticeEpisode:
    result, _ = _bound_pair(e)
    return _forged_everywhere(e, result.operator_result_id)


def _bound_forge_candidate_digest(e: PracticeEpisode) -> PracticeEpisode:
    result, _ = _bound_pair(e)
    return _forged_everywhere(e, result.candidate_digest)


def _bound_another_run(e: PracticeEpisode) -> PracticeEpisode:
    _, binding = _bound_pair(e)
    moved = dataclasses.replace(binding, original_run_id=_other_id(binding.original_run_id))
    bindings = (moved, *e.candidate_attempt_bindings[1:])
    return refresh_ids(dataclasses.replace(e, candidate_attempt_bindings=bindings))


def _bound_swap_bindings(e: PracticeEpisode) -> PracticeEpisode:
    _bound_pair(e)
    first, second, *rest = e.candidate_attempt_bindings
    return dataclasses.replace(e, candidate_attempt_bindings=(second, first, *rest))


def _bound_drop_binding(e: PracticeEpisode) -> PracticeEpisode:
    _bound_pair(e)
    return dataclasses.replace(e, candidate_attempt_bindings=e.candidate_attempt_bindings[:-1])


def _bound_run_with_attempts(e: PracticeEpisode) -> PracticeEpisode:
    result, _ = _bound_pair(e)
    run = e.geometric_search_run
    if run is None:
        raise ValueError("this tamper needs an episode with a search run")
    own = dataclasses.replace(result.candidate_attempt, input_digest=run.input_digest)
    own = dataclasses.replace(own, attempt_id=attempt_id(own))  # its own id, renaming nothing
    return refresh_ids(_with_run(e, candidate_attempts=(own,)))


def _bound_drop_replay(e: PracticeEpisode) -> PracticeEpisode:
    result, _ = _bound_pair(e)
    kept = tuple(x for x in e.replay_results if x.attempt_id != result.attempt_id)
    refusals = tuple(x for x in e.replay_refusals if x.attempt_id != result.attempt_id)
    return dataclasses.replace(e, replay_results=kept, replay_refusals=refusals)


def _bound_duplicate_replay(e: PracticeEpisode) -> PracticeEpisode:
    _bound_pair(e)
    return _duplicate_replay(e)


def _bound_index_decreases(e: PracticeEpisode) -> PracticeEpisode:
    result, binding = _bound_pair(e)
    index = result.attempt_index + 1
    attempt = dataclasses.replace(result.candidate_attempt, attempt_index=index)
    first = dataclasses.replace(result, attempt_index=index, candidate_attempt=attempt)
    bound = dataclasses.replace(binding, attempt_index=index)
    return refresh_ids(
        dataclasses.replace(
            e,
            candidate_operator_results=(first, *e.candidate_operator_results[1:]),
            candidate_attempt_bindings=(bound, *e.candidate_attempt_bindings[1:]),
        )
    )


def _bound_inexact_span(e: PracticeEpisode) -> PracticeEpisode:
    result, binding = _bound_pair(e)
    spans = tuple(
        dataclasses.replace(span, start=span.start + 1, end=span.end + 1)
        for span in result.candidate_attempt.evidence_spans
    )
    first = dataclasses.replace(
        result,
        evidence_spans=spans,
        candidate_attempt=dataclasses.replace(result.candidate_attempt, evidence_spans=spans),
        candidate_reconstruction=dataclasses.replace(
            result.candidate_reconstruction, evidence_spans=spans
        ),
    )
    bound = dataclasses.replace(binding, evidence_spans=spans)
    return refresh_ids(
        dataclasses.replace(
            e,
            candidate_operator_results=(first, *e.candidate_operator_results[1:]),
            candidate_attempt_bindings=(bound, *e.candidate_attempt_bindings[1:]),
        )
    )


def _bound_unsupported_binding_policy(e: PracticeEpisode) -> PracticeEpisode:
    _, binding = _bound_pair(e)
    newer = dataclasses.replace(binding, binding_policy_version="candidate_attempt_run_binding.v2")
    bindings = (newer, *e.candidate_attempt_bindings[1:])
    return refresh_ids(dataclasses.replace(e, candidate_attempt_bindings=bindings))


#: One fault per rule kind of sealing-policy §10, each applied to a lawful *bound* episode
#: (``build_episode(..., bound=True)`` with at least two bound attempts) and sealed under the
#: ``adr-0233`` layout; every other id is recomputed, so exactly one thing is wrong. A bound
#: episode sealed under ``adr-0230`` (``bound_episode_under_adr_0230``) is a choice of the
#: caller, not of the episode, so it is no tamper here. Kept apart from :data:`TAMPERS`, whose
#: tampers apply to an episode that is not bound (the plugin hands those out by name).
BOUND_TAMPERS: Final[dict[str, Tamper]] = {
    t.name: t
    for t in (
        Tamper(
            "bound_forged_binding_id",
            "the first binding's binding_id is replaced by another well-formed id",
            "trace_identity_mismatch",
            "binding_id_mismatch",
            _bound_forge_binding_id,
        ),
        Tamper(
            "bound_forged_operator_result_id",
            "the first operator result's id is forged (its binding names the forged id; "
            "binding id recomputed)",
            "trace_identity_mismatch",
            "operator_result_id_mismatch",
            _bound_forge_result_id,
        ),
        Tamper(
            "bound_forged_candidate_digest",
            "the first reconstruction's candidate_digest is forged, and carried into its "
            "attempt, result, binding and replay record (their ids recomputed)",
            "trace_identity_mismatch",
            "candidate_digest_mismatch",
            _bound_forge_candidate_digest,
        ),
        Tamper(
            "bound_binding_names_another_run",
            "the first binding's original_run_id names another run (binding id recomputed)",
            "trace_identity_mismatch",
            "binding_mismatch",
            _bound_another_run,
        ),
        Tamper(
            "bound_bindings_swapped",
            "the first two bindings swap places: each binds the other's operator result",
            "trace_identity_mismatch",
            "binding_mismatch",
            _bound_swap_bindings,
        ),
        Tamper(
            "bound_binding_count_mismatch",
            "the last binding is dropped: one operator result more than bindings",
            "trace_identity_mismatch",
            "bound_record_count_mismatch",
            _bound_drop_binding,
        ),
        Tamper(
            "bound_run_with_attempts",
            "the original run embeds an attempt of its own next to the bindings (ids recomputed)",
            "trace_invalid_input",
            "bound_run_not_original",
            _bound_run_with_attempts,
        ),
        Tamper(
            "bound_missing_replay_record",
            "the first bound attempt's replay record is dropped",
            "trace_upstream_incomplete",
            "missing_replay_record",
            _bound_drop_replay,
        ),
        Tamper(
            "bound_duplicate_replay_record",
            "a replay refusal names the first bound attempt, which has a replay result",
            "trace_invalid_input",
            "duplicate_replay_record",
            _bound_duplicate_replay,
        ),
        Tamper(
            "bound_attempt_index_decreasing",
            "the first bound attempt's attempt_index is raised above the second's (ids recomputed)",
            "trace_identity_mismatch",
            "attempt_order_violation",
            _bound_index_decreases,
        ),
        Tamper(
            "bound_inexact_evidence_span",
            "the first bound attempt's span (and its result's, reconstruction's and "
            "binding's) is shifted by one character (ids recomputed)",
            "trace_invalid_input",
            "inexact_evidence_span",
            _bound_inexact_span,
        ),
        Tamper(
            "bound_unsupported_binding_policy",
            "the first binding's binding_policy_version is candidate_attempt_run_binding.v2 "
            "(binding id recomputed)",
            "trace_policy_unsupported",
            "unsupported_record_version",
            _bound_unsupported_binding_policy,
        ),
    )
}


def tampered_episode(name: str, episode: PracticeEpisode | None = None) -> PracticeEpisode:
    """Return ``episode`` broken by the tamper ``name``, from :data:`TAMPERS` (default base:
    a lawful two-attempt closed episode) or :data:`BOUND_TAMPERS` (default base: the same,
    bound).

    Raises:
        KeyError: ``name`` is in neither table.
        ValueError: a bound tamper given an episode with fewer than two bound attempts.
    """
    bound = name in BOUND_TAMPERS
    tamper = BOUND_TAMPERS[name] if bound else TAMPERS[name]
    base = (
        episode
        if episode is not None
        else build_episode("sealed_candidate_replay_closed", bound=bound)
    )
    return tamper.apply(base)
