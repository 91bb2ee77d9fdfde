"""ADR-0230 §6.1 item 12 and §11: the evidence spans the trace copies, in order, each exact
in the problem text (sealing-policy §5; §10 for bound attempts).

The trace copies the assessment's spans, then each residual's (residual order), then each
attempt's (trace order: the bound attempts in binding order in a bound episode), then each
replay result's (result order): copied, never merged, sorted or de-duplicated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sealed_trace._reader import Problems, all_spans, spans_exact_in
from sealed_trace.trace._copies import Copies
from sealed_trace.upstream.spans import SourceSpan

__all__ = ["copied_spans_are_exact", "trace_spans"]


class _Spanned(Protocol):
    """A record that carries evidence spans."""

    @property
    def evidence_spans(self) -> tuple[SourceSpan, ...]: ...


def _sources(c: Copies) -> list[tuple[str, Sequence[_Spanned]]]:
    """The records whose spans the trace copies, in order, each group with the name pattern
    of its records (``where.format(position)``)."""
    attempts = "bound_attempts[{}]" if c.bound else "candidate_attempts[{}]"
    return [
        ("contract_assessment", (c.assessment,) if c.assessment is not None else ()),
        ("residuals[{}]", c.residuals or ()),
        (attempts, c.attempts() or ()),
        ("replay_results[{}]", c.results or ()),
    ]


def trace_spans(c: Copies) -> tuple[SourceSpan, ...]:
    """The spans the trace copies, in sealing-policy §5 order, as one tuple."""
    return all_spans(*(tuple(group) for _, group in _sources(c)))


def copied_spans_are_exact(c: Copies, p: Problems) -> None:
    """Item 12: every span copied into the trace satisfies
    ``0 <= start < end <= len(problem_text)`` and ``problem_text[start:end] == text``."""
    if c.frame is None:
        return
    text = c.frame.problem_text
    if spans_exact_in(text, trace_spans(c)):
        return
    length = len(text)
    for where, group in _sources(c):
        for position, record in enumerate(group):
            for index, span in enumerate(record.evidence_spans):
                start, end = span.start, span.end
                if not 0 <= start < end <= length or text[start:end] != span.text:
                    p.add(
                        "inexact_evidence_span",
                        f"{where.format(position)}.evidence_spans[{index}] "
                        f"{span.text!r} at {start}:{end} is not exact in the problem text",
                    )
