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
from itertools import repeat
from types import MappingProxyType
from typing import Final, cast

from sealed_trace._reader._values import BAD, Problems
from sealed_trace.identity import MAX_ABS_INT, MAX_DEPTH
from sealed_trace.upstream.frame import MAX_FACTS_VALUES

__all__ = ["read_facts"]

#: Container levels the facts may hold, themselves included: the frame digest payload wraps
#: them in one object more, and an identity payload nests at most MAX_DEPTH containers.
FACTS_DEPTH: Final = MAX_DEPTH - 1


class _Unreadable(Exception):
    """The facts break a limit or a rule: the read stops here."""


_TYPE_MRO: Final = type.__dict__["__mro__"]


def is_mapping(kind: type) -> bool:
    """Whether ``kind`` is a mapping the facts may be: a dict (or subclass), a mapping proxy,
    or a class that inherits ``collections.abc.Mapping``. Told from the class's own MRO, read
    through ``type`` itself: no ABC cache is consulted or written and no host metaclass code
    runs (sealing-policy §11), so an unhashable or hostile host class reads like any other."""
    if issubclass(kind, dict) or kind is MappingProxyType:
        return True
    return any(base is Mapping for base in _TYPE_MRO.__get__(kind, type))


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
    if kind is dict:  # the common case first: an exact dict's items are its own
        return {}, iter(cast(dict[object, object], value).items())
    if kind is list:
        return [], zip(repeat(None), cast(list[object], value))
    if issubclass(kind, dict):
        return {}, dict.items(cast(dict[object, object], value)).__iter__()
    if is_mapping(kind):
        return {}, _host_items(cast(Mapping[object, object], value))
    if issubclass(kind, list):
        return [], zip(repeat(None), list.__iter__(cast(list[object], value)))
    return [], zip(repeat(None), tuple.__iter__(cast(tuple[object, ...], value)))


def _check_key(copy: dict[str, object], key: object) -> str:
    if type(key) is not str:
        raise _Unreadable("a key that is not a string")
    if not key.isascii():
        key.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError
    if key in copy:
        raise _Unreadable("a mapping gave one key twice")
    return key


def _put(copy: dict[str, object] | list[object], key: object, item: object) -> None:
    """Add ``item`` to a copy (under ``key`` for a mapping)."""
    if isinstance(copy, list):  # the copy's own list: no host code runs
        copy.append(item)
    else:
        copy[_check_key(copy, key)] = item


class _Frame:
    """One container being copied: its items, its copy, its id, the values allowed before
    it was met, and the container levels it holds (itself included)."""

    __slots__ = ("copy", "height", "items", "marker", "start")

    def __init__(self, value: object, start: int) -> None:
        self.copy, self.items = _open(value)
        self.marker = id(value)
        self.start = start
        self.height = 1


class _Walk:
    """One copy of the facts: the containers open (a stack), the values still allowed, and
    each container done, by id, with its copy, value count and levels (sealing-policy §9)."""

    def __init__(self, root: object) -> None:
        self.left = MAX_FACTS_VALUES - 1
        self.stack = [_Frame(root, self.left + 1)]
        self.active = {id(root)}
        self.done: dict[int, tuple[object, int, int]] = {}
        self.held = [root]  # every container walked stays alive, so no id is reused

    def fill(self, frame: _Frame) -> bool:
        """Copy the frame's scalars up to its next container, which is entered; False when
        the frame has no items left."""
        left, copy = self.left, frame.copy
        for key, item in frame.items:
            left -= 1
            if left < 0:
                raise _Unreadable(f"more than {MAX_FACTS_VALUES} values")
            kind = type(item)
            if type(item) is str:
                if not item.isascii():
                    item.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError
            elif type(item) is int:
                if not -MAX_ABS_INT <= item < MAX_ABS_INT:
                    raise _Unreadable("an integer beyond the signed 64-bit range")
            elif item is not None and kind is not bool:
                if not (issubclass(kind, (list, tuple)) or is_mapping(kind)):
                    raise _Unreadable("not a JSON value")
                self.left = left
                item = self.enter(item)
                _put(copy, key, item)
                return True
            _put(copy, key, item)
        self.left = left
        return False

    def enter(self, item: object) -> object:
        """A container met: its earlier copy (counted and measured again), or a new copy
        pushed to be filled."""
        marker = id(item)
        if marker in self.active:
            raise _Unreadable("a container inside itself")
        copy, values, levels = self.done.get(marker, (None, 1, 1))
        if len(self.stack) + levels > FACTS_DEPTH:
            raise _Unreadable(f"nested deeper than {FACTS_DEPTH} levels")
        if copy is not None:
            self.left -= values - 1
            if self.left < 0:
                raise _Unreadable(f"more than {MAX_FACTS_VALUES} values")
            self.stack[-1].height = max(self.stack[-1].height, levels + 1)
            return copy
        self.held.append(item)
        frame = _Frame(item, self.left + 1)
        self.stack.append(frame)
        self.active.add(marker)
        return frame.copy

    def leave(self) -> None:
        """The top container is copied whole."""
        frame = self.stack.pop()
        self.active.discard(frame.marker)
        self.done[frame.marker] = (frame.copy, frame.start - self.left, frame.height)
        if self.stack:
            self.stack[-1].height = max(self.stack[-1].height, frame.height + 1)


def _copy(root: object) -> dict[str, object]:
    """The facts copied (see the module docstring); raises on anything they may not hold.

    A container met again (shared, not inside itself) is read once: its copy is reused, its
    values are counted again and its levels measured again where it stands, as the
    canonical text writes it again.
    """
    walk = _Walk(root)
    facts = walk.stack[0].copy
    while walk.stack:
        if not walk.fill(walk.stack[-1]):
            walk.leave()
    return cast(dict[str, object], facts)


def read_facts(value: object, problems: Problems) -> object:
    """``value`` as read-only facts (a mapping proxy over the copy), or BAD.

    An ``Exception`` that host code raises while the facts are read makes them BAD; a
    ``RecursionError`` (a caller with too little stack) and control flow propagate
    (sealing-policy §11).
    """
    try:
        if not is_mapping(type(value)):
            return BAD
        return MappingProxyType(_copy(value))
    except RecursionError:
        raise  # the caller's stack, not the facts: the seal refuses as an internal fault
    except Exception:
        return BAD
