"""Sealing cost against its floor, side by side in one run.

Run: ``python benchmarks/bench_seal.py [--repeat N]``

For episodes of 1, 100, 1 000 and 10 000 candidate attempts (each with one replay record), it
prints the best time per ``seal(episode)`` and the best time of the *floor*: canonical JSON
encoding + SHA-256 of the very payloads the seal must recompute, pre-built (captured from one
seal and decoded back into Python objects). Both are measured alternately in the same process,
so machine noise hits both alike; the median ratio is printed beside the best-of ratio. The
floor's payloads are kept out of the cyclic garbage collector's walks (``gc.freeze``), since
they exist only for the benchmark; the episode is not.

Every episode takes the one read path (each attribute read once and copied), whatever its
types. The last two columns seal the same episodes rebuilt of a host project's own frozen
dataclasses (same names and fields), against the floor timed again alongside them (in rounds
of their own, with the reference episode gone).

Memory: at 10 000 attempts, the peak the seal allocates above the episode it reads (traced by
``tracemalloc``, in a pass of its own after the timings), against the memory the episode
itself holds.

Bound episodes (ADR-0233; sealing-policy §10): the same rows again for episodes of 1, 100,
1 000 and 10 000 *bound* attempts (one operator result, reconstruction and binding each, next
to a run with no attempts, one replay record each), sealed under the ``adr-0233`` layout; their
floor hashes the payloads such a seal recomputes, the bound records' ids (candidate digest,
attempt id, operator result id, attempt ref, binding id) included.

Goals (issue 10): ratio <= 3 at 1 attempt and <= 2 at 100, 1 000 and 10 000, reference types
and host records alike; linear growth (10x the attempts costs at most 11x the time); peak
memory at 10 000 attempts <= 3x the episode's. Bound episodes: a ratio no worse than
3.01 / 1.96 / 1.93 / 2.30 at 1 / 100 / 1 000 / 10 000 bound attempts, the same growth and
memory goals. This is a benchmark, not a test: it reports, it does not assert.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import hashlib
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sealed_trace.identity as identity_module
from sealed_trace import SealedPracticeTrace, seal
from sealed_trace.builder import build_episode

_HOST_RECORDS = (
    "SourceSpan",
    "ProblemFrameProjection",
    "ContractAssessmentProjection",
    "ContractResidual",
    "SearchGateDecision",
    "ComputeBudgetDecision",
    "BudgetCharge",
    "BudgetConsumed",
    "CandidateAttempt",
    "GeometricSearchRun",
    "SearchRunRefusal",
    "ProofReplayRef",
    "ReplayAdapterResult",
    "ReplayAdapterRefusal",
    "CandidateReconstruction",
    "CandidateOperatorResult",
    "CandidateAttemptRunBinding",
    "PracticeEpisode",
)


def host_types() -> dict[str, type]:
    """Frozen dataclasses of a host project: the reference names and fields, other classes."""
    import sealed_trace.builder as builder_module

    return {
        name: dataclasses.make_dataclass(
            "Host" + name,
            [(f.name, object) for f in dataclasses.fields(getattr(builder_module, name))],
            frozen=True,
        )
        for name in _HOST_RECORDS
    }


SIZES = (1, 100, 1_000, 10_000)
RATIO_GOAL = 2.0
#: At one attempt the fixed cost of a seal weighs more: its own goal.
RATIO_GOAL_ONE = 3.0
#: At most this much more time per attempt-count factor: 10x the attempts, at most 11x.
GROWTH_GOAL = 1.1
#: Peak memory of a seal at the largest size, at most this many times the episode's own.
MEMORY_GOAL = 3.0
#: Bound episodes: the ratio to the floor at each size, at most this.
BOUND_RATIO_GOALS = {1: 3.01, 100: 1.96, 1_000: 1.93, 10_000: 2.30}
DISPOSITION = "sealed_contract_closed_proof_refused"


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of episode measured: its label, layout, and ratio goal per size."""

    label: str
    bound: bool
    layout: str
    ratio_goals: dict[int, float]

    def build(self, size: int, record_types: dict[str, type] | None = None) -> object:
        """An episode of ``size`` attempts (bound attempts when ``bound``)."""
        return build_episode(
            DISPOSITION, attempts=size, record_types=record_types, bound=self.bound
        )

    def seal(self, episode: object) -> object:
        return seal(episode, layout=self.layout)


KINDS = (
    Kind("episodes (adr-0230)", False, "adr-0230", {n: RATIO_GOAL for n in SIZES} | {1: 3.0}),
    Kind("bound episodes (adr-0233)", True, "adr-0233", BOUND_RATIO_GOALS),
)


def memory(kind: Kind, size: int, record_types: dict[str, type] | None) -> tuple[int, int]:
    """``(bytes the episode holds, peak bytes the seal allocates above it)``."""
    gc.collect()
    tracemalloc.start()
    try:
        episode = kind.build(size, record_types)
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        kind.seal(episode)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return held, peak - held


def captured_payloads(kind: Kind, episode: object) -> list[object]:
    """Seal once while recording every canonical string hashed; return them decoded."""
    seen: list[bytes] = []
    real = identity_module.hashlib  # type: ignore[attr-defined]

    def sha256(data: bytes) -> object:
        seen.append(data)
        return real.sha256(data)

    identity_module.hashlib = SimpleNamespace(sha256=sha256)  # type: ignore[attr-defined,assignment]
    try:
        outcome = kind.seal(episode)
    finally:
        identity_module.hashlib = real  # type: ignore[attr-defined]
    if not isinstance(outcome, SealedPracticeTrace):
        raise SystemExit(f"benchmark episode did not seal: {outcome}")
    return [json.loads(data) for data in seen]


_ENCODE = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), check_circular=False
).encode


def floor(payloads: list[object]) -> None:
    """Canonical encoding + SHA-256 of pre-built payloads: the least a seal must do.

    It uses one pre-built encoder with the ADR §12 settings, as the sealer does.
    """
    sha256 = hashlib.sha256
    for payload in payloads:
        sha256(_ENCODE(payload).encode("utf-8")).hexdigest()


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(kind: Kind, repeat: int) -> tuple[list[str], list[str], list[str]]:
    """Print ``kind``'s rows; return the goals it missed: (ratio, growth, memory)."""
    print(f"{kind.label}:")
    print(
        f"{'attempts':>9} {'rounds':>6} {'seal ms':>10} {'floor ms':>10} {'ratio':>7} "
        f"{'(median)':>9} {'growth':>8} {'(median)':>9} {'host ms':>9} {'ratio':>6}"
    )
    previous: tuple[int, float, float] | None = None
    over_ratio: list[str] = []
    over_growth: list[str] = []
    hosts = host_types()
    for size in SIZES:
        payloads = captured_payloads(kind, kind.build(size))
        # The floor's pre-built payloads exist only for the floor: frozen, the cyclic
        # collector (which runs during sealing, not during encoding) does not walk them. The
        # episode is built after, so the seal still pays for collecting around its own input
        # as it would in a host process.
        gc.collect()
        gc.freeze()
        episode = kind.build(size)
        expected = kind.seal(episode)
        rounds = repeat or max(9, min(41, 20_000 // size))
        seal_times, floor_times, host_times, host_floor_times = [], [], [], []
        for _ in range(rounds):
            seal_times.append(timed(partial(kind.seal, episode)))
            floor_times.append(timed(partial(floor, payloads)))
        del episode
        # The host episode alone in memory, against the floor again (its own rounds).
        host = kind.build(size, hosts)
        if kind.seal(host) != expected:
            raise SystemExit("the host episode does not seal to the same trace")
        for _ in range(rounds):
            host_times.append(timed(partial(kind.seal, host)))
            host_floor_times.append(timed(partial(floor, payloads)))
        gc.unfreeze()
        del payloads, host
        s, f = min(seal_times), min(floor_times)
        s_median = statistics.median(seal_times)
        median = s_median / statistics.median(floor_times)
        if previous:
            step, best_growth = size / previous[0], s / previous[1]
            growth = f"{best_growth:7.2f}x {s_median / previous[2]:8.2f}x"
            if best_growth > GROWTH_GOAL * step:
                over_growth.append(f"{previous[0]} to {size}: {best_growth:.2f}x")
        else:
            growth = f"{'-':>8} {'-':>9}"
        goal = kind.ratio_goals[size]
        host_ratio = min(host_times) / min(host_floor_times)
        for label, ratio in (("reference", s / f), ("host", host_ratio)):
            if ratio > goal:
                over_ratio.append(f"{size} ({label}): {ratio:.2f}")
        print(
            f"{size:>9} {rounds:>6} {s * 1e3:>10.3f} {f * 1e3:>10.3f} {s / f:>7.2f} "
            f"{median:>9.2f} {growth} {min(host_times) * 1e3:>9.3f} {host_ratio:>6.2f}"
        )
        previous = (size, s, s_median)
    over_memory: list[str] = []
    for label, types in (("reference", None), ("host", hosts)):
        held, peak = memory(kind, SIZES[-1], types)
        print(
            f"memory at {SIZES[-1]} attempts ({label}): episode {held / 2**20:.1f} MiB, seal "
            f"peak {peak / 2**20:.1f} MiB above it, {peak / held:.2f}x"
        )
        if peak > MEMORY_GOAL * held:
            over_memory.append(f"{label}: {peak / held:.2f}x")
    return over_ratio, over_growth, over_memory


def _verdict(missed: list[str], separator: str = "; ") -> str:
    return "met" if not missed else "NOT MET at " + separator.join(missed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=0, help="timed rounds per size (default: scaled to the size)"
    )
    args = parser.parse_args()
    print(
        "best of the rounds shown (median in brackets); seal and floor alternate in one process;"
        " growth is from the size above"
    )
    missed = {kind.label: measure(kind, args.repeat) for kind in KINDS}
    for kind in KINDS:
        over_ratio, over_growth, over_memory = missed[kind.label]
        ratios = " / ".join(f"{kind.ratio_goals[n]:g}" for n in SIZES)
        sizes = " / ".join(f"{n:,}".replace(",", " ") for n in SIZES)
        print(
            f"goals, {kind.label} (best of): ratio <= {ratios} at {sizes} attempts, reference "
            f"types and host records: {_verdict(over_ratio)}; growth <= {GROWTH_GOAL * 10:g}x "
            f"per 10x attempts (scaled to each step): {_verdict(over_growth)}; peak memory <= "
            f"{MEMORY_GOAL:g}x the episode's: {_verdict(over_memory)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
