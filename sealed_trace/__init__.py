"""sealed-trace: the ADR-0230 SealedPracticeTrace boundary.

``seal(episode)`` binds one residual-gated practice episode into an immutable, replay-stable
:class:`SealedPracticeTrace`, or fails closed into a typed :class:`PracticeTraceRefusal`.
Upstream record types live in :mod:`sealed_trace.upstream`, canonical identities in
:mod:`sealed_trace.identity`, documents in :mod:`sealed_trace.episode_json`.
"""

from sealed_trace.trace import (
    REFUSAL_DISPOSITIONS,
    SEALED_DISPOSITIONS,
    SEALED_PRACTICE_TRACE_POLICY_VERSION,
    PracticeDisposition,
    PracticeEpisode,
    PracticeTraceInput,
    PracticeTraceOutcome,
    PracticeTraceRefusal,
    SealedPracticeTrace,
    build_practice_trace_input,
    seal,
    seal_practice_trace,
)

__all__ = [
    "REFUSAL_DISPOSITIONS",
    "SEALED_DISPOSITIONS",
    "SEALED_PRACTICE_TRACE_POLICY_VERSION",
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

__version__ = "0.1.0"
