"""Canonical JSON and SHA-256 identities (ADR-0230 §12).

Every load-bearing identity in the practice loop is the lowercase hex SHA-256 of the UTF-8
encoding of ``json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))``.
This module produces that string only for payloads that can be hashed without guessing: it
refuses, with a typed :class:`IdentityError`, everything ADR §12 forbids or leaves undefined.

Accepted payload values (exact types, no subclasses, so no value can re-define how it prints):
``dict`` with ``str`` keys, ``list``, ``tuple`` (written as an array), ``str`` (no lone
surrogates), ``int`` within :data:`MAX_ABS_INT`, ``bool`` and ``None``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from json.encoder import encode_basestring
from typing import Final, cast

__all__ = [
    "MAX_ABS_INT",
    "MAX_DEPTH",
    "IdentityError",
    "canonical_json",
    "canonical_json_with",
    "digest_of_canonical",
    "identity_digest",
    "is_identity",
    "with_leading_key",
]

#: Deepest container nesting accepted in a payload; the root object is depth 1.
MAX_DEPTH: Final = 64
#: Largest absolute integer accepted in a payload: the signed 64-bit range, ``-(2**63)`` to
#: ``2**63 - 1``.
MAX_ABS_INT: Final = 2**63

_HEX: Final = frozenset("0123456789abcdef")
# One encoder with the ADR §12 settings, built once (json.dumps would build one per call).
_ENCODE: Final = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), check_circular=False
).encode


class IdentityError(ValueError):
    """A payload cannot be canonically encoded (ADR §12).

    ``code`` is a stable snake_case string: ``float_in_payload``, ``non_string_key``,
    ``lone_surrogate``, ``cycle_in_payload``, ``payload_too_deep``, ``integer_out_of_range`` or
    ``unsupported_type`` (and ``payload_too_large`` or ``unreadable_mapping``, a host mapping
    whose items end before its length, from :func:`sealed_trace.upstream.frame.thaw_json`);
    ``path`` locates the offending value
    (``$.a[0]``).
    """

    def __init__(self, code: str, path: str, detail: str) -> None:
        super().__init__(f"{code} at {path}: {detail}")
        self.code = code
        self.path = path
        self.detail = detail


def _name(kind: type) -> str:
    """The class's own name, read from ``type`` itself (a metaclass cannot answer for it)."""
    name = type.__dict__["__name__"].__get__(kind, type)
    return name if type(name) is str else "an object"


def _check_str(value: str, path: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise IdentityError("lone_surrogate", path, "string holds a lone surrogate") from None


def _check_scalar(value: object, kind: type, path: str) -> bool:
    """Check a scalar; True when ``value`` is a container (to be walked), else raise or
    return False."""
    if value is None or kind is bool:
        return False
    if kind is int:
        if not -MAX_ABS_INT <= cast(int, value) < MAX_ABS_INT:
            raise IdentityError("integer_out_of_range", path, "beyond the signed 64-bit range")
        return False
    if kind is str:
        _check_str(cast(str, value), path)
        return False
    if kind is float:
        raise IdentityError("float_in_payload", path, "floats, NaN and Infinity are forbidden")
    # Compared by identity: ``in`` or ``==`` would run a metaclass's __eq__.
    if kind is not dict and kind is not list and kind is not tuple:
        raise IdentityError("unsupported_type", path, f"{_name(kind)} is not a JSON value")
    return True


def _children(value: object, path: str) -> Iterator[tuple[str, object]]:
    """A container's items with their paths; a dict's keys checked on the way."""
    if type(value) is dict:
        for key, item in cast(dict[object, object], value).items():
            if type(key) is not str:
                raise IdentityError("non_string_key", path, f"key of type {_name(type(key))}")
            _check_str(key, path)
            yield f"{path}.{key}", item
    else:
        for index, item in enumerate(cast(list[object], value)):
            yield f"{path}[{index}]", item


def _check(value: object, path: str, limit: int = MAX_DEPTH) -> None:
    """Raise IdentityError for anything ADR §12 forbids; one walk with an explicit stack, so
    the check needs the same few frames at any nesting (sealing-policy §11)."""
    if not _check_scalar(value, type(value), path):
        return
    sentinel: Iterator[tuple[str, object]] = iter(())
    stack = [(sentinel, 0)]  # a sentinel frame: the walk ends when it is popped
    active: set[int] = set()
    pending: list[tuple[object, str]] = [(value, path)]
    while pending or len(stack) > 1:
        if pending:
            item, where = pending.pop()
            depth = len(stack) - 1
            if depth >= limit:
                raise IdentityError("payload_too_deep", where, f"nesting deeper than {limit}")
            if id(item) in active:
                raise IdentityError("cycle_in_payload", where, "container contains itself")
            active.add(id(item))
            stack.append((_children(item, where), id(item)))
        children, marker = stack[-1]
        for where, child in children:
            if _check_scalar(child, type(child), where):
                pending.append((child, where))
                break
        else:
            stack.pop()
            active.discard(marker)


def canonical_json(payload: object, *, max_depth: int = MAX_DEPTH, checked: bool = True) -> str:
    """Return the ADR §12 canonical JSON text of ``payload``.

    Args:
        payload: a JSON value built from the exact types listed in the module docstring.
        max_depth: the deepest container nesting accepted (identity payloads: the default;
            documents that wrap payloads one level deeper pass one more).
        checked: ``False`` skips the payload check, as in :func:`identity_digest`; only for
            payloads built from values already normalised to exact JSON types.

    Returns:
        The compact, key-sorted, non-ASCII-preserving JSON text.

    Raises:
        IdentityError: the payload holds a float, NaN/Infinity, a non-string key, a lone
            surrogate, a cycle, nesting deeper than :data:`MAX_DEPTH`, an integer outside
            :data:`MAX_ABS_INT`, or any non-JSON type (including subclasses of JSON types).
    """
    if checked:
        _check(payload, "$", max_depth)
    return _ENCODE(payload)


def identity_digest(payload: object, *, checked: bool = True) -> str:
    """Return the 64-character lowercase hex SHA-256 of ``canonical_json(payload)`` (UTF-8).

    ``checked=False`` skips the payload check: only for payloads built from values that were
    already normalised to exact JSON types (the sealer's reader guarantees this); the digest
    is the same.

    Raises:
        IdentityError: as :func:`canonical_json` (when checked).
    """
    if checked:
        _check(payload, "$")
    return hashlib.sha256(_ENCODE(payload).encode("utf-8")).hexdigest()


def digest_of_canonical(text: str) -> str:
    """Return the lowercase hex SHA-256 of ``text`` (UTF-8), a canonical JSON text.

    ``identity_digest(payload, checked=False)`` equals
    ``digest_of_canonical(canonical_json(payload))``; this entry point lets a caller that
    already holds the canonical text (to reuse it inside a larger payload) hash it once.
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json_with(payload: Mapping[str, object], fragments: Mapping[str, str]) -> str:
    """Return the canonical JSON text of an object whose values are partly pre-encoded.

    The result equals ``canonical_json({**payload, **decoded})``, where ``decoded`` maps each
    key of ``fragments`` to the JSON value its text encodes. The caller guarantees that every
    fragment is itself canonical JSON (as produced by :func:`canonical_json`) and that the
    values of ``payload`` are exact JSON types (they are encoded unchecked). This lets a
    payload that embeds other payloads, or one list twice, be encoded without encoding the
    embedded parts again (ADR §12: the bytes hashed are the same).

    Raises:
        ValueError: a key of ``fragments`` cannot be placed unambiguously (it is not a plain
            top-level key of the encoded object); never for payloads the sealer builds.
    """
    if not fragments:
        return _ENCODE(payload)
    text = _ENCODE({**payload, **dict.fromkeys(fragments, 0)})
    parts: list[str] = []
    rest = text
    for key in sorted(fragments):  # the order sort_keys writes them in
        marker = encode_basestring(key) + ":0"
        head, found, rest = rest.partition(marker)
        if not found or rest[:1] not in (",", "}") or marker in rest:
            raise ValueError(f"cannot place the pre-encoded value of key {key!r}")
        parts += (head, marker[:-1], fragments[key])
    parts.append(rest)
    return "".join(parts)


def with_leading_key(blanked: str, key: str, value: str) -> str:
    """Return ``blanked`` with its first key's empty string value replaced by ``value``.

    ``blanked`` is the canonical JSON of an object whose alphabetically first key is ``key``
    with the value ``""`` (a self-identity blanked for hashing); the result is the canonical
    JSON of the same object holding ``value`` there, so the object need not be encoded twice.

    Raises:
        ValueError: ``blanked`` does not start with ``{"<key>":""``.
    """
    opening = "{" + encode_basestring(key) + ":"
    if not blanked.startswith(opening + '""'):
        raise ValueError(f"the canonical text does not start with the blanked key {key!r}")
    return opening + encode_basestring(value) + blanked[len(opening) + 2 :]


def is_identity(value: object) -> bool:
    """Tell whether ``value`` is an exact ``str`` of 64 lowercase hex characters."""
    return type(value) is str and len(value) == 64 and _HEX.issuperset(value)
