"""The upstream kernel's trace ids reproduce through the sealer (sealing-policy §10, ADR-0233 §2).

``tests/data/kernel_vectors.json`` holds two episodes the kernel itself sealed: a bound episode
(two operator results and their bindings next to a run with no attempts) and an ADR-0230 chain
(a run with two embedded attempts), each with the trace the kernel produced. Here both are
rebuilt into the package's reference types, as a :class:`PracticeEpisode`, and sealed:

- under ``adr-0233`` the trace's ``input_digest``, ``trace_id``, ``upstream_identity_chain``,
  ``trace_records``, ``evidence_spans`` and ``practice_disposition`` equal the kernel's byte for
  byte (the kernel's sealer always hashes ``candidate_attempt_binding_ids``, empty for a chain);
- under ``adr-0230`` the chain's ids equal this file's own recomputation (``json.dumps`` with
  sorted keys, compact separators, ``ensure_ascii=False`` + ``hashlib.sha256``; never the
  package's helpers) of the kernel's payloads with the ``candidate_attempt_binding_ids`` key
  removed; the two layouts give different ids and the same disposition;
- the bound episode under ``adr-0230`` refuses with ``bound_episode_under_adr_0230``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from kernel_vectors import BOUND, CHAIN
from kernel_vectors import rebuild as _rebuild
from kernel_vectors import rebuild_attempt as _attempt
from kernel_vectors import tuples as _tuples

from sealed_trace import PracticeEpisode, PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.upstream.binding import CandidateAttemptRunBinding, RunAttemptMembership
from sealed_trace.upstream.budget import ComputeBudgetDecision, ComputeBudgetStatus
from sealed_trace.upstream.frame import ContractAssessmentProjection, ProblemFrameProjection
from sealed_trace.upstream.gate import SearchGateDecision, SearchGateStatus
from sealed_trace.upstream.operator import CandidateOperatorResult, CandidateReconstruction
from sealed_trace.upstream.replay import (
    ProofReplayRef,
    ReplayAdapterRefusal,
    ReplayAdapterResult,
    ReplayDisposition,
    ReplayRefusalReason,
)
from sealed_trace.upstream.residuals import ContractResidual, ResidualKind, ResidualSourceAxis
from sealed_trace.upstream.run import (
    BudgetCharge,
    BudgetConsumed,
    GeometricSearchRun,
    RunExhaustionCode,
    SearchRunDisposition,
)

EPISODES = pytest.mark.parametrize("recorded", [BOUND, CHAIN], ids=["bound", "adr0230_chain"])

#: The trace fields the kernel's sealed trace must match byte for byte under adr-0233.
KERNEL_FIELDS = (
    "input_digest",
    "trace_id",
    "upstream_identity_chain",
    "trace_records",
    "evidence_spans",
    "practice_disposition",
)

# --- rebuilding the recorded records into the reference types -------------------------------


def _episode(recorded: dict[str, Any]) -> PracticeEpisode:
    """The recorded episode as a reference :class:`PracticeEpisode` (bound records too)."""
    frame = recorded["problem_frame"]
    run = recorded["geometric_search_run"]
    gate = recorded["search_gate_decision"]
    budget = recorded["compute_budget_decision"]
    results = tuple(
        _rebuild(
            CandidateOperatorResult,
            r,
            candidate_attempt=_attempt(r["candidate_attempt"]),
            candidate_reconstruction=_rebuild(
                CandidateReconstruction, r["candidate_reconstruction"]
            ),
        )
        for r in recorded.get("candidate_operator_results", [])
    )
    bindings = tuple(
        _rebuild(
            CandidateAttemptRunBinding,
            b,
            budget_charge=BudgetCharge(**b["budget_charge"]),
            run_attempt_membership=RunAttemptMembership(b["run_attempt_membership"]),
        )
        for b in recorded.get("candidate_attempt_bindings", [])
    )
    return PracticeEpisode(
        problem_frame=ProblemFrameProjection(
            frame["frame_digest"],
            frame["frame_schema_version"],
            frame["problem_text"],
            frame["facts"],
        ),
        contract_assessment=_rebuild(ContractAssessmentProjection, recorded["contract_assessment"]),
        residuals=tuple(
            _rebuild(
                ContractResidual,
                r,
                residual_kind=ResidualKind(r["residual_kind"]),
                source_axis=ResidualSourceAxis(r["source_axis"]),
            )
            for r in recorded["residuals"]
        ),
        search_gate_decision=_rebuild(
            SearchGateDecision, gate, status=SearchGateStatus(gate["status"])
        ),
        compute_budget_decision=_rebuild(
            ComputeBudgetDecision, budget, status=ComputeBudgetStatus(budget["status"])
        ),
        geometric_search_run=_rebuild(
            GeometricSearchRun,
            run,
            candidate_attempts=tuple(_attempt(a) for a in run["candidate_attempts"]),
            budget_consumed=BudgetConsumed(**run["budget_consumed"]),
            run_disposition=SearchRunDisposition(run["run_disposition"]),
            exhaustion_code=(
                None
                if run["exhaustion_code"] is None
                else RunExhaustionCode(run["exhaustion_code"])
            ),
        ),
        replay_results=tuple(
            _rebuild(
                ReplayAdapterResult,
                r,
                proof_replay_refs=tuple(ProofReplayRef(**x) for x in r["proof_replay_refs"]),
                replay_disposition=ReplayDisposition(r["replay_disposition"]),
            )
            for r in recorded["replay_results"]
        ),
        replay_refusals=tuple(
            _rebuild(
                ReplayAdapterRefusal,
                r,
                replay_disposition=ReplayRefusalReason(r["replay_disposition"]),
            )
            for r in recorded["replay_refusals"]
        ),
        schema_versions=_tuples(recorded["schema_versions"]),
        policy_versions=_tuples(recorded["policy_versions"]),
        candidate_operator_results=results,
        candidate_attempt_bindings=bindings,
    )


def _span_objects(spans: Any) -> list[dict[str, Any]]:
    """Spans (recorded objects or SourceSpan) as the 4-key payload objects."""
    out = []
    for s in spans:
        get = s.get if isinstance(s, dict) else lambda key, s=s: getattr(s, key)
        out.append(
            {
                "text": get("text"),
                "start": get("start"),
                "end": get("end"),
                "sentence_index": get("sentence_index"),
            }
        )
    return out


def _sealed(recorded: dict[str, Any], layout: str) -> SealedPracticeTrace:
    outcome = seal(_episode(recorded), layout=layout)
    assert isinstance(outcome, SealedPracticeTrace), getattr(outcome, "explanation", outcome)
    return outcome


# --- this file's own canonical JSON and SHA-256 --------------------------------------------


def _sha(payload: object) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: ADR-0230 §12.1 input-digest keys (ADR-0233 §2 adds candidate_attempt_binding_ids).
_INPUT_KEYS = (
    "trace_policy_version",
    "problem_frame_digest",
    "original_contract_assessment_id",
    "residual_ids",
    "search_gate_decision_id",
    "compute_budget_id",
    "geometric_search_run_id",
    "candidate_attempt_ids",
    "replay_result_ids",
    "replay_refusal_ids",
    "schema_versions",
    "policy_versions",
)
#: ADR-0230 §12.2 trace-id keys besides the blanked ``trace_id``.
_TRACE_KEYS = (
    "trace_policy_version",
    "input_digest",
    "problem_frame_digest",
    "original_contract_assessment_id",
    "residual_ids",
    "search_gate_decision_id",
    "compute_budget_id",
    "geometric_search_run_id",
    "candidate_attempt_ids",
    "replay_result_ids",
    "replay_refusal_ids",
    "upstream_identity_chain",
    "practice_disposition",
    "trace_records",
    "evidence_spans",
    "created_by_policy",
)


def _adr_0230_ids(recorded: dict[str, Any]) -> tuple[str, str]:
    """``(input_digest, trace_id)`` of the kernel's trace input and trace with the
    ``candidate_attempt_binding_ids`` key removed from both payloads (the adr-0230 layout:
    ADR-0230 §12 literally)."""
    claimed, kernel = recorded["trace_input"], recorded["sealed_trace"]
    input_digest = _sha({key: claimed[key] for key in _INPUT_KEYS})
    payload = {"trace_id": "", **{key: kernel[key] for key in _TRACE_KEYS}}
    payload["input_digest"] = input_digest
    return input_digest, _sha(payload)


# --- the vectors are what the tests need ----------------------------------------------------


def test_the_vectors_are_a_bound_episode_and_a_chain() -> None:
    assert BOUND["candidate_attempt_bindings"]
    assert BOUND["candidate_operator_results"]
    assert BOUND["geometric_search_run"]["candidate_attempts"] == []
    assert "candidate_attempt_bindings" not in CHAIN
    assert CHAIN["geometric_search_run"]["candidate_attempts"]
    assert CHAIN["sealed_trace"]["candidate_attempt_binding_ids"] == []
    # the kernel's own recomputation check: its payload with the binding key reproduces
    for recorded in (BOUND, CHAIN):
        claimed, kernel = recorded["trace_input"], recorded["sealed_trace"]
        keys = (*_INPUT_KEYS, "candidate_attempt_binding_ids")
        assert sorted(claimed) == sorted({*keys, "input_digest"})
        assert _sha({key: claimed[key] for key in keys}) == kernel["input_digest"]
        trace_keys = (*_TRACE_KEYS, "candidate_attempt_binding_ids")
        kernel_payload = {"trace_id": "", **{key: kernel[key] for key in trace_keys}}
        assert _sha(kernel_payload) == kernel["trace_id"]


# --- adr-0233: byte for byte the kernel's trace ---------------------------------------------


@EPISODES
def test_adr_0233_reproduces_the_kernel_trace(recorded: dict[str, Any]) -> None:
    trace = _sealed(recorded, "adr-0233")
    kernel = recorded["sealed_trace"]
    assert trace.identity_layout.value == "adr-0233"
    assert trace.input_digest == kernel["input_digest"] == recorded["trace_input"]["input_digest"]
    assert trace.trace_id == kernel["trace_id"]
    assert list(trace.upstream_identity_chain) == kernel["upstream_identity_chain"]
    assert list(trace.trace_records) == kernel["trace_records"]
    assert _span_objects(trace.evidence_spans) == kernel["evidence_spans"]
    assert trace.practice_disposition.value == kernel["practice_disposition"]
    for name in (
        "candidate_attempt_ids",
        "candidate_attempt_binding_ids",
        "replay_result_ids",
        "replay_refusal_ids",
        "residual_ids",
    ):
        assert list(getattr(trace, name)) == kernel[name], name


def test_bound_chain_puts_binding_ids_after_the_attempt_ids() -> None:
    trace = _sealed(BOUND, "adr-0233")
    chain = list(trace.upstream_identity_chain)
    run_at = chain.index(BOUND["geometric_search_run"]["run_id"])
    attempts = [b["candidate_attempt_id"] for b in BOUND["candidate_attempt_bindings"]]
    bindings = [b["binding_id"] for b in BOUND["candidate_attempt_bindings"]]
    results = [r["replay_result_id"] for r in BOUND["replay_results"]]
    assert chain[run_at + 1 :] == [*attempts, *bindings, *results]


# --- adr-0230: the chain's ids are the kernel's payloads without the binding key ------------


def test_adr_0230_chain_ids_match_an_independent_recomputation() -> None:
    trace = _sealed(CHAIN, "adr-0230")
    input_digest, trace_id = _adr_0230_ids(CHAIN)
    assert trace.identity_layout.value == "adr-0230"
    assert trace.input_digest == input_digest
    assert trace.trace_id == trace_id
    # the lead's recorded recomputation (bound-facts) agrees with this file's
    assert input_digest == "99a407c263294c0af6bb581668ef2eec3581181c2b6f9bcd6216fbae08110576"
    assert trace_id == "1e36bce8db59e5fe74eddff7de4447ec87df05998a5eb194a7bb28d821e1202b"
    kernel = CHAIN["sealed_trace"]
    # everything but the two ids is the kernel's, and the chain holds no binding id
    assert list(trace.upstream_identity_chain) == kernel["upstream_identity_chain"]
    assert list(trace.trace_records) == kernel["trace_records"]
    assert _span_objects(trace.evidence_spans) == kernel["evidence_spans"]
    assert trace.candidate_attempt_binding_ids == ()


def test_the_two_layouts_give_different_ids_and_the_same_disposition() -> None:
    old, new = _sealed(CHAIN, "adr-0230"), _sealed(CHAIN, "adr-0233")
    assert old.input_digest != new.input_digest
    assert old.trace_id != new.trace_id
    assert old.practice_disposition == new.practice_disposition
    assert old.practice_disposition.value == CHAIN["sealed_trace"]["practice_disposition"]
    assert old.upstream_identity_chain == new.upstream_identity_chain


def test_the_bound_episode_under_adr_0230_refuses() -> None:
    outcome = seal(_episode(BOUND), layout="adr-0230")
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert "bound_episode_under_adr_0230" in outcome.reason_codes
    assert outcome.identity_layout.value == "adr-0230"


def test_the_default_layout_is_adr_0230() -> None:
    assert seal(_episode(CHAIN)) == _sealed(CHAIN, "adr-0230")
    outcome = seal(_episode(BOUND))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "bound_episode_under_adr_0230" in outcome.reason_codes
