"""Bound practice episodes (ADR-0231..0233; sealing-policy §10) built by the builder.

Every bound sealed disposition seals under ``adr-0233`` with ids that this file recomputes on
its own (``json.dumps`` with sorted keys, compact separators, ``ensure_ascii=False`` +
``hashlib.sha256`` over the plain JSON form of the records; never the package's helpers):
each bound record's id (ADR-0231 §9/§14, ADR-0232 §7/§15), and the trace's ``input_digest``
and ``trace_id`` with ``candidate_attempt_binding_ids`` in both payloads and the binding ids
after the attempt ids in the chain (ADR-0233 §2). Every bound tamper refuses with its code and
disposition family and breaks nothing else; host dataclasses seal identically; a bound episode
is never ``sealed_exhausted_no_candidate``; binding order is load-bearing; and random field
mutations of a valid bound episode never seal.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import (
    BOUND_DISPOSITION_NAMES,
    BOUND_TAMPERS,
    REPLAY_OUTCOMES,
    SEALED_DISPOSITION_NAMES,
    build_episode,
    convert_records,
    refresh_ids,
    tampered_episode,
)
from sealed_trace.trace import PracticeEpisode
from sealed_trace.upstream import (
    BudgetCharge,
    CandidateAttempt,
    CandidateAttemptRunBinding,
    CandidateOperatorResult,
    CandidateReconstruction,
    CandidateReplayStatus,
    RunAttemptMembership,
)

ADR_0233 = "adr-0233"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "episodes"
FAMILY = {
    "trace_policy_unsupported",
    "trace_invalid_input",
    "trace_identity_mismatch",
    "trace_upstream_incomplete",
}

# --- this file's own canonical JSON, SHA-256 and plain JSON form -----------------------------


def _sha(payload: object) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _plain(value: Any) -> Any:
    """A reference or host record as plain JSON: objects by field, enums by value, tuples as
    arrays (the form an episode document holds)."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _spans(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "text": s["text"],
            "start": s["start"],
            "end": s["end"],
            "sentence_index": s["sentence_index"],
        }
        for s in spans
    ]


_ATTEMPT_KEYS = (
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


def _attempt_object(a: dict[str, Any], own_id: str) -> dict[str, Any]:
    """ADR-0228 §10's 13-key attempt object."""
    return {
        "attempt_id": own_id,
        **{key: a[key] for key in _ATTEMPT_KEYS},
        "evidence_spans": _spans(a["evidence_spans"]),
    }


def _bound_id_faults(doc: dict[str, Any]) -> list[str]:
    """Every bound-record id of a plain episode that does not reproduce (empty: all do)."""
    faults: list[str] = []
    results, bindings = doc["candidate_operator_results"], doc["candidate_attempt_bindings"]
    for i, (r, b) in enumerate(zip(results, bindings, strict=True)):
        rec, a = r["candidate_reconstruction"], r["candidate_attempt"]
        digest = _sha(
            {
                "problem_frame_digest": rec["problem_frame_digest"],
                "candidate_organ": rec["candidate_organ"],
                "candidate_payload": rec["candidate_payload"],
                "evidence_spans": _spans(rec["evidence_spans"]),
            }
        )
        result_keys = (
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
        result_id = _sha(
            {
                "operator_result_id": "",
                **{key: r[key] for key in result_keys},
                "evidence_spans": _spans(r["evidence_spans"]),
            }
        )
        binding_keys = (
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
        own_binding_id = _sha(
            {
                "binding_id": "",
                **{key: b[key] for key in binding_keys},
                "evidence_spans": _spans(b["evidence_spans"]),
            }
        )
        for name, claimed, actual in (
            ("candidate_digest", rec["candidate_digest"], digest),
            ("attempt_id", a["attempt_id"], _sha(_attempt_object(a, ""))),
            ("operator_result_id", r["operator_result_id"], result_id),
            (
                "candidate_attempt_ref",
                b["candidate_attempt_ref"],
                _sha(_attempt_object(a, a["attempt_id"])),
            ),
            ("binding_id", b["binding_id"], own_binding_id),
        ):
            if claimed != actual:
                faults.append(f"{i}.{name}")
    return faults


def _disposition(doc: dict[str, Any]) -> str:
    """ADR-0230 §8.1 over the replay records (sealing-policy §6, §10: bound, never
    exhausted)."""
    kinds = {r["replay_disposition"] for r in doc["replay_results"]}
    if "contract_and_proof_closed" in kinds:
        return "sealed_candidate_replay_closed"
    if "contract_closed_but_proof_refused" in kinds:
        return "sealed_contract_closed_proof_refused"
    if kinds:
        return "sealed_all_candidates_refused"
    return "sealed_replay_unavailable"


def _bound_trace(doc: dict[str, Any]) -> dict[str, Any]:
    """The ADR-0233 §2 trace of a plain bound episode: ids lists, chain, spans, disposition,
    ``input_digest`` and ``trace_id``."""
    bindings = doc["candidate_attempt_bindings"]
    head = {
        "trace_policy_version": doc["trace_policy_version"],
        "problem_frame_digest": doc["problem_frame"]["frame_digest"],
        "original_contract_assessment_id": doc["contract_assessment"]["assessment_id"],
        "residual_ids": [r["residual_id"] for r in doc["residuals"]],
        "search_gate_decision_id": doc["search_gate_decision"]["decision_id"],
        "compute_budget_id": doc["compute_budget_decision"]["budget_id"],
        "geometric_search_run_id": doc["geometric_search_run"]["run_id"],
        "candidate_attempt_ids": [b["candidate_attempt_id"] for b in bindings],
        "candidate_attempt_binding_ids": [b["binding_id"] for b in bindings],
        "replay_result_ids": [r["replay_result_id"] for r in doc["replay_results"]],
        "replay_refusal_ids": [r["replay_refusal_id"] for r in doc["replay_refusals"]],
    }
    input_digest = _sha(
        {
            **head,
            "schema_versions": doc["schema_versions"],
            "policy_versions": doc["policy_versions"],
        }
    )
    chain = [
        head["problem_frame_digest"],
        head["original_contract_assessment_id"],
        *head["residual_ids"],
        head["search_gate_decision_id"],
        head["compute_budget_id"],
        head["geometric_search_run_id"],
        *head["candidate_attempt_ids"],
        *head["candidate_attempt_binding_ids"],
        *head["replay_result_ids"],
        *head["replay_refusal_ids"],
    ]
    spans = [
        *doc["contract_assessment"]["evidence_spans"],
        *(s for r in doc["residuals"] for s in r["evidence_spans"]),
        *(
            s
            for r in doc["candidate_operator_results"]
            for s in r["candidate_attempt"]["evidence_spans"]
        ),
        *(s for r in doc["replay_results"] for s in r["evidence_spans"]),
    ]
    disposition = _disposition(doc)
    trace_id = _sha(
        {
            "trace_id": "",
            **head,
            "input_digest": input_digest,
            "upstream_identity_chain": chain,
            "practice_disposition": disposition,
            "trace_records": chain,
            "evidence_spans": _spans(spans),
            "created_by_policy": "sealed_practice_trace.v1",
        }
    )
    return {
        **head,
        "input_digest": input_digest,
        "trace_id": trace_id,
        "upstream_identity_chain": chain,
        "trace_records": chain,
        "evidence_spans": _spans(spans),
        "practice_disposition": disposition,
    }


def _sealed(episode: object) -> SealedPracticeTrace:
    outcome = seal(episode, layout=ADR_0233)
    assert isinstance(outcome, SealedPracticeTrace), getattr(outcome, "explanation", outcome)
    return outcome


def _refused(episode: object) -> PracticeTraceRefusal:
    outcome = seal(episode, layout=ADR_0233)
    assert isinstance(outcome, PracticeTraceRefusal), "a broken bound episode sealed"
    return outcome


def _assert_matches(trace: SealedPracticeTrace, expected: dict[str, Any]) -> None:
    fields = _plain(trace)
    for name, value in expected.items():
        assert fields[name] == value, name


# --- every bound sealed disposition, ids recomputed here ------------------------------------


def test_bound_dispositions_are_the_sealed_ones_with_candidates() -> None:
    assert set(BOUND_DISPOSITION_NAMES) == set(SEALED_DISPOSITION_NAMES) - {
        "sealed_original_refusal",
        "sealed_exhausted_no_candidate",
    }


@pytest.mark.parametrize("attempts", [1, 3])
@pytest.mark.parametrize("disposition", BOUND_DISPOSITION_NAMES)
def test_bound_episode_seals_with_independent_ids(disposition: str, attempts: int) -> None:
    episode = build_episode(disposition, attempts=attempts, bound=True)
    doc = _plain(episode)
    assert _bound_id_faults(doc) == []
    trace = _sealed(episode)
    expected = _bound_trace(doc)
    assert expected["practice_disposition"] == disposition
    _assert_matches(trace, expected)
    assert trace.identity_layout.value == ADR_0233
    assert len(trace.candidate_attempt_binding_ids) == attempts


@pytest.mark.parametrize("disposition", BOUND_DISPOSITION_NAMES)
def test_bound_episode_has_the_upstream_shape(disposition: str) -> None:
    """ADR-0233 as the kernel emits it: the original run has no attempts and is
    ``exhausted_no_candidate``/``operator_set_empty``; each bound attempt is one result, one
    reconstruction, one binding; replay records name the run, the bound attempt and its
    candidate; the policy list names the binding and operator policies."""
    episode = build_episode(disposition, attempts=4, bound=True)
    run = episode.geometric_search_run
    assert run is not None
    assert run.candidate_attempts == ()
    assert run.run_disposition.value == "exhausted_no_candidate"
    assert run.exhaustion_code is not None
    assert run.exhaustion_code.value == "operator_set_empty"
    results, bindings = episode.candidate_operator_results, episode.candidate_attempt_bindings
    assert len(results) == len(bindings) == 4
    for result, binding in zip(results, bindings, strict=True):
        assert isinstance(result.candidate_reconstruction, CandidateReconstruction)
        assert binding.original_run_id == result.geometric_search_run_id == run.run_id
        assert binding.operator_result_id == result.operator_result_id
        assert binding.candidate_attempt_id == result.candidate_attempt.attempt_id
        assert result.candidate_attempt.attempt_index == 0
    replay: list[Any] = [*episode.replay_results, *episode.replay_refusals]
    assert len(replay) == 4
    by_attempt = {r.attempt_id: r for r in replay}
    for binding in bindings:
        record = by_attempt[binding.candidate_attempt_id]
        assert record.run_id == run.run_id
        assert record.candidate_digest == binding.candidate_digest
    policy = dict(episode.policy_versions)
    assert policy["candidate_attempt_run_binding"] == "candidate_attempt_run_binding.v1"
    assert policy["candidate_operator"] == "candidate_operator.v1"
    assert [name for name, _ in episode.policy_versions] == sorted(policy)


def test_a_bound_episode_with_many_attempts_seals() -> None:
    episode = build_episode("sealed_contract_closed_proof_refused", attempts=40, bound=True)
    _assert_matches(_sealed(episode), _bound_trace(_plain(episode)))


# --- never exhausted ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "disposition", ["sealed_exhausted_no_candidate", "sealed_original_refusal"]
)
def test_the_builder_refuses_a_bound_episode_without_candidates(disposition: str) -> None:
    with pytest.raises(ValueError, match="bound episode is never"):
        build_episode(disposition, bound=True)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(REPLAY_OUTCOMES), min_size=1, max_size=6))
def test_a_bound_episode_is_never_exhausted_no_candidate(outcomes: list[str]) -> None:
    """Whatever its replay outcomes, a bound episode seals by them (sealing-policy §6, §10),
    though its run is ``exhausted_no_candidate`` with no attempts."""
    lawful = ("contract_refused", "contract_closed_but_proof_refused", "contract_and_proof_closed")
    results = [{"replay_disposition": o} for o in outcomes if o in lawful]
    doc_disposition = _disposition({"replay_results": results})
    episode = build_episode(doc_disposition, outcomes=outcomes, bound=True)
    trace = _sealed(episode)
    assert trace.practice_disposition.value == doc_disposition
    assert trace.practice_disposition.value != "sealed_exhausted_no_candidate"


# --- tampers ------------------------------------------------------------------------------

#: Codes a tamper may add beside its own: swapping two bindings also swaps their attempt
#: refs, which then do not reproduce from the paired result's attempt.
_ALSO = {"bound_bindings_swapped": {"candidate_attempt_ref_mismatch"}}


def test_bound_tampers_cover_the_section_10_rule_kinds() -> None:
    assert sorted(BOUND_TAMPERS) == sorted(
        [
            "bound_forged_binding_id",
            "bound_forged_operator_result_id",
            "bound_forged_candidate_digest",
            "bound_binding_names_another_run",
            "bound_bindings_swapped",
            "bound_binding_count_mismatch",
            "bound_run_with_attempts",
            "bound_missing_replay_record",
            "bound_duplicate_replay_record",
            "bound_attempt_index_decreasing",
            "bound_inexact_evidence_span",
            "bound_unsupported_binding_policy",
        ]
    )
    for tamper in BOUND_TAMPERS.values():
        assert tamper.name.startswith("bound_")
        assert tamper.description
        assert tamper.practice_disposition in FAMILY


@pytest.mark.parametrize("name", sorted(BOUND_TAMPERS))
def test_bound_tamper_refuses_with_its_code_only(name: str) -> None:
    tamper = BOUND_TAMPERS[name]
    base = build_episode("sealed_candidate_replay_closed", attempts=3, bound=True)
    broken = tamper.apply(base)
    assert broken != base
    outcome = _refused(broken)
    assert outcome.practice_disposition.value == tamper.practice_disposition
    assert tamper.reason_code in outcome.reason_codes
    assert set(outcome.reason_codes) <= {tamper.reason_code, *_ALSO.get(name, set())}
    assert tampered_episode(name) == tamper.apply(build_episode(bound=True))


@pytest.mark.parametrize(
    "name",
    [
        "bound_binding_names_another_run",
        "bound_attempt_index_decreasing",
        "bound_inexact_evidence_span",
        "bound_forged_operator_result_id",
        "bound_forged_candidate_digest",
    ],
)
def test_recomputed_bound_tampers_keep_every_other_id_valid(name: str) -> None:
    """The tampers that recompute ids leave every bound id reproducing except the one they
    forge (checked here, independently)."""
    doc = _plain(tampered_episode(name))
    forged = {
        "bound_forged_operator_result_id": ["0.operator_result_id"],
        "bound_forged_candidate_digest": ["0.candidate_digest"],
    }
    assert _bound_id_faults(doc) == forged.get(name, [])


def test_bound_tampers_need_a_bound_episode() -> None:
    plain = build_episode("sealed_candidate_replay_closed")
    for tamper in BOUND_TAMPERS.values():
        with pytest.raises(ValueError, match="bound episode"):
            tamper.apply(plain)


@pytest.mark.parametrize("disposition", BOUND_DISPOSITION_NAMES)
def test_a_bound_episode_under_adr_0230_is_malformed(disposition: str) -> None:
    """Not expressible as a tamper of the episode: the layout is the caller's choice."""
    outcome = seal(build_episode(disposition, bound=True), layout="adr-0230")
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.practice_disposition.value == "trace_invalid_input"
    assert outcome.reason_codes == ("bound_episode_under_adr_0230",)


def test_refresh_ids_is_a_no_op_on_a_lawful_bound_episode() -> None:
    episode = build_episode("sealed_all_candidates_refused", attempts=3, bound=True)
    assert refresh_ids(episode) == episode


# --- host records --------------------------------------------------------------------------

_HOST_NAMES = (
    "SourceSpan",
    "ProblemFrameProjection",
    "ContractAssessmentProjection",
    "ContractResidual",
    "SearchGateDecision",
    "ComputeBudgetDecision",
    "BudgetCharge",
    "BudgetConsumed",
    "CandidateAttempt",
    "GeometricSearchRun",
    "ProofReplayRef",
    "ReplayAdapterResult",
    "ReplayAdapterRefusal",
    "CandidateReconstruction",
    "CandidateOperatorResult",
    "CandidateAttemptRunBinding",
    "PracticeEpisode",
)


def _host_types() -> dict[str, Any]:
    """A host project's frozen dataclasses: the reference names and fields, other classes
    (every field typed ``object``), and its own membership enum."""
    import sealed_trace.upstream as upstream

    references: dict[str, Any] = {name: getattr(upstream, name, None) for name in _HOST_NAMES}
    references["PracticeEpisode"] = PracticeEpisode
    host: dict[str, Any] = {
        name: dataclasses.make_dataclass(
            "Host" + name, [(f.name, object) for f in dataclasses.fields(cls)], frozen=True
        )
        for name, cls in references.items()
    }
    host["RunAttemptMembership"] = Enum(
        "HostMembership", {"STRUCTURALLY_BOUND": "structurally_bound"}
    )
    return host


@pytest.mark.parametrize("disposition", BOUND_DISPOSITION_NAMES)
def test_a_bound_episode_of_host_dataclasses_seals_identically(disposition: str) -> None:
    reference = build_episode(disposition, attempts=3, bound=True)
    host = convert_records(reference, _host_types())
    result = host.candidate_operator_results[0]
    assert type(host).__name__ == "HostPracticeEpisode"
    assert type(result).__name__ == "HostCandidateOperatorResult"
    assert type(result.candidate_attempt).__name__ == "HostCandidateAttempt"
    assert type(host.candidate_attempt_bindings[0]).__name__ == "HostCandidateAttemptRunBinding"
    assert not isinstance(
        host.candidate_attempt_bindings[0].run_attempt_membership, RunAttemptMembership
    )
    assert _sealed(host) == _sealed(reference)
    # and host tampers refuse alike
    broken = BOUND_TAMPERS["bound_forged_binding_id"].apply(reference)
    assert seal(convert_records(broken, _host_types()), layout=ADR_0233) == _refused(broken)


# --- binding order -------------------------------------------------------------------------


def test_binding_order_changes_the_trace_id() -> None:
    episode = build_episode("sealed_all_candidates_refused", attempts=3, bound=True)
    reordered = dataclasses.replace(
        episode,
        candidate_operator_results=episode.candidate_operator_results[::-1],
        candidate_attempt_bindings=episode.candidate_attempt_bindings[::-1],
    )
    first, second = _sealed(episode), _sealed(reordered)
    assert second.trace_id != first.trace_id
    assert second.input_digest != first.input_digest
    assert second.candidate_attempt_ids == first.candidate_attempt_ids[::-1]
    assert second.candidate_attempt_binding_ids == first.candidate_attempt_binding_ids[::-1]
    assert second.practice_disposition == first.practice_disposition
    _assert_matches(second, _bound_trace(_plain(reordered)))


# --- bound example documents -----------------------------------------------------------------

_BOUND_EXAMPLES = sorted(
    p
    for p in (EXAMPLES / "sealed").glob("*.json")
    if json.loads(p.read_text(encoding="utf-8")).get("identity_layout") == ADR_0233
)


def test_there_are_bound_examples() -> None:
    assert [p.stem for p in _BOUND_EXAMPLES] == [
        "09-bound-candidate-replay-closed",
        "10-bound-all-candidates-refused",
    ]
    refused = json.loads((EXAMPLES / "refused" / "bound-forged-binding-id.json").read_text())
    assert refused["identity_layout"] == ADR_0233


@pytest.mark.parametrize("path", _BOUND_EXAMPLES, ids=lambda p: p.stem)
def test_bound_example_ids_recompute_independently(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert _bound_id_faults(doc) == []
    expected = json.loads((EXAMPLES / "expected" / f"{path.stem}.outcome.json").read_text())
    assert expected["identity_layout"] == ADR_0233
    for name, value in _bound_trace(doc).items():
        assert expected[name] == value, name


# --- property: mutations of a valid bound episode never seal ---------------------------------

_BASE = build_episode("sealed_candidate_replay_closed", attempts=2, bound=True)
_OTHER = "f" * 64


def _changed(value: Any) -> Any:
    """A different value of the same kind (a real change, never a no-op)."""
    if isinstance(value, Enum):
        members = [m for m in type(value) if m is not value]
        return members[0] if members else value.value + "_other"
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if value is None:
        return _OTHER
    if isinstance(value, str):
        hexid = len(value) == 64 and all(c in "0123456789abcdef" for c in value)
        return (_OTHER if value != _OTHER else "e" * 64) if hexid else value + "-changed"
    if isinstance(value, BudgetCharge):
        return dataclasses.replace(value, candidates=value.candidates + 1)
    if isinstance(value, tuple):
        if value and isinstance(value[0], tuple):  # (key, value) pairs: change the last value
            key, item = value[-1]
            return (*value[:-1], (key, item + "-changed"))
        return (*value, value[0]) if value else ("changed",)
    raise AssertionError(f"no change for {value!r}")


def _paths() -> list[tuple[Any, ...]]:
    """Every hashed or bound field of the bound records, by path (prose excluded; in the
    operator provenance, the ``operator_set_id`` entry, which §10 binds to the run)."""
    out: list[tuple[Any, ...]] = []
    for i in range(2):
        for cls, prefix in (
            (CandidateOperatorResult, ("candidate_operator_results", i)),
            (CandidateAttempt, ("candidate_operator_results", i, "candidate_attempt")),
            (
                CandidateReconstruction,
                ("candidate_operator_results", i, "candidate_reconstruction"),
            ),
            (CandidateAttemptRunBinding, ("candidate_attempt_bindings", i)),
        ):
            for f in dataclasses.fields(cls):
                if f.name in ("explanation", "candidate_attempt", "candidate_reconstruction"):
                    continue
                out.append((*prefix, f.name))
        for name in ("run_id", "attempt_id", "candidate_digest"):
            out.append(("replay_results", i, name))
    return out


_PATHS = _paths()


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step] if isinstance(step, int) else getattr(value, step)
    return value


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(step, int):
        return (*value[:step], _set(value[step], rest, new), *value[step + 1 :])
    return dataclasses.replace(value, **{step: _set(getattr(value, step), rest, new)})


def _provenance_change(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return tuple((k, v + "-changed" if k == "operator_set_id" else v) for k, v in pairs)


def test_every_bound_record_field_is_mutated() -> None:
    named = {path[-1] for path in _PATHS}
    for cls in (
        CandidateOperatorResult,
        CandidateAttempt,
        CandidateReconstruction,
        CandidateAttemptRunBinding,
    ):
        for f in dataclasses.fields(cls):
            assert f.name in named or f.name in (
                "explanation",
                "candidate_attempt",
                "candidate_reconstruction",
            )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.sampled_from(_PATHS), min_size=1, max_size=6))
def test_field_mutations_of_a_bound_episode_never_seal(paths: set[tuple[Any, ...]]) -> None:
    episode = _BASE
    for path in sorted(paths, key=repr):
        old = _get(episode, path)
        new = _provenance_change(old) if path[-1] == "operator_provenance" else _changed(old)
        assert new != old
        episode = _set(episode, path, new)
    if episode == _BASE:  # a no-op may seal; none of these mutations is one
        return
    outcome = seal(episode, layout=ADR_0233)
    assert isinstance(outcome, PracticeTraceRefusal), sorted(paths, key=repr)
    assert outcome.practice_disposition.value in FAMILY


def test_the_mutation_base_seals() -> None:
    assert _sealed(_BASE).practice_disposition.value == "sealed_candidate_replay_closed"
    assert _BASE.candidate_operator_results[0].candidate_attempt.replay_status is (
        CandidateReplayStatus.REPLAY_PENDING
    )


# --- a bound attempt's parent (sealing-policy §8 with §10) ----------------------------------
# Found by this file as a sealer fault (the parent of a bound attempt was never checked) and
# fixed in 6533d83; kept as a regression test.


def _with_parent(parent: str) -> PracticeEpisode:
    """A lawful bound episode whose second bound attempt names ``parent``, every id
    recomputed (only the parent can be wrong)."""
    episode = build_episode("sealed_candidate_replay_closed", attempts=2, bound=True)
    second = episode.candidate_operator_results[1]
    attempt = dataclasses.replace(second.candidate_attempt, parent_attempt_id=parent)
    return refresh_ids(
        dataclasses.replace(
            episode,
            candidate_operator_results=(
                episode.candidate_operator_results[0],
                dataclasses.replace(second, candidate_attempt=attempt),
            ),
        )
    )


def test_a_bound_attempt_whose_parent_names_no_attempt_refuses() -> None:
    broken = _with_parent("ab" * 32)
    assert _bound_id_faults(_plain(broken)) == []
    outcome = _refused(broken)
    assert outcome.practice_disposition.value == "trace_identity_mismatch"
    assert outcome.reason_codes == ("orphan_parent_attempt",)


def test_a_bound_attempt_whose_parent_is_an_earlier_bound_attempt_seals() -> None:
    episode = build_episode("sealed_candidate_replay_closed", attempts=2, bound=True)
    first = episode.candidate_operator_results[0].candidate_attempt.attempt_id
    lawful = _with_parent(first)
    _assert_matches(_sealed(lawful), _bound_trace(_plain(lawful)))
