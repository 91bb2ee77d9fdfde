"""Episode and outcome documents (episode-format.md).

Persisting and reading documents is outside the sealing boundary (ADR-0230 §15.2), so it lives
here. Decoding is strict: a document that is not UTF-8 JSON raises :class:`DocumentError` (a
usage error); any JSON document that is not a valid episode still seals, to a
:class:`~sealed_trace.trace.PracticeTraceRefusal`. Nothing is coerced or repaired.

Limits: nesting deeper than :data:`MAX_DOCUMENT_DEPTH` containers, and integers outside the
signed 64-bit range, make the document a ``trace_invalid_input`` refusal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import fields as dataclass_fields
from dataclasses import is_dataclass
from enum import Enum
from types import SimpleNamespace
from typing import Final, cast

from sealed_trace._reader import SCHEMAS, Problems
from sealed_trace.identity import (
    MAX_ABS_INT,
    MAX_DEPTH,
    IdentityError,
    canonical_json,
    digest_of_canonical,
    identity_digest,
)
from sealed_trace.trace import (
    REFUSAL_DISPOSITIONS,
    SEALED_DISPOSITIONS,
    IdentityLayout,
    PracticeDisposition,
    PracticeEpisode,
    PracticeTraceInput,
    PracticeTraceOutcome,
    PracticeTraceRefusal,
    SealedPracticeTrace,
)
from sealed_trace.trace._outcome import chain_of, refusal_identity_payload, trace_identity_payload
from sealed_trace.trace._pipeline import NO_CLAIM, layout_of, refuse_document, run
from sealed_trace.upstream.spans import SourceSpan, span_payload

__all__ = [
    "EPISODE_FORMAT",
    "MAX_DOCUMENT_DEPTH",
    "OUTCOME_FORMAT",
    "DocumentError",
    "LayoutConflictError",
    "decode_outcome",
    "encode_episode",
    "encode_outcome",
    "episode_document",
    "outcome_document",
    "outcome_id_reproduces",
    "seal_document",
]

EPISODE_FORMAT: Final = "sealed_trace.episode.v1"
OUTCOME_FORMAT: Final = "sealed_trace.outcome.v1"
#: Deepest container nesting accepted in an episode document (the root object is depth 1):
#: one more than an identity payload, since the document wraps each record in its root.
MAX_DOCUMENT_DEPTH: Final = MAX_DEPTH + 1
_MAX_INT_DIGITS: Final = 20
_D = PracticeDisposition

_RECORD_KEYS: Final = {
    "problem_frame": "ProblemFrame projection",
    "contract_assessment": "ContractAssessment projection",
    "search_gate_decision": "SearchGateDecision",
    "compute_budget_decision": "ComputeBudgetDecision",
    "geometric_search_run": "GeometricSearchRun",
    "search_run_refusal": "SearchRunRefusal",
}
_ARRAY_KEYS: Final = {
    "residuals": "ContractResidual",
    "replay_results": "ReplayAdapterResult",
    "replay_refusals": "ReplayAdapterRefusal",
}
#: Bound records (ADR-0233; sealing-policy §10): optional arrays.
_BOUND_KEYS: Final = {
    "candidate_operator_results": "CandidateOperatorResult",
    "candidate_attempt_bindings": "CandidateAttemptRunBinding",
}
_LAYOUT_KEY: Final = "identity_layout"
_TOP_KEYS: Final = frozenset(
    {
        "format",
        "trace_policy_version",
        "schema_versions",
        "policy_versions",
        "trace_input",
        _LAYOUT_KEY,
        *_RECORD_KEYS,
        *_ARRAY_KEYS,
        *_BOUND_KEYS,
    }
)
# Fields holding nested records, by (record label, field name) -> nested label.
_NESTED: Final = {
    ("CandidateAttempt", "budget_charge"): "BudgetCharge",
    ("GeometricSearchRun", "budget_consumed"): "BudgetConsumed",
    ("CandidateOperatorResult", "candidate_attempt"): "CandidateAttempt",
    ("CandidateOperatorResult", "candidate_reconstruction"): "CandidateReconstruction",
    ("CandidateAttemptRunBinding", "budget_charge"): "BudgetCharge (binding)",
}
_NESTED_ARRAYS: Final = {
    ("GeometricSearchRun", "candidate_attempts"): "CandidateAttempt",
    ("ReplayAdapterResult", "proof_replay_refs"): "ProofReplayRef",
}
_SPAN_KEYS: Final = ("text", "start", "end", "sentence_index")


class DocumentError(ValueError):
    """The bytes are not a JSON document at all (not UTF-8, or not JSON): a usage error."""


class LayoutConflictError(DocumentError):
    """The episode document names another identity layout than the one asked for
    (sealing-policy §10): ``named`` is the document's, ``asked`` the caller's."""

    def __init__(self, named: str, asked: str) -> None:
        super().__init__(f"the document names identity layout {named}, not {asked}")
        self.named = named
        self.asked = asked


class _Rejected:
    """Stands in for a JSON value the decoder refuses (a float, NaN, an oversized integer)."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return f"<rejected {self.what}>"


def _parse(text: str, problems: Problems) -> object:
    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, value in items:
            if key in out:
                problems.add("malformed_episode_document", f"duplicate key {key!r}")
                continue
            out[key] = value
        return out

    def number(digits: str) -> object:
        if len(digits.lstrip("-")) > _MAX_INT_DIGITS:
            problems.add("malformed_episode_document", "an integer beyond the signed 64-bit range")
            return _Rejected("integer")
        value = int(digits)
        if not -MAX_ABS_INT <= value < MAX_ABS_INT:
            problems.add("malformed_episode_document", "an integer beyond the signed 64-bit range")
            return _Rejected("integer")
        return value

    def real(literal: str) -> object:
        problems.add("malformed_episode_document", f"a float {literal}")
        return _Rejected("float")

    def constant(literal: str) -> object:
        problems.add("malformed_episode_document", f"a non-finite number {literal}")
        return _Rejected(literal)

    return json.loads(
        text,
        object_pairs_hook=pairs,
        parse_int=number,
        parse_float=real,
        parse_constant=constant,
    )


def _to_tuple(value: object) -> object:
    """JSON arrays become tuples (recursively through arrays only)."""
    if type(value) is list:
        return tuple(_to_tuple(item) for item in value)
    return value


def _span(value: object, problems: Problems, where: str) -> object:
    if type(value) is not dict:
        return value
    unknown = sorted(set(value) - set(_SPAN_KEYS))
    if unknown:
        problems.add("malformed_evidence_span", f"{where} has unknown keys {unknown}")
    return SimpleNamespace(**{k: v for k, v in value.items() if k in _SPAN_KEYS})


def _record(value: object, label: str, problems: Problems, where: str) -> object:
    """Turn a JSON object into an attribute record for ``label``; report unknown keys."""
    if type(value) is not dict:
        return value
    schema = SCHEMAS[label]
    names = [name for name, _ in schema.fields]
    unknown = sorted(set(value) - set(names))
    if unknown:
        problems.add(schema.code, f"{where} has unknown keys {unknown}")
    attrs: dict[str, object] = {}
    for name in names:
        if name not in value:
            continue  # the reader reports the missing field
        item = value[name]
        where_item = f"{where}.{name}"
        if name == "evidence_spans" and type(item) is list:
            attrs[name] = tuple(
                _span(s, problems, f"{where_item}[{i}]") for i, s in enumerate(item)
            )
        elif (label, name) in _NESTED:
            attrs[name] = _record(item, _NESTED[(label, name)], problems, where_item)
        elif (label, name) in _NESTED_ARRAYS and type(item) is list:
            nested = _NESTED_ARRAYS[(label, name)]
            attrs[name] = tuple(
                _record(x, nested, problems, f"{where_item}[{i}]") for i, x in enumerate(item)
            )
        elif name == "facts":
            attrs[name] = item
        else:
            attrs[name] = _to_tuple(item)
    return SimpleNamespace(**attrs)


def _episode(document: dict[str, object], problems: Problems) -> tuple[object, object | None]:
    unknown = sorted(set(document) - _TOP_KEYS)
    if unknown:
        problems.add("malformed_episode_document", f"unknown top-level keys {unknown}")
    if "format" not in document:
        problems.add(
            "malformed_episode_document",
            f"the document has no format key: an episode document names its format, "
            f'"format": "{EPISODE_FORMAT}" (docs/documents.md)',
        )
    elif document["format"] != EPISODE_FORMAT:
        problems.add(
            "malformed_episode_document",
            f"format is {document['format']!r}, not {EPISODE_FORMAT!r}",
        )
    attrs: dict[str, object] = {}
    for key, label in _RECORD_KEYS.items():
        attrs[key] = _record(document.get(key), label, problems, key)
    for key, label in {**_ARRAY_KEYS, **_BOUND_KEYS}.items():
        if key in document:
            value = document[key]
            attrs[key] = (
                tuple(_record(x, label, problems, f"{key}[{i}]") for i, x in enumerate(value))
                if type(value) is list
                else value
            )
    for key in ("schema_versions", "policy_versions", "trace_policy_version"):
        if key in document:
            attrs[key] = _to_tuple(document[key])
    claimed = document.get("trace_input")
    if "trace_input" in document and claimed is None:  # sealing-policy §9
        problems.add(
            "malformed_trace_input",
            "trace_input is null: omit the key when there is no claimed trace input",
        )
    if type(claimed) is dict:
        claimed = SimpleNamespace(**{k: _to_tuple(v) for k, v in claimed.items()})
        # Unknown keys of a claimed trace input make it malformed.
        known = {f.name for f in dataclass_fields(PracticeTraceInput)}
        extra = sorted(set(vars(claimed)) - known)
        if extra:
            problems.add("malformed_trace_input", f"trace_input has unknown keys {extra}")
    return SimpleNamespace(**attrs), claimed


def seal_document(
    data: bytes, *, layout: IdentityLayout | str | None = None
) -> PracticeTraceOutcome:
    """Decode an episode document and seal it (episode-format.md; sealing-policy §10).

    Args:
        data: the document's bytes (UTF-8 JSON).
        layout: the identity layout to seal under, when the document names none in its
            ``identity_layout`` key; ``adr-0230`` when neither does.

    Returns:
        The outcome: a sealed trace, or a refusal for any JSON that is not a valid episode
        (duplicate keys, floats, NaN/Infinity, lone surrogates, bools where ints belong,
        nesting or integers beyond the limits, unknown keys, wrong format, an unknown
        ``identity_layout``, ...). Nesting is counted on the text before it is decoded.

    Raises:
        DocumentError: the bytes are not UTF-8, or not JSON, or the document names another
            identity layout than ``layout``.
        ValueError: ``layout`` names no identity layout.
    """
    chosen = layout_of(layout) if layout is not None else None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DocumentError(f"not UTF-8 (byte {error.start})") from None
    if text.startswith("\ufeff"):
        raise DocumentError("starts with a byte order mark; save it as UTF-8 without BOM")
    fallback = chosen or IdentityLayout.ADR_0230
    if nests_deeper_than(text, MAX_DOCUMENT_DEPTH):
        # Counted on the text: no decoder ever runs on a document this deep (§11).
        deep = Problems()
        deep.add(
            "malformed_episode_document", f"nesting deeper than {MAX_DOCUMENT_DEPTH} containers"
        )
        return refuse_document(deep, fallback)
    problems = Problems()
    try:
        document = _parse(text, problems)
    except ValueError as error:
        raise DocumentError(f"not JSON: {error}") from None
    if type(document) is not dict:
        problems.add(
            "malformed_episode_document",
            f"the document is {_json_kind(document)}, not a JSON object",
        )
        return refuse_document(problems, fallback)
    named = _document_layout(document, chosen, problems)
    episode, claimed = _episode(document, problems)
    claim = NO_CLAIM if claimed is None else claimed
    outcome = run(episode, claimed=claim, layout=named or fallback, prior=problems)
    return cast(PracticeTraceOutcome, outcome)


def _document_layout(
    document: dict[str, object], chosen: IdentityLayout | None, problems: Problems
) -> IdentityLayout | None:
    """The layout the document names (sealing-policy §10), checked against the caller's."""
    if _LAYOUT_KEY not in document:
        return None
    value = document[_LAYOUT_KEY]
    try:
        named = layout_of(value)
    except ValueError:
        problems.add(
            "malformed_episode_document",
            f"identity_layout is {value!r}, not one of "
            + ", ".join(layout.value for layout in IdentityLayout),
        )
        return None
    if chosen is not None and chosen is not named:
        raise LayoutConflictError(named.value, chosen.value)
    return named


_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET: Final = re.compile(r"[^\[\]{}]+")
_INNERMOST: Final = re.compile(r"\[\]|\{\}")


def nests_deeper_than(text: str, limit: int) -> bool:
    """Whether a JSON text nests containers deeper than ``limit`` (the root is depth 1),
    counted on its characters before any decoder runs (sealing-policy §11): strings are
    dropped, then each pass removes the innermost bracket pairs, at most ``limit`` passes.
    Constant stack.

    Raises:
        DocumentError: the brackets do not pair and reach deeper than ``limit``: not JSON,
            and too deep to hand to a decoder.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for removed in range(limit):
        if not brackets:
            return False
        inner = _INNERMOST.sub("", brackets)
        if inner == brackets:  # unpaired: not JSON; the decoder may say so if it is shallow
            if removed + _deepest(brackets) > limit:
                raise DocumentError(f"not JSON: its brackets do not pair, {limit}+ levels deep")
            return False
        brackets = inner
    return bool(brackets)


def _deepest(brackets: str) -> int:
    """The deepest nesting the opening brackets of ``brackets`` reach, closing ones undoing
    them (never below zero)."""
    depth = deepest = 0
    for char in brackets:
        depth = depth + 1 if char in "[{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    return deepest


def outcome_document(outcome: PracticeTraceOutcome) -> dict[str, object]:
    """Return the outcome as a JSON object keyed by its field names, plus format and kind."""
    document: dict[str, object] = {
        "format": OUTCOME_FORMAT,
        "outcome": "sealed_practice_trace"
        if isinstance(outcome, SealedPracticeTrace)
        else "practice_trace_refusal",
    }
    for f in dataclass_fields(outcome):
        value = getattr(outcome, f.name)
        if f.name == "evidence_spans":
            value = [span_payload(span) for span in value]
        elif f.name in ("practice_disposition", "identity_layout"):
            value = value.value
        elif f.name == "explanation":
            value = value.encode("utf-8", "backslashreplace").decode("utf-8")
        elif isinstance(value, tuple):
            value = list(value)
        document[f.name] = value
    return document


def _json_kind(value: object) -> str:
    """How a decoded top-level JSON value is named in a refusal's detail."""
    if isinstance(value, _Rejected):
        return "a number the decoder refuses (a float, NaN or an integer beyond 64 bits)"
    names = {
        list: "a JSON array",
        str: "a JSON string",
        int: "a JSON number",
        bool: "a JSON boolean",
        type(None): "JSON null",
    }
    return names.get(type(value), "a JSON value")


def encode_outcome(outcome: PracticeTraceOutcome) -> bytes:
    """Encode ``outcome`` as canonical JSON (ADR-0230 §12 settings) plus one newline, UTF-8."""
    return (canonical_json(outcome_document(outcome)) + "\n").encode("utf-8")


def _plain(value: object, depth: int = 1) -> object:
    """The JSON form of a reference value; nesting past :data:`MAX_DOCUMENT_DEPTH` (a cycle
    included) is ``IdentityError``, never a ``RecursionError``."""
    nested = (is_dataclass(value) and not isinstance(value, type)) or isinstance(
        value, (Mapping, tuple, list)
    )
    if nested and depth > MAX_DOCUMENT_DEPTH:
        raise IdentityError(
            "payload_too_deep", "episode", f"nesting deeper than {MAX_DOCUMENT_DEPTH} containers"
        )
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name), depth + 1) for f in dataclass_fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {key: _plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(item, depth + 1) for item in value]
    return value


def episode_document(
    episode: PracticeEpisode,
    trace_input: PracticeTraceInput | None = None,
    *,
    layout: IdentityLayout | str | None = None,
) -> dict[str, object]:
    """Return the episode document (``sealed_trace.episode.v1``) of a reference episode.

    The run kind that is None is omitted; ``trace_input``, when given, is included as the
    document's claimed trace input; ``layout``, when given, is written as the document's
    ``identity_layout`` (sealing-policy §10: a bound episode names ``adr-0233``), else the
    key is omitted and the document seals under the reader's default.

    Raises:
        ValueError: ``layout`` names no identity layout.
    """
    document: dict[str, object] = {"format": EPISODE_FORMAT}
    if layout is not None:
        document[_LAYOUT_KEY] = layout_of(layout).value
    for f in dataclass_fields(episode):
        value = getattr(episode, f.name)
        if f.name in ("geometric_search_run", "search_run_refusal") and value is None:
            continue
        if f.name in _BOUND_KEYS and not value:
            continue  # an episode that is not bound (sealing-policy §10)
        document[f.name] = _plain(value)
    if trace_input is not None:
        document["trace_input"] = _plain(trace_input)
    return document


def encode_episode(
    episode: PracticeEpisode,
    trace_input: PracticeTraceInput | None = None,
    *,
    layout: IdentityLayout | str | None = None,
) -> bytes:
    """Encode an episode document as indented, key-sorted UTF-8 JSON plus a newline
    (``layout``: see :func:`episode_document`).

    Raises:
        IdentityError: the episode holds a value that has no JSON form (e.g. a float).
        ValueError: ``layout`` names no identity layout.
    """
    document = episode_document(episode, trace_input, layout=layout)
    canonical_json(document, max_depth=MAX_DOCUMENT_DEPTH)  # refuse what decoding refuses
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()


def outcome_id_reproduces(outcome: PracticeTraceOutcome) -> bool:
    """Whether ``outcome``'s own id (``trace_id`` or ``trace_refusal_id``) is the SHA-256 of
    its canonical structural fields (ADR-0230 §12), recomputed here: an outcome whose id or
    fields were altered after sealing does not reproduce. It checks the outcome against
    itself only; whether its episode seals to it is ``sealed-trace verify``'s question.

    Returns False, never raises, for a field that cannot be encoded.
    """
    try:
        if isinstance(outcome, SealedPracticeTrace):
            payload = trace_identity_payload(outcome)
            return digest_of_canonical(canonical_json(payload)) == outcome.trace_id
        if isinstance(outcome, PracticeTraceRefusal):
            payload = refusal_identity_payload(outcome)
            return identity_digest(payload) == outcome.trace_refusal_id
    except Exception:
        return False
    return False


# -- outcome documents, decoded (the inverse of encode_outcome) -------------------------

_HEX: Final = frozenset("0123456789abcdef")
_ID_FIELDS: Final = (
    "trace_id",
    "input_digest",
    "problem_frame_digest",
    "original_contract_assessment_id",
    "search_gate_decision_id",
    "compute_budget_id",
    "geometric_search_run_id",
)
_ID_LISTS: Final = (
    "residual_ids",
    "candidate_attempt_ids",
    "candidate_attempt_binding_ids",
    "replay_result_ids",
    "replay_refusal_ids",
    "upstream_identity_chain",
    "trace_records",
)
_TEXT_FIELDS: Final = ("trace_policy_version", "created_by_policy", "explanation")
_SEALED_KEYS: Final = frozenset(
    {"format", "outcome", "practice_disposition", "evidence_spans", "identity_layout"}
    | set(_ID_FIELDS)
    | set(_ID_LISTS)
    | set(_TEXT_FIELDS)
)
_REFUSAL_KEYS: Final = frozenset(
    {
        "format",
        "outcome",
        "trace_refusal_id",
        "trace_policy_version",
        "input_digest",
        "practice_disposition",
        "reason_codes",
        "identity_layout",
        "explanation",
    }
)


class _NotOutcome(Exception):
    """Why a decoded document is not an outcome document (becomes a :class:`DocumentError`)."""


def _is_id(value: object) -> bool:
    return type(value) is str and len(value) == 64 and set(value) <= _HEX


def _id(document: Mapping[str, object], key: str) -> str:
    value = document[key]
    if not _is_id(value):
        raise _NotOutcome(f"{key} is not a 64-character lowercase hex id")
    return str(value)


def _ids(document: Mapping[str, object], key: str) -> tuple[str, ...]:
    value = document[key]
    if type(value) is not list or not all(_is_id(item) for item in value):
        raise _NotOutcome(f"{key} is not a list of 64-character lowercase hex ids")
    return tuple(str(item) for item in value)


def _text(document: Mapping[str, object], key: str) -> str:
    value = document[key]
    if type(value) is not str:
        raise _NotOutcome(f"{key} is not a string")
    return value


def _int(value: object) -> bool:
    return type(value) is int  # bools are not ints here


def _spans(document: Mapping[str, object]) -> tuple[SourceSpan, ...]:
    value = document["evidence_spans"]
    if type(value) is not list:
        raise _NotOutcome("evidence_spans is not a list")
    spans = []
    for position, item in enumerate(value):
        if (
            type(item) is not dict
            or set(item) != set(_SPAN_KEYS)
            or type(item["text"]) is not str
            or not _int(item["start"])
            or not _int(item["end"])
            or not (item["sentence_index"] is None or _int(item["sentence_index"]))
        ):
            raise _NotOutcome(
                f"evidence_spans[{position}] is not a span {{text, start, end, sentence_index}}"
            )
        spans.append(SourceSpan(item["text"], item["start"], item["end"], item["sentence_index"]))
    return tuple(spans)


def _disposition(document: Mapping[str, object], family: frozenset[PracticeDisposition]) -> _D:
    value = document["practice_disposition"]
    if type(value) is not str or value not in {d.value for d in family}:
        raise _NotOutcome(f"practice_disposition {value!r} is not one of its outcome type's")
    return _D(value)


def _keys(document: Mapping[str, object], expected: frozenset[str]) -> None:
    missing = sorted(expected - set(document))
    if missing:
        raise _NotOutcome(f"missing {', '.join(missing)}")
    unknown = sorted(set(document) - expected)
    if unknown:
        raise _NotOutcome(f"unknown key {', '.join(unknown)}")


def _sealed_outcome(document: Mapping[str, object]) -> SealedPracticeTrace:
    _keys(document, _SEALED_KEYS)
    ids = {key: _id(document, key) for key in _ID_FIELDS}
    lists = {key: _ids(document, key) for key in _ID_LISTS}
    texts = {key: _text(document, key) for key in _TEXT_FIELDS}
    layout = _outcome_layout(document)
    if layout is IdentityLayout.ADR_0230 and lists["candidate_attempt_binding_ids"]:
        raise _NotOutcome(
            "it says identity_layout adr-0230 but holds candidate_attempt_binding_ids, which "
            "only an adr-0233 outcome can"
        )
    trace = SealedPracticeTrace(
        trace_id=ids["trace_id"],
        trace_policy_version=texts["trace_policy_version"],
        input_digest=ids["input_digest"],
        problem_frame_digest=ids["problem_frame_digest"],
        original_contract_assessment_id=ids["original_contract_assessment_id"],
        residual_ids=lists["residual_ids"],
        search_gate_decision_id=ids["search_gate_decision_id"],
        compute_budget_id=ids["compute_budget_id"],
        geometric_search_run_id=ids["geometric_search_run_id"],
        candidate_attempt_ids=lists["candidate_attempt_ids"],
        candidate_attempt_binding_ids=lists["candidate_attempt_binding_ids"],
        replay_result_ids=lists["replay_result_ids"],
        replay_refusal_ids=lists["replay_refusal_ids"],
        upstream_identity_chain=lists["upstream_identity_chain"],
        practice_disposition=_disposition(document, SEALED_DISPOSITIONS),
        trace_records=lists["trace_records"],
        evidence_spans=_spans(document),
        created_by_policy=texts["created_by_policy"],
        explanation=texts["explanation"],
        identity_layout=layout,
    )
    chain = chain_of(trace, layout)  # the sealer's own order, written once
    for key in ("upstream_identity_chain", "trace_records"):
        if lists[key] != chain:
            raise _NotOutcome(f"{key} is not its record ids in pipeline order")
    return trace


def _outcome_layout(document: Mapping[str, object]) -> IdentityLayout:
    try:
        return layout_of(document["identity_layout"])
    except ValueError as error:
        raise _NotOutcome(str(error)) from None


def _refusal_outcome(document: Mapping[str, object]) -> PracticeTraceRefusal:
    _keys(document, _REFUSAL_KEYS)
    digest = document["input_digest"]
    if digest is not None and not _is_id(digest):
        raise _NotOutcome("input_digest is neither null nor a 64-character lowercase hex id")
    codes = document["reason_codes"]
    if type(codes) is not list or not all(type(code) is str for code in codes):
        raise _NotOutcome("reason_codes is not a list of strings")
    return PracticeTraceRefusal(
        trace_refusal_id=_id(document, "trace_refusal_id"),
        trace_policy_version=_text(document, "trace_policy_version"),
        input_digest=None if digest is None else str(digest),
        practice_disposition=_disposition(document, REFUSAL_DISPOSITIONS),
        reason_codes=tuple(str(code) for code in codes),
        explanation=_text(document, "explanation"),
        identity_layout=_outcome_layout(document),
    )


def _strict_json(text: str) -> object:
    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, value in items:
            if key in out:
                raise _NotOutcome(f"duplicate key {key!r}")
            out[key] = value
        return out

    def real(literal: str) -> object:
        raise _NotOutcome(f"a float {literal}")

    return json.loads(text, object_pairs_hook=pairs, parse_float=real, parse_constant=real)


def decode_outcome(data: bytes) -> PracticeTraceOutcome:
    """Decode an outcome document (``sealed_trace.outcome.v1``) as :func:`encode_outcome`
    writes it (any JSON layout of the same values is accepted): its inverse.

    Args:
        data: the document's bytes.

    Returns:
        The :class:`SealedPracticeTrace` or :class:`PracticeTraceRefusal` it holds, field for
        field.

    Raises:
        DocumentError: ``not an outcome document (<why>)``: not UTF-8 JSON, wrong format or
            outcome kind, a missing or unknown key, a field of the wrong type, an id that is
            not 64 lowercase hex characters, a disposition outside its outcome type's family
            (ADR-0230 §8), or an upstream_identity_chain/trace_records that is not the record
            ids in pipeline order (§7.1).
    """
    try:
        return _decode_outcome(data)
    except _NotOutcome as error:
        raise DocumentError(f"not an outcome document ({error})") from None


def _decode_outcome(data: bytes) -> PracticeTraceOutcome:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _NotOutcome(f"not UTF-8, byte {error.start}") from None
    if text.startswith("\ufeff"):
        raise _NotOutcome("it starts with a byte order mark")
    try:
        document = _strict_json(text)
    except RecursionError:
        raise _NotOutcome("nested too deeply") from None
    except _NotOutcome:
        raise
    except ValueError as error:
        raise _NotOutcome(f"not JSON: {error}") from None
    if type(document) is not dict:
        raise _NotOutcome("not a JSON object")
    if document.get("format") != OUTCOME_FORMAT:
        raise _NotOutcome(f"format is not {OUTCOME_FORMAT}")
    kind = document.get("outcome")
    if kind == "sealed_practice_trace":
        return _sealed_outcome(document)
    if kind == "practice_trace_refusal":
        return _refusal_outcome(document)
    raise _NotOutcome("outcome is neither sealed_practice_trace nor practice_trace_refusal")
