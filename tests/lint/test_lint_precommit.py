"""The shipped pre-commit hook, driven by the real pre-commit in a scratch git repository
(issue 9 §7): ``pre-commit run --all-files`` and any staged subset, excluded files included."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pre_commit")
REPO = Path(__file__).resolve().parents[2]
if shutil.which("git") is None or not (REPO / ".git").exists():
    pytest.skip("needs git and this project's own git checkout", allow_module_level=True)

POLICY = """
[tool.sealed_trace]
source_roots = ["src"]
exclude = ["src/pkg/legacy"]
cache_dir = false

[[tool.sealed_trace.boundary]]
name = "sealed"
module = "pkg.sealed"
preset = "adr-0230"
upstream = ["pkg.up", "pkg.up.*"]
"""


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("precommit")
    rev = _git(REPO, "rev-parse", "HEAD")
    files = {
        "pyproject.toml": POLICY,
        "src/pkg/__init__.py": "",
        "src/pkg/sealed.py": "import json\n",
        "src/pkg/up/__init__.py": "",
        "src/pkg/up/a.py": "X = 1\n",
        "src/pkg/legacy/__init__.py": "",
        "src/pkg/legacy/old.py": "import pkg.sealed\n",
        "tests/test_it.py": "def test_it():\n    pass\n",
        ".pre-commit-config.yaml": (
            f"repos:\n  - repo: {REPO}\n    rev: {rev}\n    hooks:\n      - id: sealed-trace-lint\n"
        ),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "-c", "user.email=t@example.org", "-c", "user.name=t", "add", ".")
    _git(root, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "init")
    return root


def _pre_commit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(root.parent / "pre-commit-home")}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_all_files_passes_on_a_clean_tree(scratch: Path) -> None:
    result = _pre_commit(scratch, "--all-files")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_staged_excluded_file_is_skipped(scratch: Path) -> None:
    result = _pre_commit(scratch, "--files", "src/pkg/legacy/old.py", "tests/test_it.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_violation_fails_the_hook_with_its_finding(scratch: Path) -> None:
    (scratch / "src/pkg/up/a.py").write_text("import pkg.sealed\n", encoding="utf-8")
    try:
        result = _pre_commit(scratch, "--files", "src/pkg/up/a.py")
        assert result.returncode == 1
        assert "src/pkg/up/a.py:1:8 ST401" in result.stdout
    finally:
        (scratch / "src/pkg/up/a.py").write_text("X = 1\n", encoding="utf-8")
