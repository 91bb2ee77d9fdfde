"""SourceSpan, the exact evidence span every upstream record carries (upstream-records §2)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SourceSpan", "span_payload", "spans_payload"]


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """A half-open character range ``[start, end)`` of the problem text and its surface text.

    Fields: ``text`` (str), ``start`` and ``end`` (0-based character offsets, ints),
    ``sentence_index`` (int or None). Equality is field-wise, so duplicates are told apart only
    by their position in a tuple. Construction checks nothing; the sealer checks well-formedness
    and exactness (sealing-policy §5) and refuses, never raises.
    """

    text: str
    start: int
    end: int
    sentence_index: int | None = None


def span_payload(span: SourceSpan) -> dict[str, object]:
    """Return the 4-key identity object of a span: ``{text, start, end, sentence_index}``."""
    return {
        "text": span.text,
        "start": span.start,
        "end": span.end,
        "sentence_index": span.sentence_index,
    }


def spans_payload(spans: tuple[SourceSpan, ...]) -> list[dict[str, object]]:
    """Return the identity array of ``spans`` in stored order, duplicates kept.

    In a long array, a span object that occurs more than once gives one object shared by its
    places (the encoded array is the same).
    """
    if len(spans) < 16:
        return [span_payload(span) for span in spans]
    made: dict[int, dict[str, object]] = {}
    out = []
    for span in spans:
        payload = made.get(id(span))
        if payload is None:
            payload = made[id(span)] = span_payload(span)
        out.append(payload)
    return out
