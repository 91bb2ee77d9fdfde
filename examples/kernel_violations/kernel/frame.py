"""Problem text -> ProblemFrameProjection, and the reading every later stage shares.

The frame's canonical content is its token list: every word, number and ``?`` with its exact
character range and sentence index, so every span a later stage cites is exact by
construction. :func:`read_change` is the one reading of a unary-change problem
("<Name> had <N> <things>. <...> <cue> <M> <word> ..."); it binds nothing it cannot see.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from itertools import pairwise

from kernel.identity import digest
from kernel.records import PROBLEM_FRAME_IDENTITY_VERSION, ProblemFrameProjection, SourceSpan

_TOKEN = re.compile(r"[A-Za-z]+|\d+|\?")
_SENTENCE_END = re.compile(r"[.?!](?:\s+|$)")


def frame_digest(frame: ProblemFrameProjection) -> str:
    """Recompute ``frame_digest`` over schema version, text and facts (no self key)."""
    return digest(
        {
            "frame_schema_version": frame.frame_schema_version,
            "problem_text": frame.problem_text,
            "facts": dict(frame.facts),
        }
    )


def frame_problem(text: str) -> ProblemFrameProjection:
    """Tokenize ``text`` into a frame whose facts are ``{"tokens": [[surface, start, end,
    sentence_index], ...]}``, and seal its digest."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    tokens = [
        [m.group(), m.start(), m.end(), sum(1 for end in ends if end <= m.start())]
        for m in _TOKEN.finditer(text)
    ]
    frame = ProblemFrameProjection("", PROBLEM_FRAME_IDENTITY_VERSION, text, {"tokens": tokens})
    return dataclasses.replace(frame, frame_digest=frame_digest(frame))


def tokens(frame: ProblemFrameProjection) -> tuple[SourceSpan, ...]:
    """The frame's tokens as exact spans, in text order."""
    raw = frame.facts.get("tokens", [])
    if not isinstance(raw, list):
        return ()
    return tuple(SourceSpan(t[0], t[1], t[2], t[3]) for t in raw)


@dataclass(frozen=True, slots=True)
class ChangeReading:
    """What the text literally shows about one change: every part is a token, or None."""

    state_entity: SourceSpan | None
    start_quantity: SourceSpan | None
    state_object: SourceSpan | None
    change_words: tuple[SourceSpan, ...]
    delta_quantities: tuple[SourceSpan, ...]
    cue: SourceSpan | None
    after_delta: tuple[SourceSpan, ...]
    passive: SourceSpan | None


def _passive(auxiliary: SourceSpan, verb: SourceSpan) -> bool:
    return auxiliary.text in ("was", "were") and verb.text.endswith(("ed", "en"))


def read_change(frame: ProblemFrameProjection) -> ChangeReading:
    """Read the start state (first sentence), the change sentences and any passive verb."""
    toks = tokens(frame)
    first = [t for t in toks if t.sentence_index == 0]
    questions = {t.sentence_index for t in toks if t.text == "?"}
    change = tuple(t for t in toks if t.sentence_index not in questions and t.sentence_index)
    state = len(first) >= 4 and first[0].text[:1].isupper() and first[1].text == "had"
    state = state and first[2].text.isdigit()
    deltas = tuple(t for t in change if t.text.isdigit())
    cue = after = None
    if len(deltas) == 1:
        at = change.index(deltas[0])
        cue = change[at - 1] if at else None
        after = change[at + 1 :]
    elif not deltas and len(change) > 1:
        cue = change[1]
    passive = next((b for a, b in pairwise(toks) if _passive(a, b)), None)
    return ChangeReading(
        first[0] if state else None,
        first[2] if state else None,
        first[3] if state else None,
        change,
        deltas,
        cue,
        after or (),
        passive,
    )
