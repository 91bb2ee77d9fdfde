"""Reading a frame's ``facts`` into a frozen copy, bounded whatever the host claims
(sealing-policy §2, §9 resource limits, §11 bounded reading).

One walk with an explicit stack, so reading needs the same few frames at any nesting: every
Mapping becomes a dict, every list or tuple a list, and each scalar must already be an exact
JSON value (``str`` that encodes as UTF-8, ``int`` in the signed 64-bit range, ``bool``,
``None``). Values are counted as the canonical text will write them (a container met in
several places counts at each); past :data:`~sealed_trace.upstream.frame.MAX_FACTS_VALUES`
values, or 63 levels below the facts (the frame digest payload adds the 64th), the read stops
and the facts are malformed. A host Mapping is read item by item against its own ``len()``:
items that end early or go on past it make the facts unreadable, never fewer or more facts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Final, cast

from sealed_trace._reader._values import BAD, Problems
from sealed_trace.identity import MAX_ABS_INT, MAX_DEPTH
from sealed_trace.upstream.frame import MAX_FACTS_VALUES

__all__ = ["read_facts"]

#: Container levels the facts may hold, themselves included: the frame digest payload wraps
#: them in one object more, and an identity payload nests at most MAX_DEPTH containers.
FACTS_DEPTH: Final = MAX_DEPTH - 1
_END: Final = object()
_CONTAINER: Final = object()


class _Unreadable(Exception):
    """The facts break a limit or a rule: the read stops here."""


def _scalar(value: object) -> object:
    """An exact JSON scalar as it is, :data:`_CONTAINER` for a container; raises otherwise."""
    kind = type(value)
    if kind is str:
        text = cast(str, value)
        if not text.isascii():
            text.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError
        return value
    if kind is int:
        if not -MAX_ABS_INT <= cast(int, value) < MAX_ABS_INT:
            raise _Unreadable("an integer beyond the signed 64-bit range")
        return value
    if value is None or kind is bool:
        return value
    if issubclass(kind, (Mapping, list, tuple)):
        return _CONTAINER
    raise _Unreadable("not a JSON value")


def _host_items(value: Mapping[object, object]) -> Iterator[tuple[object, object]]:
    """A host Mapping's items, held to the length it reports."""
    expected = len(value)
    count = 0
    for pair in value.items():
        count += 1
        if count > expected:
            raise _Unreadable("a mapping gave more items than its length")
        yield pair
    if count != expected:
        raise _Unreadable("a mapping gave fewer items than its length")


def _open(
    value: object,
) -> tuple[dict[str, object] | list[object], Iterator[tuple[object, object]]]:
    """A new empty copy of the container ``value`` and an iterator of its (key, item) pairs
    (key None for list and tuple items), read through the builtin's own methods."""
    kind = type(value)
    if issubclass(kind, dict):
        return {}, dict.items(cast(dict[object, object], value)).__iter__()
    if issubclass(kind, Mapping):
        return {}, _host_items(cast(Mapping[object, object], value))
    if issubclass(kind, list):
        return [], ((None, item) for item in list.__iter__(cast(list[object], value)))
    return [], ((None, item) for item in tuple.__iter__(cast(tuple[object, ...], value)))


def _put(out: dict[str, object] | list[object], key: object, item: object) -> None:
    if type(out) is list:
        out.append(item)
        return
    if type(key) is not str:
        raise _Unreadable("a key that is not a string")
    _scalar(key)
    mapping = cast(dict[str, object], out)
    if key in mapping:
        raise _Unreadable("a mapping gave one key twice")
    mapping[key] = item


class _Frame:
    """One container being copied: its items, its copy, its id, the values allowed before
    it was met, and the container levels it holds (itself included)."""

    __slots__ = ("copy", "height", "items", "marker", "start")

    def __init__(self, value: object, start: int) -> None:
        self.copy, self.items = _open(value)
        self.marker = id(value)
        self.start = start
        self.height = 1


def _copy(root: object) -> dict[str, object]:
    """The facts copied (see the module docstring); raises on anything they may not hold.

    A container met again (shared, not inside itself) is read once: its copy is reused, its
    values are counted again and its levels measured again where it stands, as the
    canonical text writes it again.
    """
    left = MAX_FACTS_VALUES - 1
    stack = [_Frame(root, left + 1)]
    facts = stack[0].copy
    active = {id(root)}
    done: dict[int, tuple[object, int, int]] = {}  # id -> (copy, values, levels)
    held = [root]  # every container walked stays alive, so no id is reused meanwhile
    while stack:
        frame = stack[-1]
        pair = next(frame.items, _END)
        if pair is _END:
            stack.pop()
            active.discard(frame.marker)
            done[frame.marker] = (frame.copy, frame.start - left, frame.height)
            if stack:
                stack[-1].height = max(stack[-1].height, frame.height + 1)
            continue
        key, item = cast(tuple[object, object], pair)
        left -= 1
        copy = _scalar(item)
        if copy is _CONTAINER:
            copy, left = _enter(item, stack, active, done, held, left)
        if left < 0:
            raise _Unreadable(f"more than {MAX_FACTS_VALUES} values")
        _put(frame.copy, key, copy)
    return cast(dict[str, object], facts)


def _enter(
    item: object,
    stack: list[_Frame],
    active: set[int],
    done: dict[int, tuple[object, int, int]],
    held: list[object],
    left: int,
) -> tuple[object, int]:
    """A container met: its earlier copy (counted and measured again), or a new copy pushed
    to be filled. Returns the copy and the values still allowed."""
    marker = id(item)
    if marker in active:
        raise _Unreadable("a container inside itself")
    copy, values, levels = done.get(marker, (None, 1, 1))
    if len(stack) + levels > FACTS_DEPTH:
        raise _Unreadable(f"nested deeper than {FACTS_DEPTH} levels")
    if copy is not None:
        stack[-1].height = max(stack[-1].height, levels + 1)
        return copy, left - (values - 1)
    held.append(item)
    frame = _Frame(item, left + 1)
    stack.append(frame)
    active.add(marker)
    return frame.copy, left


def read_facts(value: object, problems: Problems) -> object:
    """``value`` as read-only facts (a mapping proxy over the copy), or BAD.

    An ``Exception`` that host code raises while the facts are read makes them BAD; control
    flow propagates (sealing-policy §11).
    """
    if not issubclass(type(value), Mapping):
        return BAD
    try:
        return MappingProxyType(_copy(value))
    except Exception:
        return BAD
