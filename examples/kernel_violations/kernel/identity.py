"""Canonical JSON and SHA-256 record ids (ADR-0230 §12), the kernel's own helper.

``json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))``, UTF-8,
SHA-256, lowercase hex. Floats are refused, never coerced; enums are written as their values.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from enum import Enum

from kernel.records import SourceSpan


class IdentityError(ValueError):
    """A payload holds a value an identity may not contain (a float, an unknown type)."""


def _plain(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    raise IdentityError(f"{type(value).__name__} cannot be part of an identity payload")


def canonical_json(payload: dict[str, object]) -> str:
    """Return the canonical JSON text of ``payload`` (enums as values, floats refused)."""
    return json.dumps(_plain(payload), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def digest(payload: dict[str, object]) -> str:
    """Return the lowercase hex SHA-256 of the UTF-8 canonical JSON of ``payload``."""
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def spans(evidence: Iterable[SourceSpan]) -> list[dict[str, object]]:
    """Return spans as ``{text, start, end, sentence_index}`` objects, in order, duplicates kept."""
    return [
        {"text": s.text, "start": s.start, "end": s.end, "sentence_index": s.sentence_index}
        for s in evidence
    ]
