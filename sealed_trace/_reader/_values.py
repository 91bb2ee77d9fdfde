"""Reading one attribute value into normal form (sealing-policy §2, §9, §11).

Every value read is normalised to an exact builtin (``str``, ``int``, ``bool``, ``tuple``) or
a reference dataclass, so later comparisons and hashing can never run code supplied with the
input. A value that cannot be normalised is :data:`BAD`; the field's reader reports it.
Nothing here raises for a bad value: an ``Exception`` raised by host code while a value is read
makes the value :data:`BAD`. A ``RecursionError`` (a caller with too little stack, never a
property of the record) and control flow (``KeyboardInterrupt``, ``SystemExit``, ...)
propagate (sealing-policy §11).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Final, TypeAlias, cast

from sealed_trace.identity import MAX_ABS_INT

__all__ = [
    "BAD",
    "MISSING",
    "UNREADABLE",
    "Bad",
    "Check",
    "Problems",
    "Where",
    "encodable",
    "exact_tuple",
    "loose_items",
    "nullable",
    "path",
    "raw_pair",
    "read_bool",
    "read_enum",
    "read_id",
    "read_int",
    "read_pair",
    "read_str",
    "read_str_pair",
    "read_text",
    "tuple_of",
    "version_text",
]


class Bad:
    """The type of :data:`BAD`: a value that could not be normalised."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "BAD"


BAD: Final = Bad()
#: An attribute the object does not have (AttributeError).
MISSING: Final = object()
#: An attribute whose read raised something other than AttributeError.
UNREADABLE: Final = object()


@dataclass
class Problems:
    """One seal's findings and its read memory.

    ``codes`` are reason codes in first-seen order, each explained by sentences in
    ``details``. The rest is what this seal has read so far, so that nothing is read twice
    (sealing-policy §9): ``copies`` holds every object read, by id, with its copy;
    ``held`` keeps those objects alive until the seal ends, so no id is reused;
    ``enum_values`` holds each foreign enum member's value by id; ``partial`` holds, for a
    tuple of nested records that did not read whole, each item's ``(record, fields)``.
    """

    codes: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    partial: dict[str, list[tuple[object | None, dict[str, object]]]] = field(default_factory=dict)
    copies: dict[object, object] = field(default_factory=dict)
    held: list[object] = field(default_factory=list)
    enum_values: dict[int, object] = field(default_factory=dict)

    def add(self, code: str, detail: str) -> None:
        """Record ``code`` (kept once, in first-seen order) and its ``detail`` sentence."""
        if code not in self.codes:
            self.codes.append(code)
        self.details.append(f"{code}: {detail}")

    def extend(self, other: Problems) -> None:
        """Add every finding of ``other``, in its order."""
        for code in other.codes:
            if code not in self.codes:
                self.codes.append(code)
        self.details.extend(other.details)


#: Where a value sits: a path's text, or (the record's place, its index in a tuple or None,
#: a field name or None), turned into text by :func:`path` only when a problem is reported.
Where: TypeAlias = str | tuple["Where", int | None, str | None]


def path(where: Where) -> str:
    """``where`` as the text a problem quotes: ``episode.x[3].y``."""
    if isinstance(where, str):
        return where
    parent, index, name = where
    text = path(parent) if index is None else f"{path(parent)}[{index}]"
    return text if name is None else f"{text}.{name}"


#: A simple kind: (raw value, the seal's problems) -> normalised value or BAD.
Check = Callable[[object, Problems], object]

_HEX_ID: Final = re.compile("[0-9a-f]{64}")
_hex_id = _HEX_ID.fullmatch


def encodable(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _enum_value(member: object, problems: Problems) -> object:
    """A foreign enum member's ``value``, read once per seal; BAD when reading it raises."""
    known = problems.enum_values.get(id(member), MISSING)
    if known is not MISSING:
        return known
    try:
        value = cast(Enum, member).value
    except RecursionError:
        raise
    except Exception:  # any exception is a malformed value (sealing-policy §11)
        value = BAD
    problems.enum_values[id(member)] = value
    problems.held.append(member)
    return value


def _any_str(value: object, problems: Problems) -> str | None:
    """``value`` as an exact ``str`` when it is a ``str`` of any kind (a ``str`` subclass,
    so a str-valued enum member, copied by ``str``'s own method), else None."""
    if type(value) is str:
        return value
    if not issubclass(type(value), str):  # not isinstance: that would read __class__
        return None
    return str.__str__(cast(str, value))


def version_text(value: object, problems: Problems) -> str | None:
    """``value`` as an exact ``str`` when it is a non-blank string of any kind, a lone
    surrogate included (such a version is still a value outside the manifest,
    sealing-policy §11); else None (a blank or non-string version is only malformed)."""
    text = _any_str(value, problems)
    return text if text is not None and text.strip() else None


def read_str(value: object, problems: Problems) -> str | Bad:
    """Return ``value`` as an exact, UTF-8-encodable ``str``, or :data:`BAD`."""
    if type(value) is str and value.isascii():
        return value
    text = _any_str(value, problems)
    if text is None:
        return BAD
    return text if text.isascii() or encodable(text) else BAD


def read_int(value: object, problems: Problems) -> int | Bad:
    """Return ``value`` as an exact ``int`` in the signed 64-bit range (not a bool), or BAD."""
    if type(value) is int:
        number = value
    elif issubclass(type(value), int) and not issubclass(type(value), bool):
        number = int.__int__(cast(int, value))
    else:
        return BAD
    return number if -MAX_ABS_INT <= number < MAX_ABS_INT else BAD


def read_bool(value: object, problems: Problems) -> object:
    """Return ``value`` when it is exactly True or False, else BAD."""
    return value if type(value) is bool else BAD


def exact_tuple(value: object) -> tuple[object, ...] | Bad:
    """Return ``value`` as an exact tuple (a subclass's items copied), or :data:`BAD`."""
    if type(value) is tuple:
        return value
    if not issubclass(type(value), tuple):
        return BAD
    return tuple.__getitem__(cast(tuple[object, ...], value), slice(None))


def read_id(value: object, problems: Problems) -> object:
    """An identity (sealing-policy §2): 64 lowercase hex characters, or BAD."""
    if type(value) is str:
        return value if _hex_id(value) else BAD
    text = read_str(value, problems)
    return text if not isinstance(text, Bad) and _hex_id(text) else BAD


def read_text(value: object, problems: Problems) -> object:
    """A non-empty string (opaque identifiers and version values), or BAD."""
    if type(value) is str and value.isascii():
        return value if value.strip() else BAD
    text = read_str(value, problems)
    return text if not isinstance(text, Bad) and text.strip() else BAD


def nullable(check: Check) -> Check:
    """``check``, or None for None."""
    return lambda value, problems: None if value is None else check(value, problems)


def read_enum(cls: type[Enum]) -> Check:
    """A member of ``cls`` or its string value (a host enum's member too), as ``cls``'s
    member; an object of ``cls`` made any other way is BAD."""
    by_value: dict[object, object] = {member.value: member for member in cls}
    members = frozenset(map(id, cls))

    def check(value: object, problems: Problems) -> object:
        if id(value) in members:
            return value
        if type(value) is cls:  # an instance of the class that is none of its members
            return BAD
        if issubclass(type(value), Enum):  # a host enum's member: its value (sealing-policy §1)
            value = _enum_value(value, problems)
        text = read_str(value, problems)
        return BAD if isinstance(text, Bad) else by_value.get(text, BAD)

    return check


def tuple_of(check: Check) -> Check:
    """A tuple whose every item ``check`` accepts (kept as it is when nothing changed)."""

    def read(value: object, problems: Problems) -> object:
        items = exact_tuple(value)
        if isinstance(items, Bad):
            return BAD
        out: list[object] | None = None
        for position, item in enumerate(items):
            new = check(item, problems)
            if new is BAD:
                return BAD
            if out is not None:
                out.append(new)
            elif new is not item:
                out = [*items[:position], new]
        return items if out is None else tuple(out)

    return read


def read_pair(value: object, problems: Problems) -> tuple[str, str] | Bad:
    """One ``(name, version)`` entry of a version list: two non-empty strings, or BAD."""
    items = exact_tuple(value)
    if isinstance(items, Bad) or len(items) != 2:
        return BAD
    name, version = read_text(items[0], problems), read_text(items[1], problems)
    if isinstance(name, str) and isinstance(version, str):
        return name, version
    return BAD


def loose_items(value: object) -> tuple[object, ...]:
    """The items of a tuple or list (read through the builtin's own methods), else none:
    what a malformed version list holds, to judge each entry all the same."""
    if issubclass(type(value), tuple):
        return tuple.__getitem__(cast(tuple[object, ...], value), slice(None))
    if issubclass(type(value), list):
        return tuple(list.__iter__(cast(list[object], value)))
    return ()


def raw_pair(value: object, problems: Problems) -> tuple[str, str] | None:
    """A version-list entry that is a pair of strings of any kind (in a tuple or a list),
    for judging its value against the manifest even when it is malformed (sealing-policy
    §9, §11); else None."""
    items = loose_items(value)
    if len(items) != 2:
        return None
    name, version = version_text(items[0], problems), version_text(items[1], problems)
    if name is None or version is None:
        return None
    return name, version


def read_str_pair(value: object, problems: Problems) -> tuple[str, str] | Bad:
    """A ``(key, value)`` pair of strings (any strings, the empty one included), or BAD."""
    items = exact_tuple(value)
    if isinstance(items, Bad) or len(items) != 2:
        return BAD
    key, text = read_str(items[0], problems), read_str(items[1], problems)
    if isinstance(key, Bad) or isinstance(text, Bad):
        return BAD
    return key, text
