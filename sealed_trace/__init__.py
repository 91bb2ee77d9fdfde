"""sealed-trace: the ADR-0230 SealedPracticeTrace boundary.

``seal(episode)`` binds one residual-gated practice episode into an immutable, replay-stable
:class:`SealedPracticeTrace`, or fails closed into a typed :class:`PracticeTraceRefusal`.
Upstream record types live in :mod:`sealed_trace.upstream`, canonical identities in
:mod:`sealed_trace.identity`, documents in :mod:`sealed_trace.episode_json`.

The names below come from :mod:`sealed_trace.trace`, which is imported on first use: the
lint and the command line start without loading the sealer, and importing an upstream record
module never loads the sealing module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sealed_trace.trace import (
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
        build_practice_trace_input,
        seal,
        seal_practice_trace,
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

__version__ = "0.1.0"

#: When pytest is told to load this package as a plugin by module name
#: (``PYTEST_PLUGINS=sealed_trace``, which pytest 8.0 resolves to this module rather than to
#: the entry point of that name), it loads the real plugin from here. Only a name: nothing of
#: pytest is imported by the core.
pytest_plugins = ["pytest_sealed_trace.plugin"]


def __getattr__(name: str) -> Any:
    """Load the public names from :mod:`sealed_trace.trace` on first access (PEP 562)."""
    if name in __all__:
        # Runs on the first access of a public name, never when a submodule is imported.
        from sealed_trace import trace  # sealed-trace: ignore[ST403] -- PEP 562, on access

        value = getattr(trace, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'sealed_trace' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
