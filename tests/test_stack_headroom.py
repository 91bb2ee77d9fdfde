"""A seal's outcome does not depend on how deep in the stack its caller sits.

Near the recursion limit a valid episode used to refuse as ``sealer_internal_fault``, and a
few frames closer ``seal`` raised ``RecursionError``. The sealer now makes room for itself
and puts the limit back afterwards.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from sealed_trace import SealedPracticeTrace, seal
from sealed_trace.builder import EpisodeSpec, build_episode
from sealed_trace.episode_json import seal_document


def _stack_depth() -> int:
    frame = sys._getframe()
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back  # type: ignore[assignment]
    return depth


def _called_at(depth: int, call: Callable[[object], object], argument: object) -> object:
    """``call(argument)`` made by a frame that sits ``depth`` frames deep."""
    return _down(depth - _stack_depth(), call, argument)


def _down(frames: int, call: Callable[[object], object], argument: object) -> object:
    if frames > 0:
        return _down(frames - 1, call, argument)
    return call(argument)


def _nested(levels: int) -> dict[str, object]:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return {"deep": value}


@pytest.mark.parametrize("facts_depth", [None, 62])
@pytest.mark.parametrize("margin", [30, 60, 150, 300])
def test_seal_near_the_recursion_limit_gives_the_same_trace(
    facts_depth: int | None, margin: int
) -> None:
    spec = EpisodeSpec() if facts_depth is None else EpisodeSpec(facts=_nested(facts_depth))
    episode = build_episode("sealed_contract_closed_proof_refused", attempts=3, spec=spec)
    shallow = seal(episode)
    assert isinstance(shallow, SealedPracticeTrace)
    limit = sys.getrecursionlimit()
    deep = _called_at(limit - margin, seal, episode)
    assert deep == shallow
    assert sys.getrecursionlimit() == limit


def test_a_refusal_near_the_limit_is_the_same_refusal() -> None:
    deep_array = b"[" * 1000 + b"]" * 1000
    document = b'{"format": "sealed-trace.episode.v1", "episode": ' + deep_array + b"}"
    shallow = seal_document(document)
    deep = _called_at(sys.getrecursionlimit() - 30, seal_document, document)
    assert deep == shallow
    assert shallow.reason_codes  # type: ignore[union-attr]


def test_a_limit_changed_during_the_seal_is_left_alone() -> None:
    """The sealer restores the limit only when it is still the one it set."""
    limit = sys.getrecursionlimit()
    episode = build_episode("sealed_contract_closed_proof_refused", attempts=1)

    class Span:
        """A host span whose text read changes the recursion limit, as another thread might."""

        def __init__(self, span: object) -> None:
            self._span = span

        def __getattr__(self, name: str) -> object:
            if name == "text":
                sys.setrecursionlimit(limit + 1234)
            return getattr(self._span, name)

    import dataclasses

    frame = episode.contract_assessment
    hostile = dataclasses.replace(
        episode,
        contract_assessment=dataclasses.replace(
            frame, evidence_spans=tuple(Span(s) for s in frame.evidence_spans)
        ),
    )
    try:
        outcome = _called_at(limit - 60, seal, hostile)
        assert isinstance(outcome, SealedPracticeTrace)
        assert sys.getrecursionlimit() == limit + 1234
    finally:
        sys.setrecursionlimit(limit)


_AT_THE_EDGE = """
import sys
from sealed_trace import seal
from sealed_trace.builder import EpisodeSpec, build_episode

def stack_depth():
    frame, depth = sys._getframe(), 0
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth

def down(frames, episode):
    return down(frames - 1, episode) if frames > 0 else seal(episode)

value = 1
for _ in range(62):
    value = [value]
for facts in ({"deep": value}, None):
    spec = EpisodeSpec() if facts is None else EpisodeSpec(facts=facts)
    episode = build_episode("sealed_contract_closed_proof_refused", attempts=3, spec=spec)
    shallow = seal(episode)
    limit = sys.getrecursionlimit()
    for margin in (5, 6, 10, 20):
        deep = down(limit - margin - stack_depth(), episode)
        print(margin, deep == shallow, sys.getrecursionlimit() == limit)
"""


def test_seal_at_the_very_edge_of_the_stack_in_a_plain_interpreter() -> None:
    """Outside pytest (whose own calls count toward the limit unseen on 3.10 and 3.11), a
    frame five frames short of the limit still gets the same trace, and the limit back."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", _AT_THE_EDGE], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")[:-1]
    assert lines == [f"{margin} True True" for margin in (5, 6, 10, 20)] * 2


class _Paused:
    """A host problem frame whose first attribute read runs ``on_first_read`` (once)."""

    def __init__(self, record: object, on_first_read: Callable[[], object]) -> None:
        self._record = record
        self._on_first_read: Callable[[], object] | None = on_first_read

    def __getattr__(self, name: str) -> object:
        hook, self._on_first_read = self._on_first_read, None
        if hook is not None:
            hook()
        return getattr(self._record, name)


def test_seals_in_threads_share_the_raised_limit_and_put_it_back_last() -> None:
    """Thread A raises the limit from deep in its stack; thread B, less deep, enters while A's
    limit is in force; A ends first. B must keep its room until it ends (its outcome is the
    same trace), and the limit is back where it was once both are done."""
    import dataclasses
    import threading

    episode = build_episode(
        "sealed_candidate_replay_closed", attempts=2, spec=EpisodeSpec(facts=_nested(62))
    )
    expected = seal(episode)
    limit = sys.getrecursionlimit()
    a_inside, b_inside, a_done = threading.Event(), threading.Event(), threading.Event()
    paused_a = dataclasses.replace(
        episode,
        problem_frame=_Paused(episode.problem_frame, lambda: (a_inside.set(), b_inside.wait(30))),
    )
    paused_b = dataclasses.replace(
        episode,
        problem_frame=_Paused(episode.problem_frame, lambda: (b_inside.set(), a_done.wait(30))),
    )
    outcomes: dict[str, object] = {}

    def thread_a() -> None:
        outcomes["A"] = _called_at(limit - 10, seal, paused_a)
        a_done.set()

    def thread_b() -> None:
        a_inside.wait(30)
        outcomes["B"] = _called_at(limit - 30, seal, paused_b)

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert outcomes == {"A": expected, "B": expected}
    assert sys.getrecursionlimit() == limit


def test_seals_nested_without_end_refuse_instead_of_overflowing_the_interpreter() -> None:
    """A host read that seals again, without end: each nested seal gets no more room than
    the first, so the nesting ends in a refusal inside, and the outer seal still returns."""
    import dataclasses

    episode = build_episode("sealed_contract_closed_proof_refused", attempts=1)
    limit = sys.getrecursionlimit()
    inner: list[object] = []

    class Frame:
        def __getattr__(self, name: str) -> object:
            if name == "frame_digest":
                inner.append(seal(hostile))
            return getattr(episode.problem_frame, name)

    hostile = dataclasses.replace(episode, problem_frame=Frame())
    outcome = seal(hostile)
    assert isinstance(outcome, (SealedPracticeTrace, type(inner[0])))
    assert inner
    assert sys.getrecursionlimit() == limit
    assert sys.getrecursionlimit() < limit + 1000
