"""Benchmark of ``sealed-trace lint`` against ``ruff check --select TID251`` (issue 3 §6).

One command::

    python benchmarks/bench_lint.py [--modules 2000] [--repeat 3] [--keep DIR]

It generates a tree of realistic modules (~7.5 kB each, ~15 MB for 2 000 modules) in a
temporary directory: one boundary module ``bench.kernel.seal`` and every other module upstream
(``bench.*``), importing one another. Both tools get an equivalent banned-api policy (the
``adr-0230`` preset's banned names; ruff's banned-api has no wildcards, so ``time.*`` becomes the
module ``time``). It then measures, side by side in this one run:

* cold wall time (no cache) of the lint and of ruff (``--no-cache``);
* warm wall time (nothing changed, caches filled) of both;
* peak resident memory of the lint process tree (``getrusage`` of a child);
* cold and warm lint time with 1 boundary and with 4 boundaries;

and prints the ratios against the goals: cold <= 3x ruff, warm <= 1x ruff, memory <= 200 MB.
This is a measurement tool, not a timed test.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sealed_trace.lint.presets import PRESETS  # noqa: E402

PACKAGES = 20
WORDS = ("frame", "budget", "gate", "residual", "replay", "span", "run", "attempt", "record",
         "policy", "digest", "window", "queue", "ledger", "vector", "matrix", "report", "table")


def _module_source(rng: random.Random, index: int, names: list[str], target: int) -> str:
    pkg = names[index].rsplit(".", 1)[0]
    lines = [
        f'"""{WORDS[index % len(WORDS)].title()} helpers of {names[index]}.',
        "",
        "Generated for the boundary-lint benchmark: realistic shapes, no meaning.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import dataclasses",
        "import logging",
        "from collections.abc import Iterable, Mapping",
        "from typing import Any",
        "",
    ]
    deps = sorted({rng.randrange(index) for _ in range(min(index, 4))}) if index else []
    for dep in deps:
        dpkg, dmod = names[dep].rsplit(".", 1)
        if dpkg == pkg and rng.random() < 0.5:
            lines.append(f"from . import {dmod}")
        else:
            lines.append(f"from {dpkg}.{dmod} import compute_{dep:04d} as _c{dep}")
    if index % 97 == 5:
        lines += ["import importlib", "", "def load_plugin(name: str) -> Any:",
                  "    return importlib.import_module(name)", ""]
    lines += ["", "logger = logging.getLogger(__name__)", ""]
    n = 0
    while sum(len(line) + 1 for line in lines) < target:
        word = WORDS[(index + n) % len(WORDS)]
        lines += [
            "",
            "@dataclasses.dataclass(frozen=True)",
            f"class {word.title()}{index:04d}x{n}:",
            f'    """A {word} record with a name, a value and tags."""',
            "",
            "    name: str",
            "    value: int",
            "    tags: tuple[str, ...] = ()",
            "",
            "    def total(self, extra: Mapping[str, int] | None = None) -> int:",
            '        """Return the value plus the extra amounts named by the tags."""',
            "        extra = extra or {}",
            "        return self.value + sum(extra.get(tag, 0) for tag in self.tags)",
            "",
            "",
            f"def compute_{index:04d}{'' if n == 0 else f'_{n}'}(items: Iterable[int], "
            "*, scale: int = 3) -> int:",
            f'    """Fold ``items`` into one {word} total (scaled odd items)."""',
            "    total = 0",
            "    for position, item in enumerate(items):",
            "        if item % 2:",
            "            total += item * scale",
            "        elif position > 10:",
            f'            logger.debug("skipping %s at %d", "{word}", position)',
            "        else:",
            "            total -= position",
            "    return total",
            "",
        ]
        n += 1
    if index % 250 == 7:
        lines.append("# A note about the seal of approval, which is not an import.")
    return "\n".join(lines) + "\n"


SEAL = '''"""The sealing kernel: pure functions over immutable values."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Sealed:
    """An immutable sealed record."""

    identity: str
    payload: str


def seal(payload: dict[str, object]) -> Sealed:
    """Seal ``payload`` with a canonical JSON SHA-256 identity."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return Sealed(hashlib.sha256(text.encode()).hexdigest(), text)
'''


def generate(root: Path, modules: int, boundaries: int = 4) -> int:
    """Write the tree under ``root``; return its size in bytes."""
    rng = random.Random(20260230)
    per = max(1, (modules - 1) // PACKAGES)
    names = [f"bench.pkg_{i // per:02d}.mod_{i:04d}" for i in range(modules - 1)]
    size = 0
    (root / "bench" / "kernel").mkdir(parents=True)
    (root / "bench" / "__init__.py").write_text("")
    (root / "bench" / "kernel" / "__init__.py").write_text("")
    for k in range(boundaries):
        name = "seal" if k == 0 else f"seal{k}"
        (root / "bench" / "kernel" / f"{name}.py").write_text(SEAL)
    for index, name in enumerate(names):
        path = root / (name.replace(".", "/") + ".py")
        if not path.parent.exists():
            path.parent.mkdir(parents=True)
            (path.parent / "__init__.py").write_text("")
        text = _module_source(rng, index, names, 7500)
        path.write_text(text)
        size += len(text)
    return size


def _banned_for_ruff() -> list[str]:
    out = []
    for pattern in PRESETS["adr-0230"].banned:
        name = pattern[:-2] if pattern.endswith(".*") else pattern
        if "*" not in name and name not in out:
            out.append(name)
    return out


def write_configs(root: Path, boundaries: int) -> None:
    """pyproject.toml with both the sealed-trace policy and ruff's banned-api table."""
    lines = ['[tool.sealed_trace]', 'source_roots = ["."]', ""]
    for k in range(boundaries):
        name = "seal" if k == 0 else f"seal{k}"
        lines += ["[[tool.sealed_trace.boundary]]", f'name = "{name}"',
                  f'module = "bench.kernel.{name}"', 'preset = "adr-0230"',
                  'upstream = ["bench.pkg_*"]', ""]
    lines += ["[tool.ruff.lint.flake8-tidy-imports.banned-api]"]
    for name in _banned_for_ruff():
        lines.append(f'"{name}".msg = "banned by ADR-0230 §15.2"')
    (root / "pyproject.toml").write_text("\n".join(lines) + "\n")


def _ruff() -> str:
    found = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not os.path.exists(found):
        sys.exit("ruff not found on PATH or next to the running interpreter")
    return found


def timed(argv: list[str], cwd: Path) -> tuple[float, int, int]:
    """Run ``argv``; return (wall seconds, exit status, peak RSS in kB of its process tree)."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
        "t = time.perf_counter() - t\n"
        "print(t, rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    # Installed code runs from cached bytecode: a PYTHONDONTWRITEBYTECODE left in the
    # environment would recompile the lint's own modules on every run.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    out = subprocess.run([sys.executable, "-c", probe, *argv], cwd=cwd, env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]), int(out[2])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-lint-"))
    if args.keep and base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True, exist_ok=True)
    try:
        size = generate(base, args.modules)
        print(f"tree: {args.modules} modules, {size / 1e6:.1f} MB, {os.cpu_count()} cores")
        ruff = _ruff()
        lint = [sys.executable, "-m", "sealed_trace.lint", "--exit-zero"]
        cache = base / ".sealed_trace_cache"
        results: dict[str, float] = {}
        peak = 0
        for boundaries in (1, 4):
            write_configs(base, boundaries)
            cold, warm = [], []
            for _ in range(args.repeat):
                shutil.rmtree(cache, ignore_errors=True)
                seconds, rc, rss = timed(lint, base)
                if rc != 0:
                    sys.exit(f"lint failed with status {rc}")
                cold.append(seconds)
                peak = max(peak, rss)
                seconds, _, rss = timed(lint, base)
                warm.append(seconds)
                peak = max(peak, rss)
            results[f"cold{boundaries}"] = statistics.median(cold)
            results[f"warm{boundaries}"] = statistics.median(warm)
        write_configs(base, 1)
        ruff_cmd = [ruff, "check", "--select", "TID251", "--exit-zero", "--quiet", "."]
        ruff_cold = statistics.median(
            timed([*ruff_cmd[:2], "--no-cache", *ruff_cmd[2:]], base)[0]
            for _ in range(args.repeat)
        )
        timed(ruff_cmd, base)  # fill ruff's cache
        ruff_warm = statistics.median(timed(ruff_cmd, base)[0] for _ in range(args.repeat))
        cold_ratio = results["cold1"] / ruff_cold
        warm_ratio = results["warm1"] / ruff_warm
        mb = peak / 1024
        print(f"{'':24}{'sealed-trace':>14}{'ruff TID251':>14}{'ratio':>9}{'goal':>8}")
        print(f"{'cold (no cache)':24}{results['cold1']:>13.3f}s{ruff_cold:>13.3f}s"
              f"{cold_ratio:>8.2f}x{'<= 3x':>8}")
        print(f"{'warm (nothing changed)':24}{results['warm1']:>13.3f}s{ruff_warm:>13.3f}s"
              f"{warm_ratio:>8.2f}x{'<= 1x':>8}")
        print(f"{'peak memory (lint)':24}{mb:>12.1f}MB{'':>14}{'':>9}{'<= 200':>8}")
        print(f"boundaries 1 -> 4: cold {results['cold1']:.3f}s -> {results['cold4']:.3f}s "
              f"({results['cold4'] / results['cold1']:.2f}x), warm {results['warm1']:.3f}s -> "
              f"{results['warm4']:.3f}s")
        ok = cold_ratio <= 3 and warm_ratio <= 1 and mb <= 200
        print("goals met" if ok else "GOALS NOT MET")
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
