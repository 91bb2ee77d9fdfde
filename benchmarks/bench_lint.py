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
import random
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sealed_trace.lint.presets import PRESETS  # noqa: E402

#: Boundary candidates per tree: the first that exists is the policy's boundary; the first
#: four that exist make the four-boundary policy.
CANDIDATES = {
    "stdlib": (
        "email._policybase",
        "json.encoder",
        "tomllib._parser",
        "concurrent.futures._base",
        "email.charset",
        "http.cookiejar",
    ),
    "site-packages": (
        "packaging.version",
        "pluggy._result",
        "_pytest.timing",
        "iniconfig._parse",
        "packaging.specifiers",
        "pluggy._tracing",
    ),
    "generated": (
        "bench.kernel.seal",
        "bench.kernel.seal1",
        "bench.kernel.seal2",
        "bench.kernel.seal3",
    ),
}
MAX_UPSTREAM = 40
SKIP_DIRS = {"__pycache__", "site-packages", "dist-packages"}


# -- building the trees ---------------------------------------------------------------------------
def _top_names(source: Path) -> set[str]:
    names: set[str] = set()
    for entry in source.iterdir():
        stem = entry.name[:-3] if entry.name.endswith(".py") else entry.name
        if not stem.isidentifier() or entry.name in SKIP_DIRS:
            continue
        if (entry.is_dir() and any(entry.rglob("*.py"))) or entry.suffix == ".py":
            names.add(stem)
    return names


_FROM = re.compile(r"^([ \t]*)from([ \t]+)([A-Za-z_][A-Za-z0-9_]*)(?=[ \t.])", re.M)
_IMPORT = re.compile(r"^([ \t]*)import[ \t]+([^\n#;\\(]+)", re.M)


def _rewrite(text: str, tops: set[str], prefix: str) -> str:
    """Absolute imports of the tree's own top-level names go through ``prefix``."""

    def from_sub(m: re.Match[str]) -> str:
        name = m.group(3)
        return f"{m.group(1)}from{m.group(2)}{prefix}.{name}" if name in tops else m.group(0)

    def import_sub(m: re.Match[str]) -> str:
        items = []
        for item in m.group(2).split(","):
            stripped = item.strip()
            head = stripped.split(".")[0].split(" ")[0]
            if head in tops:
                lead = item[: len(item) - len(item.lstrip())]
                tail = item[len(item.rstrip()) :]
                items.append(f"{lead}{prefix}.{stripped}{tail}")
            else:
                items.append(item)
        return f"{m.group(1)}import {','.join(items).lstrip()}"

    return _IMPORT.sub(import_sub, _FROM.sub(from_sub, text))


def copy_tree(source: Path, dest_root: Path, package: str) -> int:
    """Copy every ``.py`` file below ``source`` into ``dest_root/package`` with rewritten
    imports; return the number of files."""
    tops = _top_names(source)
    target = dest_root / package
    target.mkdir(parents=True)
    (target / "__init__.py").write_text("")
    count = 0
    for directory, dirs, files in os.walk(source):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIP_DIRS and not d.endswith(".dist-info") and not d.startswith(".")
        )
        rel = Path(directory).relative_to(source)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            out = target / rel / name
            out.parent.mkdir(parents=True, exist_ok=True)
            data = (Path(directory) / name).read_bytes()
            # latin-1 keeps every byte: only ASCII import lines are rewritten
            out.write_bytes(_rewrite(data.decode("latin-1"), tops, package).encode("latin-1"))
            count += 1
    return count


WORDS = (
    "frame",
    "budget",
    "gate",
    "residual",
    "replay",
    "span",
    "run",
    "attempt",
    "record",
    "policy",
    "digest",
    "window",
    "queue",
    "ledger",
    "vector",
    "matrix",
    "report",
    "table",
)


def _generated_module(rng: random.Random, index: int, names: list[str]) -> str:
    pkg = names[index].rsplit(".", 1)[0]
    lines = [
        f'"""{WORDS[index % len(WORDS)].title()} helpers of {names[index]}."""',
        "",
        "from __future__ import annotations",
        "",
        "import dataclasses",
        "import logging",
        "from collections.abc import Iterable",
        "",
    ]
    deps = sorted({rng.randrange(index) for _ in range(min(index, 4))}) if index else []
    for dep in deps:
        dpkg, dmod = names[dep].rsplit(".", 1)
        if dpkg == pkg and rng.random() < 0.5:
            lines.append(f"from . import {dmod}")
        else:
            lines.append(f"from {dpkg}.{dmod} import compute_{dep:04d} as _c{dep}")
    lines += ["", "logger = logging.getLogger(__name__)", ""]
    for n in range(12):
        word = WORDS[(index + n) % len(WORDS)]
        suffix = "" if n == 0 else f"_{n}"
        lines += [
            "",
            "@dataclasses.dataclass(frozen=True)",
            f"class {word.title()}{n}:",
            "    name: str",
            "    value: int",
            "",
            f"def compute_{index:04d}{suffix}(items: Iterable[int]) -> int:",
            "    total = 0",
            "    for item in items:",
            "        total += item",
            "    return total",
            "",
        ]
    return "\n".join(lines) + "\n"


SEAL = (
    '"""A sealing module."""\n\nimport hashlib\nimport json\n\n\ndef seal(p):\n'
    "    return hashlib.sha256(json.dumps(p).encode()).hexdigest()\n"
)


def generate(root: Path, modules: int, package: str = "bench") -> int:
    rng = random.Random(20260230)
    per = max(1, (modules - 5) // 20)
    names = [f"{package}.pkg_{i // per:02d}.mod_{i:04d}" for i in range(modules - 5)]
    (root / package / "kernel").mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    (root / package / "kernel" / "__init__.py").write_text("")
    for k in range(4):
        name = "seal" if k == 0 else f"seal{k}"
        (root / package / "kernel" / f"{name}.py").write_text(SEAL)
    for index, name in enumerate(names):
        path = root / (name.replace(".", "/") + ".py")
        if not path.parent.exists():
            path.parent.mkdir(parents=True)
            (path.parent / "__init__.py").write_text("")
        text = _generated_module(rng, index, names)
        if index % 50 == 7:  # some modules do import a sealing module
            which = (index // 50) % 4
            text += f"from {package}.kernel import seal{'' if which == 0 else which}\n"
        path.write_text(text)
    return modules


@dataclass
class Tree:
    name: str
    root: Path
    package: str  # the first copy's package
    packages: list[str]
    modules: int
    size: int
    boundaries: list[tuple[str, list[str]]] = field(default_factory=list)


def _scan_tree(root: Path) -> tuple[object, dict[str, str]]:
    from sealed_trace.lint.discover import discover
    from sealed_trace.lint.grimp_scan import ScanTarget, scan

    files = discover(str(root), (str(root),), ())
    paths: dict[str, str] = {}
    for f in files:
        if f.module and f.module not in paths:
            paths[f.module] = f.abspath
    return scan([ScanTarget(m, str(root), p) for m, p in paths.items()]), paths


def drop_unscannable(root: Path) -> int:
    """Delete the files import-linter's scanner cannot read (the standard library's tests
    hold deliberately broken files: bad encodings, Python 2 syntax), so that every tool
    measures the same tree. Returns how many were dropped."""
    graph, paths = _scan_tree(root)
    for module in graph.failed:  # type: ignore[attr-defined]
        os.unlink(paths[module])
    return len(graph.failed)  # type: ignore[attr-defined]


def _importers(root: Path, targets: list[str]) -> dict[str, list[str]]:
    """First-party modules importing each target, from the lint's own scanner."""
    graph, _ = _scan_tree(root)
    out: dict[str, list[str]] = {t: [] for t in targets}
    for module, edges in graph.edges.items():  # type: ignore[attr-defined]
        for target, _line in edges:
            if target in out and module != target:
                out[target].append(module)
    return {t: sorted(set(v)) for t, v in out.items()}


def build(kind: str, base: Path, copies: int) -> Tree:
    root = base / f"{kind}-x{copies}"
    root.mkdir(parents=True)
    if kind == "generated":
        packages = ["bench" if i == 0 else f"bench{i}" for i in range(copies)]
        modules = sum(generate(root, 2000, p) for p in packages)
    else:
        source = Path(sysconfig.get_paths()["stdlib" if kind == "stdlib" else "purelib"])
        stem = "stdlib_copy" if kind == "stdlib" else "site_copy"
        packages = [stem if copies == 1 else f"{stem}{i}" for i in range(copies)]
        modules = sum(copy_tree(source, root, p) for p in packages)
        modules -= drop_unscannable(root)
    size = sum(p.stat().st_size for p in root.rglob("*.py"))
    tree = Tree(
        f"{kind}{'' if copies == 1 else f' x{copies}'}", root, packages[0], packages, modules, size
    )
    prefix = "" if kind == "generated" else packages[0] + "."
    candidates = [prefix + c for c in CANDIDATES[kind]]
    if kind == "generated":
        candidates = [c.replace("bench.", packages[0] + ".", 1) for c in CANDIDATES[kind]]
    importers = _importers(root, candidates)
    for module in candidates:
        ups = importers[module][:MAX_UPSTREAM]
        if ups and len(tree.boundaries) < 4:
            tree.boundaries.append((module, ups))
    if not tree.boundaries:
        sys.exit(f"{kind}: none of the boundary candidates exists with importers")
    return tree


def _ruff_banned() -> list[str]:
    out = []
    for pattern in PRESETS["adr-0230"].banned:
        name = pattern[:-2] if pattern.endswith(".*") else pattern
        if "*" not in name and name not in out:
            out.append(name)
    return out


def write_policy(tree: Tree, boundaries: int) -> None:
    lines = ["[tool.sealed_trace]", 'source_roots = ["."]', ""]
    for index, (module, ups) in enumerate(tree.boundaries[:boundaries]):
        lines += [
            "[[tool.sealed_trace.boundary]]",
            f'name = "b{index}"',
            f'module = "{module}"',
            'preset = "adr-0230"',
            f"upstream = {ups!r}".replace("'", '"'),
            "",
        ]
    lines += ["[tool.ruff.lint.flake8-tidy-imports.banned-api]"]
    lines += [f'"{name}".msg = "banned by ADR-0230"' for name in _ruff_banned()]
    (tree.root / "pyproject.toml").write_text("\n".join(lines) + "\n")
    contract = ["[importlinter]", "root_packages =", *(f"    {p}" for p in tree.packages), ""]
    for index, (module, ups) in enumerate(tree.boundaries[:boundaries]):
        contract += [
            f"[importlinter:contract:b{index}]",
            f"name = b{index}",
            "type = forbidden",
            "source_modules =",
            *(f"    {u}" for u in ups),
            "forbidden_modules =",
            f"    {module}",
            "",
        ]
    (tree.root / ".importlinter").write_text("\n".join(contract))


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
