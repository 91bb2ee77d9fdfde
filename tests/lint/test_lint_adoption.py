"""Adopting the lint on a legacy codebase (issue 9 §2-§4): a baseline, config-level ignores
with reasons, rule selection; none of them can make the lint silently inert."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lint_project import Project

from sealed_trace.lint.config import ConfigError


def _cli(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    config = project.write_config()
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sealed_trace",
            "lint",
            "--no-cache",
            "--config",
            str(config),
            *args,
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=project.root,
    )


def _codes(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line.split()[1] for line in result.stdout.splitlines() if line.strip()]


@pytest.fixture
def legacy(project: Project) -> Project:
    project.sealed("import time\nimport os\n")
    project.write("src/pkg/up/a.py", "import pkg.sealed\n")
    return project


def test_a_baseline_records_todays_findings_and_only_new_ones_fail(legacy: Project) -> None:
    baseline = legacy.root / "lint-baseline.json"
    written = _cli(legacy, "--write-baseline", str(baseline))
    assert written.returncode == 0, written.stderr
    assert "wrote 3 finding(s)" in written.stderr
    entries = json.loads(baseline.read_text())["findings"]
    assert sorted(e["code"] for e in entries) == ["ST102", "ST102", "ST401"]
    legacy.top_toml += 'baseline = "lint-baseline.json"\n'
    assert _cli(legacy).returncode == 0
    # moving the code does not revive a baselined finding; a new finding fails
    legacy.sealed("\n\nimport time\nimport os\nimport socket\n")
    result = _cli(legacy)
    assert result.returncode == 1
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["ST102"]
    assert "socket" in result.stdout


def test_the_summary_counts_what_the_baseline_hides(legacy: Project) -> None:
    baseline = legacy.root / "lint-baseline.json"
    first = _cli(legacy, "--write-baseline", str(baseline))
    assert 'set baseline = "lint-baseline.json" in [tool.sealed_trace]' in first.stderr
    legacy.top_toml += 'baseline = "lint-baseline.json"\n'
    result = _cli(legacy)
    assert result.returncode == 0
    assert result.stderr.startswith("no findings in ")
    assert "(3 more hidden by the baseline, ignore entries or rule selection)" in result.stderr
    again = _cli(legacy, "--write-baseline", str(baseline))
    assert "wrote 3 finding(s)" in again.stderr
    assert "the policy's baseline" in again.stderr
    assert "set baseline" not in again.stderr


def test_a_baseline_entry_that_matches_nothing_is_reported(legacy: Project) -> None:
    baseline = legacy.root / "lint-baseline.json"
    _cli(legacy, "--write-baseline", str(baseline))
    legacy.top_toml += 'baseline = "lint-baseline.json"\n'
    legacy.sealed("import time\n")  # os fixed
    result = _cli(legacy)
    assert result.returncode == 1
    (line,) = result.stdout.splitlines()
    assert line.startswith("lint-baseline.json:")
    assert " ST007 baseline entry " in line


def test_a_baseline_that_is_not_one_is_a_usage_error(legacy: Project) -> None:
    (legacy.root / "b.json").write_text("{}")
    legacy.top_toml += 'baseline = "b.json"\n'
    result = _cli(legacy)
    assert result.returncode == 2
    assert "not a sealed-trace baseline" in result.stderr


def test_ignores_need_a_reason_and_report_when_they_ignore_nothing(legacy: Project) -> None:
    legacy.top_toml += (
        '[[tool.sealed_trace.ignore]]\npath = "src/pkg/sealed.py"\n'
        'codes = ["ST102"]\nreason = "legacy imports, ADR-0231 removes them"\n'
        '[[tool.sealed_trace.ignore]]\npath = "src/other/*.py"\n'
        'codes = ["banned-call"]\nreason = "never used"\n'
    )
    result = _cli(legacy)
    assert _codes(result) == ["ST008", "ST401"]
    assert "ignore[1] (banned-call in src/other/*.py) ignores nothing" in result.stdout
    line = int(result.stdout.splitlines()[0].split(":")[1])
    text = (legacy.root / "pyproject.toml").read_text().splitlines()
    assert text[line - 1] == "[[tool.sealed_trace.ignore]]"


def test_an_ignore_without_reason_is_a_config_error(project: Project) -> None:
    project.top_toml += '[[tool.sealed_trace.ignore]]\npath = "src/*"\ncodes = ["ST1"]\n'
    with pytest.raises(ConfigError, match=r"ignore\[0\]\.reason is required"):
        project.config()


def test_select_and_ignore_take_codes_prefixes_and_names(legacy: Project) -> None:
    assert _codes(_cli(legacy, "--select", "ST4")) == ["ST401"]
    assert _codes(_cli(legacy, "--select", "banned-import")) == ["ST102", "ST102"]
    assert _codes(_cli(legacy, "--ignore", "ST102,ST401")) == []
    legacy.top_toml += 'deselect = ["reverse-import"]\n'
    assert _codes(_cli(legacy)) == ["ST102", "ST102"]


def test_an_unknown_selector_is_an_error_with_a_suggestion(legacy: Project) -> None:
    result = _cli(legacy, "--select", "ST999")
    assert result.returncode == 2
    assert "names no lint rule" in result.stderr
    legacy.top_toml += 'select = ["banned-cal"]\n'
    with pytest.raises(ConfigError, match="did you mean 'banned-call'"):
        legacy.config()


def test_nothing_hides_a_file_the_lint_cannot_read(legacy: Project) -> None:
    legacy.write("src/pkg/broken.py", b"\x00")
    legacy.top_toml += (
        'select = ["ST4"]\n[[tool.sealed_trace.ignore]]\npath = "src/*"\n'
        'codes = ["ST"]\nreason = "all of it"\n'
    )
    assert "ST001" in _codes(_cli(legacy))


def test_the_baseline_works_under_pytest(legacy: Project, pytester: pytest.Pytester) -> None:
    baseline = legacy.root / "lint-baseline.json"
    _cli(legacy, "--write-baseline", str(baseline))
    legacy.top_toml += 'baseline = "lint-baseline.json"\n'
    config = legacy.write_config()
    result = pytester.runpytest(
        "-p",
        "sealed_trace",
        "--sealed-trace-lint",
        "--sealed-trace-config",
        str(config),
        "-p",
        "no:cacheprovider",
        str(Path(config)),
    )
    result.assert_outcomes(passed=1)


def test_a_stale_baseline_entry_under_pytest_says_how_to_rewrite_it(
    legacy: Project, pytester: pytest.Pytester
) -> None:
    baseline = legacy.root / "lint-baseline.json"
    _cli(legacy, "--write-baseline", str(baseline))
    legacy.top_toml += 'baseline = "lint-baseline.json"\n'
    legacy.sealed("import time\n")  # os fixed: its entry matches nothing
    config = legacy.write_config()
    result = pytester.runpytest(
        "-p",
        "sealed_trace",
        "--sealed-trace-lint",
        "--sealed-trace-config",
        str(config),
        "-p",
        "no:cacheprovider",
        str(Path(config)),
    )
    out = result.stdout.str()
    assert "ST007" in out
    assert "rewrite the baseline (ST007): sealed-trace lint --write-baseline" in out
    assert "cannot be suppressed" not in out
