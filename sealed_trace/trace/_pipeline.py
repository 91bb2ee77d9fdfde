"""The sealer's one pass: read, then check by stage, then build the outcome (ADR-0230 §6-§13;
sealing-policy §3-§11).

:data:`CHECKS` is the one place that orders the checks. A refusal's ``reason_codes`` keep the
order in which checks first add them; its disposition is the first family of
:data:`sealed_trace.reasons.FAMILY_ORDER` that any code belongs to (policy, invalid input,
mismatch, incomplete). The sealer touches no interpreter state (§11): an ``Exception`` that
escapes (a ``RecursionError`` from a caller with too little stack included) refuses as
``sealer_internal_fault``; control flow propagates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, cast

from sealed_trace._reader import MISSING, Problems, read_episode
from sealed_trace.trace._bound import (
    bindings_hold,
    bound_attempts_are_in_order,
    bound_ids_reproduce,
    bound_records_need_adr_0233,
    bound_run_is_the_original,
    operator_results_agree,
    results_pair_with_bindings,
)
from sealed_trace.trace._chain import (
    assessment_binds_to_frame,
    budget_binds_to_gate,
    frame_digest_reproduces,
    gate_binds_to_residuals,
    residuals_bind_to_assessment,
)
from sealed_trace.trace._claim import CLAIM_SCHEMAS, claimed_input_reproduces
from sealed_trace.trace._copies import Copies, typed_copies
from sealed_trace.trace._outcome import build_trace_input, refusal, sealed_trace
from sealed_trace.trace._replay import (
    every_attempt_has_one_replay_record,
    replay_records_bind_to_attempts,
)
from sealed_trace.trace._run import (
    run_attempts_are_in_order,
    run_binds_to_records,
    run_is_authorized,
    run_refusal_binds_to_records,
    run_reproduces,
)
from sealed_trace.trace._spans import copied_spans_are_exact
from sealed_trace.trace._versions import (
    expected_entries,
    list_faults,
    record_versions_are_supported,
    trace_policy_is_supported,
    version_lists_are_exact,
)
from sealed_trace.trace.model import (
    IdentityLayout,
    PracticeTraceInput,
    PracticeTraceOutcome,
    PracticeTraceRefusal,
)

__all__ = ["CHECKS", "NO_CLAIM", "layout_of", "refuse_document", "run"]

Check = Callable[[Copies, Problems], None]

#: Every check, in pipeline order, each with the rule it implements.
CHECKS: Final[tuple[tuple[str, Check], ...]] = (
    ("ADR-0230 §6.1 item 10", trace_policy_is_supported),
    ("ADR-0230 §6.1 item 10", record_versions_are_supported),
    ("ADR-0230 §6.1 items 10-11", version_lists_are_exact),
    ("sealing-policy §10 layout", bound_records_need_adr_0233),
    ("sealing-policy §10 original run", bound_run_is_the_original),
    ("ADR-0230 §6.1 item 1", frame_digest_reproduces),
    ("ADR-0230 §6.1 item 2", assessment_binds_to_frame),
    ("ADR-0230 §6.1 item 3", residuals_bind_to_assessment),
    ("ADR-0230 §6.1 item 4", gate_binds_to_residuals),
    ("ADR-0230 §6.1 item 5", budget_binds_to_gate),
    ("ADR-0230 §6.1 items 6-7", run_reproduces),
    ("ADR-0230 §6.1 item 9", run_is_authorized),
    ("ADR-0230 §6.1 item 6", run_binds_to_records),
    ("ADR-0230 §6.1 item 7", run_attempts_are_in_order),
    ("ADR-0230 §6.1 item 6, §6.2", run_refusal_binds_to_records),
    ("sealing-policy §10 pairing", results_pair_with_bindings),
    ("sealing-policy §10 recompute", bound_ids_reproduce),
    ("sealing-policy §10 results", operator_results_agree),
    ("sealing-policy §10 bindings", bindings_hold),
    ("sealing-policy §10 order", bound_attempts_are_in_order),
    ("ADR-0230 §6.1 items 8-9", replay_records_bind_to_attempts),
    ("ADR-0230 §6.1 item 9", every_attempt_has_one_replay_record),
    ("ADR-0230 §6.1 item 12", copied_spans_are_exact),
)

#: The claimed trace input when there is none.
NO_CLAIM: Final = MISSING


def layout_of(value: object) -> IdentityLayout:
    """The identity layout named by ``value`` (a member or its string value).

    Raises:
        ValueError: ``value`` names no layout; the message lists the layouts.
    """
    for layout in IdentityLayout:
        if value is layout or (type(value) is str and value == layout.value):
            return layout
    names = ", ".join(layout.value for layout in IdentityLayout)
    raise ValueError(f"identity layout must be one of {names}, not {value!r}")


def _versions_ok(c: Copies) -> bool:
    """Item 11: both lists have no form fault (the §12.1 payload may then use them)."""
    policy, schema, optional = expected_entries(c)
    return not list_faults(c.read.schema_versions, "", schema, optional) and not list_faults(
        c.read.policy_versions, "", policy, set()
    )


def _explanation(value: object, p: Problems) -> str:
    if issubclass(type(value), str):
        return str.__str__(cast(str, value))
    p.add("malformed_explanation", "explanation is not a string")
    return ""


def _outcome(
    episode: object,
    claimed: object,
    explanation: object,
    layout: IdentityLayout,
    prior: Problems,
    want_input: bool,
) -> PracticeTraceOutcome | PracticeTraceInput:
    p = prior
    text = _explanation(explanation, p)
    read = read_episode(episode, p, claimed=claimed, claim_schema=CLAIM_SCHEMAS[layout])
    c = typed_copies(read, layout)
    built: PracticeTraceInput | None = None
    fragments: dict[str, str] = {}
    if read.is_episode:
        for _, check in CHECKS:
            check(c, p)
        # With nothing found the lists are exact; only a refusal needs them judged again.
        built, fragments = build_trace_input(c, not p.codes or _versions_ok(c))
    if read.claim is not None:
        claimed_input_reproduces(read.claim, built, layout, p)
    if p.codes or built is None:
        if not p.codes:  # unreachable by construction; refuse rather than guess
            p.add("sealer_internal_fault", "the trace input could not be built")
        return refusal(p, built.input_digest if built is not None else None, layout)
    if want_input:
        return built
    return sealed_trace(c, built, fragments, text)


def run(
    episode: object,
    *,
    claimed: object = NO_CLAIM,
    explanation: object = "",
    layout: IdentityLayout = IdentityLayout.ADR_0230,
    prior: Problems | None = None,
    want_input: bool = False,
) -> PracticeTraceOutcome | PracticeTraceInput:
    """Seal ``episode`` (or build its trace input) under ``layout``.

    ``prior`` holds problems a document decoder already found. Never raises for any input:
    an ``Exception`` (a ``RecursionError`` included) refuses as ``sealer_internal_fault``;
    a ``BaseException`` that is not an ``Exception`` is control flow and propagates.
    """
    try:
        problems = Problems() if prior is None else prior
        return _outcome(episode, claimed, explanation, layout, problems, want_input)
    except Exception as error:
        problems = Problems()
        problems.add("sealer_internal_fault", f"sealing raised {_class_name(error)}")
        return refusal(problems, None, layout)


def _class_name(value: object) -> str:
    """The exception's class name, or a plain word when even that cannot be read."""
    try:
        name = type(value).__name__
    except Exception:
        return "an exception"
    return name if type(name) is str else "an exception"


def refuse_document(prior: Problems, layout: IdentityLayout) -> PracticeTraceRefusal:
    """The refusal of a document that holds no episode to read (episode documents only)."""
    return refusal(prior, None, layout)
