"""SealedPracticeTrace: the ADR-0230 sealing boundary, with ADR-0233 bound episodes.

One practice episode in, one outcome out: a :class:`SealedPracticeTrace` when every upstream
identity reproduces and every binding holds (ADR-0230 §6.1 items 1-13, §9, §10; ADR-0233),
otherwise a :class:`PracticeTraceRefusal` whose ``reason_codes`` say why (ADR §13, §16).
Decisions the ADRs leave open follow ``sealing-policy.md`` (``sealed_practice_trace.v1``).

The pass is read, then check, then seal: ``sealed_trace._reader`` copies the whole episode
once; the checks, one per ADR item or policy rule, run in the order
:data:`sealed_trace.trace._pipeline.CHECKS` gives, over the copies only (``_versions``,
``_chain``, ``_run``, ``_bound``, ``_replay``, ``_spans``, ``_claim``); ``_outcome`` builds
the trace input, the trace or the refusal. This package is the boundary itself (ADR §15): it
imports only value, enum and identity facilities, the upstream value types and the reader;
it performs no I/O, reads no clock, randomness, environment or process identity, and touches
no interpreter state (sealing-policy §11). It emits no answer, score, rank or selection field
(ADR §7.3).
"""

from __future__ import annotations

from typing import cast

from sealed_trace.trace._pipeline import NO_CLAIM, layout_of, run
from sealed_trace.trace.model import (
    REFUSAL_DISPOSITIONS,
    SEALED_DISPOSITIONS,
    SEALED_PRACTICE_TRACE_POLICY_VERSION,
    IdentityLayout,
    PracticeDisposition,
    PracticeEpisode,
    PracticeTraceInput,
    PracticeTraceOutcome,
    PracticeTraceRefusal,
    SealedPracticeTrace,
)

__all__ = [
    "REFUSAL_DISPOSITIONS",
    "SEALED_DISPOSITIONS",
    "SEALED_PRACTICE_TRACE_POLICY_VERSION",
    "IdentityLayout",
    "PracticeDisposition",
    "PracticeEpisode",
    "PracticeTraceInput",
    "PracticeTraceOutcome",
    "PracticeTraceRefusal",
    "SealedPracticeTrace",
    "build_practice_trace_input",
    "seal",
    "seal_practice_trace",
]


def build_practice_trace_input(
    episode: object, *, layout: IdentityLayout | str = IdentityLayout.ADR_0230
) -> PracticeTraceInput | PracticeTraceRefusal:
    """Validate ``episode`` and build its :class:`PracticeTraceInput` (ADR-0230 §6.1, §12.1).

    Args:
        episode: a :class:`PracticeEpisode` or any object with its attribute names.
        layout: the identity layout (sealing-policy §10): ``adr-0230`` (default) or
            ``adr-0233`` (which hashes the binding ids and accepts bound episodes).

    Returns:
        The trace input, whose ``input_digest`` hashes the §12.1 payload, when the whole
        episode validates; otherwise the :class:`PracticeTraceRefusal` that :func:`seal`
        would return. Never raises for any episode; control flow (``KeyboardInterrupt``,
        ``SystemExit``, ...) propagates.

    Raises:
        ValueError: ``layout`` names no identity layout.
    """
    chosen = layout_of(layout)
    outcome = run(episode, layout=chosen, want_input=True)
    return cast(PracticeTraceInput | PracticeTraceRefusal, outcome)


def seal_practice_trace(
    trace_input: object,
    episode: object,
    *,
    explanation: object = "",
    layout: IdentityLayout | str = IdentityLayout.ADR_0230,
) -> PracticeTraceOutcome:
    """Seal ``episode`` against a claimed ``trace_input`` (ADR-0230 §6.1 item 13, §7).

    The claimed input is compared field by field with the one built from the records: a
    malformed claim refuses as ``trace_invalid_input`` (``malformed_trace_input``), a differing
    one as ``trace_identity_mismatch`` (``trace_input_mismatch``).

    Args:
        trace_input: a :class:`PracticeTraceInput` or any object with its attribute names
            (under ``adr-0233`` it has ``candidate_attempt_binding_ids`` too).
        episode: a :class:`PracticeEpisode` or any object with its attribute names.
        explanation: prose for the sealed trace, excluded from every identity; empty means a
            generated summary.
        layout: the identity layout, as for :func:`build_practice_trace_input`.

    Returns:
        A :class:`SealedPracticeTrace` or a :class:`PracticeTraceRefusal`. Never raises for
        any input; control flow propagates.

    Raises:
        ValueError: ``layout`` names no identity layout.
    """
    chosen = layout_of(layout)
    outcome = run(episode, claimed=trace_input, explanation=explanation, layout=chosen)
    return cast(PracticeTraceOutcome, outcome)


def seal(
    episode: object,
    *,
    explanation: object = "",
    layout: IdentityLayout | str = IdentityLayout.ADR_0230,
) -> PracticeTraceOutcome:
    """Build the trace input from ``episode`` and seal it (ADR-0230 §4, §6-§13; ADR-0233).

    Args:
        episode: a :class:`PracticeEpisode` or any object with its attribute names; a bound
            episode (with ``candidate_operator_results`` and ``candidate_attempt_bindings``)
            seals under ``layout="adr-0233"`` only.
        explanation: prose for the sealed trace, excluded from every identity.
        layout: the identity layout (sealing-policy §10); the outcome's ``identity_layout``
            says which made it.

    Returns:
        A :class:`SealedPracticeTrace` when every upstream identity reproduces and every
        binding holds, else a :class:`PracticeTraceRefusal` with ``reason_codes`` from
        :data:`sealed_trace.reasons.REASON_CODES`. Never raises for any episode, never
        mutates it; control flow (``KeyboardInterrupt``, ``SystemExit``, ...) propagates.

    Raises:
        ValueError: ``layout`` names no identity layout.
    """
    chosen = layout_of(layout)
    return cast(PracticeTraceOutcome, run(episode, explanation=explanation, layout=chosen))


_ = NO_CLAIM
