"""The ``lint`` command: formats, exit statuses, user errors as one line, no traceback."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lint_project import Project

from sealed_trace.lint.cli import add_lint_parser, run_lint


def _cli(project: Project, *argv: str) -> tuple[int, str, str]:
    """Run ``sealed-trace lint`` through an argparse parser of our own (as cli.py will)."""
    parser = argparse.ArgumentParser(prog="sealed-trace")
    sub = parser.add_subparsers(dest="command", required=True)
    add_lint_parser(sub)
    config = project.write_config()
    args = parser.parse_args(["lint", "--config", str(config), "--no-cache", *argv])
    here = os.getcwd()
    os.chdir(project.root)  # where a user runs it: text paths are relative to it
    try:
        out, err = _capture(lambda: run_lint(args))
    finally:
        os.chdir(here)
    return out[0], out[1], err


def _capture(fn):  # type: ignore[no-untyped-def]
    import contextlib
    import io

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = fn()
    return (code, stdout.getvalue()), stderr.getvalue()


@pytest.fixture
def dirty(project: Project) -> Project:
    project.write("src/pkg/sealed.py", "import os\nx = os.environ\n")
    project.write("src/pkg/up/a.py", "from pkg import sealed\n")
    return project


def test_clean_exit_zero(project: Project) -> None:
    code, out, err = _cli(project)
    assert (code, out) == (0, "")
    assert "Traceback" not in err


def test_text_format(dirty: Project) -> None:
    code, out, _ = _cli(dirty)
    assert code == 1
    assert out.splitlines() == [
        "src/pkg/sealed.py:1:8 ST102 `import os` imports a banned name",
        "src/pkg/sealed.py:2:5 ST202 reference to banned os.environ",
        "src/pkg/up/a.py:1:17 ST401 upstream module pkg.up.a imports sealed module pkg.sealed "
        "(`from pkg import sealed`)",
    ]


def test_exit_zero_flag(dirty: Project) -> None:
    assert _cli(dirty, "--exit-zero")[0] == 0


def test_json_format(dirty: Project) -> None:
    code, out, _ = _cli(dirty, "--format", "json")
    document = json.loads(out)
    assert code == 1
    assert document["schema_version"] == "sealed_trace.lint.v1"
    first = document["findings"][0]
    assert set(first) >= {"id", "path", "line", "column", "code", "rule", "message"}
    assert first["rule"] == "banned-import"
    assert len({f["id"] for f in document["findings"]}) == len(document["findings"])
    again = json.loads(_cli(dirty, "--format", "json")[1])
    assert again == document  # stable ids across runs


def test_json_ids_survive_line_moves_in_fingerprint(dirty: Project) -> None:
    before = json.loads(_cli(dirty, "--format", "json")[1])["findings"]
    dirty.write("src/pkg/sealed.py", "y = 0\n\nimport os\nx = os.environ\n")
    after = json.loads(_cli(dirty, "--format", "json")[1])["findings"]
    assert [f["fingerprint"] for f in before] == [f["fingerprint"] for f in after]
    assert [f["id"] for f in before] != [f["id"] for f in after]


def test_sarif_format(dirty: Project) -> None:
    code, out, _ = _cli(dirty, "--format", "sarif")
    log = json.loads(out)
    assert code == 1
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert {"ST001", "ST101", "ST201", "ST401", "ST501"} <= set(ids)
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert not location["artifactLocation"]["uri"].startswith("/")
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert location["region"]["startLine"] >= 1
        assert result["partialFingerprints"]["sealedTrace/v1"]


def test_github_format(dirty: Project) -> None:
    code, out, _ = _cli(dirty, "--format", "github")
    lines = out.splitlines()
    assert code == 1
    assert lines[0] == (
        "::error title=sealed-trace (ST102),file=src/pkg/sealed.py,line=1,col=8,endLine=1,"
        "endColumn=8::ST102 banned-import: `import os` imports a banned name"
    )


def test_output_file(dirty: Project, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    code, out, _ = _cli(dirty, "--format", "json", "--output-file", str(target))
    assert (code, out) == (1, "")
    assert json.loads(target.read_text(encoding="utf-8"))["findings"]


def test_output_file_unwritable(dirty: Project, tmp_path: Path) -> None:
    code, _, err = _cli(dirty, "--output-file", str(tmp_path))
    assert code == 2
    assert err.count("\n") == 1
    assert "cannot write" in err


def test_paths_limit_report(dirty: Project) -> None:
    code, out, _ = _cli(dirty, str(dirty.root / "src/pkg/up"))
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines()] == ["src/pkg/up/a.py"]


def test_missing_path_is_usage_error(project: Project) -> None:
    code, _, err = _cli(project, str(project.root / "nope.py"))
    assert code == 2
    assert err.startswith("sealed-trace lint: ")
    assert "no such file" in err


def test_config_error_is_exit_2_one_line_per_problem(project: Project) -> None:
    project.top_toml += "bogus = 1\n"
    code, _, err = _cli(project)
    assert code == 2
    # the policy: [tool.sealed_trace], source_roots, cache_dir, then the bad key on line 4
    assert err.splitlines() == [
        f"sealed-trace lint: {project.root / 'pyproject.toml'}:4: unknown key 'bogus'"
    ]
    assert "Traceback" not in err


def test_bad_format_is_usage_error(project: Project) -> None:
    project.write_config()
    result = subprocess.run(
        [sys.executable, "-m", "sealed_trace.lint", "--format", "xml"],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_module_entry_point_finds_config_upward(dirty: Project) -> None:
    dirty.write_config()
    result = subprocess.run(
        [sys.executable, "-m", "sealed_trace.lint", "--no-cache", "--format", "json"],
        cwd=dirty.root / "src",
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert len(json.loads(result.stdout)["findings"]) == 3


def test_no_config_anywhere(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sealed_trace.lint"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "no pyproject.toml with a [tool.sealed_trace] table" in result.stderr


def test_every_rule_has_a_section_in_the_docs_that_its_anchor_names() -> None:
    import re

    from sealed_trace.lint.catalog import BUILTIN_RULES, help_anchor

    docs = (Path(__file__).resolve().parents[2] / "docs" / "lint.md").read_text()
    headings = set(re.findall(r"^### (ST\d{3}) ([a-z-]+)$", docs, re.MULTILINE))
    assert headings == {(info.code, info.name) for info in BUILTIN_RULES}
    for info in BUILTIN_RULES:  # GitHub's slug of "ST201 banned-call" is "st201-banned-call"
        assert help_anchor(info) == f"{info.code} {info.name}".lower().replace(" ", "-")


def test_sarif_links_each_rule_to_its_section_when_the_docs_have_a_home(
    dirty: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sealed_trace.lint import catalog
    from sealed_trace.lint.cli import main as lint_main

    monkeypatch.setattr(catalog, "docs_url", lambda: "https://docs.example/sealed/lint.md")
    config = dirty.write_config()
    assert lint_main(["--no-cache", "--config", str(config), "--format", "sarif"]) == 1
    driver = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://docs.example/sealed/lint.md"
    by_id = {rule["id"]: rule for rule in driver["rules"]}
    assert by_id["ST201"]["helpUri"] == "https://docs.example/sealed/lint.md#st201-banned-call"


def test_sarif_has_no_help_links_that_lead_nowhere(
    dirty: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sealed_trace.lint import catalog
    from sealed_trace.lint.cli import main as lint_main

    monkeypatch.setattr(catalog, "docs_url", lambda: None)
    config = dirty.write_config()
    assert lint_main(["--no-cache", "--config", str(config), "--format", "sarif"]) == 1
    driver = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver
    assert all("helpUri" not in rule for rule in driver["rules"])
