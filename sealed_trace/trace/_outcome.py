"""Building the outcome: the trace input (ADR-0230 §12.1), the sealed trace (§7.1, §12.2) or
the refusal (§7.2, §13), under the chosen identity layout (ADR-0233 §2; sealing-policy §6,
§10). Every identity here is the sealer's own recomputation; nothing is copied from the caller.
"""

from __future__ import annotations

import dataclasses
from typing import Final, cast

from sealed_trace._reader import ArrayCopy, Problems
from sealed_trace.identity import (
    canonical_json,
    canonical_json_with,
    digest_of_canonical,
    identity_digest,
)
from sealed_trace.reasons import FAMILY_ORDER, REASON_CODES
from sealed_trace.trace._copies import Copies
from sealed_trace.trace._spans import trace_spans
from sealed_trace.trace.model import (
    SEALED_PRACTICE_TRACE_POLICY_VERSION,
    IdentityLayout,
    PracticeDisposition,
    PracticeTraceInput,
    PracticeTraceRefusal,
    SealedPracticeTrace,
)
from sealed_trace.upstream.replay import ReplayDisposition
from sealed_trace.upstream.spans import spans_payload

__all__ = [
    "build_trace_input",
    "chain_of",
    "disposition",
    "input_payload",
    "refusal",
    "refusal_identity_payload",
    "sealed_trace",
    "trace_identity_payload",
]

_D = PracticeDisposition
#: The keys of the ADR-0230 §12.1 payload: the trace input's fields but its digest.
_INPUT_KEYS: Final = (
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
_BINDING_IDS: Final = "candidate_attempt_binding_ids"
#: Trace input keys whose lists grow with the attempts: the trace payload repeats them.
_LONG_ID_LISTS: Final = ("candidate_attempt_ids", "replay_result_ids", _BINDING_IDS)
#: Lists at least this long are encoded once and spliced where a payload repeats them.
_SPLICE_MIN: Final = 32

Fragments = dict[str, str]


def input_payload(ti: PracticeTraceInput, layout: IdentityLayout) -> dict[str, object]:
    """The §12.1 payload of ``ti`` under ``layout`` (ADR-0233 §2 adds the binding ids)."""
    payload: dict[str, object] = {
        "trace_policy_version": ti.trace_policy_version,
        "problem_frame_digest": ti.problem_frame_digest,
        "original_contract_assessment_id": ti.original_contract_assessment_id,
        "residual_ids": ti.residual_ids,
        "search_gate_decision_id": ti.search_gate_decision_id,
        "compute_budget_id": ti.compute_budget_id,
        "geometric_search_run_id": ti.geometric_search_run_id,
        "candidate_attempt_ids": ti.candidate_attempt_ids,
        "replay_result_ids": ti.replay_result_ids,
        "replay_refusal_ids": ti.replay_refusal_ids,
        "schema_versions": ti.schema_versions,
        "policy_versions": ti.policy_versions,
    }
    if layout is IdentityLayout.ADR_0233:
        payload[_BINDING_IDS] = ti.candidate_attempt_binding_ids
    return payload


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _strs(value: object) -> tuple[str, ...] | None:
    """A tuple the reader built of exact strings (ids), or None."""
    return cast(tuple[str, ...], value) if isinstance(value, tuple) else None


def _all(array: ArrayCopy[object] | None, name: str) -> tuple[str, ...] | None:
    return None if array is None else _strs(array.all_of(name))


def _run_ids(c: Copies) -> tuple[str | None, tuple[str, ...] | None]:
    """The run's id (or the run refusal's ``outcome_id``) and the trace's attempt ids."""
    records = c.read.records
    run, refusal = records["geometric_search_run"], records["search_run_refusal"]
    if run.present and not refusal.present:
        if c.bound:  # the bound attempts' ids, in binding order (sealing-policy §10)
            bindings = c.read.arrays.get("candidate_attempt_bindings")
            return _str(run.get("run_id")), _all(bindings, "candidate_attempt_id")
        return _str(run.get("run_id")), c.read.run_attempt_ids
    if refusal.present and not run.present:
        return _str(refusal.get("outcome_id")), ()
    return None, None


def _unsigned_input(c: Copies, versions_ok: bool) -> PracticeTraceInput | None:
    """The trace input with a blank digest when every §12.1 value read, else None."""
    read = c.read
    records, arrays = read.records, read.arrays
    texts = (
        read.trace_policy_version,
        _str(records["problem_frame"].get("frame_digest")),
        _str(records["contract_assessment"].get("assessment_id")),
        _str(records["search_gate_decision"].get("decision_id")),
        _str(records["compute_budget_decision"].get("budget_id")),
    )
    run_id, attempt_ids = _run_ids(c)
    bindings = _all(arrays.get("candidate_attempt_bindings"), "binding_id") if c.bound else ()
    lists = (
        _all(arrays["residuals"], "residual_id"),
        _all(arrays["replay_results"], "replay_result_id"),
        _all(arrays["replay_refusals"], "replay_refusal_id"),
    )
    if None in texts or None in lists or run_id is None or attempt_ids is None:
        return None
    if bindings is None or not versions_ok:
        return None
    policy, frame, assessment, gate, budget = cast(tuple[str, str, str, str, str], texts)
    residuals, results, refusals = cast(tuple[tuple[str, ...], ...], lists)
    return PracticeTraceInput(
        input_digest="",
        trace_policy_version=policy,
        problem_frame_digest=frame,
        original_contract_assessment_id=assessment,
        residual_ids=residuals,
        search_gate_decision_id=gate,
        compute_budget_id=budget,
        geometric_search_run_id=run_id,
        candidate_attempt_ids=attempt_ids,
        replay_result_ids=results,
        replay_refusal_ids=refusals,
        schema_versions=read.schema_versions.entries,
        policy_versions=read.policy_versions.entries,
        candidate_attempt_binding_ids=bindings,
    )


def build_trace_input(c: Copies, versions_ok: bool) -> tuple[PracticeTraceInput | None, Fragments]:
    """The trace input when every §12.1 payload value read, else None; and the canonical
    text of its long id lists, to splice into the trace payload (ADR §12: same bytes)."""
    unsigned = _unsigned_input(c, versions_ok)
    if unsigned is None:
        return None, {}
    payload = input_payload(unsigned, c.layout)
    fragments: Fragments = {}
    for key in _LONG_ID_LISTS:
        value = payload.get(key)
        if isinstance(value, tuple) and len(value) >= _SPLICE_MIN:
            fragments[key] = canonical_json(payload.pop(key), checked=False)
    digest = digest_of_canonical(canonical_json_with(payload, fragments))
    return _signed(unsigned, digest), fragments


def _signed(ti: PracticeTraceInput, digest: str) -> PracticeTraceInput:
    """``ti`` with its ``input_digest`` (built field by field: cheaper than a replace)."""
    return PracticeTraceInput(
        digest,
        ti.trace_policy_version,
        ti.problem_frame_digest,
        ti.original_contract_assessment_id,
        ti.residual_ids,
        ti.search_gate_decision_id,
        ti.compute_budget_id,
        ti.geometric_search_run_id,
        ti.candidate_attempt_ids,
        ti.replay_result_ids,
        ti.replay_refusal_ids,
        ti.schema_versions,
        ti.policy_versions,
        ti.candidate_attempt_binding_ids,
    )


def chain_of(
    ti: PracticeTraceInput | SealedPracticeTrace, layout: IdentityLayout
) -> tuple[str, ...]:
    """``upstream_identity_chain`` (= ``trace_records`` in v1) of a trace input or a sealed
    trace: frame, assessment, residuals, gate, budget, run, attempts, [bindings under
    adr-0233], replay results, replay refusals (sealing-policy §6; ADR-0233 §2). The one
    place this order is written: the sealer builds it, the outcome decoder checks it."""
    bindings = ti.candidate_attempt_binding_ids if layout is IdentityLayout.ADR_0233 else ()
    return (
        ti.problem_frame_digest,
        ti.original_contract_assessment_id,
        *ti.residual_ids,
        ti.search_gate_decision_id,
        ti.compute_budget_id,
        ti.geometric_search_run_id,
        *ti.candidate_attempt_ids,
        *bindings,
        *ti.replay_result_ids,
        *ti.replay_refusal_ids,
    )


def disposition(c: Copies) -> PracticeDisposition:
    """The sealed disposition of a lawful episode (ADR §8.1; sealing-policy §6, §10)."""
    if c.run_refusal is not None or c.run is None:
        return _D.SEALED_ORIGINAL_REFUSAL
    if not c.bound and not c.run.candidate_attempts:
        return _D.SEALED_EXHAUSTED_NO_CANDIDATE
    outcomes = {result.replay_disposition for result in c.results or ()}
    if ReplayDisposition.CONTRACT_AND_PROOF_CLOSED in outcomes:
        return _D.SEALED_CANDIDATE_REPLAY_CLOSED
    if ReplayDisposition.CONTRACT_CLOSED_BUT_PROOF_REFUSED in outcomes:
        return _D.SEALED_CONTRACT_CLOSED_PROOF_REFUSED
    if outcomes:
        return _D.SEALED_ALL_CANDIDATES_REFUSED
    return _D.SEALED_REPLAY_UNAVAILABLE


def refusal(
    problems: Problems, input_digest: str | None, layout: IdentityLayout
) -> PracticeTraceRefusal:
    """The refusal for ``problems``: its disposition is the first family of
    :data:`~sealed_trace.reasons.FAMILY_ORDER` that any code belongs to (sealing-policy §6)."""
    families = {REASON_CODES[code][0] for code in problems.codes}
    family = next(f for f in FAMILY_ORDER if f in families)
    unsigned = PracticeTraceRefusal(
        trace_refusal_id="",
        trace_policy_version=SEALED_PRACTICE_TRACE_POLICY_VERSION,
        input_digest=input_digest,
        practice_disposition=PracticeDisposition(family),
        reason_codes=tuple(problems.codes),
        identity_layout=layout,
        explanation="Refused: " + "; ".join(problems.details) + ".",
    )
    digest = identity_digest(refusal_identity_payload(unsigned), checked=False)
    return dataclasses.replace(unsigned, trace_refusal_id=digest)


def refusal_identity_payload(outcome: PracticeTraceRefusal) -> dict[str, object]:
    """The payload of ``trace_refusal_id``: its self key blanked, prose left out (§6)."""
    return {
        "trace_refusal_id": "",
        "trace_policy_version": outcome.trace_policy_version,
        "input_digest": outcome.input_digest,
        "practice_disposition": outcome.practice_disposition.value,
        "reason_codes": list(outcome.reason_codes),
    }


def trace_identity_payload(trace: SealedPracticeTrace) -> dict[str, object]:
    """The ADR §12.2 payload of ``trace_id``: every structural field, the self key blanked,
    prose left out; under ``adr-0233`` the binding ids too (ADR-0233 §2)."""
    payload: dict[str, object] = {
        "trace_id": "",
        "trace_policy_version": trace.trace_policy_version,
        "input_digest": trace.input_digest,
        "problem_frame_digest": trace.problem_frame_digest,
        "original_contract_assessment_id": trace.original_contract_assessment_id,
        "residual_ids": trace.residual_ids,
        "search_gate_decision_id": trace.search_gate_decision_id,
        "compute_budget_id": trace.compute_budget_id,
        "geometric_search_run_id": trace.geometric_search_run_id,
        "candidate_attempt_ids": trace.candidate_attempt_ids,
        "replay_result_ids": trace.replay_result_ids,
        "replay_refusal_ids": trace.replay_refusal_ids,
        "upstream_identity_chain": trace.upstream_identity_chain,
        "practice_disposition": trace.practice_disposition.value,
        "trace_records": trace.trace_records,
        "evidence_spans": spans_payload(trace.evidence_spans),
        "created_by_policy": trace.created_by_policy,
    }
    if trace.identity_layout is IdentityLayout.ADR_0233:
        payload[_BINDING_IDS] = trace.candidate_attempt_binding_ids
    return payload


def _summary(c: Copies, d: PracticeDisposition, ti: PracticeTraceInput) -> str:
    bound = f", {len(ti.candidate_attempt_binding_ids)} binding(s)" if c.bound else ""
    return (
        f"Sealed as {d.value}: {len(ti.candidate_attempt_ids)} candidate attempt(s){bound}, "
        f"{len(ti.replay_result_ids)} replay result(s), {len(ti.replay_refusal_ids)} replay "
        "refusal(s). Evidence only: nothing is selected, answered or served."
    )


def sealed_trace(
    c: Copies, ti: PracticeTraceInput, fragments: Fragments, explanation: str
) -> SealedPracticeTrace:
    """The sealed trace of a lawful episode, its ``trace_id`` over the §12.2 payload."""
    d = disposition(c)
    chain = chain_of(ti, c.layout)
    unsigned = SealedPracticeTrace(
        trace_id="",
        trace_policy_version=ti.trace_policy_version,
        input_digest=ti.input_digest,
        problem_frame_digest=ti.problem_frame_digest,
        original_contract_assessment_id=ti.original_contract_assessment_id,
        residual_ids=ti.residual_ids,
        search_gate_decision_id=ti.search_gate_decision_id,
        compute_budget_id=ti.compute_budget_id,
        geometric_search_run_id=ti.geometric_search_run_id,
        candidate_attempt_ids=ti.candidate_attempt_ids,
        candidate_attempt_binding_ids=ti.candidate_attempt_binding_ids,
        replay_result_ids=ti.replay_result_ids,
        replay_refusal_ids=ti.replay_refusal_ids,
        upstream_identity_chain=chain,
        practice_disposition=d,
        trace_records=chain,
        evidence_spans=trace_spans(c),
        created_by_policy=SEALED_PRACTICE_TRACE_POLICY_VERSION,
        identity_layout=c.layout,
        explanation=explanation or _summary(c, d, ti),
    )
    payload = trace_identity_payload(unsigned)
    # Long id lists the trace input already encoded, and a long chain (written under two
    # keys), are spliced in as text rather than encoded again (ADR §12: the same bytes).
    spliced = {key: text for key, text in fragments.items() if key in payload}
    if len(chain) >= _SPLICE_MIN:
        spliced["upstream_identity_chain"] = spliced["trace_records"] = canonical_json(
            chain, checked=False
        )
    for key in spliced:
        del payload[key]
    digest = digest_of_canonical(canonical_json_with(payload, spliced))
    return dataclasses.replace(unsigned, trace_id=digest)
