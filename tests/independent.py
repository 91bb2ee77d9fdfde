"""Independent recomputation of every identity the sealer checks or emits.

Nothing here calls ``sealed_trace.identity`` or the ``sealed_trace.upstream`` id functions: the
canonical JSON, the SHA-256 and every payload are written again from the specifications
(ADR-0230 §12, sealing-policy §2-§6, upstream-records §0-§9), so a test compares the
implementation against a second, separately written reading of the same text.

Records are read by attribute; enum values are taken through ``.value`` when present.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from enum import Enum
from typing import Any

POLICY = "sealed_practice_trace.v1"

#: ADR-0230 §7.3: fields neither outcome type may carry.
FORBIDDEN_OUTPUT_FIELDS = (
    "answer",
    "final_answer",
    "served_output",
    "promotion",
    "mutation",
    "teaching_update",
    "pack_update",
    "policy_update",
    "identity_update",
    "workbench_state",
    "runtime_effect",
    "confidence",
    "score",
    "rank",
    "priority",
    "selected_candidate",
    "best_candidate",
    "serving_allowed",
    "runnable",
)

#: ADR-0230 §7.1 and §7.2 in declaration order, with ADR-0233 §2's binding ids after the
#: attempt ids and the identity layout that made the outcome (sealing-policy §10) last.
SEALED_FIELDS = (
    "trace_id",
    "trace_policy_version",
    "input_digest",
    "problem_frame_digest",
    "original_contract_assessment_id",
    "residual_ids",
    "search_gate_decision_id",
    "compute_budget_id",
    "geometric_search_run_id",
    "candidate_attempt_ids",
    "candidate_attempt_binding_ids",
    "replay_result_ids",
    "replay_refusal_ids",
    "upstream_identity_chain",
    "practice_disposition",
    "trace_records",
    "evidence_spans",
    "created_by_policy",
    "explanation",
    "identity_layout",
)
REFUSAL_FIELDS = (
    "trace_refusal_id",
    "trace_policy_version",
    "input_digest",
    "practice_disposition",
    "reason_codes",
    "explanation",
    "identity_layout",
)
SEALED_DISPOSITIONS = (
    "sealed_original_refusal",
    "sealed_exhausted_no_candidate",
    "sealed_all_candidates_refused",
    "sealed_replay_unavailable",
    "sealed_contract_closed_proof_refused",
    "sealed_candidate_replay_closed",
)
REFUSAL_DISPOSITIONS = (
    "trace_invalid_input",
    "trace_identity_mismatch",
    "trace_policy_unsupported",
    "trace_upstream_incomplete",
)


# --- canonical JSON + SHA-256 (ADR-0230 §12) -----------------------------------------------


def canonical(payload: object) -> str:
    """The ADR §12 text: sorted keys, compact separators, non-ASCII kept raw."""
    return json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def sha(payload: object) -> str:
    """Lowercase hex SHA-256 of the UTF-8 canonical text."""
    return hashlib.sha256(canonical(payload).encode("utf-8")).hexdigest()


def val(x: object) -> object:
    """An enum's string value, anything else unchanged."""
    return x.value if isinstance(x, Enum) else x


def span(s: Any) -> dict[str, object]:
    return {"text": s.text, "start": s.start, "end": s.end, "sentence_index": s.sentence_index}


def spans(ss: Any) -> list[dict[str, object]]:
    return [span(s) for s in ss]


def plain(value: object) -> object:
    """A mapping/sequence tree as dicts and lists (for frame facts)."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


# --- record ids (sealing-policy §2, upstream-records §5-§9) ---------------------------------


def frame_digest(f: Any) -> str:
    return sha(
        {
            "frame_schema_version": f.frame_schema_version,
            "problem_text": f.problem_text,
            "facts": plain(f.facts),
        }
    )


def assessment_id(a: Any) -> str:
    return sha(
        {
            "problem_frame_digest": a.problem_frame_digest,
            "candidate_organ": a.candidate_organ,
            "missing_bindings": list(a.missing_bindings),
            "unresolved_hazards": list(a.unresolved_hazards),
            "runnable": a.runnable,
            "evidence_spans": spans(a.evidence_spans),
        }
    )


def residual_id(r: Any) -> str:
    return sha(
        {
            "candidate_organ": r.candidate_organ,
            "residual_kind": val(r.residual_kind),
            "residual_code": r.residual_code,
            "evidence_spans": spans(r.evidence_spans),
        }
    )


def gate_input_digest(residuals: Any) -> str:
    return sha(
        {
            "residuals": [
                {
                    "residual_id": r.residual_id,
                    "candidate_organ": r.candidate_organ,
                    "family_id": r.family_id,
                    "residual_kind": val(r.residual_kind),
                    "residual_code": r.residual_code,
                    "source_axis": val(r.source_axis),
                    "evidence_spans": spans(r.evidence_spans),
                }
                for r in residuals
            ]
        }
    )


def gate_decision_id(g: Any) -> str:
    return sha(
        {
            "policy_version": g.policy_version,
            "input_digest": g.input_digest,
            "residual_ids": list(g.residual_ids),
            "candidate_organ": g.candidate_organ,
            "status": val(g.status),
            "reason_code": g.reason_code,
            "evidence_spans": spans(g.evidence_spans),
        }
    )


def budget_id(b: Any) -> str:
    return sha(
        {
            "policy_version": b.policy_version,
            "gate_decision_id": b.gate_decision_id,
            "gate_policy_version": b.gate_policy_version,
            "gate_input_digest": b.gate_input_digest,
            "status": val(b.status),
            "reason_code": b.reason_code,
            "max_candidates": b.max_candidates,
            "max_depth": b.max_depth,
            "max_steps": b.max_steps,
            "max_parallelism": b.max_parallelism,
            "evidence_spans": spans(b.evidence_spans),
        }
    )


def run_input_digest(
    *,
    frame_digest: str,
    assessment_id: str,
    residual_ids: Any,
    gate: Any,
    budget: Any,
    operator_set_id: str,
    operator_set_version: str,
    run_policy_version: str,
    schema_version: str,
    gate_decision_id: str | None = None,
    budget_id: str | None = None,
) -> str:
    return sha(
        {
            "problem_frame_digest": frame_digest,
            "contract_assessment_id": assessment_id,
            "residual_ids": list(residual_ids),
            "gate_decision_id": gate.decision_id if gate_decision_id is None else gate_decision_id,
            "gate_policy_version": gate.policy_version,
            "gate_input_digest": gate.input_digest,
            "budget_id": budget.budget_id if budget_id is None else budget_id,
            "budget_policy_version": budget.policy_version,
            "operator_set_id": operator_set_id,
            "operator_set_version": operator_set_version,
            "run_policy_version": run_policy_version,
            "schema_version": schema_version,
        }
    )


def run_input_digest_of(run: Any, gate: Any, budget: Any) -> str:
    """A run's input digest from the run's own fields and its gate and budget records."""
    return run_input_digest(
        frame_digest=run.problem_frame_digest,
        assessment_id=run.contract_assessment_id,
        residual_ids=run.residual_ids,
        gate=gate,
        budget=budget,
        gate_decision_id=run.gate_decision_id,
        budget_id=run.budget_id,
        operator_set_id=run.operator_set_id,
        operator_set_version=run.operator_set_version,
        run_policy_version=run.run_policy_version,
        schema_version=run.schema_version,
    )


def _attempt_object(a: Any, own_id: str) -> dict[str, object]:
    return {
        "attempt_id": own_id,
        "attempt_index": a.attempt_index,
        "parent_attempt_id": a.parent_attempt_id,
        "operator_id": a.operator_id,
        "operator_version": a.operator_version,
        "input_digest": a.input_digest,
        "candidate_digest": a.candidate_digest,
        "budget_charge": {"candidates": a.budget_charge.candidates, "steps": a.budget_charge.steps},
        "depth": a.depth,
        "step_index": a.step_index,
        "replay_status": val(a.replay_status),
        "replay_blockers": list(a.replay_blockers),
        "evidence_spans": spans(a.evidence_spans),
    }


def attempt_id(a: Any) -> str:
    return sha(_attempt_object(a, ""))


def run_id(run: Any) -> str:
    c = run.budget_consumed
    return sha(
        {
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
            "candidate_attempts": [
                _attempt_object(a, a.attempt_id) for a in run.candidate_attempts
            ],
            "budget_consumed": {
                k: getattr(c, k)
                for k in (
                    "candidates_considered",
                    "max_candidates",
                    "depth_reached",
                    "max_depth",
                    "steps_used",
                    "max_steps",
                    "parallelism_used",
                    "max_parallelism",
                    "exhausted",
                )
            },
            "run_disposition": val(run.run_disposition),
            "exhaustion_code": val(run.exhaustion_code),
        }
    )


def run_refusal_outcome_id(x: Any) -> str:
    return sha(
        {
            "outcome_id": "",
            "run_policy_version": x.run_policy_version,
            "input_digest": x.input_digest,
            "gate_decision_id": x.gate_decision_id,
            "budget_id": x.budget_id,
            "run_disposition": val(x.run_disposition),
            "reason_codes": list(x.reason_codes),
        }
    )


def replay_result_id(x: Any) -> str:
    return sha(
        {
            "replay_result_id": "",
            "replay_policy_version": x.replay_policy_version,
            "input_digest": x.input_digest,
            "run_id": x.run_id,
            "attempt_id": x.attempt_id,
            "candidate_digest": x.candidate_digest,
            "contract_replay_assessment_id": x.contract_replay_assessment_id,
            "proof_obligation_refs": list(x.proof_obligation_refs),
            "proof_replay_refs": [
                {
                    "proof_obligation_id": p.proof_obligation_id,
                    "proof_obligation_version": p.proof_obligation_version,
                    "proof_replay_id": p.proof_replay_id,
                    "closed": p.closed,
                    "reason_code": p.reason_code,
                }
                for p in x.proof_replay_refs
            ],
            "replay_disposition": val(x.replay_disposition),
            "reason_codes": list(x.reason_codes),
            "evidence_spans": spans(x.evidence_spans),
        }
    )


def replay_refusal_id(x: Any) -> str:
    return sha(
        {
            "replay_refusal_id": "",
            "replay_policy_version": x.replay_policy_version,
            "input_digest": x.input_digest,
            "run_id": x.run_id,
            "attempt_id": x.attempt_id,
            "candidate_digest": x.candidate_digest,
            "replay_disposition": val(x.replay_disposition),
            "reason_codes": list(x.reason_codes),
        }
    )


def replay_input_digest(i: Any) -> str:
    keys = (
        "replay_policy_version",
        "run_id",
        "run_policy_version",
        "attempt_id",
        "attempt_index",
        "candidate_digest",
        "candidate_reconstruction_digest",
        "problem_frame_digest",
        "original_contract_assessment_id",
        "candidate_organ",
        "residual_ids",
        "gate_decision_id",
        "budget_id",
        "operator_set_id",
        "operator_set_version",
        "contract_replay_target",
        "proof_obligation_refs",
    )
    payload: dict[str, object] = {
        k: list(getattr(i, k)) if isinstance(getattr(i, k), tuple) else getattr(i, k) for k in keys
    }
    payload["schema_versions"] = [[n, v] for n, v in i.schema_versions]
    return sha(payload)


# --- episode-level checks ------------------------------------------------------------------


def id_mismatches(ep: Any) -> list[str]:
    """Every record id of ``ep`` that does not reproduce, by location (empty: all reproduce)."""
    out: list[str] = []

    def check(where: str, claimed: object, actual: str) -> None:
        if claimed != actual:
            out.append(where)

    if ep.problem_frame is not None:
        check("frame", ep.problem_frame.frame_digest, frame_digest(ep.problem_frame))
    if ep.contract_assessment is not None:
        check(
            "assessment",
            ep.contract_assessment.assessment_id,
            assessment_id(ep.contract_assessment),
        )
    for i, r in enumerate(ep.residuals):
        check(f"residual[{i}]", r.residual_id, residual_id(r))
    gate, budget = ep.search_gate_decision, ep.compute_budget_decision
    if gate is not None:
        check("gate", gate.decision_id, gate_decision_id(gate))
    if budget is not None:
        check("budget", budget.budget_id, budget_id(budget))
    run = ep.geometric_search_run
    if run is not None:
        check("run", run.run_id, run_id(run))
        if gate is not None and budget is not None:
            check("run.input_digest", run.input_digest, run_input_digest_of(run, gate, budget))
        for i, a in enumerate(run.candidate_attempts):
            check(f"attempt[{i}]", a.attempt_id, attempt_id(a))
    if ep.search_run_refusal is not None:
        check(
            "run_refusal",
            ep.search_run_refusal.outcome_id,
            run_refusal_outcome_id(ep.search_run_refusal),
        )
    for i, x in enumerate(ep.replay_results):
        check(f"replay_result[{i}]", x.replay_result_id, replay_result_id(x))
    for i, x in enumerate(ep.replay_refusals):
        check(f"replay_refusal[{i}]", x.replay_refusal_id, replay_refusal_id(x))
    return out


def run_ref_id(ep: Any) -> str:
    run = ep.geometric_search_run
    return run.run_id if run is not None else ep.search_run_refusal.outcome_id


def attempt_ids(ep: Any) -> list[str]:
    run = ep.geometric_search_run
    return [a.attempt_id for a in run.candidate_attempts] if run is not None else []


def input_payload(ep: Any) -> dict[str, object]:
    """The ADR-0230 §12.1 payload of an episode (ids as the records claim them)."""
    return {
        "trace_policy_version": ep.trace_policy_version,
        "problem_frame_digest": ep.problem_frame.frame_digest,
        "original_contract_assessment_id": ep.contract_assessment.assessment_id,
        "residual_ids": [r.residual_id for r in ep.residuals],
        "search_gate_decision_id": ep.search_gate_decision.decision_id,
        "compute_budget_id": ep.compute_budget_decision.budget_id,
        "geometric_search_run_id": run_ref_id(ep),
        "candidate_attempt_ids": attempt_ids(ep),
        "replay_result_ids": [x.replay_result_id for x in ep.replay_results],
        "replay_refusal_ids": [x.replay_refusal_id for x in ep.replay_refusals],
        "schema_versions": [[n, v] for n, v in ep.schema_versions],
        "policy_versions": [[n, v] for n, v in ep.policy_versions],
    }


def input_digest(ep: Any) -> str:
    return sha(input_payload(ep))


def chain(ep: Any) -> list[str]:
    """sealing-policy §6: frame, assessment, residuals, gate, budget, run, attempts, replay."""
    p = input_payload(ep)
    return [
        p["problem_frame_digest"],
        p["original_contract_assessment_id"],
        *p["residual_ids"],
        p["search_gate_decision_id"],
        p["compute_budget_id"],
        p["geometric_search_run_id"],
        *p["candidate_attempt_ids"],
        *p["replay_result_ids"],
        *p["replay_refusal_ids"],
    ]


def evidence_spans(ep: Any) -> list[Any]:
    """sealing-policy §5: assessment, residuals, attempts, replay results; copied as given."""
    out = list(ep.contract_assessment.evidence_spans)
    for r in ep.residuals:
        out += r.evidence_spans
    run = ep.geometric_search_run
    for a in run.candidate_attempts if run is not None else ():
        out += a.evidence_spans
    for x in ep.replay_results:
        out += x.evidence_spans
    return out


def disposition(ep: Any) -> str:
    """ADR-0230 §8.1 / sealing-policy §6 from the records."""
    run = ep.geometric_search_run
    if run is None:
        return "sealed_original_refusal"
    if not run.candidate_attempts:
        return "sealed_exhausted_no_candidate"
    kinds = {val(x.replay_disposition) for x in ep.replay_results}
    if "contract_and_proof_closed" in kinds:
        return "sealed_candidate_replay_closed"
    if "contract_closed_but_proof_refused" in kinds:
        return "sealed_contract_closed_proof_refused"
    if kinds:
        return "sealed_all_candidates_refused"
    return "sealed_replay_unavailable"


def trace_payload(ep: Any, disp: str | None = None) -> dict[str, object]:
    """ADR-0230 §12.2 keys plus ``"trace_id": ""`` (sealing-policy §6)."""
    p = input_payload(ep)
    c = chain(ep)
    return {
        "trace_id": "",
        "trace_policy_version": p["trace_policy_version"],
        "input_digest": input_digest(ep),
        "problem_frame_digest": p["problem_frame_digest"],
        "original_contract_assessment_id": p["original_contract_assessment_id"],
        "residual_ids": p["residual_ids"],
        "search_gate_decision_id": p["search_gate_decision_id"],
        "compute_budget_id": p["compute_budget_id"],
        "geometric_search_run_id": p["geometric_search_run_id"],
        "candidate_attempt_ids": p["candidate_attempt_ids"],
        "replay_result_ids": p["replay_result_ids"],
        "replay_refusal_ids": p["replay_refusal_ids"],
        "upstream_identity_chain": c,
        "practice_disposition": disp if disp is not None else disposition(ep),
        "trace_records": c,
        "evidence_spans": spans(evidence_spans(ep)),
        "created_by_policy": POLICY,
    }


def trace_id(ep: Any) -> str:
    return sha(trace_payload(ep))


def trace_id_of_outcome(t: Any) -> str:
    """The §12.2 id recomputed from a SealedPracticeTrace's own fields; under the adr-0233
    layout the binding ids are a key too (ADR-0233 §2)."""
    payload = {
        "trace_id": "",
        "trace_policy_version": t.trace_policy_version,
        "input_digest": t.input_digest,
        "problem_frame_digest": t.problem_frame_digest,
        "original_contract_assessment_id": t.original_contract_assessment_id,
        "residual_ids": list(t.residual_ids),
        "search_gate_decision_id": t.search_gate_decision_id,
        "compute_budget_id": t.compute_budget_id,
        "geometric_search_run_id": t.geometric_search_run_id,
        "candidate_attempt_ids": list(t.candidate_attempt_ids),
        "replay_result_ids": list(t.replay_result_ids),
        "replay_refusal_ids": list(t.replay_refusal_ids),
        "upstream_identity_chain": list(t.upstream_identity_chain),
        "practice_disposition": val(t.practice_disposition),
        "trace_records": list(t.trace_records),
        "evidence_spans": spans(t.evidence_spans),
        "created_by_policy": t.created_by_policy,
    }
    if val(getattr(t, "identity_layout", "adr-0230")) == "adr-0233":
        payload["candidate_attempt_binding_ids"] = list(t.candidate_attempt_binding_ids)
    return sha(payload)


def refusal_id(input_digest_value: str | None, disp: str, reason_codes: Any) -> str:
    return sha(
        {
            "trace_refusal_id": "",
            "trace_policy_version": POLICY,
            "input_digest": input_digest_value,
            "practice_disposition": disp,
            "reason_codes": list(reason_codes),
        }
    )


def refusal_id_of_outcome(x: Any) -> str:
    return sha(
        {
            "trace_refusal_id": "",
            "trace_policy_version": x.trace_policy_version,
            "input_digest": x.input_digest,
            "practice_disposition": val(x.practice_disposition),
            "reason_codes": list(x.reason_codes),
        }
    )


def outcome_fields(outcome: Any) -> dict[str, object]:
    """Every field of an outcome as plain JSON values (spans as objects, enums as values)."""
    out: dict[str, object] = {}
    for f in dataclasses.fields(outcome):
        v = getattr(outcome, f.name)
        if f.name == "evidence_spans":
            v = spans(v)
        elif isinstance(v, tuple):
            v = list(v)
        out[f.name] = val(v)
    return out


# --- an independent id cascade -------------------------------------------------------------


def reseal_below_gate(ep: Any) -> Any:
    """Recompute every id downstream of the gate *without* recomputing ``gate.input_digest``.

    The gate's input digest is carried through as given, so a test can break exactly that
    binding (``builder.refresh_ids`` always recomputes it from the residuals).
    """
    r = dataclasses.replace
    gate = ep.search_gate_decision
    gate = r(gate, decision_id=gate_decision_id(gate))
    budget = ep.compute_budget_decision
    budget = r(budget, gate_decision_id=gate.decision_id, gate_input_digest=gate.input_digest)
    budget = r(budget, budget_id=budget_id(budget))
    run = ep.geometric_search_run
    run = r(run, gate_decision_id=gate.decision_id, budget_id=budget.budget_id)
    run = r(run, input_digest=run_input_digest_of(run, gate, budget))
    renamed: dict[str, str] = {}
    attempts = []
    for a in run.candidate_attempts:
        parent = renamed.get(a.parent_attempt_id, a.parent_attempt_id)
        a2 = r(a, input_digest=run.input_digest, parent_attempt_id=parent)
        a2 = r(a2, attempt_id=attempt_id(a2))
        renamed[a.attempt_id] = a2.attempt_id
        attempts.append(a2)
    run = r(run, candidate_attempts=tuple(attempts))
    run = r(run, run_id=run_id(run))
    results = []
    for x in ep.replay_results:
        x2 = r(x, run_id=run.run_id, attempt_id=renamed.get(x.attempt_id, x.attempt_id))
        results.append(r(x2, replay_result_id=replay_result_id(x2)))
    refusals = []
    for x in ep.replay_refusals:
        x2 = r(x, run_id=run.run_id, attempt_id=renamed.get(x.attempt_id, x.attempt_id))
        refusals.append(r(x2, replay_refusal_id=replay_refusal_id(x2)))
    return r(
        ep,
        search_gate_decision=gate,
        compute_budget_decision=budget,
        geometric_search_run=run,
        replay_results=tuple(results),
        replay_refusals=tuple(refusals),
    )
