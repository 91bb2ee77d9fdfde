"""The example kernel repository (issue 4, item 6) under pytest and the lint, run as a user would.

Each check runs in a subprocess from the example's own directory, so the example's
``pyproject.toml`` (ini options, ``[tool.sealed_trace]``) is the one in force, and plugin
autoload is left as the environment has it. Nothing may be written into ``examples/``:
``-p no:cacheprovider`` (no ``.pytest_cache``), ``PYTHONDONTWRITEBYTECODE`` (no
``__pycache__``), ``cache_dir = false`` in the examples' lint tables and ``--no-cache``.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "examples" / "kernel"
VIOLATIONS = ROOT / "examples" / "kernel_violations"
EXPECTED = (VIOLATIONS / "EXPECTED_FINDINGS.txt").read_text(encoding="utf-8")


def _tree(*tops: Path) -> set[str]:
    return {str(p.relative_to(ROOT)) for top in tops for p in top.rglob("*")}


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    before = _tree(KERNEL, VIOLATIONS)
    result = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert _tree(KERNEL, VIOLATIONS) == before, "the run wrote into examples/"
    return result


def _pytest(cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return _run(["-m", "pytest", "-p", "sealed_trace", "-q", "-p", "no:cacheprovider", *extra], cwd)


def _lint(example: Path) -> subprocess.CompletedProcess[str]:
    """``sealed-trace lint`` run in the example's directory (text paths are relative to the
    current directory)."""
    return _run(["-m", "sealed_trace", "lint", "--no-cache"], example)


def test_expected_findings_name_the_three_planted_violations():
    lines = EXPECTED.splitlines()
    assert lines
    assert all(line.startswith("kernel/") for line in lines)
    codes = {line.split()[1] for line in lines}
    assert {"ST401", "ST201", "ST501"} <= codes


def test_violations_tree_holds_only_what_differs_from_the_kernel():
    """Its own files are the planted modules, its findings, policy and README; every other
    file is a symbolic link to the kernel's (so a fix to the kernel is made once)."""
    own, linked = set(), {}
    # What running the tree leaves behind (git ignores it): caches, not files of the tree.
    caches = {"__pycache__", ".pytest_cache", ".sealed_trace_cache", ".hypothesis"}
    for path in VIOLATIONS.rglob("*"):
        if caches & set(path.parts) or (path.is_dir() and not path.is_symlink()):
            continue
        name = str(path.relative_to(VIOLATIONS))
        if path.is_symlink():
            linked[name] = path.resolve()
        else:
            own.add(name)
    assert own == {
        "EXPECTED_FINDINGS.txt",
        "README.md",
        "pyproject.toml",
        "kernel/gate.py",
        "kernel/sealing.py",
    }
    kernel_files = {
        str(p.relative_to(KERNEL))
        for p in KERNEL.rglob("*.py")
        if "__pycache__" not in p.parts and p.name not in ("gate.py", "sealing.py")
    }
    assert set(linked) == kernel_files
    assert all(target == (KERNEL / name).resolve() for name, target in linked.items())


@pytest.mark.parametrize("module", ["gate.py", "sealing.py"])
def test_planted_modules_are_the_kernels_plus_their_planted_lines(module):
    """Each planted module is the kernel's file with lines added, none changed or removed, so
    a fix to the kernel that misses it fails here instead of drifting."""
    kernel = (KERNEL / "kernel" / module).read_text(encoding="utf-8").splitlines()
    planted = (VIOLATIONS / "kernel" / module).read_text(encoding="utf-8").splitlines()
    blocks = difflib.SequenceMatcher(None, kernel, planted, autojunk=False).get_opcodes()
    changes = [(tag, planted[j1:j2]) for tag, _, _, j1, j2 in blocks if tag != "equal"]
    assert changes
    assert {tag for tag, _ in changes} == {"insert"}, changes
    for _, lines in changes:
        text = "\n".join(lines)
        assert "PLANTED VIOLATION" in text or all(
            not line or line.startswith(("from ", "import ")) for line in lines
        ), text


def test_example_kernel_suite_is_green_with_its_lint_items():
    result = _pytest(KERNEL, "-rA")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASSED pyproject.toml::kernel-sealing" in result.stdout


def test_example_kernel_runs_without_the_plugin():
    """``-p no:sealed_trace`` just disables the plugin: no lint items, the tests that need its
    fixtures or markers skipped, the rest passing, and no warning (``-W error``)."""
    args = ["-m", "pytest", "-p", "no:sealed_trace", "-p", "no:cacheprovider", "-W", "error"]
    result = _run([*args, "-q", "-rs"], KERNEL)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "pyproject.toml::" not in result.stdout
    assert "needs the sealed_trace plugin, which is not loaded" in result.stdout
    assert " passed" in result.stdout
    assert "warning" not in result.stdout


@pytest.mark.skipif(importlib.util.find_spec("xdist") is None, reason="needs pytest-xdist")
def test_example_kernel_suite_is_green_under_xdist():
    load = ["-p", "xdist.plugin"] if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") else []
    result = _pytest(KERNEL, *load, "-n", "2")
    assert result.returncode == 0, result.stdout + result.stderr


def test_violations_suite_fails_showing_every_expected_finding():
    result = _pytest(VIOLATIONS)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAILED pyproject.toml::kernel-sealing" in result.stdout
    for line in EXPECTED.splitlines():
        assert line in result.stdout
    # The README lists every failure of this run, and every finding behind them.
    failed = {
        line.removeprefix("FAILED ").split(" - ")[0]
        for line in result.stdout.splitlines()
        if line.startswith("FAILED ")
    }
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = {
        line.removeprefix("# FAILED examples/kernel_violations/")
        for line in readme.splitlines()
        if line.startswith("# FAILED examples/kernel_violations/")
    }
    assert listed == failed
    assert f"# {len(failed)} failed" in readme
    for line in EXPECTED.splitlines():
        assert f"\n{line}\n" in readme


def test_lint_cli_is_clean_on_the_example_kernel():
    result = _lint(KERNEL)
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr.startswith("no findings in "), result.stderr


def test_lint_cli_reports_exactly_the_expected_findings():
    result = _lint(VIOLATIONS)
    assert result.returncode == 1, result.stderr
    assert result.stdout == EXPECTED
    assert result.stderr.startswith(f"{len(EXPECTED.splitlines())} finding(s)")
