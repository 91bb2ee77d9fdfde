"""Bound-episode upstream records (ADR-0231/0232/0233) against recorded kernel vectors.

``tests/data/kernel_vectors.json`` holds field values and ids that the upstream kernel's own
code produced (a bound episode and an ADR-0230 chain). The records are rebuilt here into the
package's reference types, and every id the package's identity functions recompute must equal
the kernel's byte for byte. A second set of tests recomputes each kind of id again with this
file's own canonical JSON and SHA-256 (never the package's helpers), and a third shows that
changing one hashed field changes the id while prose never does.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from enum import Enum
from typing import Any

import pytest
from kernel_vectors import BOUND, CHAIN, VECTORS
from kernel_vectors import rebuild as _rebuild
from kernel_vectors import rebuild_attempt as _attempt

from sealed_trace.upstream import binding as binding_module
from sealed_trace.upstream import operator as operator_module
from sealed_trace.upstream.binding import (
    CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION,
    CandidateAttemptRunBinding,
    RunAttemptMembership,
    binding_id,
)
from sealed_trace.upstream.budget import ComputeBudgetDecision, ComputeBudgetStatus, budget_id
from sealed_trace.upstream.frame import (
    ContractAssessmentProjection,
    ProblemFrameProjection,
    contract_assessment_id,
    problem_frame_digest,
)
from sealed_trace.upstream.gate import (
    SearchGateDecision,
    SearchGateStatus,
    gate_decision_id,
    gate_input_digest,
)
from sealed_trace.upstream.operator import (
    CANDIDATE_OPERATOR_POLICY_VERSION,
    CandidateOperatorResult,
    CandidateReconstruction,
    candidate_attempt_ref,
    candidate_digest,
    operator_result_id,
)
from sealed_trace.upstream.replay import (
    ProofReplayRef,
    ReplayAdapterInput,
    ReplayAdapterResult,
    ReplayDisposition,
    replay_input_digest,
    replay_result_id,
)
from sealed_trace.upstream.residuals import (
    ContractResidual,
    ResidualKind,
    ResidualSourceAxis,
    residual_id,
)
from sealed_trace.upstream.run import (
    BudgetCharge,
    BudgetConsumed,
    CandidateReplayStatus,
    GeometricSearchRun,
    RunExhaustionCode,
    SearchRunDisposition,
    attempt_id,
    run_id,
    run_input_digest_of,
)
from sealed_trace.upstream.spans import SourceSpan

EPISODES = pytest.mark.parametrize("episode", [BOUND, CHAIN], ids=["bound", "adr0230"])

# --- rebuilding the recorded records into the reference types -------------------------------


def _spans(items: list[dict[str, Any]]) -> tuple[SourceSpan, ...]:
    return tuple(SourceSpan(**item) for item in items)


def _result(data: dict[str, Any]) -> CandidateOperatorResult:
    return _rebuild(
        CandidateOperatorResult,
        data,
        candidate_attempt=_attempt(data["candidate_attempt"]),
        candidate_reconstruction=_rebuild(
            CandidateReconstruction, data["candidate_reconstruction"]
        ),
    )


def _binding(data: dict[str, Any]) -> CandidateAttemptRunBinding:
    return _rebuild(
        CandidateAttemptRunBinding,
        data,
        budget_charge=BudgetCharge(**data["budget_charge"]),
        run_attempt_membership=RunAttemptMembership(data["run_attempt_membership"]),
    )


def _run(data: dict[str, Any]) -> GeometricSearchRun:
    code = data["exhaustion_code"]
    return _rebuild(
        GeometricSearchRun,
        data,
        candidate_attempts=tuple(_attempt(item) for item in data["candidate_attempts"]),
        budget_consumed=BudgetConsumed(**data["budget_consumed"]),
        run_disposition=SearchRunDisposition(data["run_disposition"]),
        exhaustion_code=None if code is None else RunExhaustionCode(code),
    )


def _residual(data: dict[str, Any]) -> ContractResidual:
    return _rebuild(
        ContractResidual,
        data,
        residual_kind=ResidualKind(data["residual_kind"]),
        source_axis=ResidualSourceAxis(data["source_axis"]),
    )


def _replay_result(data: dict[str, Any]) -> ReplayAdapterResult:
    return _rebuild(
        ReplayAdapterResult,
        data,
        proof_replay_refs=tuple(ProofReplayRef(**ref) for ref in data["proof_replay_refs"]),
        replay_disposition=ReplayDisposition(data["replay_disposition"]),
    )


def _plain(value: Any) -> Any:
    """A reference record back to the recorded JSON form (the inverse of the rebuild)."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


RESULTS = [_result(item) for item in BOUND["candidate_operator_results"]]
BINDINGS = [_binding(item) for item in BOUND["candidate_attempt_bindings"]]
KERNEL_BOUND_IDS: list[dict[str, str]] = BOUND["kernel_ids"]["bound_records"]
PAIRS = pytest.mark.parametrize("index", range(len(RESULTS)))


# --- this file's own canonical JSON and SHA-256 (independent of the package) -----------------


def _sha(payload: object) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _span_objects(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "text": s["text"],
            "start": s["start"],
            "end": s["end"],
            "sentence_index": s["sentence_index"],
        }
        for s in spans
    ]


def _attempt_object(a: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "attempt_id",
        "attempt_index",
        "parent_attempt_id",
        "operator_id",
        "operator_version",
        "input_digest",
        "candidate_digest",
        "budget_charge",
        "depth",
        "step_index",
        "replay_status",
        "replay_blockers",
    )
    return {**{key: a[key] for key in keys}, "evidence_spans": _span_objects(a["evidence_spans"])}


# --- the recorded vectors are what they claim ---------------------------------------------


def test_the_vectors_hold_what_the_tests_need() -> None:
    assert len(RESULTS) == len(BINDINGS) == len(KERNEL_BOUND_IDS) == 2
    assert BOUND["geometric_search_run"]["candidate_attempts"] == []
    assert len(CHAIN["geometric_search_run"]["candidate_attempts"]) == 2
    assert len(BOUND["replay_results"]) == len(BINDINGS)
    assert len(CHAIN["replay_results"]) == 2


def test_policy_version_constants_are_the_kernels() -> None:
    constants = VECTORS["constants"]
    assert constants["CANDIDATE_OPERATOR_POLICY_VERSION"] == CANDIDATE_OPERATOR_POLICY_VERSION
    assert CANDIDATE_OPERATOR_POLICY_VERSION == "candidate_operator.v1"
    assert (
        constants["CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION"]
        == CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION
    )
    assert CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION == "candidate_attempt_run_binding.v1"
    for result, binding in zip(RESULTS, BINDINGS, strict=True):
        assert result.operator_policy_version == CANDIDATE_OPERATOR_POLICY_VERSION
        assert binding.binding_policy_version == CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION


def test_membership_is_a_closed_one_value_enum() -> None:
    assert [member.value for member in RunAttemptMembership] == ["structurally_bound"]
    with pytest.raises(ValueError, match="pending"):
        RunAttemptMembership("pending")


def test_module_exports_are_exact() -> None:
    assert sorted(operator_module.__all__) == [
        "CANDIDATE_OPERATOR_POLICY_VERSION",
        "CandidateOperatorResult",
        "CandidateReconstruction",
        "candidate_attempt_ref",
        "candidate_digest",
        "operator_result_id",
    ]
    assert sorted(binding_module.__all__) == [
        "CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION",
        "CandidateAttemptRunBinding",
        "RunAttemptMembership",
        "binding_id",
        "binding_payload",
    ]


def test_rebuilt_records_are_lossless() -> None:
    for result, data in zip(RESULTS, BOUND["candidate_operator_results"], strict=True):
        assert _plain(result) == data
    for binding, data in zip(BINDINGS, BOUND["candidate_attempt_bindings"], strict=True):
        assert _plain(binding) == data
    for episode in (BOUND, CHAIN):
        assert _plain(_run(episode["geometric_search_run"])) == episode["geometric_search_run"]


# --- the package's identity functions reproduce the kernel's ids --------------------------


@PAIRS
def test_candidate_digest_reproduces(index: int) -> None:
    result, kernel = RESULTS[index], KERNEL_BOUND_IDS[index]
    assert candidate_digest(result.candidate_reconstruction) == kernel["candidate_digest"]
    assert kernel["candidate_digest"] == result.candidate_digest
    assert kernel["candidate_digest"] == result.candidate_attempt.candidate_digest


@PAIRS
def test_attempt_id_reproduces(index: int) -> None:
    result, kernel = RESULTS[index], KERNEL_BOUND_IDS[index]
    assert attempt_id(result.candidate_attempt) == kernel["attempt_id"] == result.attempt_id


@PAIRS
def test_operator_result_id_reproduces(index: int) -> None:
    result, kernel = RESULTS[index], KERNEL_BOUND_IDS[index]
    assert operator_result_id(result) == kernel["operator_result_id"] == result.operator_result_id


@PAIRS
def test_candidate_attempt_ref_reproduces(index: int) -> None:
    result, binding, kernel = RESULTS[index], BINDINGS[index], KERNEL_BOUND_IDS[index]
    ref = candidate_attempt_ref(result.candidate_attempt)
    assert ref == kernel["candidate_attempt_ref"] == binding.candidate_attempt_ref
    assert ref != attempt_id(result.candidate_attempt)  # same 13 keys, but nothing blanked


@PAIRS
def test_binding_id_reproduces(index: int) -> None:
    binding, kernel = BINDINGS[index], KERNEL_BOUND_IDS[index]
    assert binding_id(binding) == kernel["binding_id"] == binding.binding_id


@PAIRS
def test_the_unrecomputable_digests_are_well_formed_and_distinct(index: int) -> None:
    result, binding, kernel = RESULTS[index], BINDINGS[index], KERNEL_BOUND_IDS[index]
    assert result.input_digest == kernel["operator_input_digest"]
    assert result.candidate_attempt.input_digest == result.input_digest
    assert binding.input_digest == kernel["binding_input_digest"]
    assert result.candidate_reconstruction_digest == kernel["candidate_reconstruction_digest"]
    # ADR-0231 §9: the candidate and reconstruction digests are never collapsed
    assert result.candidate_reconstruction_digest != result.candidate_digest
    # the operator input digest is not the run's
    assert result.input_digest != BOUND["geometric_search_run"]["input_digest"]


@EPISODES
def test_the_rest_of_the_chain_reproduces(episode: dict[str, Any]) -> None:
    kernel = episode["kernel_ids"]
    frame = episode["problem_frame"]
    projection = ProblemFrameProjection(
        frame["frame_digest"], frame["frame_schema_version"], frame["problem_text"], frame["facts"]
    )
    assert problem_frame_digest(projection) == frame["frame_digest"]
    assessment = _rebuild(ContractAssessmentProjection, episode["contract_assessment"])
    assert contract_assessment_id(assessment) == assessment.assessment_id
    residuals = [_residual(item) for item in episode["residuals"]]
    assert [residual_id(r) for r in residuals] == kernel["residual_ids"]
    gate = _rebuild(
        SearchGateDecision,
        episode["search_gate_decision"],
        status=SearchGateStatus(episode["search_gate_decision"]["status"]),
    )
    assert gate_input_digest(residuals) == gate.input_digest == kernel["gate_input_digest"]
    assert gate_decision_id(gate) == gate.decision_id == kernel["gate_decision_id"]
    budget = _rebuild(
        ComputeBudgetDecision,
        episode["compute_budget_decision"],
        status=ComputeBudgetStatus(episode["compute_budget_decision"]["status"]),
    )
    assert budget_id(budget) == budget.budget_id == kernel["budget_id"]
    run = _run(episode["geometric_search_run"])
    recomputed_input = run_input_digest_of(
        run,
        gate_policy_version=gate.policy_version,
        gate_input_digest=gate.input_digest,
        budget_policy_version=budget.policy_version,
    )
    assert recomputed_input == run.input_digest == kernel["run_input_digest"]
    assert run_id(run) == run.run_id == kernel["run_id"]
    assert [attempt_id(a) for a in run.candidate_attempts] == kernel.get("attempt_ids", [])
    for data, digest in zip(episode["replay_inputs"], kernel["replay_input_digests"], strict=True):
        assert replay_input_digest(_rebuild(ReplayAdapterInput, data)) == digest
    results = [_replay_result(item) for item in episode["replay_results"]]
    assert [replay_result_id(r) for r in results] == kernel["replay_result_ids"]


# --- this file's own recomputation: the payloads are what the facts say -------------------


@PAIRS
def test_independent_candidate_digest(index: int) -> None:
    recon = BOUND["candidate_operator_results"][index]["candidate_reconstruction"]
    payload = {
        "problem_frame_digest": recon["problem_frame_digest"],
        "candidate_organ": recon["candidate_organ"],
        "candidate_payload": [[k, v] for k, v in recon["candidate_payload"]],
        "evidence_spans": _span_objects(recon["evidence_spans"]),
    }
    assert _sha(payload) == KERNEL_BOUND_IDS[index]["candidate_digest"]


@PAIRS
def test_independent_attempt_id_and_ref(index: int) -> None:
    attempt = BOUND["candidate_operator_results"][index]["candidate_attempt"]
    full = _attempt_object(attempt)
    assert len(full) == 13
    assert _sha(full) == KERNEL_BOUND_IDS[index]["candidate_attempt_ref"]
    assert _sha({**full, "attempt_id": ""}) == KERNEL_BOUND_IDS[index]["attempt_id"]


@PAIRS
def test_independent_operator_result_id(index: int) -> None:
    r = BOUND["candidate_operator_results"][index]
    keys = (
        "operator_policy_version",
        "input_digest",
        "geometric_search_run_id",
        "attempt_id",
        "attempt_index",
        "candidate_digest",
        "candidate_reconstruction_digest",
        "candidate_organ",
        "operator_name",
        "operator_version",
        "reason_codes",
    )
    payload = {
        "operator_result_id": "",
        **{key: r[key] for key in keys},
        "evidence_spans": _span_objects(r["evidence_spans"]),
    }
    assert _sha(payload) == KERNEL_BOUND_IDS[index]["operator_result_id"]


@PAIRS
def test_independent_binding_id(index: int) -> None:
    b = BOUND["candidate_attempt_bindings"][index]
    keys = (
        "binding_policy_version",
        "input_digest",
        "original_run_id",
        "operator_result_id",
        "candidate_attempt_id",
        "attempt_index",
        "candidate_digest",
        "candidate_reconstruction_digest",
        "candidate_attempt_ref",
        "budget_charge",
        "depth",
        "step_index",
        "run_attempt_membership",
        "reason_codes",
    )
    payload = {
        "binding_id": "",
        **{key: b[key] for key in keys},
        "evidence_spans": _span_objects(b["evidence_spans"]),
    }
    assert _sha(payload) == KERNEL_BOUND_IDS[index]["binding_id"]
    # the kernel writes these three as constants; they are the record's values here
    assert payload["binding_policy_version"] == "candidate_attempt_run_binding.v1"
    assert payload["run_attempt_membership"] == "structurally_bound"
    assert payload["reason_codes"] == []


def _trace_lists(episode: dict[str, Any]) -> dict[str, list[str]]:
    """The trace's id lists as the kernel's sealer derives them from the records."""
    bound = "candidate_attempt_bindings" in episode
    if bound:
        attempts = [b["candidate_attempt_id"] for b in episode["candidate_attempt_bindings"]]
        bindings = [b["binding_id"] for b in episode["candidate_attempt_bindings"]]
    else:
        attempts = [a["attempt_id"] for a in episode["geometric_search_run"]["candidate_attempts"]]
        bindings = []
    return {
        "residual_ids": [r["residual_id"] for r in episode["residuals"]],
        "candidate_attempt_ids": attempts,
        "candidate_attempt_binding_ids": bindings,
        "replay_result_ids": [r["replay_result_id"] for r in episode["replay_results"]],
        "replay_refusal_ids": [r["replay_refusal_id"] for r in episode["replay_refusals"]],
    }


@EPISODES
def test_independent_trace_identities(episode: dict[str, Any]) -> None:
    """ADR-0233 §2 layout: binding ids in both payloads and after the attempt ids."""
    lists = _trace_lists(episode)
    sealed = episode["sealed_trace"]
    head = {
        "trace_policy_version": "sealed_practice_trace.v1",
        "problem_frame_digest": episode["problem_frame"]["frame_digest"],
        "original_contract_assessment_id": episode["contract_assessment"]["assessment_id"],
        "search_gate_decision_id": episode["search_gate_decision"]["decision_id"],
        "compute_budget_id": episode["compute_budget_decision"]["budget_id"],
        "geometric_search_run_id": episode["geometric_search_run"]["run_id"],
        **lists,
    }
    input_payload = {
        **head,
        "schema_versions": episode["schema_versions"],
        "policy_versions": episode["policy_versions"],
    }
    assert _sha(input_payload) == sealed["input_digest"] == episode["trace_input"]["input_digest"]
    chain = [
        head["problem_frame_digest"],
        head["original_contract_assessment_id"],
        *lists["residual_ids"],
        head["search_gate_decision_id"],
        head["compute_budget_id"],
        head["geometric_search_run_id"],
        *lists["candidate_attempt_ids"],
        *lists["candidate_attempt_binding_ids"],
        *lists["replay_result_ids"],
        *lists["replay_refusal_ids"],
    ]
    assert sealed["upstream_identity_chain"] == chain == sealed["trace_records"]
    for key, value in lists.items():
        assert sealed[key] == value
    trace_payload = {
        "trace_id": "",
        **head,
        "input_digest": sealed["input_digest"],
        "upstream_identity_chain": chain,
        "practice_disposition": sealed["practice_disposition"],
        "trace_records": chain,
        "evidence_spans": _span_objects(episode["evidence_spans"]),
        "created_by_policy": "sealed_practice_trace.v1",
    }
    assert _sha(trace_payload) == sealed["trace_id"]
    assert sealed["evidence_spans"] == episode["evidence_spans"]


def test_bound_trace_names_the_bound_attempts_in_binding_order() -> None:
    sealed = BOUND["sealed_trace"]
    assert sealed["candidate_attempt_ids"] == [b.candidate_attempt_id for b in BINDINGS]
    assert sealed["candidate_attempt_ids"] == [r.candidate_attempt.attempt_id for r in RESULTS]
    assert sealed["candidate_attempt_binding_ids"] == [b.binding_id for b in BINDINGS]
    run = BOUND["geometric_search_run"]
    for replay, binding in zip(BOUND["replay_results"], BINDINGS, strict=True):
        assert replay["run_id"] == run["run_id"] == binding.original_run_id
        assert replay["attempt_id"] == binding.candidate_attempt_id
        assert replay["candidate_digest"] == binding.candidate_digest


def test_the_trace_spans_follow_policy_order() -> None:
    """sealing-policy §5/§10: assessment, residuals, bound attempts, replay results."""
    expected = [
        *BOUND["contract_assessment"]["evidence_spans"],
        *(s for r in BOUND["residuals"] for s in r["evidence_spans"]),
        *(
            s
            for r in BOUND["candidate_operator_results"]
            for s in r["candidate_attempt"]["evidence_spans"]
        ),
        *(s for r in BOUND["replay_results"] for s in r["evidence_spans"]),
    ]
    assert BOUND["evidence_spans"] == expected
    text = BOUND["problem_frame"]["problem_text"]
    for span in expected:
        assert text[span["start"] : span["end"]] == span["text"]


# --- one changed field changes the id; prose never does ------------------------------------

_RESULT_HASHED = (
    "operator_policy_version",
    "input_digest",
    "geometric_search_run_id",
    "attempt_id",
    "candidate_digest",
    "candidate_reconstruction_digest",
    "candidate_organ",
    "operator_name",
    "operator_version",
)
_BINDING_HASHED = (
    "binding_policy_version",
    "input_digest",
    "original_run_id",
    "operator_result_id",
    "candidate_attempt_id",
    "candidate_digest",
    "candidate_reconstruction_digest",
    "candidate_attempt_ref",
)
_OTHER = "0" * 64


@pytest.mark.parametrize("name", _RESULT_HASHED)
def test_operator_result_id_covers_each_string_field(name: str) -> None:
    result = RESULTS[0]
    assert operator_result_id(dataclasses.replace(result, **{name: _OTHER})) != operator_result_id(
        result
    )


def test_operator_result_id_covers_index_reasons_and_spans() -> None:
    result = RESULTS[1]
    before = operator_result_id(result)
    spans = result.evidence_spans
    for changed in (
        dataclasses.replace(result, attempt_index=1),
        dataclasses.replace(result, reason_codes=("leftover",)),
        dataclasses.replace(result, evidence_spans=spans[::-1]),
        dataclasses.replace(result, evidence_spans=(*spans, spans[0])),
    ):
        assert operator_result_id(changed) != before


def test_operator_result_id_ignores_prose_and_the_nested_records() -> None:
    result = RESULTS[0]
    other = RESULTS[1]
    same = dataclasses.replace(
        result,
        explanation="other prose",
        candidate_attempt=other.candidate_attempt,
        candidate_reconstruction=other.candidate_reconstruction,
    )
    assert operator_result_id(same) == operator_result_id(result)


def test_candidate_digest_covers_content_only() -> None:
    recon = RESULTS[0].candidate_reconstruction
    before = candidate_digest(recon)
    payload = recon.candidate_payload
    for changed in (
        dataclasses.replace(recon, problem_frame_digest=_OTHER),
        dataclasses.replace(recon, candidate_organ="fraction_decrease"),
        dataclasses.replace(recon, candidate_payload=payload[::-1]),
        dataclasses.replace(recon, candidate_payload=(*payload[:-1], ("source", "other"))),
        dataclasses.replace(
            recon, evidence_spans=RESULTS[1].candidate_reconstruction.evidence_spans
        ),
    ):
        assert candidate_digest(changed) != before
    for unchanged in (
        dataclasses.replace(recon, candidate_digest=_OTHER),
        dataclasses.replace(recon, candidate_reconstruction_digest=_OTHER),
        dataclasses.replace(recon, operator_name="other", operator_version="other.v9"),
        dataclasses.replace(recon, operator_provenance=()),
        dataclasses.replace(recon, source_residual_id=_OTHER),
        dataclasses.replace(recon, original_contract_assessment_id=_OTHER),
    ):
        assert candidate_digest(unchanged) == before


def test_candidate_attempt_ref_covers_the_attempt_and_its_id() -> None:
    attempt = RESULTS[0].candidate_attempt
    before = candidate_attempt_ref(attempt)
    for changed in (
        dataclasses.replace(attempt, attempt_id=_OTHER),
        dataclasses.replace(attempt, step_index=1),
        dataclasses.replace(attempt, budget_charge=BudgetCharge(candidates=1, steps=2)),
        dataclasses.replace(attempt, replay_status=CandidateReplayStatus.REPLAY_REFUSED),
        dataclasses.replace(attempt, parent_attempt_id=_OTHER),
    ):
        assert candidate_attempt_ref(changed) != before
    assert candidate_attempt_ref(dataclasses.replace(attempt, explanation="x")) == before


@pytest.mark.parametrize("name", _BINDING_HASHED)
def test_binding_id_covers_each_string_field(name: str) -> None:
    binding = BINDINGS[0]
    assert binding_id(dataclasses.replace(binding, **{name: _OTHER})) != binding_id(binding)


def test_binding_id_covers_counts_reasons_and_spans() -> None:
    binding = BINDINGS[1]
    before = binding_id(binding)
    for changed in (
        dataclasses.replace(binding, attempt_index=1),
        dataclasses.replace(binding, depth=2),
        dataclasses.replace(binding, step_index=1),
        dataclasses.replace(binding, budget_charge=BudgetCharge(candidates=2, steps=1)),
        dataclasses.replace(binding, reason_codes=("leftover",)),
        dataclasses.replace(binding, evidence_spans=binding.evidence_spans[::-1]),
        dataclasses.replace(binding, evidence_spans=binding.evidence_spans[:1]),
    ):
        assert binding_id(changed) != before
    assert binding_id(dataclasses.replace(binding, explanation="other prose")) == before


# --- the three digests the sealer cannot recompute: their recipes, for the record ----------


@PAIRS
def test_independent_unrecomputable_digests(index: int) -> None:
    """What the operator and binding digests hash (all from values no bound record carries:
    the caller's version lists, the residual's kind and code, the run's policy version)."""
    r = BOUND["candidate_operator_results"][index]
    b = BOUND["candidate_attempt_bindings"][index]
    recon = r["candidate_reconstruction"]
    run = BOUND["geometric_search_run"]
    (residual,) = BOUND["residuals"]
    common = {
        "geometric_search_run_id": run["run_id"],
        "operator_set_id": run["operator_set_id"],
        "operator_set_version": run["operator_set_version"],
        "operator_name": r["operator_name"],
        "operator_version": r["operator_version"],
        "residual_id": recon["source_residual_id"],
        "residual_kind": residual["residual_kind"],
        "residual_code": residual["residual_code"],
        "attempt_index": r["attempt_index"],
        "schema_versions": BOUND["operator_schema_versions"],
        "policy_versions": BOUND["operator_policy_versions"],
    }
    operator_input = {
        **common,
        "operator_policy_version": r["operator_policy_version"],
        "problem_frame_digest": recon["problem_frame_digest"],
        "original_contract_assessment_id": recon["original_contract_assessment_id"],
        "candidate_organ": r["candidate_organ"],
        "search_gate_decision_id": run["gate_decision_id"],
        "compute_budget_id": run["budget_id"],
    }
    assert _sha(operator_input) == r["input_digest"]
    reconstruction = {
        **common,
        "candidate_reconstruction_digest": "",
        "attempt_id": r["attempt_id"],
        "candidate_digest": r["candidate_digest"],
        "evidence_spans": _span_objects(r["evidence_spans"]),
    }
    assert _sha(reconstruction) == r["candidate_reconstruction_digest"]
    binding_input = {
        "binding_policy_version": b["binding_policy_version"],
        "original_run_id": run["run_id"],
        "original_run_policy_version": run["run_policy_version"],
        "original_run_input_digest": run["input_digest"],
        "operator_result_id": r["operator_result_id"],
        "operator_policy_version": r["operator_policy_version"],
        "candidate_attempt_id": r["attempt_id"],
        "attempt_index": r["attempt_index"],
        "candidate_digest": r["candidate_digest"],
        "candidate_reconstruction_digest": r["candidate_reconstruction_digest"],
        "operator_set_id": run["operator_set_id"],
        "operator_set_version": run["operator_set_version"],
        "budget_id": run["budget_id"],
        "gate_decision_id": run["gate_decision_id"],
        "residual_ids": run["residual_ids"],
        "problem_frame_digest": run["problem_frame_digest"],
        "original_contract_assessment_id": run["contract_assessment_id"],
        "schema_versions": BOUND["binding_schema_versions"],
        "policy_versions": BOUND["binding_policy_versions"],
    }
    assert _sha(binding_input) == b["input_digest"]
