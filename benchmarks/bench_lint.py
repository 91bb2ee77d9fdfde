"""Benchmark of ``sealed-trace lint`` on real code, beside ruff and import-linter (issue 8 §1).

One command, no network::

    python benchmarks/bench_lint.py [--rounds 3] [--trees generated,stdlib,site-packages]
                                    [--keep DIR]

Trees (each built in a temporary directory; nothing in this repository is touched):

* ``stdlib``: a copy of the running interpreter's standard library (every ``.py`` file, tests
  and test data included), and ``site-packages``: a copy of the running venv's installed
  packages. Each copy is wrapped in one package (``stdlib_copy``, ``site_copy``) whose modules'
  absolute imports of their own top-level names are rewritten to go through it, so that no
  tool confuses the copy with the interpreter's own modules, and import-linter (which takes
  packages only) sees the whole tree.
* ``generated``: the synthetic 2 000-module tree earlier versions measured alone.
* ``... x5``: five such copies side by side (``stdlib_copy0`` ... ``stdlib_copy4``), for
  growth; the policy names the first copy only.

Policy (the same facts for every tool): a real module of the tree as the boundary, the
modules that really import it as ``upstream``, the ``adr-0230`` preset's bans. ruff gets
``--select TID251`` with the preset's banned names as ``banned-api`` (no wildcards there:
``time.*`` becomes ``time``); import-linter a ``forbidden`` contract from the upstream modules
to the boundary. A second policy with four boundaries measures the cost of more boundaries.

Measured side by side in one run, alternating the tools each round: wall time, CPU time
(user + system, the process tree) and peak resident memory of the whole process tree (its
processes' RSS summed, sampled every 10 ms), cold (no cache) and warm (the same command again,
caches filled, nothing changed). Beside them, the libcst floor: a fresh interpreter that
imports libcst and runs its own parse, scope, qualified-name and position pass over the
boundary's sealed module, nothing else. Medians are printed with the floors, the ratios and
the goals (issue 17 §7): cold <= import-linter's cold run + the libcst floor, warm <= 0.5x
ruff's warm run, peak RSS <= 150 MB at about 2 000 modules and at most linear in modules
beyond, 4 boundaries <= 1.25x the cost of one. ``--rounds 1 --growth 2`` is a reduced run.
This is a measurement tool, not a timed test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from lint_trees import Tree, build, write_policy  # noqa: E402

# -- measuring ------------------------------------------------------------------------------------
_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _tree_rss(pid: int) -> int:
    """Summed RSS in kB of ``pid`` and its descendants (Linux /proc), reading only the tree's
    own entries, so that sampling costs the measured tools little."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/statm", encoding="ascii") as handle:
                total += int(handle.read().split()[1]) * _PAGE_KB
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as handle:
                    stack.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            continue
    return total


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mb: float
    status: int


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, expect: str = "") -> Sample:
    """Run ``argv``: wall and CPU time (the process and its waited descendants) and the peak
    of the process tree's summed RSS. Exits when the tool failed or did not print
    ``expect``."""
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    peak = [0]
    done = threading.Event()
    output: list[bytes] = []

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(process.pid))
            done.wait(0.01)

    def drain() -> None:
        assert process.stdout is not None
        output.append(process.stdout.read())

    sampler = threading.Thread(target=sample, daemon=True)
    reader = threading.Thread(target=drain, daemon=True)
    sampler.start()
    reader.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    sampler.join()
    reader.join()
    text = b"".join(output).decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    # Sampled, not ru_maxrss: a forked child starts with the forking process's high-water mark.
    peak_kb = peak[0]
    if process.returncode not in (0, 1) or expect not in text:
        sys.exit(f"{' '.join(argv)} failed ({process.returncode}):\n{text[-2000:]}")
    return Sample(wall, cpu, peak_kb / 1024, process.returncode)


def _tool(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else shutil.which(name)
    if not found:
        sys.exit(f"{name} not found next to {sys.executable} or on PATH (install '.[dev]')")
    return found


def commands(tree: Tree) -> dict[str, tuple[list[str], list[str], dict[str, str], str]]:
    """Per tool: (cold argv, warm argv, environment, what its output must show)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    lint = [_tool("sealed-trace"), "lint", "--exit-zero"]
    ruff = [_tool("ruff"), "check", "--select", "TID251", "--exit-zero", "--quiet"]
    imports_env = {**env, "PYTHONPATH": str(tree.root)}
    imports = [_tool("lint-imports")]
    return {
        "sealed-trace": ([*lint, "--no-cache"], lint, env, "file(s)"),
        "ruff": ([*ruff, "--no-cache", "."], [*ruff, "."], env, ""),
        "import-linter": ([*imports, "--no-cache"], imports, imports_env, "Contracts:"),
    }


#: libcst's own pass over one file, in a fresh interpreter: the floor of the sealed-module pass.
_LIBCST_FLOOR = """
import sys
import libcst as cst
from libcst.metadata import (
    MetadataWrapper, PositionProvider, QualifiedNameProvider, ScopeProvider,
)
with open(sys.argv[1], encoding="utf-8") as handle:
    wrapper = MetadataWrapper(cst.parse_module(handle.read()))
wrapper.resolve_many([PositionProvider, ScopeProvider, QualifiedNameProvider])
print("libcst pass done")
"""


def _sealed_source(tree: Tree) -> Path:
    base = tree.root / tree.boundaries[0][0].replace(".", "/")
    source = base.with_suffix(".py")
    return source if source.exists() else base / "__init__.py"


def _clear_caches(tree: Tree) -> None:
    for name in (".sealed_trace_cache", ".ruff_cache", ".import_linter_cache", ".grimp_cache"):
        shutil.rmtree(tree.root / name, ignore_errors=True)


def measure(tree: Tree, rounds: int) -> dict[str, dict[str, list[Sample]]]:
    """``{tool: {"cold"|"warm"|"cold4": [samples]}}``, tools alternating in each round."""
    out: dict[str, dict[str, list[Sample]]] = {}
    tools = commands(tree)
    for index in range(rounds):
        order = list(tools) if index % 2 == 0 else list(reversed(tools))
        for boundaries in (1, 4) if len(tree.boundaries) >= 4 else (1,):
            write_policy(tree, boundaries)
            for tool in order:
                if boundaries == 4 and tool != "sealed-trace":
                    continue
                cold, warm, env, expect = tools[tool]
                _clear_caches(tree)
                key = "cold" if boundaries == 1 else "cold4"
                out.setdefault(tool, {}).setdefault(key, []).append(
                    run(cold, tree.root, env, expect)
                )
                run(warm, tree.root, env, expect)  # fills the cache
                if boundaries == 1:
                    out[tool].setdefault("warm", []).append(run(warm, tree.root, env, expect))
        floor = [sys.executable, "-c", _LIBCST_FLOOR, str(_sealed_source(tree))]
        sample = run(floor, tree.root, None, "libcst pass done")
        out.setdefault("libcst floor", {}).setdefault("cold", []).append(sample)
    return out


def _median(samples: list[Sample], attr: str) -> float:
    return statistics.median(getattr(s, attr) for s in samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--trees",
        default="stdlib,site-packages,generated",
        help="comma-separated: stdlib, site-packages (real code: the goals "
        "apply to these), generated (a reference)",
    )
    parser.add_argument("--growth", type=int, default=5, help="copies in the growth tree (0: none)")
    parser.add_argument("--keep", metavar="DIR", help="build the trees in DIR and keep them")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-lint-"))
    if args.keep and base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True, exist_ok=True)
    print(
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {args.rounds} rounds, "
        "medians; ratios are sealed-trace / the other tool"
    )
    failed: list[str] = []
    try:
        for kind in args.trees.split(","):
            one = build(kind, base, 1)
            results = {one.name: (one, measure(one, args.rounds))}
            if args.growth > 1:
                many = build(kind, base, args.growth)
                results[many.name] = (many, measure(many, args.rounds))
            failed += report(results, args.growth)
            if not args.keep:
                for tree, _ in results.values():
                    shutil.rmtree(tree.root, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print("goals met" if not failed else "GOALS NOT MET: " + "; ".join(failed))
    return 0 if not failed else 1


def report(
    results: dict[str, tuple[Tree, dict[str, dict[str, list[Sample]]]]], growth: int
) -> list[str]:
    failed: list[str] = []
    base_rss = None
    base_modules = None
    for name, (tree, data) in results.items():
        lint, ruff, imp = data["sealed-trace"], data["ruff"], data["import-linter"]
        floor = _median(data["libcst floor"]["cold"], "wall")
        boundary, ups = tree.boundaries[0]
        source = _sealed_source(tree)
        print(
            f"\n{name}: {tree.modules} modules, {tree.size / 1e6:.1f} MB; boundary {boundary} "
            f"({source.stat().st_size / 1e3:.0f} kB, parsed with libcst), {len(ups)} upstream "
            "modules"
        )
        print(f"  {'':18}{'wall s':>9}{'cpu s':>9}{'peak MB':>9}")
        for tool, samples in (
            ("sealed-trace", lint),
            ("ruff TID251", ruff),
            ("import-linter", imp),
        ):
            for mode in ("cold", "warm"):
                print(
                    f"  {tool + ' ' + mode:18}{_median(samples[mode], 'wall'):>9.3f}"
                    f"{_median(samples[mode], 'cpu'):>9.3f}"
                    f"{_median(samples[mode], 'rss_mb'):>9.1f}"
                )
        floor_samples = data["libcst floor"]["cold"]
        print(
            f"  {'libcst floor':18}{floor:>9.3f}{_median(floor_samples, 'cpu'):>9.3f}"
            f"{_median(floor_samples, 'rss_mb'):>9.1f}"
        )
        cold = _median(lint["cold"], "wall")
        imp_cold = _median(imp["cold"], "wall")
        print(
            f"  {'cold floor':30}{imp_cold + floor:>7.3f} s = import-linter cold "
            f"{imp_cold:.3f} s + libcst floor {floor:.3f} s"
        )
        ratios = {
            "cold / (import-linter + libcst)": (cold / (imp_cold + floor), 1.0),
            "cold / ruff cold": (cold / _median(ruff["cold"], "wall"), None),
            "warm / ruff warm": (
                _median(lint["warm"], "wall") / _median(ruff["warm"], "wall"),
                0.5,
            ),
        }
        if "cold4" in lint:
            ratios["4 boundaries / 1, cold"] = (_median(lint["cold4"], "wall") / cold, 1.25)
        rss = max(s.rss_mb for s in lint["cold"] + lint["warm"])
        for label, (value, goal) in ratios.items():
            if goal is None:
                print(f"  {label:30}{value:>7.2f}x  (for reference)")
                continue
            met = value <= goal
            print(f"  {label:30}{value:>7.2f}x  goal <= {goal}x  {'met' if met else 'NOT MET'}")
            if not met:
                failed.append(f"{name}: {label} {value:.2f}x")
        if base_rss is None:
            base_rss, base_modules = rss, tree.modules
            goal = 150.0
            print(
                f"  {'peak RSS (process tree)':30}{rss:>7.1f} MB goal <= {goal:.0f} MB  "
                f"{'met' if rss <= goal else 'NOT MET'}"
            )
            if rss > goal:
                failed.append(f"{name}: peak RSS {rss:.0f} MB")
        else:
            scale = tree.modules / (base_modules or 1)
            print(
                f"  {'peak RSS (process tree)':30}{rss:>7.1f} MB ({rss / base_rss:.2f}x for "
                f"{scale:.1f}x the modules) goal <= {scale:.1f}x  "
                f"{'met' if rss <= base_rss * scale else 'NOT MET'}"
            )
            if rss > base_rss * scale:
                failed.append(f"{name}: RSS grows faster than the modules")
    return failed


if __name__ == "__main__":
    sys.exit(main())
