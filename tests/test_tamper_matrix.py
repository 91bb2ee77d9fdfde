"""The tamper matrix: every identity-bearing field of every record, three ways.

(a) change the field and keep the claimed id -> ``trace_identity_mismatch`` (a version field
    becomes ``trace_policy_unsupported``, a runnable assessment ``trace_invalid_input``); and a
    malformed value in the field -> ``trace_invalid_input``.
(b) change an id (or a field holding one) to another well-formed hex -> mismatch; to a
    malformed id -> ``trace_invalid_input``.
(c) break one binding while recomputing every touched id (``builder.refresh_ids``, checked by
    the independent recomputation) -> the refusal disposition and reason code that names it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import replace
from enum import Enum
from typing import Any

import independent as ind
import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import EpisodeSpec, build_episode, refresh_ids, version_lists
from sealed_trace.upstream import (
    ComputeBudgetStatus,
    ContractResidual,
    ResidualKind,
    ResidualSourceAxis,
    SearchGateStatus,
    SearchRunDisposition,
    SourceSpan,
)

OTHER = ind.sha({"tamper": "other"})
MAYA = SourceSpan("Maya", 0, 4, 0)  # exact in the builder's default problem text

_EPISODES: dict[str, Any] = {}


def episode(kind: str):
    """Cached lawful episodes (frozen values, safe to share)."""
    if kind not in _EPISODES:
        _EPISODES[kind] = {
            "closed": lambda: build_episode("sealed_candidate_replay_closed"),
            "mixed": lambda: build_episode(
                "sealed_candidate_replay_closed",
                outcomes=["contract_and_proof_closed", "contract_replay_unavailable"],
            ),
            "refusal": lambda: build_episode("sealed_original_refusal"),
            "exhausted": lambda: build_episode("sealed_exhausted_no_candidate"),
        }[kind]()
    return _EPISODES[kind]


Path = tuple[Any, ...]


def get_path(obj: Any, path: Path) -> Any:
    for step in path:
        obj = obj[step] if isinstance(step, int) else getattr(obj, step)
    return obj


def set_path(obj: Any, path: Path, value: Any) -> Any:
    if not path:
        return value
    step, rest = path[0], path[1:]
    if isinstance(step, int):
        items = list(obj)
        items[step] = set_path(items[step], rest, value)
        return tuple(items)
    return replace(obj, **{step: set_path(getattr(obj, step), rest, value)})


# record label -> (episode kind, path, own id field, code when its id does not reproduce)
RECORDS: dict[str, tuple[str, Path, str, str]] = {
    "frame": ("closed", ("problem_frame",), "frame_digest", "problem_frame_digest_mismatch"),
    "assessment": (
        "closed",
        ("contract_assessment",),
        "assessment_id",
        "contract_assessment_id_mismatch",
    ),
    "residual": ("closed", ("residuals", 0), "residual_id", "residual_id_mismatch"),
    "gate": ("closed", ("search_gate_decision",), "decision_id", "gate_decision_id_mismatch"),
    "budget": ("closed", ("compute_budget_decision",), "budget_id", "budget_id_mismatch"),
    "run": ("closed", ("geometric_search_run",), "run_id", "run_id_mismatch"),
    "attempt": (
        "closed",
        ("geometric_search_run", "candidate_attempts", 1),
        "attempt_id",
        "attempt_id_mismatch",
    ),
    "charge": (
        "closed",
        ("geometric_search_run", "candidate_attempts", 0, "budget_charge"),
        None,
        "attempt_id_mismatch",
    ),
    "consumed": ("closed", ("geometric_search_run", "budget_consumed"), None, "run_id_mismatch"),
    "run_refusal": (
        "refusal",
        ("search_run_refusal",),
        "outcome_id",
        "run_refusal_outcome_id_mismatch",
    ),
    "result": ("mixed", ("replay_results", 0), "replay_result_id", "replay_result_id_mismatch"),
    "proof_ref": (
        "mixed",
        ("replay_results", 0, "proof_replay_refs", 0),
        None,
        "replay_result_id_mismatch",
    ),
    "replay_refusal": (
        "mixed",
        ("replay_refusals", 0),
        "replay_refusal_id",
        "replay_refusal_id_mismatch",
    ),
}

#: Fields that are no part of the record's identity, or are covered as their own record.
NOT_IDENTITY = {
    "explanation",
    "max_wallclock_ms",
    "candidate_attempts",
    "budget_consumed",
    "budget_charge",
    "proof_replay_refs",
}
VERSION_FIELDS = {
    ("frame", "frame_schema_version"),
    ("gate", "policy_version"),
    ("budget", "policy_version"),
    ("run", "run_policy_version"),
    ("run", "schema_version"),
    ("run_refusal", "run_policy_version"),
    ("result", "replay_policy_version"),
    ("replay_refusal", "replay_policy_version"),
}
#: Hashed by the gate's input digest, not by the residual's own id.
GATE_DIGEST_ONLY = {("residual", "family_id"), ("residual", "source_axis")}

MALFORMED_CODE = {
    "frame": "malformed_problem_frame",
    "assessment": "malformed_contract_assessment",
    "residual": "malformed_residual",
    "gate": "malformed_search_gate_decision",
    "budget": "malformed_compute_budget_decision",
    "run": "malformed_geometric_search_run",
    "attempt": "malformed_candidate_attempt",
    "charge": "malformed_candidate_attempt",
    "consumed": "malformed_geometric_search_run",
    "run_refusal": "malformed_search_run_refusal",
    "result": "malformed_replay_result",
    "proof_ref": "malformed_replay_result",
    "replay_refusal": "malformed_replay_refusal",
}


def _record_fields(label: str) -> list[str]:
    kind, path, own, _ = RECORDS[label]
    record = get_path(episode(kind), path)
    return [
        f.name for f in dataclasses.fields(record) if f.name not in NOT_IDENTITY and f.name != own
    ]


FIELD_CASES = [(label, name) for label in RECORDS for name in _record_fields(label)]


def _is_hex(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= set("0123456789abcdef")


def changed(label: str, name: str, value: Any) -> Any:
    """A different, well-formed value for the field."""
    if (label, name) in VERSION_FIELDS:
        return value + ".x"
    if name == "problem_text":
        return value + " Then it rained."
    if isinstance(value, Enum):
        return next(m for m in type(value) if m is not value)
    if _is_hex(value):
        return OTHER
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "_tampered"
    if value is None:
        return OTHER
    if isinstance(value, Mapping):
        return {**value, "tampered": True}
    if isinstance(value, tuple):
        if name == "evidence_spans":
            return (MAYA,)
        if value and _is_hex(value[0]):
            return (*value, OTHER)
        if name in ("missing_bindings", "unresolved_hazards"):
            return (*value, "quantity_unbound")
        return (*value, "tampered")
    raise AssertionError(f"no mutation for {label}.{name}={value!r}")


def malformed(name: str, value: Any) -> Any:
    """A value of the wrong shape for the field."""
    if isinstance(value, bool):
        return 1
    if isinstance(value, Enum):
        return "not_a_member"
    if isinstance(value, int):
        return True
    if isinstance(value, str) or value is None:
        return 5
    if isinstance(value, Mapping):
        return {"x": 1.5}
    if isinstance(value, tuple):
        return list(value) if value else ["tampered"]
    raise AssertionError(f"no malformed value for {name}={value!r}")


def refusal_of(ep) -> PracticeTraceRefusal:
    outcome = seal(ep)
    assert isinstance(outcome, PracticeTraceRefusal), "tampered episode sealed"
    assert outcome.trace_refusal_id == ind.refusal_id_of_outcome(outcome)
    return outcome


def test_matrix_covers_every_field_of_every_record():
    for label, (kind, path, own, _) in RECORDS.items():
        record = get_path(episode(kind), path)
        for f in dataclasses.fields(record):
            assert f.name in NOT_IDENTITY or f.name == own or (label, f.name) in FIELD_CASES


def test_untampered_episodes_seal():
    for kind in ("closed", "mixed", "refusal", "exhausted"):
        assert isinstance(seal(episode(kind)), SealedPracticeTrace)
        assert ind.id_mismatches(episode(kind)) == []


# --- (a) change a field, keep the claimed id ----------------------------------------------


@pytest.mark.parametrize(
    ("label", "name"), FIELD_CASES, ids=[f"{label}.{name}" for label, name in FIELD_CASES]
)
def test_a_field_changed_id_kept(label, name):
    kind, path, _, id_code = RECORDS[label]
    ep = episode(kind)
    value = get_path(ep, (*path, name))
    tampered = set_path(ep, (*path, name), changed(label, name, value))
    if (label, name) in GATE_DIGEST_ONLY:
        assert ind.gate_input_digest(tampered.residuals) != (
            tampered.search_gate_decision.input_digest
        )
        id_code = "gate_residual_mismatch"
    else:
        assert ind.id_mismatches(tampered), "the tamper must break a recomputed id"
    outcome = refusal_of(tampered)
    if (label, name) in VERSION_FIELDS:
        assert outcome.practice_disposition.value == "trace_policy_unsupported"
        assert "unsupported_record_version" in outcome.reason_codes
    elif (label, name) == ("assessment", "runnable"):
        assert outcome.practice_disposition.value == "trace_invalid_input"
        assert "runnable_contract_assessment" in outcome.reason_codes
    else:
        assert outcome.practice_disposition.value == "trace_identity_mismatch"
    assert id_code in outcome.reason_codes


@pytest.mark.parametrize(
    ("label", "name"), FIELD_CASES, ids=[f"{label}.{name}" for label, name in FIELD_CASES]
)
def test_a_field_malformed(label, name):
    kind, path, _, _ = RECORDS[label]
    ep = episode(kind)
    value = get_path(ep, (*path, name))
    outcome = refusal_of(set_path(ep, (*path, name), malformed(name, value)))
    assert outcome.practice_disposition.value == "trace_invalid_input"
    expected = "malformed_evidence_span" if name == "evidence_spans" else MALFORMED_CODE[label]
    assert expected in outcome.reason_codes
    assert outcome.input_digest is None or outcome.input_digest == ind.input_digest(ep)


# --- (b) change an id ---------------------------------------------------------------------

# (label, id-holding field, code expected when it names another well-formed id)
ID_CASES = [
    ("frame", "frame_digest", "problem_frame_digest_mismatch"),
    ("assessment", "assessment_id", "contract_assessment_id_mismatch"),
    ("assessment", "problem_frame_digest", "assessment_frame_mismatch"),
    ("residual", "residual_id", "residual_id_mismatch"),
    ("gate", "decision_id", "gate_decision_id_mismatch"),
    ("gate", "input_digest", "gate_residual_mismatch"),
    ("budget", "budget_id", "budget_id_mismatch"),
    ("budget", "gate_decision_id", "budget_gate_mismatch"),
    ("budget", "gate_input_digest", "budget_gate_mismatch"),
    ("run", "run_id", "run_id_mismatch"),
    ("run", "input_digest", "run_input_digest_mismatch"),
    ("run", "problem_frame_digest", "run_binding_mismatch"),
    ("run", "contract_assessment_id", "run_binding_mismatch"),
    ("run", "gate_decision_id", "run_binding_mismatch"),
    ("run", "budget_id", "run_binding_mismatch"),
    ("attempt", "attempt_id", "attempt_id_mismatch"),
    ("attempt", "input_digest", "attempt_input_digest_mismatch"),
    ("attempt", "candidate_digest", "attempt_id_mismatch"),
    ("attempt", "parent_attempt_id", "orphan_parent_attempt"),
    ("run_refusal", "outcome_id", "run_refusal_outcome_id_mismatch"),
    ("run_refusal", "input_digest", "run_refusal_outcome_id_mismatch"),
    ("run_refusal", "gate_decision_id", "run_refusal_binding_mismatch"),
    ("run_refusal", "budget_id", "run_refusal_binding_mismatch"),
    ("result", "replay_result_id", "replay_result_id_mismatch"),
    ("result", "input_digest", "replay_result_id_mismatch"),
    ("result", "run_id", "orphan_replay_result"),
    ("result", "attempt_id", "orphan_replay_result"),
    ("result", "candidate_digest", "orphan_replay_result"),
    ("replay_refusal", "replay_refusal_id", "replay_refusal_id_mismatch"),
    ("replay_refusal", "input_digest", "replay_refusal_id_mismatch"),
    ("replay_refusal", "run_id", "orphan_replay_refusal"),
    ("replay_refusal", "attempt_id", "orphan_replay_refusal"),
    ("replay_refusal", "candidate_digest", "orphan_replay_refusal"),
]
ID_TUPLE_CASES = [("gate", "residual_ids"), ("run", "residual_ids")]
MALFORMED_IDS = {
    "placeholder": "attempt-a",
    "uppercase": "ABCDEF0123456789" * 4,
    "empty": "",
    "short": "0" * 63,
    "long": "0" * 65,
    "non-hex": "g" * 64,
    "padded": " " + "0" * 63,
    "bytes": b"0" * 64,
    "int": 0,
}


@pytest.mark.parametrize(
    ("label", "name", "code"), ID_CASES, ids=[f"{label}.{name}" for label, name, _ in ID_CASES]
)
def test_b_id_changed_to_other_hex(label, name, code):
    kind, path, _, _ = RECORDS[label]
    ep = episode(kind)
    assert get_path(ep, (*path, name)) != OTHER
    outcome = refusal_of(set_path(ep, (*path, name), OTHER))
    assert outcome.practice_disposition.value == "trace_identity_mismatch"
    assert code in outcome.reason_codes


@pytest.mark.parametrize("bad", MALFORMED_IDS.values(), ids=MALFORMED_IDS.keys())
@pytest.mark.parametrize(
    ("label", "name"),
    [(a, b) for a, b, _ in ID_CASES],
    ids=[f"{label}.{name}" for label, name, _ in ID_CASES],
)
def test_b_id_malformed(label, name, bad):
    kind, path, _, _ = RECORDS[label]
    ep = episode(kind)
    outcome = refusal_of(set_path(ep, (*path, name), bad))
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert MALFORMED_CODE[label] in outcome.reason_codes


@pytest.mark.parametrize("bad", MALFORMED_IDS.values(), ids=MALFORMED_IDS.keys())
@pytest.mark.parametrize(
    ("label", "name"), ID_TUPLE_CASES, ids=[f"{a}.{b}" for a, b in ID_TUPLE_CASES]
)
def test_b_id_in_tuple_malformed(label, name, bad):
    kind, path, _, _ = RECORDS[label]
    ep = episode(kind)
    ids = get_path(ep, (*path, name))
    outcome = refusal_of(set_path(ep, (*path, name), (bad, *ids[1:])))
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert MALFORMED_CODE[label] in outcome.reason_codes


@pytest.mark.parametrize(
    ("label", "name"), ID_TUPLE_CASES, ids=[f"{a}.{b}" for a, b in ID_TUPLE_CASES]
)
def test_b_id_in_tuple_changed_to_other_hex(label, name):
    kind, path, _, _ = RECORDS[label]
    ep = episode(kind)
    ids = get_path(ep, (*path, name))
    outcome = refusal_of(set_path(ep, (*path, name), (OTHER, *ids[1:])))
    assert outcome.practice_disposition.value in ("trace_identity_mismatch",)


@pytest.mark.parametrize("bad", MALFORMED_IDS.values(), ids=MALFORMED_IDS.keys())
@pytest.mark.parametrize("name", ["frame_digest", "assessment_id"])
def test_b_projection_ids_malformed_nulls_input_digest(name, bad):
    ep = episode("closed")
    path = ("problem_frame",) if name == "frame_digest" else ("contract_assessment",)
    outcome = refusal_of(set_path(ep, (*path, name), bad))
    assert outcome.input_digest is None


# --- (c) break one binding, recompute every touched id -----------------------------------


def _s(path: Path, value: Any) -> Callable[[Any], Any]:
    return lambda ep: set_path(ep, path, value)


def _swap_residuals(ep):
    r0, r1 = ep.residuals
    gate = replace(ep.search_gate_decision, residual_ids=(r1.residual_id, r0.residual_id))
    return replace(ep, residuals=(r1, r0), search_gate_decision=gate)


def _orphan_residual(ep):
    base = ep.residuals[0]
    extra = replace(base, residual_code="quantity_unbound")
    extra = replace(extra, residual_id=ind.residual_id(extra))
    residuals = tuple(sorted((*ep.residuals, extra), key=lambda r: r.residual_id))
    return replace(ep, residuals=residuals)


def _foreign_residual(ep):
    spec = EpisodeSpec(
        candidate_organ="fraction_decrease",
        missing_bindings=("base_quantity_unbound", "scale_unbound"),
    )
    foreign = build_episode("sealed_exhausted_no_candidate", spec=spec).residuals[0]
    return replace(ep, residuals=(foreign, *ep.residuals[1:]))


def _foreign_result(ep):
    spec = EpisodeSpec(operator_set_id="other.operators")
    foreign = build_episode("sealed_candidate_replay_closed", spec=spec).replay_results[0]
    return replace(ep, replay_results=(ep.replay_results[0], foreign))


def _gate_input(ep):
    return ind.reseal_below_gate(set_path(ep, ("search_gate_decision", "input_digest"), OTHER))


def _duplicate_attempt(ep):
    a0 = ep.geometric_search_run.candidate_attempts[0]
    return set_path(ep, ("geometric_search_run", "candidate_attempts"), (a0, a0))


def _swap_attempts(ep):
    a0, a1 = ep.geometric_search_run.candidate_attempts
    return set_path(ep, ("geometric_search_run", "candidate_attempts"), (a1, a0))


def _later_parent(ep):
    a1 = ep.geometric_search_run.candidate_attempts[1]
    return set_path(
        ep, ("geometric_search_run", "candidate_attempts", 0, "parent_attempt_id"), a1.attempt_id
    )


def _result_names_other_attempt(ep):
    a1 = ep.geometric_search_run.candidate_attempts[1]
    return set_path(ep, ("replay_results", 0, "attempt_id"), a1.attempt_id)


def _result_moved_to_other_attempt(ep):
    a1 = ep.geometric_search_run.candidate_attempts[1]
    ep = set_path(ep, ("replay_results", 0, "attempt_id"), a1.attempt_id)
    return set_path(ep, ("replay_results", 0, "candidate_digest"), a1.candidate_digest)


def _replay_next_to_run_refusal(ep):
    mixed = episode("mixed")
    schema, policy = version_lists(run=False, replay=True)
    return replace(
        ep, replay_results=mixed.replay_results, schema_versions=schema, policy_versions=policy
    )


MISMATCH, INVALID, INCOMPLETE = (
    "trace_identity_mismatch",
    "trace_invalid_input",
    "trace_upstream_incomplete",
)

# name -> (episode kind, edit, refresh?, disposition, reason code)
BINDINGS: dict[str, tuple[str, Callable[[Any], Any], bool, str, str]] = {
    "assessment-frame": (
        "closed",
        _s(("contract_assessment", "problem_frame_digest"), OTHER),
        True,
        MISMATCH,
        "assessment_frame_mismatch",
    ),
    "assessment-runnable": (
        "closed",
        _s(("contract_assessment", "runnable"), True),
        True,
        INVALID,
        "runnable_contract_assessment",
    ),
    "residual-organ": (
        "closed",
        _s(("residuals", 0, "candidate_organ"), "fraction_decrease"),
        True,
        MISMATCH,
        "residual_assessment_mismatch",
    ),
    "residual-spans": (
        "closed",
        _s(("residuals", 0, "evidence_spans"), (MAYA,)),
        True,
        MISMATCH,
        "residual_assessment_mismatch",
    ),
    "residual-code-foreign": (
        "closed",
        _s(("residuals", 0, "residual_code"), "quantity_unbound"),
        True,
        MISMATCH,
        "residual_assessment_mismatch",
    ),
    "residual-from-other-assessment": (
        "closed",
        _foreign_residual,
        True,
        MISMATCH,
        "residual_assessment_mismatch",
    ),
    "residual-code-duplicate": (
        "closed",
        lambda ep: set_path(ep, ("residuals", 1, "residual_code"), ep.residuals[0].residual_code),
        True,
        MISMATCH,
        "duplicate_residual_code",
    ),
    "residual-order": ("closed", _swap_residuals, True, MISMATCH, "residual_order_violation"),
    "residual-orphan": ("closed", _orphan_residual, True, MISMATCH, "orphan_residual"),
    "residual-missing-for-code": (
        "closed",
        lambda ep: set_path(
            ep,
            ("contract_assessment", "missing_bindings"),
            (*ep.contract_assessment.missing_bindings, "quantity_unbound"),
        ),
        True,
        INCOMPLETE,
        "missing_residual",
    ),
    "residual-named-by-gate-absent": (
        "closed",
        lambda ep: replace(ep, residuals=ep.residuals[1:]),
        True,
        INCOMPLETE,
        "missing_residual",
    ),
    "gate-residual-order": (
        "closed",
        lambda ep: set_path(
            ep,
            ("search_gate_decision", "residual_ids"),
            tuple(reversed(ep.search_gate_decision.residual_ids)),
        ),
        True,
        MISMATCH,
        "gate_residual_mismatch",
    ),
    "gate-input-digest": ("closed", _gate_input, False, MISMATCH, "gate_residual_mismatch"),
    "budget-gate-id": (
        "closed",
        _s(("compute_budget_decision", "gate_decision_id"), OTHER),
        True,
        MISMATCH,
        "budget_gate_mismatch",
    ),
    "budget-gate-policy": (
        "closed",
        _s(("compute_budget_decision", "gate_policy_version"), "search_gate.v0"),
        True,
        MISMATCH,
        "budget_gate_mismatch",
    ),
    "budget-gate-input": (
        "closed",
        _s(("compute_budget_decision", "gate_input_digest"), OTHER),
        True,
        MISMATCH,
        "budget_gate_mismatch",
    ),
    "budget-spans": (
        "closed",
        _s(("compute_budget_decision", "evidence_spans"), (MAYA,)),
        True,
        MISMATCH,
        "budget_gate_mismatch",
    ),
    "run-frame": (
        "closed",
        _s(("geometric_search_run", "problem_frame_digest"), OTHER),
        True,
        MISMATCH,
        "run_binding_mismatch",
    ),
    "run-assessment": (
        "closed",
        _s(("geometric_search_run", "contract_assessment_id"), OTHER),
        True,
        MISMATCH,
        "run_binding_mismatch",
    ),
    "run-residuals": (
        "closed",
        lambda ep: set_path(
            ep,
            ("geometric_search_run", "residual_ids"),
            tuple(reversed(ep.geometric_search_run.residual_ids)),
        ),
        True,
        MISMATCH,
        "run_binding_mismatch",
    ),
    "run-gate": (
        "closed",
        _s(("geometric_search_run", "gate_decision_id"), OTHER),
        True,
        MISMATCH,
        "run_binding_mismatch",
    ),
    "run-budget": (
        "closed",
        _s(("geometric_search_run", "budget_id"), OTHER),
        True,
        MISMATCH,
        "run_binding_mismatch",
    ),
    "run-gate-not-eligible": (
        "closed",
        _s(("search_gate_decision", "status"), SearchGateStatus.BLOCKED),
        True,
        MISMATCH,
        "run_not_authorized",
    ),
    "run-budget-not-allowed": (
        "closed",
        _s(("compute_budget_decision", "status"), ComputeBudgetStatus.BUDGET_BLOCKED),
        True,
        MISMATCH,
        "run_not_authorized",
    ),
    "run-empty-not-exhausted": (
        "exhausted",
        _s(
            ("geometric_search_run", "run_disposition"),
            SearchRunDisposition.CANDIDATE_REPLAY_PENDING,
        ),
        True,
        MISMATCH,
        "run_without_attempts_not_exhausted",
    ),
    "run-refusal-gate": (
        "refusal",
        _s(("search_run_refusal", "gate_decision_id"), OTHER),
        True,
        MISMATCH,
        "run_refusal_binding_mismatch",
    ),
    "run-refusal-gate-null": (
        "refusal",
        _s(("search_run_refusal", "gate_decision_id"), None),
        True,
        MISMATCH,
        "run_refusal_binding_mismatch",
    ),
    "run-refusal-budget": (
        "refusal",
        _s(("search_run_refusal", "budget_id"), OTHER),
        True,
        MISMATCH,
        "run_refusal_binding_mismatch",
    ),
    "attempt-order": ("closed", _swap_attempts, True, MISMATCH, "attempt_order_violation"),
    "attempt-index": (
        "closed",
        _s(("geometric_search_run", "candidate_attempts", 1, "attempt_index"), 5),
        True,
        MISMATCH,
        "attempt_order_violation",
    ),
    "attempt-input": (
        "closed",
        _s(("geometric_search_run", "candidate_attempts", 0, "input_digest"), OTHER),
        True,
        MISMATCH,
        "attempt_input_digest_mismatch",
    ),
    "attempt-duplicate": ("closed", _duplicate_attempt, True, MISMATCH, "duplicate_attempt_id"),
    "attempt-parent-orphan": (
        "closed",
        _s(("geometric_search_run", "candidate_attempts", 0, "parent_attempt_id"), OTHER),
        True,
        MISMATCH,
        "orphan_parent_attempt",
    ),
    "attempt-parent-later": ("closed", _later_parent, True, MISMATCH, "orphan_parent_attempt"),
    "result-run": (
        "mixed",
        _s(("replay_results", 0, "run_id"), OTHER),
        True,
        MISMATCH,
        "orphan_replay_result",
    ),
    "result-attempt": (
        "mixed",
        _s(("replay_results", 0, "attempt_id"), OTHER),
        True,
        MISMATCH,
        "orphan_replay_result",
    ),
    "result-candidate": (
        "mixed",
        _s(("replay_results", 0, "candidate_digest"), OTHER),
        True,
        MISMATCH,
        "orphan_replay_result",
    ),
    # the moved result and attempt 1's own result now name one attempt: malformed input
    "result-other-attempt": (
        "closed",
        _result_names_other_attempt,
        True,
        INVALID,
        "duplicate_replay_record",
    ),
    "result-from-other-run": ("closed", _foreign_result, True, MISMATCH, "orphan_replay_result"),
    "result-next-to-run-refusal": (
        "refusal",
        _replay_next_to_run_refusal,
        True,
        MISMATCH,
        "orphan_replay_result",
    ),
    "result-moved-to-other-attempt": (
        "mixed",
        _result_moved_to_other_attempt,
        True,
        INVALID,
        "duplicate_replay_record",
    ),
    "refusal-run": (
        "mixed",
        _s(("replay_refusals", 0, "run_id"), OTHER),
        True,
        MISMATCH,
        "orphan_replay_refusal",
    ),
    "refusal-run-null": (
        "mixed",
        _s(("replay_refusals", 0, "run_id"), None),
        True,
        MISMATCH,
        "orphan_replay_refusal",
    ),
    "refusal-attempt": (
        "mixed",
        _s(("replay_refusals", 0, "attempt_id"), OTHER),
        True,
        MISMATCH,
        "orphan_replay_refusal",
    ),
    "refusal-attempt-null": (
        "mixed",
        _s(("replay_refusals", 0, "attempt_id"), None),
        True,
        MISMATCH,
        "orphan_replay_refusal",
    ),
    "refusal-candidate": (
        "mixed",
        _s(("replay_refusals", 0, "candidate_digest"), OTHER),
        True,
        MISMATCH,
        "orphan_replay_refusal",
    ),
}


@pytest.mark.parametrize("name", BINDINGS)
def test_c_binding_broken_ids_recomputed(name):
    kind, edit, refresh, disposition, code = BINDINGS[name]
    ep = edit(episode(kind))
    if refresh:
        ep = refresh_ids(ep)
    assert ind.id_mismatches(ep) == [], "every record id must reproduce"
    outcome = refusal_of(ep)
    assert outcome.practice_disposition.value == disposition
    assert code in outcome.reason_codes
    if disposition == MISMATCH:
        assert outcome.input_digest == ind.input_digest(ep)


def test_c_lawful_parent_attempt_seals():
    ep = episode("closed")
    a0 = ep.geometric_search_run.candidate_attempts[0]
    ep = refresh_ids(
        set_path(
            ep,
            ("geometric_search_run", "candidate_attempts", 1, "parent_attempt_id"),
            a0.attempt_id,
        )
    )
    assert ind.id_mismatches(ep) == []
    outcome = seal(ep)
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.trace_id == ind.trace_id(ep)


def test_c_refresh_ids_is_a_no_op_on_a_lawful_episode():
    for kind in ("closed", "mixed", "refusal", "exhausted"):
        assert refresh_ids(episode(kind)) == episode(kind)


def _resorted(ep):
    """Residuals (and every residual_ids copy) back in ascending id order, ids refreshed."""
    residuals = tuple(sorted(ep.residuals, key=lambda r: r.residual_id))
    ids = tuple(r.residual_id for r in residuals)
    ep = replace(ep, residuals=residuals)
    ep = set_path(ep, ("search_gate_decision", "residual_ids"), ids)
    return refresh_ids(set_path(ep, ("geometric_search_run", "residual_ids"), ids))


def test_c_residual_kind_change_without_reordering_is_an_order_violation():
    ep = episode("closed")
    ep = refresh_ids(set_path(ep, ("residuals", 0, "residual_kind"), ResidualKind.TARGET_UNBOUND))
    assert ind.id_mismatches(ep) == []
    ids = [r.residual_id for r in ep.residuals]
    assert ids != sorted(ids)
    assert refusal_of(ep).reason_codes == ("residual_order_violation",)


def test_c_residual_kind_change_is_not_rechecked_against_the_label_table():
    ep = episode("closed")
    ep = _resorted(
        refresh_ids(set_path(ep, ("residuals", 0, "residual_kind"), ResidualKind.TARGET_UNBOUND))
    )
    assert ind.id_mismatches(ep) == []
    # content-only residual ids (upstream-records §5) cannot tell this from a lawful residual,
    # but its code no longer matches its kind only per the label table, which the sealer does
    # not re-check (sealing-policy §8): the trace seals with the new, recomputed ids.
    outcome = seal(ep)
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.residual_ids == tuple(r.residual_id for r in ep.residuals)
    assert outcome.trace_id == ind.trace_id(ep)
    assert outcome.trace_id != seal(episode("closed")).trace_id


def test_c_residual_axis_is_not_rechecked():
    ep = episode("closed")
    ep = refresh_ids(set_path(ep, ("residuals", 0, "source_axis"), ResidualSourceAxis.UNKNOWN))
    outcome = seal(ep)
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.search_gate_decision_id == ind.gate_decision_id(ep.search_gate_decision)
    assert outcome.search_gate_decision_id != episode("closed").search_gate_decision.decision_id


def test_residual_reference_type_is_used():
    assert isinstance(episode("closed").residuals[0], ContractResidual)


# --- a refusal's input digest when only non-payload fields are malformed ------------------


def _digest_case(label: str, name: str):
    return pytest.param(label, name, id=f"{label}.{name}")


@pytest.mark.parametrize(("label", "name"), [_digest_case(a, b) for a, b in FIELD_CASES])
def test_a_malformed_non_payload_field_keeps_the_input_digest(label, name):
    kind, path, _, _ = RECORDS[label]
    ep = episode(kind)
    value = get_path(ep, (*path, name))
    outcome = refusal_of(set_path(ep, (*path, name), malformed(name, value)))
    assert outcome.practice_disposition.value == "trace_invalid_input"
    # every §12.1 payload field (the records' own ids, the version lists) is still well formed
    assert outcome.input_digest == ind.input_digest(ep)
    assert outcome.trace_refusal_id == ind.refusal_id(
        ind.input_digest(ep), "trace_invalid_input", outcome.reason_codes
    )
