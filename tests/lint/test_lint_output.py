"""The text report for a person (issue 9 §4): paths relative to the current directory,
``--show-source``, colour by terminal / ``NO_COLOR`` / ``FORCE_COLOR``, ``--quiet``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lint_project import Project

from sealed_trace.lint.formats.text import use_colour

_ESC = "\x1b["


def _lint(
    project: Project, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    project.write_config()
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "sealed_trace", "lint", "--no-cache", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd or project.root,
        env=environ,
    )


@pytest.fixture
def finding(project: Project) -> Project:
    project.sealed("import json\n\ndef f():\n\tvalue = 'é' ; import time\n")
    return project


def test_paths_are_relative_to_the_current_directory(finding: Project) -> None:
    where = finding.root / "src" / "pkg"
    result = _lint(finding, cwd=where)
    assert result.returncode == 1, result.stderr
    path = result.stdout.split(":", 1)[0]
    assert path == "sealed.py"
    assert (where / path).is_file()


def test_machine_formats_keep_paths_relative_to_the_project(finding: Project) -> None:
    result = _lint(finding, "--format", "json", cwd=finding.root / "src")
    paths = {f["path"] for f in json.loads(result.stdout)["findings"]}
    assert paths == {"src/pkg/sealed.py"}


def test_show_source_puts_a_caret_under_the_column(finding: Project) -> None:
    result = _lint(finding, "--show-source")
    lines = result.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if " ST102 " in line)
    column = int(lines[head].split(":")[2].split()[0])
    source, caret = lines[head + 1], lines[head + 2]
    assert source == "    \tvalue = 'é' ; import time"
    assert caret.index("^") == source.index("time")
    assert caret[4] == "\t"  # a tab in the source stays a tab under it
    assert source[4:][column - 1 :].startswith("time")


def test_no_colour_when_not_a_terminal(finding: Project) -> None:
    assert _ESC not in _lint(finding).stdout


def test_force_colour_colours_and_no_colour_wins(finding: Project) -> None:
    assert _ESC in _lint(finding, env={"FORCE_COLOR": "1"}).stdout
    assert _ESC not in _lint(finding, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout


def test_never_colour_a_report_written_to_a_file(finding: Project, tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    _lint(finding, "--output-file", str(out), env={"FORCE_COLOR": "1"})
    assert " ST102 " in out.read_text()
    assert _ESC not in out.read_text()


@pytest.mark.parametrize(
    ("tty", "env", "expected"),
    [
        (True, {}, True),
        (False, {}, False),
        (True, {"NO_COLOR": "1"}, False),
        (True, {"NO_COLOR": ""}, True),  # an empty NO_COLOR is unset (no-color.org)
        (False, {"FORCE_COLOR": "1"}, True),
        (True, {"TERM": "dumb"}, False),
    ],
)
def test_use_colour(tty: bool, env: dict[str, str], expected: bool) -> None:
    assert use_colour(tty, env) is expected


def test_quiet_prints_findings_only(finding: Project) -> None:
    loud, quiet = _lint(finding), _lint(finding, "--quiet")
    assert "finding(s) in" in loud.stderr
    assert quiet.stderr == ""
    assert quiet.stdout == loud.stdout
    assert quiet.returncode == 1


def test_a_file_outside_the_current_directory_is_shown_absolute(
    finding: Project, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = _lint(finding, "--config", str(finding.root / "pyproject.toml"), cwd=elsewhere)
    path = result.stdout.split(":", 1)[0]
    assert Path(path).is_absolute()
    assert Path(path) == (finding.root / "src/pkg/sealed.py").resolve()
