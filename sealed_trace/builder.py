"""Build valid practice episodes, and refresh ids after a deliberate change.

The builder makes a complete, lawful episode for any sealed disposition (ADR-0230 §8.1) from a
small word problem: the refused assessment, its residuals, the gate and budget decisions the v1
upstream policies would produce, a search run with any number of candidate attempts, and one
replay record per attempt, with every id computed by the upstream identity functions. Tests of
upstream modules can take the records one by one as inputs.

:func:`refresh_ids` recomputes every id of an edited episode bottom-up and carries each new id
into the records that referenced the old one, so a test can break exactly one thing and keep
every other id valid. This module is not part of the sealing boundary: it is a fixture factory.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from sealed_trace.identity import identity_digest
from sealed_trace.trace import SEALED_PRACTICE_TRACE_POLICY_VERSION, PracticeEpisode
from sealed_trace.upstream import (
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
    RunExhaustionCode,
    SearchGateDecision,
    SearchGateStatus,
    SearchRunDisposition,
    SearchRunRefusal,
    SourceSpan,
    attempt_id,
    budget_id,
    classify_residual_label,
    contract_assessment_id,
    gate_decision_id,
    gate_input_digest,
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

__all__ = [
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
    *, run: bool, replay: bool
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """Return ``(schema_versions, policy_versions)`` an episode needs (sealing-policy §4)."""
    schema = [("contract_assessment_identity", CONTRACT_ASSESSMENT_IDENTITY_VERSION)]
    if run:
        schema.append(("geometric_search_run", GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION))
    schema.append(("problem_frame_identity", PROBLEM_FRAME_IDENTITY_VERSION))
    policy = [("compute_budget", COMPUTE_BUDGET_POLICY_VERSION)]
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
) -> PracticeEpisode:
    """Build a lawful episode that seals as ``disposition``.

    Args:
        disposition: one of :data:`SEALED_DISPOSITION_NAMES`.
        attempts: number of candidate attempts (default 2; 0 for the two dispositions that
            have none). Ignored when ``outcomes`` is given.
        outcomes: per-attempt replay outcome, each one of :data:`REPLAY_OUTCOMES`; it must be
            consistent with ``disposition`` (ADR-0230 §8.1).
        spec: the word problem and assessment; :class:`EpisodeSpec` defaults otherwise.
        record_types: optional host record classes by reference class name (``"SourceSpan"``,
            ``"ContractResidual"``, ...); see :func:`convert_records`.

    Returns:
        A :class:`PracticeEpisode` with every id computed.

    Raises:
        ValueError: unknown disposition or outcome, outcomes inconsistent with the
            disposition, a negative attempt count, or a span that is not in the text.
    """
    if disposition not in SEALED_DISPOSITION_NAMES:
        raise ValueError(f"unknown sealed disposition {disposition!r}")
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
    episode = _build(disposition, list(outcomes), spec)
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


def _build(disposition: str, outcomes: list[str], spec: EpisodeSpec) -> PracticeEpisode:
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
    if gate.status is not SearchGateStatus.ELIGIBLE:
        run_outcome = _run_refusal(gate, budget)
        results: tuple[ReplayAdapterResult, ...] = ()
        refusals: tuple[ReplayAdapterRefusal, ...] = ()
    else:
        if blocked:
            raise ValueError("the assessment's labels make the gate eligible; cannot block it")
        run_outcome = _run(frame, assessment, gate, budget, spec, len(outcomes), sentences)
        results, refusals = _replay(run_outcome, assessment, outcomes, spec, sentences)
    is_run = isinstance(run_outcome, GeometricSearchRun)
    schema, policy = version_lists(run=is_run, replay=bool(results or refusals))
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


def _replay(
    run: GeometricSearchRun,
    assessment: ContractAssessmentProjection,
    outcomes: list[str],
    spec: EpisodeSpec,
    sentences: Sequence[int],
) -> tuple[tuple[ReplayAdapterResult, ...], tuple[ReplayAdapterRefusal, ...]]:
    results: list[ReplayAdapterResult] = []
    refusals: list[ReplayAdapterRefusal] = []
    target = f"problem_frame_contracts.{spec.candidate_organ}"
    for attempt, outcome in zip(run.candidate_attempts, outcomes, strict=True):
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
        if factory is None:
            return dataclasses.replace(value, **fields)
        return factory(**_accepted(factory, fields, value))
    if isinstance(value, tuple):
        return tuple(convert_records(item, record_types) for item in value)
    if isinstance(value, Enum) and type(value).__name__ in record_types:
        return record_types[type(value).__name__](value.value)
    return value


def _accepted(factory: Callable[..., Any], fields: dict[str, Any], value: Any) -> dict[str, Any]:
    """``fields`` less those the host factory does not take and that hold their default (a
    host episode type written before ADR-0233 has no bound-record fields, and an episode
    that is not bound leaves them empty)."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return fields
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return fields
    defaults = {f.name: f.default for f in dataclasses.fields(value)}
    return {
        name: item
        for name, item in fields.items()
        if name in parameters or item != defaults.get(name, dataclasses.MISSING)
    }


def refresh_ids(episode: PracticeEpisode) -> PracticeEpisode:
    """Recompute every id of ``episode`` bottom-up, carrying new ids into their references.

    Every field that held an old id (a binding) is rewritten to the record's new id, so after
    a deliberate edit only the edited fact is wrong: an edited binding that now names another
    record, or a broken order, stays broken. Works on reference types only.

    Raises:
        IdentityError: a record holds a value that cannot be hashed.
    """
    renamed: dict[str, str] = {}

    def ref(value: Any) -> Any:
        if isinstance(value, str):
            return renamed.get(value, value)
        if isinstance(value, tuple):
            return tuple(ref(v) for v in value)
        return value

    def fix(record: Any, id_field: str, compute: Callable[[Any], str], **refs: Any) -> Any:
        record = dataclasses.replace(record, **refs)
        old = getattr(record, id_field)
        new = compute(record)
        if old != new:
            renamed[old] = new
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
                input_digest=_renamed(
                    renamed,
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
                input_digest=_renamed(
                    renamed,
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
    results = tuple(
        fix(
            x,
            "replay_result_id",
            replay_result_id,
            run_id=ref(x.run_id),
            attempt_id=ref(x.attempt_id),
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
    )


def _renamed(renamed: dict[str, str], old: str, new: str) -> str:
    if old != new:
        renamed[old] = new
    return new


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


def tampered_episode(name: str, episode: PracticeEpisode | None = None) -> PracticeEpisode:
    """Return ``episode`` (default: a lawful two-attempt closed episode) broken by ``name``.

    Raises:
        KeyError: ``name`` is not in :data:`TAMPERS`.
    """
    base = episode if episode is not None else build_episode("sealed_candidate_replay_closed")
    return TAMPERS[name].apply(base)
