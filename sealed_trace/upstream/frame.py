"""The two identity-bearing projections with no upstream id (sealing-policy §2).

ProblemFrame projection: ``frame_digest`` over ``frame_schema_version``, ``problem_text`` and
``facts`` (no self key). ContractAssessment projection: ``assessment_id`` over
``problem_frame_digest``, ``candidate_organ``, ``missing_bindings``, ``unresolved_hazards``,
``runnable`` and ``evidence_spans`` (no self key). Prose (``explanation``) is never hashed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from sealed_trace.identity import MAX_DEPTH, IdentityError, identity_digest
from sealed_trace.upstream.spans import SourceSpan, spans_payload

__all__ = [
    "CONTRACT_ASSESSMENT_IDENTITY_VERSION",
    "MAX_FACTS_VALUES",
    "PROBLEM_FRAME_IDENTITY_VERSION",
    "ContractAssessmentProjection",
    "JSONValue",
    "ProblemFrameProjection",
    "contract_assessment_id",
    "problem_frame_digest",
    "thaw_json",
]

PROBLEM_FRAME_IDENTITY_VERSION: Final = "problem_frame_identity.v1"
CONTRACT_ASSESSMENT_IDENTITY_VERSION: Final = "contract_assessment_identity.v1"

#: Most values a frame's facts may hold, counted as the canonical JSON writes them out (every
#: container and scalar; one object in several places counts at each): facts that share a
#: list with themselves many times over would otherwise expand without bound.
MAX_FACTS_VALUES: Final = 100_000

JSONValue = object
"""Any JSON value without floats: dict with str keys, list/tuple, str, int, bool or None."""


@dataclass(frozen=True, slots=True)
class ProblemFrameProjection:
    """The identity-bearing projection of a ProblemFrame (sealing-policy §2).

    ``facts`` is the host's canonical frame content, a mapping from str to a float-free JSON
    value; it takes part in equality but not in ``hash()`` (in-process hashing is not identity).
    """

    frame_digest: str
    frame_schema_version: str
    problem_text: str
    facts: Mapping[str, JSONValue] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class ContractAssessmentProjection:
    """The original ContractAssessment as the trace consumes it (sealing-policy §2).

    ``runnable`` is an input field here; the sealer refuses a runnable (not refused)
    assessment. ADR-0230 §7.3 forbids ``runnable`` on outputs only.
    """

    assessment_id: str
    problem_frame_digest: str
    candidate_organ: str
    missing_bindings: tuple[str, ...]
    unresolved_hazards: tuple[str, ...]
    runnable: bool
    evidence_spans: tuple[SourceSpan, ...]
    explanation: str = ""


def thaw_json(value: object, depth: int = 0) -> object:
    """Return ``value`` with every Mapping turned into a dict and every list/tuple into a list.

    Nothing else is converted: a float, a non-string key or an unknown type stays as it is, so
    :func:`~sealed_trace.identity.canonical_json` still refuses it. Past
    :data:`~sealed_trace.identity.MAX_DEPTH` the value is returned unchanged (and then refused
    as too deep), so cycles cannot recurse forever. Kinds are told by the value's real type
    (``type(value)``), never by a ``__class__`` it reports.

    Raises:
        IdentityError: ``payload_too_large`` when the copy would hold more than
            :data:`MAX_FACTS_VALUES` values.
    """
    return _thaw(value, depth, [MAX_FACTS_VALUES], {})


def _thaw(
    value: object, depth: int, left: list[int], done: dict[int, tuple[object, int, object]]
) -> object:
    """Copy ``value`` (see :func:`thaw_json`); ``left`` counts the values still allowed, and
    ``done`` holds each container already copied, by id, with its value count and the
    object itself (held, so its id is not reused): a container met again is copied once and
    counted every time it appears, as the canonical text will hold it every time."""
    if depth > MAX_DEPTH:
        _count(left, 1)
        return value
    kind = type(value)
    if not issubclass(kind, (Mapping, list, tuple)):
        _count(left, 1)
        return value
    seen = done.get(id(value))
    if seen is not None:
        if seen[1] < 0:  # met again inside itself: read once, it is a cycle
            raise IdentityError("cycle_in_payload", "$", "a container holds itself")
        _count(left, seen[1])
        return seen[0]
    before = left[0]
    _count(left, 1)
    done[id(value)] = (None, -1, value)  # being copied
    copy: object
    if issubclass(kind, dict):  # the dict's own items, not an override's
        pairs: Iterable[tuple[object, object]] = dict.items(value)  # type: ignore[arg-type]
        copy = {key: _thaw(item, depth + 1, left, done) for key, item in pairs}
    elif issubclass(kind, Mapping):
        # A host Mapping's own methods run here: its length is read once, and items that end
        # early (a StopIteration passing for the end) are an unreadable value, not fewer facts.
        expected = len(value)  # type: ignore[arg-type]
        pairs = list(value.items())  # type: ignore[attr-defined]  # (the host's own items())
        copy = {key: _thaw(item, depth + 1, left, done) for key, item in pairs}
        if len(pairs) != expected or len(copy) != expected:
            raise IdentityError(
                "unreadable_mapping",
                "$",
                f"a mapping of {expected} items gave {len(pairs)} pairs, {len(copy)} keys",
            )
    elif issubclass(kind, list):
        items: Iterable[object] = list.__iter__(value)  # type: ignore[arg-type]
        copy = [_thaw(item, depth + 1, left, done) for item in items]
    else:
        items = tuple.__iter__(value)  # type: ignore[arg-type]  # the tuple's own items
        copy = [_thaw(item, depth + 1, left, done) for item in items]
    done[id(value)] = (copy, before - left[0], value)
    return copy


def _count(left: list[int], values: int) -> None:
    left[0] -= values
    if left[0] < 0:
        raise IdentityError("payload_too_large", "$", f"more than {MAX_FACTS_VALUES} values")


def problem_frame_digest(frame: ProblemFrameProjection, *, checked: bool = True) -> str:
    """Recompute ``frame_digest`` (sealing-policy §2).

    Raises:
        IdentityError: (checked) the facts hold a float or another value canonical JSON
            refuses, or more than :data:`MAX_FACTS_VALUES` values.
    """
    return identity_digest(
        {
            "frame_schema_version": frame.frame_schema_version,
            "problem_text": frame.problem_text,
            # Unchecked callers (the sealer) hold facts already thawed into dicts and lists.
            "facts": thaw_json(frame.facts) if checked else dict(frame.facts),
        },
        checked=checked,
    )


def contract_assessment_id(
    assessment: ContractAssessmentProjection, *, checked: bool = True
) -> str:
    """Recompute ``assessment_id`` (sealing-policy §2). Raises IdentityError as identity_digest."""
    return identity_digest(
        {
            "problem_frame_digest": assessment.problem_frame_digest,
            "candidate_organ": assessment.candidate_organ,
            "missing_bindings": list(assessment.missing_bindings),
            "unresolved_hazards": list(assessment.unresolved_hazards),
            "runnable": assessment.runnable,
            "evidence_spans": spans_payload(assessment.evidence_spans),
        },
        checked=checked,
    )
