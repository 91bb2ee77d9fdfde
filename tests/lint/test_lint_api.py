"""The lint's public API (``sealed_trace.lint``): one use case, ``lint_project``."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lint_project import Project

from sealed_trace import lint

ROOT = Path(__file__).resolve().parents[2]


def test_every_public_name_resolves_and_names_no_private_module() -> None:
    assert set(lint.__all__) == set(lint._HOME)  # each exported name has one home module
    for name in lint.__all__:
        value = getattr(lint, name)
        assert getattr(value, "__module__", "sealed_trace.lint").startswith("sealed_trace.lint")
    with pytest.raises(AttributeError, match="no attribute 'engine_internals'"):
        lint.engine_internals  # noqa: B018


def test_importing_the_package_loads_none_of_its_modules() -> None:
    probe = (
        "import json, sys, sealed_trace.lint\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('sealed_trace.lint.'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout) == []


def test_the_example_of_the_docs_runs_as_written(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (ROOT / "docs" / "lint.md").read_text("utf-8")
    section = text[text.index("## The Python API") :]
    example = re.search(r"```python\n(.*?)```", section, re.S)
    assert example is not None
    project.write("src/pkg/sealed.py", "import time\n")
    project.write_config()
    monkeypatch.chdir(project.root)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example.group(1), "docs/lint.md", "exec"), {})
    assert out.getvalue().splitlines() == [
        "src/pkg/sealed.py 1 ST102 `import time` imports a banned name"
    ]


def test_a_run_keeps_what_the_policy_filters_hide(project: Project) -> None:
    project.write("src/pkg/sealed.py", "import time\nimport random\n")
    project.top_toml += 'deselect = ["ST102"]\n'
    run = lint.lint_project(lint.LintOptions(config=str(project.write_config()), use_cache=False))
    assert run.findings == ()
    assert sorted(f.code for f in run.found) == ["ST102", "ST102"]
    assert run.hidden == 2


def test_errors_are_worded_one_way(project: Project) -> None:
    project.top_toml += "bogus = 1\n"
    with pytest.raises(lint.ConfigError) as caught:
        lint.lint_project(lint.LintOptions(config=str(project.write_config())))
    lines = lint.error_lines(caught.value)
    assert lines == [f"sealed-trace lint: {project.root / 'pyproject.toml'}:4: unknown key 'bogus'"]
    project.top_toml = 'source_roots = ["src"]\ncache_dir = false\n'
    options = lint.LintOptions(config=str(project.write_config()), select=("ST999x",))
    with pytest.raises(lint.LintUsageError) as usage:
        lint.lint_project(options)
    assert lint.error_lines(usage.value) == [
        "sealed-trace lint: --select ST999x: names no lint rule (see sealed-trace rules)"
    ]
    assert isinstance(usage.value, lint.LintError)
