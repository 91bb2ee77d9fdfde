"""Bound practice episodes (ADR-0231..0233; sealing-policy §10): each bound attempt's operator
result, reconstruction and binding reproduce and bind to the original run.

Stricter than the upstream's own sealer, as §10 intends: every identity the records let us
recompute is recomputed (candidate digest, attempt id, operator result id, attempt ref,
binding id), and the run must be the original run, with no attempts of its own.
"""

from __future__ import annotations

from sealed_trace._reader import Problems
from sealed_trace.identity import canonical_json, digest_of_canonical, with_leading_key
from sealed_trace.trace._chain import reproduces
from sealed_trace.trace._copies import Copies
from sealed_trace.trace.model import IdentityLayout
from sealed_trace.upstream.binding import (
    CandidateAttemptRunBinding,
    RunAttemptMembership,
    binding_id,
)
from sealed_trace.upstream.operator import (
    CandidateOperatorResult,
    candidate_digest,
    operator_result_id,
)
from sealed_trace.upstream.run import CandidateReplayStatus, attempt_payload

__all__ = [
    "bindings_hold",
    "bound_attempts_are_in_order",
    "bound_ids_reproduce",
    "bound_records_need_adr_0233",
    "bound_run_is_the_original",
    "operator_results_agree",
    "results_pair_with_bindings",
]


def bound_records_need_adr_0233(c: Copies, p: Problems) -> None:
    """§10: only the ``adr-0233`` layout accepts bound records; under ``adr-0230`` they are
    malformed input."""
    if c.bound and c.layout is IdentityLayout.ADR_0230:
        p.add(
            "bound_episode_under_adr_0230",
            "the episode carries candidate operator results or bindings: seal it under the "
            "adr-0233 identity layout",
        )


def bound_run_is_the_original(c: Copies, p: Problems) -> None:
    """§10: next to bindings the run is the original run: a GeometricSearchRun with embedded
    attempts, or a SearchRunRefusal, is malformed input."""
    if not c.bound:
        return
    if c.run is not None and c.run.candidate_attempts:
        p.add("bound_run_not_original", "a bound episode's run embeds attempts of its own")
    if c.read.records["search_run_refusal"].present:
        p.add("bound_run_not_original", "a bound episode holds a SearchRunRefusal, not a run")


def _pairs(c: Copies) -> list[tuple[int, CandidateOperatorResult, CandidateAttemptRunBinding]]:
    if not c.bound:
        return []
    results, bindings = c.operator_results or (), c.bindings or ()
    if len(results) != len(bindings):
        return []
    return [(i, r, b) for i, (r, b) in enumerate(zip(results, bindings, strict=True))]


def results_pair_with_bindings(c: Copies, p: Problems) -> None:
    """§10: operator results and bindings are paired by position: unequal counts are a
    mismatch (as the upstream says)."""
    if not c.bound or c.operator_results is None or c.bindings is None:
        return
    if len(c.operator_results) != len(c.bindings):
        p.add(
            "bound_record_count_mismatch",
            f"{len(c.operator_results)} operator result(s) beside {len(c.bindings)} binding(s)",
        )


def bound_ids_reproduce(c: Copies, p: Problems) -> None:
    """§10, recompute do not trust: each reconstruction's ``candidate_digest``, each bound
    attempt's ``attempt_id``, each ``operator_result_id``, and each binding's
    ``candidate_attempt_ref`` and ``binding_id``."""
    for i, result, binding in _pairs(c):
        attempt, rec = result.candidate_attempt, result.candidate_reconstruction
        where = f"candidate_operator_results[{i}]"
        actual = candidate_digest(rec, checked=False)
        code = "candidate_digest_mismatch"
        reproduces(p, rec.candidate_digest, actual, code, f"{where}.candidate_reconstruction")
        # The attempt is encoded once, blanked, for its attempt_id; the binding's attempt ref
        # hashes the same text with the real id spliced in (the same bytes, ADR §12).
        blanked = canonical_json(attempt_payload(attempt, blank_id=True), checked=False)
        actual = digest_of_canonical(blanked)
        reproduces(
            p, attempt.attempt_id, actual, "attempt_id_mismatch", f"{where}.candidate_attempt"
        )
        actual = operator_result_id(result, checked=False)
        code = "operator_result_id_mismatch"
        reproduces(p, result.operator_result_id, actual, code, f"{where}.operator_result_id")
        where = f"candidate_attempt_bindings[{i}]"
        actual = digest_of_canonical(with_leading_key(blanked, "attempt_id", attempt.attempt_id))
        code = "candidate_attempt_ref_mismatch"
        reproduces(p, binding.candidate_attempt_ref, actual, code, f"{where}.candidate_attempt_ref")
        actual = binding_id(binding, checked=False)
        reproduces(p, binding.binding_id, actual, "binding_id_mismatch", f"{where}.binding_id")


def _result_disagrees(c: Copies, result: CandidateOperatorResult) -> str:
    """Which §10 agreement of a result with its parts, the run and the episode fails, or ""."""
    attempt, rec, run = result.candidate_attempt, result.candidate_reconstruction, c.run
    provenance = _provenance(rec.operator_provenance)
    checks = (
        (
            "candidate digest",
            result.candidate_digest,
            rec.candidate_digest,
            attempt.candidate_digest,
        ),
        ("input digest", result.input_digest, attempt.input_digest),
        ("attempt id", result.attempt_id, attempt.attempt_id),
        ("attempt index", result.attempt_index, attempt.attempt_index),
        (
            "reconstruction digest",
            result.candidate_reconstruction_digest,
            rec.candidate_reconstruction_digest,
        ),
        ("organ", result.candidate_organ, rec.candidate_organ),
        ("operator name", result.operator_name, attempt.operator_id, rec.operator_name),
        (
            "operator version",
            result.operator_version,
            attempt.operator_version,
            rec.operator_version,
        ),
        ("replay status", attempt.replay_status, CandidateReplayStatus.REPLAY_PENDING),
        ("replay blockers", attempt.replay_blockers, ()),
        ("run", result.geometric_search_run_id, run and run.run_id),
        ("frame", rec.problem_frame_digest, c.frame and c.frame.frame_digest),
        (
            "assessment",
            rec.original_contract_assessment_id,
            c.assessment and c.assessment.assessment_id,
        ),
        ("operator set", provenance["operator_set_id"], run and run.operator_set_id),
        (
            "operator set version",
            provenance["operator_set_version"],
            run and run.operator_set_version,
        ),
    )
    for name, have, *wants in checks:
        if any(want is not None and want != have for want in wants):
            return name
    if run is not None and rec.source_residual_id not in run.residual_ids:
        return "source residual"
    return ""


def _provenance(pairs: tuple[tuple[str, str], ...]) -> dict[str, str | None]:
    """The operator set a reconstruction's provenance names: each key's value when it is
    given exactly once, else None (absent or ambiguous never agrees with a run)."""
    out: dict[str, str | None] = {}
    for key in ("operator_set_id", "operator_set_version"):
        values = [value for name, value in pairs if name == key]
        out[key] = values[0] if len(values) == 1 else None
    return out


def operator_results_agree(c: Copies, p: Problems) -> None:
    """§10: each result, its attempt and its reconstruction agree (candidate digest, input
    digest, operator name and version); the attempt is ``replay_pending`` with no blockers;
    the result names the run; the reconstruction names the episode's frame and assessment,
    one of the run's residuals, and the run's operator set in its provenance."""
    for i, result in enumerate(c.operator_results or () if c.bound else ()):
        name = _result_disagrees(c, result)
        if name:
            p.add("operator_result_mismatch", f"candidate_operator_results[{i}]: {name} differs")


def _binding_disagrees(
    c: Copies, result: CandidateOperatorResult, binding: CandidateAttemptRunBinding
) -> str:
    attempt = result.candidate_attempt
    checks = (
        ("original run", binding.original_run_id, c.run and c.run.run_id),
        ("operator result", binding.operator_result_id, result.operator_result_id),
        ("attempt id", binding.candidate_attempt_id, result.attempt_id),
        ("attempt index", binding.attempt_index, result.attempt_index),
        ("candidate digest", binding.candidate_digest, result.candidate_digest),
        (
            "reconstruction digest",
            binding.candidate_reconstruction_digest,
            result.candidate_reconstruction_digest,
        ),
        ("budget charge", binding.budget_charge, attempt.budget_charge),
        ("depth", binding.depth, attempt.depth),
        ("step index", binding.step_index, attempt.step_index),
        ("membership", binding.run_attempt_membership, RunAttemptMembership.STRUCTURALLY_BOUND),
        ("reason codes", binding.reason_codes, ()),
        ("spans", binding.evidence_spans, attempt.evidence_spans),
        ("result spans", result.evidence_spans, attempt.evidence_spans),
        (
            "reconstruction spans",
            result.candidate_reconstruction.evidence_spans,
            attempt.evidence_spans,
        ),
    )
    for name, have, want in checks:
        if want is not None and have != want:
            return name
    return ""


def bindings_hold(c: Copies, p: Problems) -> None:
    """§10: each binding names the run and its paired result, and carries that result's
    attempt id, index, candidate and reconstruction digests, and the attempt's budget
    charge, depth and step index; membership is ``structurally_bound``, ``reason_codes``
    empty; the binding's, result's and reconstruction's spans equal the attempt's."""
    for i, result, binding in _pairs(c):
        name = _binding_disagrees(c, result, binding)
        if name:
            p.add("binding_mismatch", f"candidate_attempt_bindings[{i}]: {name} differs")


def bound_attempts_are_in_order(c: Copies, p: Problems) -> None:
    """§10 with §3 and §8: binding ids, attempt ids and candidate digests are unique,
    ``attempt_index`` is non-decreasing in binding order, and a ``parent_attempt_id`` is null
    or the id of an earlier bound attempt (anything else is an orphan)."""
    pairs = _pairs(c)
    if not pairs:
        return
    seen: set[str] = set()
    for i, result, _ in pairs:
        parent = result.candidate_attempt.parent_attempt_id
        if parent is not None and parent not in seen:
            p.add(
                "orphan_parent_attempt",
                f"candidate_operator_results[{i}].candidate_attempt.parent_attempt_id names no"
                " earlier bound attempt",
            )
        seen.add(result.candidate_attempt.attempt_id)
    for label, values in (
        ("binding_id", [b.binding_id for _, _, b in pairs]),
        ("attempt_id", [r.attempt_id for _, r, _ in pairs]),
        ("candidate_digest", [r.candidate_digest for _, r, _ in pairs]),
    ):
        if len(set(values)) != len(values):
            p.add("duplicate_bound_record", f"two bound attempts share one {label}")
    indexes = [r.attempt_index for _, r, _ in pairs]
    if any(indexes[i] > indexes[i + 1] for i in range(len(indexes) - 1)):
        p.add("attempt_order_violation", "bound attempts' attempt_index decreases in binding order")
