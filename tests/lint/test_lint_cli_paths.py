"""`sealed-trace lint PATH` never silently passes a path the policy does not cover, and GitHub
formats report paths relative to the enclosing repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sealed_trace.cli import main

POLICY = """
[tool.sealed_trace]
source_roots = ["src"]
exclude = ["src/pkg/skip"]
cache_dir = false

[[tool.sealed_trace.boundary]]
name = "b"
module = "pkg.sealed"
preset = "adr-0230"
upstream = ["pkg.*"]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo" / "sub"
    (root / "src" / "pkg" / "skip").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("")
    (root / "src" / "pkg" / "sealed.py").write_text("import time\ntime.time()\n")
    (root / "src" / "pkg" / "up.py").write_text("X = 1\n")
    (root / "src" / "pkg" / "skip" / "x.py").write_text("from pkg import sealed\n")
    (root / "other").mkdir()
    (root / "pyproject.toml").write_text(POLICY)
    (tmp_path / "repo" / ".git").mkdir()
    return root


@pytest.mark.parametrize(
    ("target", "why"),
    [("other", "not under a source root"), ("..", "outside the project")],
)
def test_a_path_the_policy_does_not_cover_is_a_usage_error(
    project, capsys, monkeypatch, target, why
):
    monkeypatch.chdir(project)
    assert main(["lint", "--no-cache", target]) == 2
    err = capsys.readouterr().err
    assert why in err
    assert err.count("\n") == 1


def test_an_excluded_path_is_skipped_not_an_error(project, capsys, monkeypatch):
    # a pre-commit hook hands over every staged file, excluded ones too
    monkeypatch.chdir(project)
    assert main(["lint", "--no-cache", "src/pkg/skip"]) == 0
    assert "the policy covers none of the paths given" in capsys.readouterr().err


def test_an_excluded_path_with_a_policy_of_its_own_names_that_policy(project, capsys, monkeypatch):
    """A nested project (an example, say) that the outer policy excludes: the skip message
    names the policy to use instead."""
    (project / "src" / "pkg" / "skip" / "pyproject.toml").write_text(POLICY)
    monkeypatch.chdir(project)
    assert main(["lint", "--no-cache", "src/pkg/skip/x.py"]) == 0
    err = capsys.readouterr().err
    assert "(pyproject.toml excludes them)" in err
    assert "hint: src/pkg/skip/x.py has a policy of its own: " in err
    assert err.rstrip().endswith("sealed-trace lint --config src/pkg/skip/pyproject.toml")


def test_a_covered_path_is_linted(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    assert main(["lint", "--no-cache", "src/pkg/sealed.py"]) == 1
    assert "src/pkg/sealed.py:1:8 ST102" in capsys.readouterr().out


def test_github_and_sarif_paths_are_repository_relative(project, capsys, monkeypatch):
    monkeypatch.chdir(project.parent)
    config = str(project / "pyproject.toml")
    assert main(["lint", "--no-cache", "--config", config, "--format", "github"]) == 1
    assert ",file=sub/src/pkg/sealed.py,line=1,col=8," in capsys.readouterr().out
    assert main(["lint", "--no-cache", "--config", config, "--format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert uris == {"sub/src/pkg/sealed.py"}
    assert main(["lint", "--no-cache", "--config", config]) == 1
    assert capsys.readouterr().out.startswith("sub/src/pkg/sealed.py:")  # text: from cwd
