"""upstream-records §11 reference vectors: record-level identities, two ways.

Each vector is recomputed by the package's id function (the thing under test) and by the
tests' own payload builders in ``independent``; both must equal the published digest. The
trace-level values of chains A and B include a key ADR-0230 §12 does not have, so they must
*not* equal our §12 recomputation of the same chain.
"""

from __future__ import annotations

import dataclasses
import hashlib

import independent as ind
import pytest

from sealed_trace import seal
from sealed_trace.builder import build_episode
from sealed_trace.upstream import (
    BudgetConsumed,
    ComputeBudgetDecision,
    ComputeBudgetStatus,
    ContractResidual,
    GeometricSearchRun,
    ReplayAdapterRefusal,
    ReplayRefusalReason,
    ResidualKind,
    ResidualSourceAxis,
    RunExhaustionCode,
    SearchGateDecision,
    SearchGateStatus,
    SearchRunDisposition,
    SearchRunRefusal,
    SourceSpan,
    budget_id,
    gate_decision_id,
    gate_input_digest,
    replay_refusal_id,
    residual_id,
    run_id,
    run_input_digest,
    run_refusal_outcome_id,
)
from sealed_trace.upstream.run import run_json

ORGAN = "unary_delta_transition"
FAMILY = "state_change.unary_delta"
FRAME = hashlib.sha256(b"frame").hexdigest()
ASSESSMENT = "a" * 64

A_RESIDUAL_DIRECTION = "24885010a84a5cd62032175f8093680cc00be969af2be69d4289df153e8c4cbc"
A_RESIDUAL_CHANGED = "e56fa420ce0acc64071fc5ef819d740d54f1ab17f1a268728a0ef490784ffe32"
A_GATE_INPUT = "b3c6a0993501140f18cab83adf87eb94e02d64eea45486b4fd0127de9cdfbf6c"
A_GATE = "13852182ad725f3f4d12946756ea231d420ec6ed0f54f8071de2a8a01c5e1c54"
A_BUDGET = "fec78f5f4b77cd43075029adccea398303ab282af5236ceaaa602bf01805c0ac"
A_RUN_INPUT = "ea2730606b5e10ad0166b51bfb00453d0fdbd0c6c72326403bf25a8b5b234f84"
A_RUN = "b70042edfd2214bef6ea91bcf141aec5033204af1bb58e85ebf489574009e96b"
A_TRACE_INPUT_PUBLISHED = "9a410d05c386a9c92a0d7157b4f6ddff76342a1fb83ed1966dd7f0766baa52e7"
A_TRACE_ID_PUBLISHED = "e9aa2a80668ad347eb6824beecb552e8cee9e3c123777c02913ac34b7621d177"
B_RESIDUAL = "43d8af472da71416ee3bb26451130ba53989de51e3ef8f2106ede8da4c396e24"
B_GATE = "fce7ee4d98354ab96b28a226047e108b857d7d7a0a5b46986e60c7a4ff7d6299"
B_BUDGET = "fa15448e04a7203e502266edea4da3cd199391168de31fcb5883a9c0c98ee417"
B_RUN_REFUSAL_INPUT = "5ded9cf5ecf95803975297863a45de78d698ea9ee43afbd37c8c8785babed8a9"
B_RUN_REFUSAL = "1afb008ff27ff51917aad3109bd33fa4c9b11895e6bc3749aff7ecefc34f8c84"
B_TRACE_INPUT_PUBLISHED = "43b48cf8b574b8e6147b72cfa192a40a78e155ec1b3b2ab8b41831fed8b5f6a1"
B_TRACE_ID_PUBLISHED = "9698e504215bd6892c93183a32ff975bbc64a66793ce9c68b87f8bb69e6563f5"
REPLAY_REFUSAL_NON_INPUT = "9b0d0c84aabaea69be534ca79f3b155ef5726a428e516787ad0efed25c6e516a"
TRACE_REFUSAL_NON_INPUT = "97622d50a5be6dbe67f22edcb15e52244d3997ef3843cd290fc4bde9c5616218"

SPAN_A = SourceSpan("gained", 4, 10, 0)
SPAN_B = SourceSpan("gained", 14, 20, 0)


def _residual(
    code: str, kind: ResidualKind, axis: ResidualSourceAxis, span: SourceSpan
) -> ContractResidual:
    draft = ContractResidual("", ORGAN, FAMILY, kind, code, axis, (span,))
    return ContractResidual(ind.residual_id(draft), ORGAN, FAMILY, kind, code, axis, (span,))


def _chain_a():
    residuals = sorted(
        (
            _residual(code, ResidualKind.MISSING_ROLE, ResidualSourceAxis.ROLE, SPAN_A)
            for code in ("changed_object_unbound", "direction_unbound")
        ),
        key=lambda r: r.residual_id,
    )
    gate = SearchGateDecision(
        A_GATE,
        "search_gate.v1",
        A_GATE_INPUT,
        tuple(r.residual_id for r in residuals),
        ORGAN,
        SearchGateStatus.ELIGIBLE,
        "eligible_missing_role",
        (SPAN_A, SPAN_A),
    )
    budget = ComputeBudgetDecision(
        A_BUDGET,
        "compute_budget.v1",
        A_GATE,
        "search_gate.v1",
        A_GATE_INPUT,
        ComputeBudgetStatus.BUDGET_ALLOWED,
        "budget_allowed_missing_role",
        5,
        2,
        10,
        None,
        1,
        (SPAN_A, SPAN_A),
    )
    run = GeometricSearchRun(
        A_RUN,
        "geometric_search_run.v1",
        "geometric_search_run.schema.v1",
        FRAME,
        ASSESSMENT,
        gate.residual_ids,
        A_GATE,
        A_BUDGET,
        "empty",
        "operators.v0",
        A_RUN_INPUT,
        (),
        BudgetConsumed(0, 5, 0, 2, 0, 10, 0, 1, False),
        SearchRunDisposition.EXHAUSTED_NO_CANDIDATE,
        RunExhaustionCode.OPERATOR_SET_EMPTY,
    )
    return residuals, gate, budget, run


def _chain_b():
    residual = _residual(
        "passive_voice_unsupported",
        ResidualKind.UNSUPPORTED_TOPOLOGY,
        ResidualSourceAxis.TOPOLOGY,
        SPAN_B,
    )
    gate = SearchGateDecision(
        B_GATE,
        "search_gate.v1",
        ind.gate_input_digest([residual]),
        (residual.residual_id,),
        ORGAN,
        SearchGateStatus.BLOCKED,
        "blocked_unsupported_topology",
        (SPAN_B,),
    )
    budget = ComputeBudgetDecision(
        B_BUDGET,
        "compute_budget.v1",
        B_GATE,
        "search_gate.v1",
        gate.input_digest,
        ComputeBudgetStatus.BUDGET_BLOCKED,
        "budget_blocked_gate_not_eligible",
        0,
        0,
        0,
        None,
        0,
        (SPAN_B,),
    )
    refusal = SearchRunRefusal(
        B_RUN_REFUSAL,
        "geometric_search_run.v1",
        B_RUN_REFUSAL_INPUT,
        B_GATE,
        B_BUDGET,
        SearchRunDisposition.BLOCKED_BY_GATE,
        ("gate_not_eligible",),
    )
    return residual, gate, budget, refusal


def _run_input_kwargs(gate, budget):
    return dict(
        problem_frame_digest=FRAME,
        contract_assessment_id=ASSESSMENT,
        residual_ids=gate.residual_ids,
        gate_decision_id=gate.decision_id,
        gate_policy_version=gate.policy_version,
        gate_input_digest=gate.input_digest,
        budget_id=budget.budget_id,
        budget_policy_version=budget.policy_version,
        operator_set_id="empty",
        operator_set_version="operators.v0",
        run_policy_version="geometric_search_run.v1",
        schema_version="geometric_search_run.schema.v1",
    )


@pytest.mark.parametrize(
    ("code", "expected"),
    [("direction_unbound", A_RESIDUAL_DIRECTION), ("changed_object_unbound", A_RESIDUAL_CHANGED)],
)
def test_chain_a_residual_ids(code, expected):
    residual = _residual(code, ResidualKind.MISSING_ROLE, ResidualSourceAxis.ROLE, SPAN_A)
    assert ind.residual_id(residual) == expected
    assert residual_id(residual) == expected


def test_chain_a_gate_input_digest_and_decision_id():
    residuals, gate, _, _ = _chain_a()
    assert ind.gate_input_digest(residuals) == A_GATE_INPUT
    assert gate_input_digest(residuals) == A_GATE_INPUT
    assert ind.gate_decision_id(gate) == A_GATE
    assert gate_decision_id(gate) == A_GATE


def test_chain_a_budget_id():
    _, _, budget, _ = _chain_a()
    assert ind.budget_id(budget) == A_BUDGET
    assert budget_id(budget) == A_BUDGET


def test_chain_a_budget_id_ignores_max_wallclock_ms():
    _, _, budget, _ = _chain_a()
    later = dataclasses.replace(budget, max_wallclock_ms=1234)
    assert budget_id(later) == A_BUDGET


def test_chain_a_run_input_digest_and_run_id():
    _, gate, budget, run = _chain_a()
    assert ind.run_input_digest_of(run, gate, budget) == A_RUN_INPUT
    assert run_input_digest(**_run_input_kwargs(gate, budget)) == A_RUN_INPUT
    assert ind.run_id(run) == A_RUN
    assert run_id(run) == A_RUN


@pytest.mark.parametrize("attempts", [0, 1, 7])
def test_run_json_from_pre_encoded_attempts_hashes_to_the_run_id(attempts):
    # The sealer splices each attempt's encoded text into the run payload instead of encoding
    # it twice; the bytes must be the published (chain A) or independently computed run_id's.
    if attempts == 0:
        run = _chain_a()[3]
        expected = A_RUN
    else:
        run = build_episode("sealed_contract_closed_proof_refused", attempts=attempts)
        run = run.geometric_search_run
        expected = ind.run_id(run)
    texts = [ind.canonical(ind._attempt_object(a, a.attempt_id)) for a in run.candidate_attempts]
    assert hashlib.sha256(run_json(run, texts).encode("utf-8")).hexdigest() == expected


def test_chain_b_residual_gate_budget():
    residual, gate, budget, _ = _chain_b()
    assert ind.residual_id(residual) == B_RESIDUAL
    assert residual_id(residual) == B_RESIDUAL
    assert ind.gate_decision_id(gate) == B_GATE
    assert gate_decision_id(gate) == B_GATE
    assert ind.budget_id(budget) == B_BUDGET
    assert budget_id(budget) == B_BUDGET


def test_chain_b_run_refusal_digests():
    _, gate, budget, refusal = _chain_b()
    assert run_input_digest(**_run_input_kwargs(gate, budget)) == B_RUN_REFUSAL_INPUT
    assert ind.run_refusal_outcome_id(refusal) == B_RUN_REFUSAL
    assert run_refusal_outcome_id(refusal) == B_RUN_REFUSAL


def test_replay_refusal_for_a_non_input():
    refusal = ReplayAdapterRefusal(
        "",
        "contract_proof_replay.v1",
        None,
        None,
        None,
        None,
        ReplayRefusalReason.INVALID_REPLAY_INPUT,
        ("invalid_replay_input_type",),
    )
    assert ind.replay_refusal_id(refusal) == REPLAY_REFUSAL_NON_INPUT
    assert replay_refusal_id(refusal) == REPLAY_REFUSAL_NON_INPUT


@pytest.mark.parametrize("non_input", [None, 0, "episode", object(), (), {}])
def test_trace_refusal_for_a_non_input(non_input):
    outcome = seal(non_input)
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert outcome.reason_codes == ("invalid_trace_input_type",)
    assert outcome.input_digest is None
    assert ind.refusal_id(None, "trace_invalid_input", ["invalid_trace_input_type"]) == (
        TRACE_REFUSAL_NON_INPUT
    )
    assert outcome.trace_refusal_id == TRACE_REFUSAL_NON_INPUT


def _adr_trace_ids(
    *, frame, assessment, residual_ids, gate, budget, run_ref, spans, disp, schema, policy
):
    """Our ADR §12.1 / §12.2 recomputation of a chain's trace input digest and trace id."""
    payload = {
        "trace_policy_version": ind.POLICY,
        "problem_frame_digest": frame,
        "original_contract_assessment_id": assessment,
        "residual_ids": list(residual_ids),
        "search_gate_decision_id": gate,
        "compute_budget_id": budget,
        "geometric_search_run_id": run_ref,
        "candidate_attempt_ids": [],
        "replay_result_ids": [],
        "replay_refusal_ids": [],
        "schema_versions": [list(p) for p in schema],
        "policy_versions": [list(p) for p in policy],
    }
    digest = ind.sha(payload)
    chain = [frame, assessment, *residual_ids, gate, budget, run_ref]
    trace = {
        "trace_id": "",
        **{k: v for k, v in payload.items() if not k.endswith("_versions")},
        "input_digest": digest,
        "upstream_identity_chain": chain,
        "practice_disposition": disp,
        "trace_records": chain,
        "evidence_spans": ind.spans(spans),
        "created_by_policy": ind.POLICY,
    }
    return digest, ind.sha(trace)


def test_published_trace_level_values_are_not_adr_0230_section_12():
    from sealed_trace.builder import version_lists

    residuals, _, _, _ = _chain_a()
    schema, policy = version_lists(run=True, replay=False)
    a_digest, a_trace = _adr_trace_ids(
        frame=FRAME,
        assessment=ASSESSMENT,
        residual_ids=[r.residual_id for r in residuals],
        gate=A_GATE,
        budget=A_BUDGET,
        run_ref=A_RUN,
        spans=[SPAN_A],
        disp="sealed_exhausted_no_candidate",
        schema=schema,
        policy=policy,
    )
    assert a_digest != A_TRACE_INPUT_PUBLISHED
    assert a_trace != A_TRACE_ID_PUBLISHED
    schema, policy = version_lists(run=False, replay=False)
    b_digest, b_trace = _adr_trace_ids(
        frame=FRAME,
        assessment=ASSESSMENT,
        residual_ids=[B_RESIDUAL],
        gate=B_GATE,
        budget=B_BUDGET,
        run_ref=B_RUN_REFUSAL,
        spans=[],
        disp="sealed_original_refusal",
        schema=schema,
        policy=policy,
    )
    assert b_digest != B_TRACE_INPUT_PUBLISHED
    assert b_trace != B_TRACE_ID_PUBLISHED
