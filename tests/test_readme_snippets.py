"""The README's Python snippets run as written (issue 11 §5): the usage example as a script,
the fixture examples as a test file under the plugin, the marker examples against the example
kernel."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(), re.S | re.M)


def _block(marker: str) -> str:
    (found,) = [b for b in BLOCKS if marker in b]
    return found


def test_the_readme_has_the_three_snippets() -> None:
    assert len(BLOCKS) == 3


def test_the_usage_example_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _block("build_episode(")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("sealed_candidate_replay_closed ")


def test_the_fixture_examples_pass_under_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_readme=_block("sealed_trace_episodes"))
    result = pytester.runpytest("-p", "sealed_trace", "-p", "no:cacheprovider", "-rA")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0, result.stdout.str()
    assert outcomes.get("errors", 0) == 0, result.stdout.str()
    assert outcomes["passed"] >= 3
    for name in (
        "test_the_gate_digests_the_fixture_residuals",
        "test_custom_word_problem",
        "test_every_refusal_kind",
    ):
        assert f"PASSED test_readme.py::{name}" in result.stdout.str()


def test_the_marker_examples_pass_on_the_example_kernel(tmp_path: Path) -> None:
    kernel = ROOT / "examples" / "kernel"
    test = tmp_path / "test_readme_markers.py"
    test.write_text(_block("sealed_trace_forbid_imports"), encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "sealed_trace",
            "-p",
            "no:cacheprovider",
            "-rA",
            "--rootdir",
            str(kernel),
            "-c",
            str(kernel / "pyproject.toml"),
            str(test),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=kernel,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    passed = {
        line.rpartition("::")[2]
        for line in result.stdout.splitlines()
        if line.startswith("PASSED ")
    }
    assert passed == {
        "test_sealing_import_surface",
        "test_no_answer_fields",
        "test_nothing_upstream_imports_sealing",
    }
