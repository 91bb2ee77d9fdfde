"""The sealer's own footprint (sealing-policy §11): a constant stack need, and no interpreter
state read or written.

A seal needs at most :data:`STACK_NEED` free frames below its caller, whatever the episode
(the deepest legal facts included): 80 on Python 3.10 and 3.11, whose C JSON encoder counts
one recursion level per container, and 20 on 3.12 and later. A caller with less room gets the
same outcome, a ``sealer_internal_fault`` refusal, or Python's own ``RecursionError``, and the
process is left exactly as it was.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable

import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import EpisodeSpec, build_episode
from sealed_trace.episode_json import encode_episode, seal_document

#: Free frames a seal needs below its caller (the README states these numbers).
STACK_NEED = 80 if sys.version_info < (3, 12) else 20


def _stack_depth() -> int:
    frame = sys._getframe()
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back  # type: ignore[assignment]
    return depth


def _with_room(room: int, call: Callable[[object], object], argument: object) -> object:
    """``call(argument)`` made by a frame with ``room`` frames left below the limit."""
    return _down(sys.getrecursionlimit() - room - _stack_depth(), call, argument)


def _down(frames: int, call: Callable[[object], object], argument: object) -> object:
    if frames > 0:
        return _down(frames - 1, call, argument)
    return call(argument)


def _nested(levels: int) -> dict[str, object]:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return {"deep": value}


#: The deepest legal facts: 63 container levels with the facts themselves.
DEEPEST = build_episode(
    "sealed_contract_closed_proof_refused", attempts=3, spec=EpisodeSpec(facts=_nested(61))
)
FLAT = build_episode("sealed_contract_closed_proof_refused", attempts=3)


@pytest.mark.parametrize("episode", [FLAT, DEEPEST], ids=["flat", "deepest-facts"])
@pytest.mark.parametrize("extra", [0, 40, 300])
def test_a_seal_with_the_stated_room_gives_the_same_outcome(episode: object, extra: int) -> None:
    shallow = seal(episode)
    assert isinstance(shallow, SealedPracticeTrace)
    limit = sys.getrecursionlimit()
    assert _with_room(STACK_NEED + extra, seal, episode) == shallow
    document = encode_episode(DEEPEST if episode is DEEPEST else FLAT)
    assert _with_room(STACK_NEED + extra, seal_document, document) == seal_document(document)
    assert sys.getrecursionlimit() == limit


def test_with_less_room_a_seal_refuses_or_raises_and_changes_nothing() -> None:
    shallow = seal(DEEPEST)
    limit, threads = sys.getrecursionlimit(), threading.active_count()
    for room in range(1, STACK_NEED):
        try:
            outcome = _with_room(room, seal, DEEPEST)
        except RecursionError:
            continue
        if outcome != shallow:
            assert isinstance(outcome, PracticeTraceRefusal), room
            assert outcome.reason_codes == ("sealer_internal_fault",), room
    assert sys.getrecursionlimit() == limit
    assert threading.active_count() == threads
    assert seal(DEEPEST) == shallow


def test_the_sealer_never_sets_the_recursion_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(limit: int) -> None:
        raise AssertionError(f"the sealer set the recursion limit to {limit}")

    monkeypatch.setattr(sys, "setrecursionlimit", forbidden)
    assert isinstance(_with_room(STACK_NEED, seal, DEEPEST), SealedPracticeTrace)
    outcomes: list[object] = []
    workers = [threading.Thread(target=lambda: outcomes.append(seal(DEEPEST))) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(outcomes) == 4
    assert all(outcome == outcomes[0] for outcome in outcomes)


def test_a_deep_document_refuses_before_any_decoder_runs_under_a_low_limit() -> None:
    """A 100 000-deep document is counted on its text: no decoder recursion, no crash, the
    same refusal under any recursion limit."""
    script = (
        "import sys\n"
        "from sealed_trace.episode_json import seal_document\n"
        "sys.setrecursionlimit(60)\n"
        "outcome = seal_document(b'[' * 100000 + b']' * 100000)\n"
        "print(outcome.reason_codes)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "('malformed_episode_document',)"
