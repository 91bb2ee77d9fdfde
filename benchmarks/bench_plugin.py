"""Startup cost of the pytest plugin, side by side in one run.

Run: ``python benchmarks/bench_plugin.py [--rounds N] [--tests N]``

It writes a trivial suite (``--tests`` one-line tests, default 50) into a temporary directory
and runs it in a fresh ``python -m pytest`` subprocess, alternately with the plugin loaded
(``-p sealed_trace``) and disabled (``-p no:sealed_trace``), ``--rounds`` times each (after one
warm-up run of each, not counted). Both arms use the same interpreter and flags (lint off,
``-p no:cacheprovider``, quiet) and differ only in that switch, so machine noise hits both
alike. It prints the median wall time of each arm, the median overhead in ms (median of the
per-round differences) and the ratio of the medians.

Goal (issue 4): overhead <= +20 ms median when the lint is off. This is a benchmark, not a
test: it reports, it does not assert.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_MS = 20.0

ARMS = {
    "plugin loaded": ["-p", "sealed_trace"],
    "-p no:sealed_trace": ["-p", "no:sealed_trace"],
}


def write_suite(directory: Path, tests: int) -> None:
    """A trivial suite: ``tests`` one-line tests in one module, and an empty ini (rootdir)."""
    (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    body = "".join(f"def test_{i}():\n    pass\n\n\n" for i in range(tests))
    (directory / "test_trivial.py").write_text(body, encoding="utf-8")


def run_once(directory: Path, switch: list[str], tests: int) -> float:
    """Wall time (s) of one pytest subprocess over the suite."""
    command = [sys.executable, "-m", "pytest", *switch, "-q", "-p", "no:cacheprovider"]
    # Installed code runs from cached bytecode; a PYTHONDONTWRITEBYTECODE left in the
    # environment would make both arms recompile every module on every run.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PYTEST_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    start = time.perf_counter()
    done = subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or f"{tests} passed" not in done.stdout:
        raise SystemExit(f"benchmark run failed ({' '.join(switch)}):\n{done.stdout}{done.stderr}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="timed runs per arm (default 20)")
    parser.add_argument("--tests", type=int, default=50, help="trivial tests (default 50)")
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {name: [] for name in ARMS}
    with tempfile.TemporaryDirectory(prefix="bench_plugin_") as tmp:
        directory = Path(tmp)
        write_suite(directory, args.tests)
        for switch in ARMS.values():  # warm-up: page cache, .pyc files
            run_once(directory, switch, args.tests)
        for round_index in range(args.rounds):
            # Alternate which arm goes first, so neither always follows the other.
            order = list(ARMS.items()) if round_index % 2 == 0 else list(ARMS.items())[::-1]
            for name, switch in order:
                times[name].append(run_once(directory, switch, args.tests))
    loaded, disabled = times["plugin loaded"], times["-p no:sealed_trace"]
    print(
        f"pytest startup, {args.tests} trivial tests, {args.rounds} alternating rounds "
        f"(python {sys.version.split()[0]})"
    )
    for name, values in times.items():
        print(
            f"  {name:<20} median {statistics.median(values) * 1000:8.1f} ms   "
            f"min {min(values) * 1000:8.1f} ms"
        )
    overhead_ms = statistics.median(a - b for a, b in zip(loaded, disabled, strict=True)) * 1000
    ratio = statistics.median(loaded) / statistics.median(disabled)
    verdict = "within" if overhead_ms <= GOAL_MS else "OVER"
    print(
        f"  median overhead      {overhead_ms:+8.1f} ms   ratio {ratio:.3f}   "
        f"({verdict} the +{GOAL_MS:.0f} ms goal, lint off)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
