"""A reviewer's view of one outcome document: ``sealed-trace show OUTCOME [EPISODE]``.

ADR-0230 calls a sealed trace the bridge to "reviewable learning evidence" (§2). This module
renders one ``sealed_trace.outcome.v1`` document, as ``sealed-trace seal`` writes it, for a
person: as text for a terminal (:func:`render_text`) or as one self-contained HTML page
(:func:`render_html`), with the same content in both:

1. the ``practice_disposition`` and what it does and does not mean (§8, §8.1; §7.2, §13 for
   the refusal dispositions): :data:`DISPOSITION_MEANINGS`;
2. the problem text with every evidence span highlighted in place (§11): overlapping and
   duplicate spans are merged for the highlight only, and listed one by one, in trace order;
3. the upstream identity chain as a tree in pipeline order, with short ids (§7.1, §9);
4. every candidate attempt with its replay outcome (§10), side by side as equals: nothing is
   chosen, ordered by merit or preferred, and disagreement stays unresolved (§8.1, §14);
5. for a refusal, every reason code with its explanation, in the outcome's order (§13).

When the episode the outcome was sealed from is given, it is sealed again and must give this
very outcome (:func:`load_view`); only then is it read, for the problem text and the records
the outcome names by id alone. Reading files and rendering is outside the sealing boundary
(§15.2): :mod:`sealed_trace.trace` never imports this module.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import tempfile
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from sealed_trace.episode_json import (
    MAX_DOCUMENT_DEPTH,
    OUTCOME_FORMAT,
    DocumentError,
    LayoutConflictError,
    decode_outcome,
    nests_deeper_than,
    outcome_id_reproduces,
    seal_document,
)
from sealed_trace.reasons import DISPOSITION_MEANINGS as MEANINGS
from sealed_trace.reasons import REASON_CODES
from sealed_trace.trace import (
    PracticeDisposition,
    PracticeTraceOutcome,
    PracticeTraceRefusal,
    SealedPracticeTrace,
)
from sealed_trace.upstream.spans import SourceSpan

__all__ = [
    "DISPOSITION_MEANINGS",
    "SHORT_ID_LENGTH",
    "AttemptView",
    "ChainNode",
    "EpisodeMismatchError",
    "ShowError",
    "TraceView",
    "highlight_runs",
    "load_view",
    "read_outcome",
    "render_html",
    "render_text",
    "wants_colour",
    "write_atomically",
]

#: Hex characters of an id shown where the full id would crowd the view.
SHORT_ID_LENGTH: Final = 12

_D = PracticeDisposition
#: What each practice_disposition means and does not mean: the table ``sealed-trace explain``
#: prints too (:data:`sealed_trace.reasons.DISPOSITION_MEANINGS`).
DISPOSITION_MEANINGS: Final[Mapping[PracticeDisposition, tuple[str, str]]] = {
    d: MEANINGS[d.value] for d in PracticeDisposition
}

_DETAIL_HEADING: Final = "The outcome's explanation (prose, part of no identity)"
_ORDER_NOTE: Final = (
    "Shown in the run's canonical attempt order (ADR-0230 §6.1 item 7), which is not an order "
    "of preference: every attempt is shown alike and none is chosen."
)


class ShowError(ValueError):
    """A file is not what ``show`` needs (unreadable, not JSON, not an outcome document, an
    episode that is not UTF-8 JSON, an output that cannot be written). The message is one line
    that names the file; the command line exits 2."""


class EpisodeMismatchError(ValueError):
    """The EPISODE given does not seal to the OUTCOME given; the message names both files and
    the differing fields. The command line exits 1."""


@dataclass(frozen=True, slots=True)
class ChainNode:
    """One stage of the upstream identity chain: ``kind`` (e.g. ``"residual"``), the full
    ids of its records in chain order (one or more; none for an empty stage), a short
    ``status`` read from the episode (``""`` when unknown) and the stages bound to it."""

    kind: str
    ids: tuple[str, ...]
    status: str = ""
    children: tuple[ChainNode, ...] = ()


@dataclass(frozen=True, slots=True)
class AttemptView:
    """One candidate attempt and the replay record bound to it (ADR-0230 §10).

    ``attempt_id`` is always known; the other fields come from the episode and are None (or
    empty) when no episode was given. ``binding_id`` is the CandidateAttemptRunBinding that
    carries a bound attempt into the original run (ADR-0232, ADR-0233), None for an attempt
    the run holds itself. ``replay_kind`` is ``"replay result"`` or
    ``"replay refusal"``; ``replay_outcome`` is its replay_disposition; ``proof`` holds one
    ``"obligation: closed|refused"`` entry per proof replay reference.
    """

    index: int
    attempt_id: str
    binding_id: str | None = None
    operator_id: str | None = None
    candidate_digest: str | None = None
    depth: int | None = None
    binds: tuple[str, ...] = ()
    replay_kind: str | None = None
    replay_id: str | None = None
    replay_outcome: str | None = None
    replay_reason_codes: tuple[str, ...] = ()
    proof: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TraceView:
    """Everything :func:`render_text` and :func:`render_html` show, read from one outcome
    document and, when given, the episode it was sealed from.

    ``outcome`` is the decoded outcome; ``problem_text`` is None without an episode (the
    outcome does not hold it); ``chain`` is None for a refusal (a refusal binds no chain);
    ``attempts`` follow the run's attempt order; ``unbound_replay`` lists the replay records
    named by the outcome alone, as ``(kind, id)``, when no episode tells which attempt each
    binds to; ``closed_disagreement`` counts distinct candidates reporting
    contract_and_proof_closed when more than one does (0 otherwise); ``span_sources`` names,
    for each of the outcome's evidence spans, the episode record it was copied from
    (``"residual #1"``), and is empty without an episode.
    """

    outcome_path: str
    outcome: PracticeTraceOutcome
    episode_path: str | None = None
    problem_text: str | None = None
    chain: ChainNode | None = None
    attempts: tuple[AttemptView, ...] = ()
    unbound_replay: tuple[tuple[str, str], ...] = ()
    closed_disagreement: int = 0
    span_sources: tuple[str, ...] = ()

    @property
    def sealed(self) -> bool:
        """Whether the outcome is a SealedPracticeTrace."""
        return isinstance(self.outcome, SealedPracticeTrace)


# -- reading ------------------------------------------------------------------------------


def read_outcome(data: bytes, path: str) -> PracticeTraceOutcome:
    """Decode an outcome document (:func:`~sealed_trace.episode_json.decode_outcome`);
    ``path`` names it in the message of the :class:`ShowError` raised when it is not one."""
    try:
        return decode_outcome(data)
    except DocumentError as error:
        raise ShowError(f"{path}: {error}") from None


def _differing(left: PracticeTraceOutcome, right: PracticeTraceOutcome) -> list[str]:
    if type(left) is not type(right):
        kinds = {SealedPracticeTrace: "a sealed trace", PracticeTraceRefusal: "a refusal"}
        return [f"outcome: it gives {kinds.get(type(left), 'another outcome')}"]
    names = type(left).__dataclass_fields__
    return [name for name in names if getattr(left, name) != getattr(right, name)]


def load_view(
    outcome_data: bytes,
    outcome_path: str,
    episode_data: bytes | None = None,
    episode_path: str | None = None,
) -> TraceView:
    """Read an outcome document and, optionally, the episode it was sealed from.

    The episode is sealed again (:func:`~sealed_trace.episode_json.seal_document`) and must
    give exactly this outcome (ADR-0230 §12.3: byte-equivalent inputs reproduce the same
    outcome); then it supplies the problem text and the records the outcome names by id only.

    Args:
        outcome_data / outcome_path: the outcome document's bytes and its name for messages.
        episode_data / episode_path: the episode document's bytes and name, or None.

    Returns:
        The :class:`TraceView` the renderers show.

    Raises:
        ShowError: the outcome is not an outcome document (:func:`read_outcome`), or the
            episode is not UTF-8 JSON, or is an outcome document.
        EpisodeMismatchError: the outcome's own id does not reproduce from its fields, or
            sealing the episode does not give this outcome.
    """
    outcome = read_outcome(outcome_data, outcome_path)
    if not outcome_id_reproduces(outcome):
        name = "trace_id" if isinstance(outcome, SealedPracticeTrace) else "trace_refusal_id"
        raise EpisodeMismatchError(
            f"{outcome_path}: its {name} does not reproduce from its own fields (ADR-0230 §12):"
            " it was altered after sealing"
        )
    episode: Mapping[str, object] | None = None
    if episode_data is not None:
        where = episode_path or "EPISODE"
        try:
            source = episode_data.decode("utf-8")
            # Counted before decoding (sealing-policy §11); seal_document refuses it.
            too_deep = nests_deeper_than(source, MAX_DOCUMENT_DEPTH)
            decoded = None if too_deep else json.loads(source)
        except ValueError:  # seal_document names the fault, or refuses
            decoded = None
        episode = decoded if type(decoded) is dict else {}
        if episode.get("format") == OUTCOME_FORMAT:
            raise ShowError(f"{where}: an outcome document, not an episode document")
        try:
            resealed = seal_document(episode_data, layout=outcome.identity_layout)
        except LayoutConflictError as error:
            raise EpisodeMismatchError(
                f"{where}: names identity layout {error.named}, and {outcome_path} was made "
                f"under {error.asked}: sealing it cannot give that outcome"
            ) from None
        except DocumentError as error:
            raise ShowError(f"{where}: not an episode document ({error})") from None
        if resealed != outcome:
            fields = ", ".join(_differing(resealed, outcome))
            raise EpisodeMismatchError(
                f"{where}: sealing it does not give {outcome_path} (differs in {fields})"
            )
    if isinstance(outcome, PracticeTraceRefusal):
        text = _get(_get(episode, "problem_frame"), "problem_text")
        return TraceView(
            outcome_path,
            outcome,
            episode_path if episode is not None else None,
            problem_text=text if isinstance(text, str) else None,
        )
    return _sealed_view(outcome_path, outcome, episode_path, episode)


def _get(record: object, key: str) -> object:
    return record.get(key) if isinstance(record, dict) else None


def _records(record: object, key: str) -> list[dict[str, object]]:
    value = _get(record, key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _sealed_view(
    outcome_path: str,
    trace: SealedPracticeTrace,
    episode_path: str | None,
    episode: Mapping[str, object] | None,
) -> TraceView:
    run = _get(episode, "geometric_search_run")
    attempts_raw = _records(run, "candidate_attempts") + [
        attempt
        for result in _records(episode, "candidate_operator_results")
        if isinstance(attempt := result.get("candidate_attempt"), dict)
    ]
    # A bound trace lists its attempts in binding order, each binding at the same place.
    pairs = zip(trace.candidate_attempt_ids, trace.candidate_attempt_binding_ids, strict=False)
    bindings = dict(pairs)
    replay: dict[str, tuple[str, dict[str, object]]] = {}
    for kind, key in (("replay result", "replay_results"), ("replay refusal", "replay_refusals")):
        for record in _records(episode, key):
            attempt_id = _str(record.get("attempt_id"))
            if attempt_id is not None:
                replay[attempt_id] = (kind, record)
    by_id = {a.get("attempt_id"): a for a in attempts_raw}
    attempts = [
        _attempt(index, attempt_id, by_id.get(attempt_id), replay.get(attempt_id), bindings)
        for index, attempt_id in enumerate(trace.candidate_attempt_ids)
    ]
    closed = {
        a.candidate_digest
        for a in attempts
        if a.replay_outcome == "contract_and_proof_closed" and a.candidate_digest is not None
    }
    unbound: tuple[tuple[str, str], ...] = ()
    if episode is None:
        unbound = tuple(("replay result", i) for i in trace.replay_result_ids) + tuple(
            ("replay refusal", i) for i in trace.replay_refusal_ids
        )
    return TraceView(
        outcome_path,
        trace,
        episode_path if episode is not None else None,
        problem_text=_str(_get(_get(episode, "problem_frame"), "problem_text")),
        chain=_chain(trace, episode, tuple(attempts)),
        attempts=tuple(attempts),
        unbound_replay=unbound,
        closed_disagreement=len(closed) if len(closed) > 1 else 0,
        span_sources=_span_sources(trace, episode),
    )


#: The records a sealed trace copies its evidence spans from, in order (sealing-policy §5).
_SPAN_RECORDS: Final = (
    ("contract assessment", "contract_assessment"),
    ("residual", "residuals"),
    ("candidate attempt", "candidate_attempts"),
    ("replay result", "replay_results"),
)


def _span_sources(
    trace: SealedPracticeTrace, episode: Mapping[str, object] | None
) -> tuple[str, ...]:
    """Which record each of the trace's spans came from; empty when it cannot be told."""
    if episode is None:
        return ()
    sources: list[str] = []
    for label, key in _SPAN_RECORDS:
        records: list[object]
        if key == "contract_assessment":
            records, numbered = [_get(episode, key)], False
        elif key == "candidate_attempts":  # a bound episode's attempts, in binding order
            records = [
                *_records(_get(episode, "geometric_search_run"), key),
                *(
                    attempt
                    for result in _records(episode, "candidate_operator_results")
                    if isinstance(attempt := result.get("candidate_attempt"), dict)
                ),
            ]
            numbered = True
        else:
            records, numbered = list(_records(episode, key)), True
        for index, record in enumerate(records):
            name = f"{label} #{index}" if numbered else label
            sources += [name] * len(_records(record, "evidence_spans"))
    return tuple(sources) if len(sources) == len(trace.evidence_spans) else ()


def _attempt(
    index: int,
    attempt_id: str,
    raw: dict[str, object] | None,
    replay: tuple[str, dict[str, object]] | None,
    bindings: Mapping[str, str],
) -> AttemptView:
    binding = bindings.get(attempt_id)
    if raw is None:
        return AttemptView(index, attempt_id, binding)
    depth = raw.get("depth")
    binds = tuple(t for t in (_str(_get(s, "text")) for s in _records(raw, "evidence_spans")) if t)
    kind, record = replay if replay is not None else (None, {})
    id_key = "replay_result_id" if kind == "replay result" else "replay_refusal_id"
    codes = record.get("reason_codes")
    proof = tuple(
        f"{_str(ref.get('proof_obligation_id')) or '?'}: "
        + ("closed" if ref.get("closed") is True else "refused")
        for ref in _records(record, "proof_replay_refs")
    )
    return AttemptView(
        index,
        attempt_id,
        binding,
        operator_id=_str(raw.get("operator_id")),
        candidate_digest=_str(raw.get("candidate_digest")),
        depth=depth if type(depth) is int else None,
        binds=binds,
        replay_kind=kind,
        replay_id=_str(record.get(id_key)),
        replay_outcome=_str(record.get("replay_disposition")),
        replay_reason_codes=tuple(c for c in codes if isinstance(c, str))
        if isinstance(codes, list)
        else (),
        proof=proof,
    )


def _carried(attempt: AttemptView, node: ChainNode) -> ChainNode:
    """``node`` (a bound attempt) under the binding that carries it into the original run
    (ADR-0232, ADR-0233 §2: the binding ids follow the attempt ids in the chain)."""
    if attempt.binding_id is None:
        return node
    carries = f"carries candidate attempt #{attempt.index} into the original run"
    return ChainNode("attempt run binding", (attempt.binding_id,), carries, (node,))


def _status(record: object, *keys: str) -> str:
    return " ".join(v for v in (_str(_get(record, k)) for k in keys) if v)


def _chain(
    trace: SealedPracticeTrace,
    episode: Mapping[str, object] | None,
    attempts: tuple[AttemptView, ...],
) -> ChainNode:
    """The upstream identity chain as a tree, in pipeline order (ADR-0230 §5, §7.1, §9)."""
    if episode is not None:
        ran = episode.get("geometric_search_run") is not None  # a null run is no run
        run_kind = "search run" if ran else "search run refusal"
        run_record = episode.get("geometric_search_run" if ran else "search_run_refusal")
    else:  # §8.1: only a run refusal (or no run) seals as sealed_original_refusal
        original = trace.practice_disposition is _D.SEALED_ORIGINAL_REFUSAL
        run_kind = "search run refusal" if original else "search run"
        run_record = None
    run_children: list[ChainNode] = []
    if episode is not None:
        for a in attempts:
            bound = (
                (ChainNode(a.replay_kind, (a.replay_id,), a.replay_outcome or ""),)
                if a.replay_kind and a.replay_id
                else ()
            )
            node = ChainNode(f"candidate attempt #{a.index}", (a.attempt_id,), "", bound)
            run_children.append(_carried(a, node))
    else:
        run_children += [
            _carried(a, ChainNode(f"candidate attempt #{a.index}", (a.attempt_id,)))
            for a in attempts
        ]
        run_children += [ChainNode("replay result", (i,)) for i in trace.replay_result_ids]
        run_children += [ChainNode("replay refusal", (i,)) for i in trace.replay_refusal_ids]
    run_status = _status(run_record, "run_disposition")
    if trace.candidate_attempt_binding_ids:  # ADR-0233: the run is the original, unchanged
        unchanged = "the original run, unchanged; its bound attempts come in by binding"
        run_status = f"{run_status}; {unchanged}" if run_status else unchanged
    run = ChainNode(run_kind, (trace.geometric_search_run_id,), run_status, tuple(run_children))
    budget = ChainNode(
        "compute budget decision",
        (trace.compute_budget_id,),
        _status(_get(episode, "compute_budget_decision"), "status"),
        (run,),
    )
    # The gate binds every residual: it is drawn after all of them, each with its connector.
    count = len(trace.residual_ids)
    binds = "binds the residual above" if count == 1 else f"binds all {count} residuals above"
    gate_status = _status(_get(episode, "search_gate_decision"), "status")
    gate_status = f"{gate_status}; {binds}" if gate_status else binds
    gate = ChainNode(
        "search gate decision", (trace.search_gate_decision_id,), gate_status, (budget,)
    )
    codes = {
        _str(record.get("residual_id")): _status(record, "residual_code")
        for record in _records(episode, "residuals")
    }
    residuals = [ChainNode("residual", (i,), codes.get(i, "")) for i in trace.residual_ids]
    assessment = ChainNode(
        "contract assessment",
        (trace.original_contract_assessment_id,),
        "refused",  # §6.1 item 2: a sealed trace's original assessment is refused
        (*residuals, gate),
    )
    return ChainNode("problem frame", (trace.problem_frame_digest,), "", (assessment,))


# -- spans --------------------------------------------------------------------------------


def highlight_runs(length: int, spans: Sequence[SourceSpan]) -> list[tuple[int, int]]:
    """Return the maximal runs ``[start, end)`` of a text of ``length`` characters that some
    span covers, in text order: overlapping, touching and duplicate spans make one run; parts
    outside ``[0, length)`` and empty spans are ignored. Used for the highlight only: the span
    list itself keeps every span, duplicates included (ADR-0230 §11)."""
    intervals = sorted(
        (max(0, s.start), min(length, s.end)) for s in spans if min(length, s.end) > max(0, s.start)
    )
    runs: list[tuple[int, int]] = []
    for start, end in intervals:
        if runs and start <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(runs[-1][1], end))
        else:
            runs.append((start, end))
    return runs


def _segments(text: str, spans: Sequence[SourceSpan]) -> list[tuple[str, bool]]:
    """The text cut into ``(piece, highlighted)`` pieces; joined, they are the text."""
    out: list[tuple[str, bool]] = []
    at = 0
    for start, end in highlight_runs(len(text), spans):
        if start > at:
            out.append((text[at:start], False))
        out.append((text[start:end], True))
        at = end
    if at < len(text):
        out.append((text[at:], False))
    return out


_BIDI: Final = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
#: Categories written as escapes: controls, format characters (every invisible mark that
#: can reorder or hide text, U+061C included), lone surrogates (no UTF-8 form), line and
#: paragraph separators.
_ESCAPED: Final = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _plain(c: str, kept: str) -> bool:
    return c in kept or (
        (c.isprintable() or unicodedata.category(c) not in _ESCAPED) and c not in _BIDI
    )


def _visible(text: str, *, lines: bool = False) -> str:
    """``text`` with control, format, lone-surrogate, separator and bidirectional-control
    characters written as escapes (``\\x1b``, ``\\u202e``), so a value cannot drive the
    terminal, reorder what is shown or fail to encode; tabs are kept, and newlines where the
    value is prose of several ``lines`` (elsewhere a newline could fake a heading)."""
    kept = "\n\t" if lines else "\t"
    if text.isprintable() or all(_plain(c, kept) for c in text):
        return text
    out = []
    for c in text:
        code = ord(c)
        if _plain(c, kept):
            out.append(c)
        else:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)


def _short(identity: str) -> str:
    return identity[:SHORT_ID_LENGTH]


# -- text ---------------------------------------------------------------------------------

_BOLD, _MARK, _RESET = "\x1b[1m", "\x1b[7m", "\x1b[0m"


class _Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def wrap(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.colour and text else text

    def bold(self, text: str) -> str:
        return self.wrap(text, _BOLD)

    def mark(self, text: str) -> str:
        if not self.colour:
            return f"[{text}]"
        # Closed at each line end so the indentation of the next line stays plain.
        return "\n".join(self.wrap(line, _MARK) for line in text.split("\n"))


def _heading(style: _Style, text: str) -> str:
    return style.bold(text)


def _tree_text(node: ChainNode, prefix: str, last: bool, root: bool) -> list[str]:
    connector = "" if root else ("└─ " if last else "├─ ")
    inner = prefix + ("" if root else ("   " if last else "│  "))
    status = f"  ({node.status})" if node.status else ""
    ids = node.ids or ("(none)",)
    lines = [f"{prefix}{connector}{node.kind} {_short(ids[0])}{status}"]
    lines += [f"{inner}{node.kind} {_short(i)}" for i in ids[1:]]
    for position, child in enumerate(node.children):
        lines += _tree_text(child, inner, position == len(node.children) - 1, False)
    return lines


#: The span list's columns, in the text and the HTML view alike.
_SPAN_COLUMNS: Final = ("#", "from", "start:end", "sentence", "text")


def _span_rows(
    spans: Sequence[SourceSpan], sources: Sequence[str]
) -> list[tuple[str, str, str, str, str]]:
    """One row per span; ``from`` is the record it was copied from (``-`` without the
    episode, which alone tells)."""
    return [
        (
            str(number),
            sources[number - 1] if sources else "-",
            f"{s.start}:{s.end}",
            "-" if s.sentence_index is None else str(s.sentence_index),
            json.dumps(s.text, ensure_ascii=False),
        )
        for number, s in enumerate(spans, 1)
    ]


def _table(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        (indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))).rstrip()
        for row in rows
    ]


def _attempt_cells(a: AttemptView) -> list[str]:
    """One column of the attempts table, in :data:`_ATTEMPT_ROWS` order (``-``: unknown)."""
    replay = f"{a.replay_kind} {_short(a.replay_id)}" if a.replay_kind and a.replay_id else "-"
    codes = "-"
    if a.replay_reason_codes and a.replay_reason_codes != (a.replay_outcome,):
        codes = ", ".join(a.replay_reason_codes)
    return [
        _short(a.attempt_id),
        _short(a.binding_id) if a.binding_id else "-",
        a.operator_id or "-",
        _short(a.candidate_digest) if a.candidate_digest else "-",
        "-" if a.depth is None else str(a.depth),
        ", ".join(json.dumps(b, ensure_ascii=False) for b in a.binds) or "-",
        replay,
        a.replay_outcome or "-",
        codes,
        "; ".join(a.proof) or "-",
    ]


_ATTEMPT_ROWS: Final = (
    "attempt id",
    "bound by",
    "operator",
    "candidate",
    "depth",
    "binds",
    "replay record",
    "replay outcome",
    "reason codes",
    "proof obligations",
)
#: Attempts shown side by side in one band of the text view.
_BAND: Final = 3


def _attempt_bands(attempts: Sequence[AttemptView]) -> list[str]:
    """The attempts as columns side by side, :data:`_BAND` to a band, every column alike; a
    row no attempt has a value for is left out."""
    out: list[str] = []
    for first in range(0, len(attempts), _BAND):
        band = attempts[first : first + _BAND]
        columns = [[_visible(cell) for cell in _attempt_cells(a)] for a in band]
        rows = [["", *(f"#{a.index}" for a in band)]]
        for number, label in enumerate(_ATTEMPT_ROWS):
            cells = [column[number] for column in columns]
            if any(cell != "-" for cell in cells):
                rows.append([label, *cells])
        if out:
            out.append("")
        out += _table(rows)
    return out


def _header(view: TraceView) -> list[tuple[str, str]]:
    outcome = view.outcome
    rows = [("outcome", view.outcome_path)]
    if view.episode_path is not None:
        rows.append(("episode", f"{view.episode_path} (sealed again: it gives this outcome)"))
    else:
        rows.append(
            (
                "episode",
                "not given: nothing was checked against it (give EPISODE to seal it again "
                "and to see the problem text and the records)",
            )
        )
    if isinstance(outcome, SealedPracticeTrace):
        rows += [
            ("trace_id", outcome.trace_id),
            ("input_digest", outcome.input_digest),
            ("policy", outcome.trace_policy_version),
            ("identity layout", _layout_note(outcome)),
        ]
    else:
        rows += [
            ("trace_refusal_id", outcome.trace_refusal_id),
            (
                "input_digest",
                outcome.input_digest
                or "none (it could not be validated without guessing, ADR-0230 §7.2)",
            ),
            ("policy", outcome.trace_policy_version),
            ("identity layout", _layout_note(outcome)),
        ]
    return rows


def _layout_note(outcome: PracticeTraceOutcome) -> str:
    """The identity layout that made the outcome's ids, and what it means (sealing-policy
    §10)."""
    layout = outcome.identity_layout.value
    if layout == "adr-0233":
        return f"{layout} (ADR-0233: binding ids hashed and in the chain after the attempt ids)"
    return f"{layout} (ADR-0230 §12 as written)"


def _problem_note(view: TraceView) -> str:
    if not view.sealed:
        where = (
            "The outcome alone does not hold the problem text (give EPISODE to see it)"
            if view.episode_path is None
            else "From the episode, which was refused"
            if view.problem_text is not None
            else "The episode holds no readable problem text"
        )
        return f"{where}: a refusal copies no evidence spans (ADR-0230 §7.2)."
    if view.problem_text is None:
        return (
            "The outcome alone does not hold the problem text: give EPISODE to see the "
            "spans in place. The spans, as offsets into it, are listed below."
        )
    count = len(view.outcome.evidence_spans) if isinstance(view.outcome, SealedPracticeTrace) else 0
    return (
        f"From the episode; the {count} evidence spans are highlighted in place (overlapping "
        "and duplicate spans share one highlight; every span is listed below):"
    )


def _reason_rows(outcome: PracticeTraceRefusal) -> list[tuple[str, str, str]]:
    rows = []
    for code in outcome.reason_codes:
        family, meaning = REASON_CODES.get(code, ("?", "not a reason code of this version"))
        rows.append((code, family, meaning))
    return rows


def _sealer_detail(outcome: PracticeTraceOutcome) -> str | None:
    """The outcome's own explanation when it adds something: a refusal's detail, or prose a
    caller gave the sealer. The sealer's generated summary of a sealed trace is left out:
    its counts are shown as counts, and what it disclaims is the disposition's "does not
    mean"."""
    text = outcome.explanation
    generated = f"Sealed as {outcome.practice_disposition.value}: "
    if isinstance(outcome, SealedPracticeTrace) and text.startswith(generated):
        return None
    return text or None


def render_text(view: TraceView, *, colour: bool = False) -> str:
    """Render ``view`` as text for a terminal (the default of ``sealed-trace show``).

    ``colour``: evidence spans in reverse video and headings in bold (ANSI); without it,
    spans are bracketed in place, like ``[gained]``, and the text has no escape sequences.
    Control characters of the problem text are shown as escapes. Returns lines ending in
    newlines. Sections as in the module docstring (ADR-0230 §7, §8.1, §11, §13).
    """
    style = _Style(colour)
    outcome = view.outcome
    out: list[str] = []
    kind = "SealedPracticeTrace" if view.sealed else "PracticeTraceRefusal"
    out.append(_heading(style, f"{kind}: {outcome.practice_disposition.value}"))
    out += _table([(f"{k}:", _visible(v)) for k, v in _header(view)])
    means, not_means = DISPOSITION_MEANINGS[outcome.practice_disposition]
    out += ["", _heading(style, f"practice_disposition {outcome.practice_disposition.value}")]
    out += [f"  means:         {means}", f"  does not mean: {not_means}"]

    out += ["", _heading(style, "Problem text")]
    out.append(f"  {_problem_note(view)}")
    spans = outcome.evidence_spans if isinstance(outcome, SealedPracticeTrace) else ()
    if view.problem_text is not None:
        pieces = _segments(view.problem_text, spans)
        shown = "".join(
            style.mark(_visible(piece, lines=True)) if marked else _visible(piece, lines=True)
            for piece, marked in pieces
        )
        out += ["    " + line for line in shown.split("\n")]
    if spans:
        out += ["", _heading(style, f"Evidence spans ({len(spans)}, in trace order)")]
        rows = [_SPAN_COLUMNS, *_span_rows(spans, view.span_sources)]
        out += _table([[_visible(cell) for cell in row] for row in rows])

    if isinstance(outcome, PracticeTraceRefusal):
        out += ["", _heading(style, f"Reason codes ({len(outcome.reason_codes)}, in order)")]
        for code, family, meaning in _reason_rows(outcome):
            out += [f"  {_visible(code)} ({family})", f"      {meaning}"]
        out += [
            "",
            _heading(style, "Upstream identity chain"),
            "  A refusal binds no upstream identity chain and no candidate attempt "
            "(ADR-0230 §7.2): nothing was sealed.",
        ]
    elif view.chain is not None:
        count = len(outcome.upstream_identity_chain)
        out += ["", _heading(style, f"Upstream identity chain ({count} records, pipeline order)")]
        out += ["  " + line for line in _tree_text(view.chain, "", True, True)]
        out += _attempts_text(view, style)
    detail = _sealer_detail(outcome)
    if detail is not None:
        out += ["", _heading(style, _DETAIL_HEADING)]
        out.append(f"  {_visible(detail, lines=True)}")
    return "\n".join(out) + "\n"


def _attempts_text(view: TraceView, style: _Style) -> list[str]:
    out = ["", _heading(style, f"Candidate attempts and replay outcomes ({len(view.attempts)})")]
    if not view.attempts:
        out.append("  None: no candidate attempt was produced.")
        return out
    out.append(f"  {_ORDER_NOTE}")
    if view.closed_disagreement:
        out.append(f"  {_disagreement_note(view.closed_disagreement)}")
    out += _attempt_bands(view.attempts)
    if view.unbound_replay:
        out.append(
            "  Replay records (give EPISODE to see which attempt each binds to and what it "
            "reported):"
        )
        out += [f"    {kind} {_short(i)}" for kind, i in view.unbound_replay]
    return out


def _disagreement_note(count: int) -> str:
    return (
        f"{count} different candidates report contract_and_proof_closed. The trace keeps "
        "every replay result and does not resolve the disagreement (ADR-0230 §8.1): they "
        "stand side by side as equals."
    )


# -- HTML ---------------------------------------------------------------------------------

_CSS: Final = """
:root { color-scheme: light; }
body { margin: 0; background: #f6f7f9; color: #1d232b;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem 2rem 3rem; }
h1 { font-size: 1.45rem; margin: 0 0 .25rem; }
h2 { font-size: 1.1rem; margin: 2rem 0 .6rem; padding-bottom: .2rem;
  border-bottom: 1px solid #d5d9e0; }
code, .id, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: .9em; }
.kind { color: #5a6472; font-weight: 600; text-transform: uppercase; letter-spacing: .04em;
  font-size: .8rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem;
  margin: .75rem 0 0; }
dl.meta dt { color: #5a6472; }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.meaning { display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1rem;
  background: #fff; border: 1px solid #d5d9e0; border-radius: 6px; padding: .8rem 1rem; }
.meaning dt { font-weight: 600; }
.meaning dd { margin: 0; }
.problem { background: #fff; border: 1px solid #d5d9e0; border-radius: 6px;
  padding: .9rem 1.1rem; font-size: 1.1rem; line-height: 1.8; white-space: pre-wrap;
  overflow-wrap: anywhere; }
mark { background: #ffe58a; color: inherit; border-radius: 3px; padding: .05em .1em;
  box-shadow: inset 0 -2px 0 #d9a400; }
.note { color: #4a5360; margin: .3rem 0 .6rem; }
table { border-collapse: collapse; background: #fff; border: 1px solid #d5d9e0; }
th, td { text-align: left; padding: .3rem .7rem; border-bottom: 1px solid #e6e9ee;
  vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
ul.tree, ul.tree ul { list-style: none; margin: 0; padding-left: 1.1rem; }
ul.tree { padding-left: 0; }
ul.tree li { position: relative; padding-left: 1rem; }
ul.tree ul li::before { content: ""; position: absolute; left: -.2rem; top: 0; height: .85rem;
  width: .9rem; border-left: 1px solid #9aa3af; border-bottom: 1px solid #9aa3af; }
ul.tree ul li:not(:last-child)::after { content: ""; position: absolute; left: -.2rem;
  top: .85rem; bottom: 0; border-left: 1px solid #9aa3af; }
.node { display: inline-block; padding: .1rem 0; }
.node .id { background: #eef1f5; border-radius: 3px; padding: 0 .3rem; margin-left: .4rem; }
.status { color: #4a5360; margin-left: .4rem; font-size: .9em; }
.candidates { display: grid; grid-template-columns: repeat(auto-fit, minmax(17rem, 1fr));
  gap: 1rem; }
.candidate { background: #fff; border: 1px solid #d5d9e0; border-radius: 6px;
  padding: .8rem 1rem; }
.candidate h3 { font-size: 1rem; margin: 0 0 .5rem; }
.candidate dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem .8rem;
  margin: 0; }
.candidate dt { color: #5a6472; }
.candidate dd { margin: 0; overflow-wrap: anywhere; }
.reasons li { margin-bottom: .5rem; }
.reasons .family { color: #5a6472; margin-left: .4rem; }
.empty { color: #5a6472; font-style: italic; }
.detail { overflow-wrap: anywhere; }
"""


def _e(text: object) -> str:
    """HTML-escaped text, control characters shown as escapes (for every value shown)."""
    return html.escape(_visible(str(text), lines=True), quote=True)


def _html_tree(node: ChainNode) -> str:
    ids = node.ids or ("",)
    status = f'<span class="status">{_e(node.status)}</span>' if node.status else ""
    items = []
    for position, identity in enumerate(ids):
        shown = (
            f'<span class="id" title="{_e(identity)}">{_e(_short(identity))}</span>'
            if identity
            else '<span class="empty">none</span>'
        )
        label = f'<span class="node">{_e(node.kind)}{shown}{status if position == 0 else ""}'
        items.append(label + "</span>")
    children = "".join(_html_tree(child) for child in node.children)
    inner = "<br>".join(items)
    return f"<li>{inner}" + (f"<ul>{children}</ul>" if children else "") + "</li>"


def _html_candidate(a: AttemptView) -> str:
    rows = [("attempt id", f'<span class="id">{_e(_short(a.attempt_id))}</span>')]
    if a.binding_id is not None:
        binding = f'binding <span class="id">{_e(_short(a.binding_id))}</span>'
        rows.append(("bound by", binding))
    if a.operator_id is not None:
        rows.append(("operator", f"<code>{_e(a.operator_id)}</code>"))
    if a.candidate_digest is not None:
        rows.append(("candidate", f'<span class="id">{_e(_short(a.candidate_digest))}</span>'))
    if a.depth is not None:
        rows.append(("depth", _e(a.depth)))
    if a.binds:
        rows.append(("binds", ", ".join(f"<mark>{_e(b)}</mark>" for b in a.binds)))
    if a.replay_kind and a.replay_id:
        rows.append(
            (
                "replay record",
                f'{_e(a.replay_kind)} <span class="id">{_e(_short(a.replay_id))}</span>',
            )
        )
    if a.replay_outcome:
        rows.append(("replay outcome", f"<code>{_e(a.replay_outcome)}</code>"))
    if a.replay_reason_codes and a.replay_reason_codes != (a.replay_outcome,):
        rows.append(
            ("reason codes", ", ".join(f"<code>{_e(c)}</code>" for c in a.replay_reason_codes))
        )
    if a.proof:
        rows.append(("proof obligations", "<br>".join(_e(p) for p in a.proof)))
    cells = "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in rows)
    return (
        f'<article class="candidate"><h3>Candidate attempt #{a.index}</h3>'
        f"<dl>{cells}</dl></article>"
    )


def render_html(view: TraceView) -> str:
    """Render ``view`` as one self-contained HTML page (``sealed-trace show --format html``).

    The same content as :func:`render_text`, with the spans as ``<mark>`` and the candidate
    attempts as equal cards side by side. Inline CSS only: no script and no reference to any
    other resource (no link, no URL, no import); every value shown is HTML-escaped. Returns
    the page as a string.
    """
    outcome = view.outcome
    disposition = outcome.practice_disposition.value
    kind = "Sealed practice trace" if view.sealed else "Practice trace refusal"
    means, not_means = DISPOSITION_MEANINGS[outcome.practice_disposition]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(kind)}: {_e(disposition)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f'<header><div class="kind">{_e(kind)}</div><h1><code>{_e(disposition)}</code></h1>',
        '<dl class="meta">'
        + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in _header(view))
        + "</dl></header>",
        "<section><h2>What this disposition means</h2>",
        f'<dl class="meaning"><dt>means</dt><dd>{_e(means)}</dd>'
        f"<dt>does not mean</dt><dd>{_e(not_means)}</dd></dl></section>",
        "<section><h2>Problem text</h2>",
        f'<p class="note">{_e(_problem_note(view))}</p>',
    ]
    spans = outcome.evidence_spans if isinstance(outcome, SealedPracticeTrace) else ()
    if view.problem_text is not None:
        pieces = _segments(view.problem_text, spans)
        body = "".join(f"<mark>{_e(p)}</mark>" if marked else _e(p) for p, marked in pieces)
        parts.append(f'<p class="problem">{body}</p>')
    if spans:
        parts.append(f"<h2>Evidence spans ({len(spans)}, in trace order)</h2>")
        head = "<tr>" + "".join(f"<th>{_e(c)}</th>" for c in _SPAN_COLUMNS) + "</tr>"
        rows = "".join(
            f"<tr><td>{_e(n)}</td><td>{_e(f)}</td><td class=mono>{_e(o)}</td><td>{_e(s)}</td>"
            f"<td><code>{_e(t)}</code></td></tr>"
            for n, f, o, s, t in _span_rows(spans, view.span_sources)
        )
        parts.append(f"<table>{head}{rows}</table>")
    parts.append("</section>")
    if isinstance(outcome, PracticeTraceRefusal):
        items = "".join(
            f'<li><code>{_e(code)}</code><span class="family">{_e(family)}</span>'
            f"<br>{_e(meaning)}</li>"
            for code, family, meaning in _reason_rows(outcome)
        )
        parts += [
            f"<section><h2>Reason codes ({len(outcome.reason_codes)}, in order)</h2>",
            f'<ol class="reasons">{items}</ol></section>',
            "<section><h2>Upstream identity chain</h2>",
            '<p class="note">A refusal binds no upstream identity chain and no candidate '
            "attempt (ADR-0230 §7.2): nothing was sealed.</p></section>",
        ]
    elif view.chain is not None:
        count = len(outcome.upstream_identity_chain)
        parts += [
            f"<section><h2>Upstream identity chain ({count} records, pipeline order)</h2>",
            f'<ul class="tree">{_html_tree(view.chain)}</ul></section>',
            f"<section><h2>Candidate attempts and replay outcomes ({len(view.attempts)})</h2>",
        ]
        if not view.attempts:
            parts.append('<p class="note">None: no candidate attempt was produced.</p>')
        else:
            parts.append(f'<p class="note">{_e(_ORDER_NOTE)}</p>')
            if view.closed_disagreement:
                note = _disagreement_note(view.closed_disagreement)
                parts.append(f'<p class="note">{_e(note)}</p>')
            cards = "".join(_html_candidate(a) for a in view.attempts)
            parts.append(f'<div class="candidates">{cards}</div>')
        if view.unbound_replay:
            items = "".join(
                f'<li>{_e(k)} <span class="id">{_e(_short(i))}</span></li>'
                for k, i in view.unbound_replay
            )
            parts.append(
                '<p class="note">Replay records (give EPISODE to see which attempt each binds '
                f"to and what it reported):</p><ul>{items}</ul>"
            )
        parts.append("</section>")
    detail = _sealer_detail(outcome)
    if detail is not None:
        parts.append(
            f'<section><h2>{_e(_DETAIL_HEADING)}</h2><p class="detail">{_e(detail)}</p></section>'
        )
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"


# -- output -------------------------------------------------------------------------------


def wants_colour(stream: object) -> bool:
    """Whether text for ``stream`` gets colour (:func:`sealed_trace._colour.use_colour`, the
    rule the lint's text report follows too: ``NO_COLOR`` wins, then ``FORCE_COLOR``, then
    whether the stream is a terminal)."""
    from sealed_trace._colour import stream_is_tty, use_colour

    return use_colour(stream_is_tty(stream))


def write_atomically(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory, then
    ``os.replace``: a reader sees the old file or the whole new one, never a part.

    Raises:
        ShowError: the file cannot be written (its message names ``path``).
    """
    directory = os.path.dirname(os.path.abspath(path))
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(
            dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp"
        )
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
        temporary = None
    except OSError as error:
        raise ShowError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
