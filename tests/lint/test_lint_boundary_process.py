"""The sealed modules' libcst pass on a process pool (a command-line run): the same
findings as in process, and a parser crash there is ST001 on the file, never a silent pass."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lint_project import Project

#: Makes every worker process of the libcst pass die at start, as a crash of the native parser
#: would.
CRASHING_SITE = """
import os, sys
if "spawn_main" in " ".join(getattr(sys, "orig_argv", sys.argv)):
    os._exit(3)
"""


def _cli(project: Project, extra_path: str = "") -> subprocess.CompletedProcess[str]:
    config = project.write_config()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    repo = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (extra_path, repo) if p)
    return subprocess.run(
        [sys.executable, "-m", "sealed_trace", "lint", "--no-cache", "--config", str(config)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=project.root,
    )


def test_a_command_line_run_finds_what_an_in_process_run_finds(project: Project) -> None:
    project.write("src/pkg/sealed.py", "import time\nclass T:\n    answer: int\n")
    project.write("src/pkg/up/a.py", "from pkg import sealed\n")
    expected = sorted(f"{f.path}:{f.line}:{f.column} {f.code}" for f in project.run().findings)
    result = _cli(project)
    assert result.returncode == 1, result.stderr
    found = sorted(" ".join(line.split(" ")[:2]) for line in result.stdout.splitlines())
    assert found == expected
    assert len(expected) == 3


def test_a_parser_crash_is_reported_on_the_file(project: Project, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CRASHING_SITE, encoding="utf-8")
    project.boundary_toml += """
[[tool.sealed_trace.boundary]]
name = "second"
module = "pkg.values"
upstream = ["pkg.up.*"]
"""
    result = _cli(project, str(site))
    lines = [line for line in result.stdout.splitlines() if " ST001 " in line]
    assert result.returncode == 1, result.stderr
    assert sorted(line.split(" ")[0] for line in lines) == [
        "src/pkg/sealed.py:1:1",
        "src/pkg/values.py:1:1",
    ]
    assert all(
        "ST001 the parser crashed on this file (its process ended)" in line for line in lines
    )


#: Makes the pool unable to start its workers, as a reloaded pool module or a sandbox does.
UNSTARTABLE_POOL = """
import pickle
import concurrent.futures

class _Unstartable:
    def __init__(self, *args, **kwargs):
        pass

    def submit(self, *args, **kwargs):
        raise pickle.PicklingError("the worker function cannot be pickled")

    def shutdown(self, *args, **kwargs):
        pass

concurrent.futures.ProcessPoolExecutor = _Unstartable
"""


def test_a_pool_that_cannot_start_parses_in_process(project: Project, tmp_path: Path) -> None:
    """A pool whose workers cannot start is no internal error: the sealed modules are
    parsed in process, with the same findings."""
    project.write("src/pkg/sealed.py", "import time\nclass T:\n    answer: int\n")
    project.write("src/pkg/up/a.py", "from pkg import sealed\n")
    expected = sorted(f"{f.path}:{f.line}:{f.column} {f.code}" for f in project.run().findings)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(UNSTARTABLE_POOL, encoding="utf-8")
    done = _cli(project, str(site))
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr
    found = sorted(
        line.split(" ")[0] + " " + line.split(" ")[1]
        for line in done.stdout.splitlines()
        if " ST" in line
    )
    assert found == expected
