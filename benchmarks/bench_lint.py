"""Benchmark of ``sealed-trace lint`` on real code, beside ruff and import-linter (issue 8 §1).

One command, no network::

    python benchmarks/bench_lint.py [--rounds 3] [--trees stdlib,site-packages,generated,
        chain200,chain5000,chain5000-clean,chain20000] [--growth 5] [--marker-tree chain200]
        [--keep DIR]

Trees (each built in a temporary directory; nothing in this repository is touched; built by
``lint_trees.py`` beside this file):

* ``stdlib``: a copy of the running interpreter's standard library (every ``.py`` file, tests
  and test data included), and ``site-packages``: a copy of the running venv's installed
  packages. Each copy is wrapped in one package (``stdlib_copy``, ``site_copy``) whose modules'
  absolute imports of their own top-level names are rewritten to go through it, so that no
  tool confuses the copy with the interpreter's own modules, and import-linter (which takes
  packages only) sees the whole tree.
* ``generated``: the synthetic 2 000-module tree earlier versions measured alone.
* ``... x5``: five such copies side by side (``stdlib_copy0`` ... ``stdlib_copy4``), for
  growth; the policy names the first copy only.
* ``chain200``, ``chain5000``, ``chain20000``: one package ``chain`` of N generated modules in
  sub-packages of 50 (``chain.p000.m00000`` ...), each importing one to three earlier modules
  at module level (``from chain.p000.m00012 import f1 as f1_12``), with functions, dataclasses,
  enums, imports inside functions and ``if TYPE_CHECKING:`` blocks in a fraction of them;
  every module but the sealed ``chain.seal`` is upstream (``chain.p*``), and the 4th module
  imports the sealed module, so that nearly every module reaches it through that one import
  (one finding). ``chain5000-clean``: the same 5 000 modules without that import.

Policy (the same facts for every tool): a real module of the tree as the boundary, the
modules that really import it as ``upstream`` (a chain: ``chain.p*``), the ``adr-0230``
preset's bans. ruff gets ``--select TID251`` with the preset's banned names as ``banned-api``
(no wildcards there: ``time.*`` becomes ``time``); import-linter a ``forbidden`` contract from
the upstream modules (a chain: its sub-packages) to the boundary. A second policy with four
boundaries measures the cost of more boundaries.

Measured side by side in one run, alternating the tools each round: wall time, CPU time
(user + system, the process tree) and peak resident memory of the whole process tree (its
processes' RSS summed, sampled every 10 ms), cold (no cache), warm (the same command again,
caches filled, nothing changed) and edit (the next run after one upstream file's content
changed: a comment line with a counter appended). Beside them, the libcst floor: a fresh
interpreter that imports libcst and runs its own parse, scope, qualified-name and position
pass over the boundary's sealed module, nothing else. Over one chain (``--marker-tree``), a
pytest session of 160 tests carrying the plugin's three markers over a handful of its
modules (every marker passes; the session's exit status is checked), beside the same tests
unmarked; on the site-packages copy, ``sealed-trace init MODULE`` for a few modules with many
imports (sympy's when installed: ``pip install sympy``) where ``pyproject.toml`` has no
``[tool.sealed_trace]`` table.

Medians are printed with the floors, the ratios and the goals (issue 17 §7; engine v3): cold
<= import-linter's cold run + the libcst floor, warm <= 0.5x ruff's warm run, edit <= 2x
warm, peak RSS <= 150 MB at about 2 000 modules and at most linear in modules beyond, 4
boundaries <= 1.25x the cost of one, cold from ``chain5000`` to ``chain20000`` <= 4x, the
marker session <= 2x one cold lint of its tree (and the cost per marker: the session less the
unmarked one, over 160), ``init`` <= 5 s a module. ``--rounds 1 --growth 0`` is a reduced
run. The machine's load average is printed: other work on it inflates wall times, not CPU
times. This is a measurement tool, not a timed test.
"""

from __future__ import annotations

import argparse
import itertools
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

from lint_trees import (  # noqa: E402
    CHAINS,
    MARKER_TESTS,
    Tree,
    build,
    write_marker_tests,
    write_policy,
)

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


def run(
    argv: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    expect: str = "",
    ok: tuple[int, ...] = (0, 1),
) -> Sample:
    """Run ``argv``: wall and CPU time (the process and its waited descendants) and the peak
    of the process tree's summed RSS. Exits when the tool failed (an exit status not in
    ``ok``) or did not print ``expect``."""
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
    if process.returncode not in ok or expect not in text:
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


def _clear_caches(tree: Tree) -> None:
    for name in (".sealed_trace_cache", ".ruff_cache", ".import_linter_cache", ".grimp_cache"):
        shutil.rmtree(tree.root / name, ignore_errors=True)


_EDITS = itertools.count(1)


def _edit(tree: Tree) -> None:
    """Change one upstream file's content: a comment line with a counter at its end."""
    path = tree.module_path(tree.edit_module)
    data = path.read_bytes()
    newline = b"" if not data or data.endswith(b"\n") else b"\n"
    path.write_bytes(data + newline + f"# bench edit {next(_EDITS)}\n".encode())


def _pytest(tree: Tree, test_file: Path) -> list[str]:
    """The marker session: the plugin loaded, no cache, no xdist, rootdir at the tree."""
    return [
        *(sys.executable, "-m", "pytest", "-p", "sealed_trace", "-p", "no:cacheprovider"),
        *("-q", "-n", "0", "--rootdir", str(tree.root), str(test_file)),
    ]


#: ``{tool or row: {mode: [samples]}}``
Results = dict[str, dict[str, list[Sample]]]


def measure(tree: Tree, rounds: int, markers: tuple[Path, Path] | None = None) -> Results:
    """``{tool: {"cold"|"warm"|"edit"|"cold4": [samples]}}``, tools alternating in each
    round; then the libcst floor, the marker session and its unmarked baseline (``markers``:
    their test files), and ``sealed-trace init`` for the tree's init modules."""
    out: Results = {}
    tools = commands(tree)
    env = tools["sealed-trace"][2]
    for index in range(rounds):
        order = list(tools) if index % 2 == 0 else list(reversed(tools))
        for boundaries in (1, 4) if len(tree.boundaries) >= 4 else (1,):
            write_policy(tree, boundaries)
            for tool in order:
                if boundaries == 4 and tool != "sealed-trace":
                    continue
                cold, warm, tool_env, expect = tools[tool]
                _clear_caches(tree)
                key = "cold" if boundaries == 1 else "cold4"
                out.setdefault(tool, {}).setdefault(key, []).append(
                    run(cold, tree.root, tool_env, expect)
                )
                run(warm, tree.root, tool_env, expect)  # fills the cache
                if boundaries == 1:
                    out[tool].setdefault("warm", []).append(run(warm, tree.root, tool_env, expect))
                    _edit(tree)
                    out[tool].setdefault("edit", []).append(run(warm, tree.root, tool_env, expect))
        floor = [sys.executable, "-c", _LIBCST_FLOOR, str(tree.module_path(tree.boundaries[0][0]))]
        sample = run(floor, tree.root, None, "libcst pass done")
        out.setdefault("libcst floor", {}).setdefault("cold", []).append(sample)
        if markers is not None:
            sessions = [("session", markers[0]), ("unmarked", markers[1])]
            for key, test_file in sessions if index % 2 == 0 else reversed(sessions):
                done = f"{MARKER_TESTS} passed"
                sample = run(_pytest(tree, test_file), tree.root, env, done, ok=(0,))
                out.setdefault("markers", {}).setdefault(key, []).append(sample)
        if tree.init_modules:
            write_policy(tree, 0)  # a pyproject.toml without a [tool.sealed_trace] table
            for module in tree.init_modules:
                _clear_caches(tree)
                argv = [_tool("sealed-trace"), "init", module]
                sample = run(argv, tree.root, env, "[tool.sealed_trace]", ok=(0,))
                out.setdefault("init", {}).setdefault(module, []).append(sample)
    return out


def _median(samples: list[Sample], attr: str) -> float:
    return float(statistics.median(getattr(s, attr) for s in samples))


TREES = ("stdlib", "site-packages", "generated", *CHAINS)
#: The growth check: cold time from the first chain to the second at most linear.
GROWTH = ("chain5000", "chain20000")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--trees",
        default=",".join(TREES),
        help=f"comma-separated, of {', '.join(TREES)}: stdlib, site-packages (real code: the "
        "goals apply to these), generated (a reference), chainN (N generated modules that "
        "all reach the sealed module but through one import; -clean: none does)",
    )
    parser.add_argument(
        "--growth", type=int, default=5, help="copies in the growth tree (0: none; not chains)"
    )
    parser.add_argument(
        "--marker-tree",
        default="chain200",
        choices=[name for name in TREES if name in CHAINS],
        help=f"the chain the {MARKER_TESTS}-marker pytest session runs over (when in --trees)",
    )
    parser.add_argument("--keep", metavar="DIR", help="build the trees in DIR and keep them")
    args = parser.parse_args()
    kinds = args.trees.split(",")
    unknown = [kind for kind in kinds if kind not in TREES]
    if unknown:
        parser.error(f"unknown tree(s) {', '.join(unknown)}; known: {', '.join(TREES)}")
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-lint-"))
    if args.keep and base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True, exist_ok=True)
    print(
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {args.rounds} rounds, "
        f"medians; ratios are sealed-trace / the other tool; load average "
        f"{os.getloadavg()[0]:.1f} at the start"
    )
    if args.marker_tree not in kinds:
        print(f"no marker session: --marker-tree {args.marker_tree} is not in --trees")
    failed: list[str] = []
    colds: dict[str, tuple[float, int]] = {}
    try:
        for kind in kinds:
            one = build(kind, base, 1)
            markers = None
            if kind == args.marker_tree:
                markers = write_marker_tests(one, base / f"{kind}-markers")
            results = {one.name: (one, measure(one, args.rounds, markers))}
            if args.growth > 1 and kind not in CHAINS:
                many = build(kind, base, args.growth)
                results[many.name] = (many, measure(many, args.rounds))
            failed += report(results)
            for name, (tree, data) in results.items():
                colds[name] = (_median(data["sealed-trace"]["cold"], "wall"), tree.modules)
            if not args.keep:
                for tree, _ in results.values():
                    shutil.rmtree(tree.root, ignore_errors=True)
        failed += report_growth(colds)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    print("goals met" if not failed else "GOALS NOT MET: " + "; ".join(failed))
    return 0 if not failed else 1


def _row(label: str, samples: list[Sample]) -> None:
    print(
        f"  {label:32}{_median(samples, 'wall'):>9.3f}{_median(samples, 'cpu'):>9.3f}"
        f"{_median(samples, 'rss_mb'):>9.1f}"
    )


def _goal(failed: list[str], name: str, label: str, value: float, goal: float | None) -> None:
    if goal is None:
        print(f"  {label:34}{value:>7.2f}x  (for reference)")
        return
    met = value <= goal
    print(f"  {label:34}{value:>7.2f}x  goal <= {goal}x  {'met' if met else 'NOT MET'}")
    if not met:
        failed.append(f"{name}: {label} {value:.2f}x")


def report(results: dict[str, tuple[Tree, Results]]) -> list[str]:
    failed: list[str] = []
    base_rss = None
    base_modules = None
    for name, (tree, data) in results.items():
        lint, ruff, imp = data["sealed-trace"], data["ruff"], data["import-linter"]
        floor = _median(data["libcst floor"]["cold"], "wall")
        boundary, ups = tree.boundaries[0]
        source = tree.module_path(boundary)
        upstream = (
            f"{len(ups)} upstream modules"
            if not tree.chain
            else f"upstream {', '.join(ups)}: {tree.modules - 1} modules, {tree.note}"
        )
        print(
            f"\n{name}: {tree.modules} modules, {tree.size / 1e6:.1f} MB; boundary {boundary} "
            f"({source.stat().st_size / 1e3:.0f} kB, parsed with libcst), {upstream}; edit: "
            f"{tree.edit_module}; load average {os.getloadavg()[0]:.1f}"
        )
        print(f"  {'':32}{'wall s':>9}{'cpu s':>9}{'peak MB':>9}")
        for tool, samples in (
            ("sealed-trace", lint),
            ("ruff TID251", ruff),
            ("import-linter", imp),
        ):
            for mode in ("cold", "warm", "edit"):
                _row(f"{tool} {mode}", samples[mode])
        _row("libcst floor", data["libcst floor"]["cold"])
        markers = data.get("markers")
        if markers:
            _row(f"pytest {MARKER_TESTS} markers", markers["session"])
            _row(f"pytest {MARKER_TESTS} unmarked", markers["unmarked"])
        for module, runs in data.get("init", {}).items():
            _row(f"init {module.split('.', 1)[1]}", runs)
        cold = _median(lint["cold"], "wall")
        imp_cold = _median(imp["cold"], "wall")
        warm = _median(lint["warm"], "wall")
        print(
            f"  {'cold floor':34}{imp_cold + floor:>7.3f} s = import-linter cold "
            f"{imp_cold:.3f} s + libcst floor {floor:.3f} s"
        )
        _goal(failed, name, "cold / (import-linter + libcst)", cold / (imp_cold + floor), 1.0)
        _goal(failed, name, "cold / ruff cold", cold / _median(ruff["cold"], "wall"), None)
        _goal(failed, name, "warm / ruff warm", warm / _median(ruff["warm"], "wall"), 0.5)
        _goal(failed, name, "edit / warm", _median(lint["edit"], "wall") / warm, 2.0)
        if "cold4" in lint:
            _goal(
                failed, name, "4 boundaries / 1, cold", _median(lint["cold4"], "wall") / cold, 1.25
            )
        if markers:
            session = _median(markers["session"], "wall")
            each = (session - _median(markers["unmarked"], "wall")) / MARKER_TESTS
            _goal(failed, name, f"{MARKER_TESTS} markers / cold", session / cold, 2.0)
            print(
                f"  {'per marker':34}{each:>7.3f} s = (session - unmarked session) / {MARKER_TESTS}"
            )
        for module, runs in data.get("init", {}).items():
            value, goal = _median(runs, "wall"), 5.0
            met = value <= goal
            print(
                f"  {'init ' + module.split('.', 1)[1]:34}{value:>7.2f} s goal <= {goal:.0f} s  "
                f"{'met' if met else 'NOT MET'}"
            )
            if not met:
                failed.append(f"{name}: init {module} {value:.1f} s")
        rss = max(s.rss_mb for s in lint["cold"] + lint["warm"] + lint["edit"])
        if tree.chain:  # 150 MB at about 2 000 modules, linear beyond
            goal = 150.0 * max(1.0, tree.modules / 2000)
            met = rss <= goal
            print(
                f"  {'peak RSS (process tree)':34}{rss:>7.1f} MB goal <= {goal:.0f} MB (150 MB "
                f"at 2 000 modules, linear beyond)  {'met' if met else 'NOT MET'}"
            )
            if not met:
                failed.append(f"{name}: peak RSS {rss:.0f} MB")
        elif base_rss is None:
            base_rss, base_modules = rss, tree.modules
            goal = 150.0
            print(
                f"  {'peak RSS (process tree)':34}{rss:>7.1f} MB goal <= {goal:.0f} MB  "
                f"{'met' if rss <= goal else 'NOT MET'}"
            )
            if rss > goal:
                failed.append(f"{name}: peak RSS {rss:.0f} MB")
        else:
            scale = tree.modules / (base_modules or 1)
            print(
                f"  {'peak RSS (process tree)':34}{rss:>7.1f} MB ({rss / base_rss:.2f}x for "
                f"{scale:.1f}x the modules) goal <= {scale:.1f}x  "
                f"{'met' if rss <= base_rss * scale else 'NOT MET'}"
            )
            if rss > base_rss * scale:
                failed.append(f"{name}: RSS grows faster than the modules")
    return failed


def report_growth(colds: dict[str, tuple[float, int]]) -> list[str]:
    """Cold time from the 5 000-module chain to the 20 000-module one: at most linear."""
    small, large = GROWTH
    if small not in colds or large not in colds:
        return []
    (before, few), (after, many) = colds[small], colds[large]
    failed: list[str] = []
    print(
        f"\ngrowth {small} -> {large}: sealed-trace cold {before:.3f} s -> {after:.3f} s for "
        f"{many / few:.1f}x the modules"
    )
    _goal(failed, "growth", f"cold {large} / {small}", after / before, 4.0)
    return failed


if __name__ == "__main__":
    sys.exit(main())
