"""Frame facts: only real mappings and sequences are read as such, and their size is bounded.

Facts are copied before they are hashed. A value that merely reports a mapping or a list as
its ``__class__`` is not one. One list may sit in many places, or in itself many times over,
so that the facts written out as JSON would never end: every container and scalar counts,
at each place it sits, against :data:`MAX_FACTS_VALUES`, on every read path.
"""

from __future__ import annotations

import dataclasses as dc
import subprocess
import sys
import textwrap
from types import MappingProxyType
from typing import Any

import pytest
from test_properties import SpoofsTuple

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import build_episode, refresh_ids
from sealed_trace.identity import IdentityError, canonical_json
from sealed_trace.upstream.frame import MAX_FACTS_VALUES, thaw_json


class SpoofsDict:
    """``isinstance(x, dict)`` is True through a spoofed ``__class__``."""

    @property
    def __class__(self) -> type:  # type: ignore[override]
        return dict

    def items(self) -> Any:
        return iter(())


class DictSub(dict):  # type: ignore[type-arg]
    """A real mapping of another class: the general path reads it."""


def _with_facts(facts: object) -> Any:
    episode = build_episode("sealed_candidate_replay_closed")
    frame = dc.replace(episode.problem_frame, facts=facts)
    changed = dc.replace(episode, problem_frame=frame)
    try:
        return refresh_ids(changed)  # a lawful frame digest where the facts can be hashed
    except IdentityError:
        return changed


@pytest.mark.parametrize("spoof", [SpoofsTuple, SpoofsDict], ids=["tuple", "dict"])
@pytest.mark.parametrize("nested", [False, True], ids=["top", "nested"])
def test_a_value_that_only_reports_a_container_class_is_not_one(spoof, nested):
    value = spoof()
    facts: object = {"x": value} if nested else value
    outcome = seal(_with_facts(facts))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_problem_frame" in outcome.reason_codes
    with pytest.raises(IdentityError):
        canonical_json(thaw_json(facts))


def _flat(count: int, mapping: type = dict) -> object:
    """Facts of exactly ``count`` values: the mapping, one list, and its ints."""
    return mapping({"n": list(range(count - 2))})


@pytest.mark.parametrize("mapping", [dict, DictSub], ids=["plain", "general"])
def test_facts_of_exactly_the_limit_seal_and_one_more_value_is_refused(mapping):
    at_limit = seal(_with_facts(_flat(MAX_FACTS_VALUES, mapping)))
    assert isinstance(at_limit, SealedPracticeTrace)
    over = seal(_with_facts(_flat(MAX_FACTS_VALUES + 1, mapping)))
    assert isinstance(over, PracticeTraceRefusal)
    assert "malformed_problem_frame" in over.reason_codes


def test_a_list_shared_at_every_place_counts_at_each():
    shared = list(range(1000))
    facts = {"rows": [shared] * (MAX_FACTS_VALUES // 1000)}  # 100 000 ints, one list object
    outcome = seal(_with_facts(facts))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_problem_frame" in outcome.reason_codes
    with pytest.raises(IdentityError) as caught:
        thaw_json(facts)
    assert caught.value.code == "payload_too_large"
    assert isinstance(MappingProxyType(thaw_json({"ok": [shared] * 10})), MappingProxyType)


_EXPLODING = """
import dataclasses as dc
from sealed_trace import seal
from sealed_trace.builder import build_episode

episode = build_episode("sealed_candidate_replay_closed")
for shape in ("pairs", "wide"):
    node = 0
    if shape == "pairs":  # 2**40 leaves, 41 objects, past the fast path's depth
        for _ in range(40):
            node = [node, node]
    else:  # 10**15 leaves within the fast path's depth
        for _ in range(15):
            node = [node] * 10
    frame = dc.replace(episode.problem_frame, facts={"x": node})
    outcome = seal(dc.replace(episode, problem_frame=frame))
    print(shape, outcome.reason_codes)
"""


def test_facts_that_would_expand_without_end_are_refused_promptly():
    # In a child process with a generous timeout, so that a regression fails, not hangs.
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_EXPLODING)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    assert all("malformed_problem_frame" in line for line in lines)


def test_the_limit_is_the_one_the_reason_code_table_gives():
    from sealed_trace.reasons import REASON_CODES

    written = f"{MAX_FACTS_VALUES:,}".replace(",", " ")
    assert written in REASON_CODES["malformed_problem_frame"][1]
