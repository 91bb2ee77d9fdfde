"""What reports show (issue 22, output): every ST401 carries its chain, a relative dynamic
import shows the package it resolves against, the same finding of several boundaries is one
text line naming them, a selection never turns baselined findings into stale entries, and an
ignore entry covers only the boundaries it names.

The ``project`` fixture: ``src/pkg/{__init__,sealed,values}.py``, ``src/pkg/up/{__init__,a}.py``;
boundary ``sealed`` on ``pkg.sealed``, upstream ``pkg.up`` and ``pkg.up.*``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from lint_project import Project

from sealed_trace import lint
from sealed_trace.lint.config import ConfigError
from sealed_trace.lint.formats import json_format
from sealed_trace.lint.formats.text import render_text

OTHER = """
[[tool.sealed_trace.boundary]]
name = "other"
module = "pkg.values"
upstream = ["pkg.up", "pkg.up.*"]
"""


def _cli(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    config = project.write_config()
    command = [sys.executable, "-m", "sealed_trace", "lint", "--no-cache", "--config"]
    return subprocess.run(
        [*command, str(config), *args], capture_output=True, text=True, check=False
    )


def _failing(project: Project) -> set[tuple[int, str, str]]:
    """``{(line, code, boundary)}`` of the findings that fail, after the policy's filters."""
    options = lint.LintOptions(config=str(project.write_config()), use_cache=False)
    return {(f.line, f.code, f.boundary) for f in lint.lint_project(options).result.findings}


def test_every_import_of_the_sealed_module_carries_its_chain(project: Project) -> None:
    project.write("src/pkg/up/a.py", "import pkg.sealed\nimport json\nfrom pkg import sealed\n")
    document = json.loads(json_format.render(project.run(), "0"))
    assert [(f["line"], f["chains"]) for f in document["findings"]] == [
        (1, ["pkg.up.a -> pkg.sealed"]),
        (3, ["pkg.up.a -> pkg.sealed"]),
    ]


@pytest.mark.parametrize(
    ("call", "shown"),
    [
        ("importlib.import_module('.sealed', 'pkg')", "import_module('.sealed', 'pkg')"),
        ("importlib.import_module('..sealed', package='pkg.up')", "('..sealed', 'pkg.up')"),
        ("importlib.import_module('..sealed', __package__)", "('..sealed', __package__)"),
        ("importlib.import_module('pkg.sealed')", "import_module('pkg.sealed')`"),
    ],
)
def test_a_relative_dynamic_import_shows_its_package(
    project: Project, call: str, shown: str
) -> None:
    project.write("src/pkg/up/a.py", f"import importlib\n{call}\n")
    (finding,) = project.run().findings
    assert finding.code == "ST401"
    assert shown in finding.message


def test_the_same_finding_of_several_boundaries_is_one_line_naming_them(
    project: Project,
) -> None:
    project.boundary_toml += OTHER
    project.write(
        "src/pkg/up/a.py", "import importlib, sys\nimportlib.import_module(sys.argv[1])\n"
    )
    result = project.run()
    assert sorted(f.boundary for f in result.findings) == ["other", "sealed"]  # JSON keeps both
    lines = render_text(result).splitlines()
    assert len(lines) == 1
    assert lines[0].endswith("cannot be checked [other, sealed]")


def test_one_boundary_findings_name_no_boundary(project: Project) -> None:
    project.write("src/pkg/up/a.py", "import pkg.sealed\n")
    assert "[" not in render_text(project.run())


def test_a_selection_leaves_the_baseline_entries_of_other_rules_alone(project: Project) -> None:
    project.write(
        "src/pkg/up/a.py", "import importlib, sys\nimportlib.import_module(sys.argv[1])\n"
    )
    baseline = project.root / "lint-baseline.json"
    assert _cli(project, "--write-baseline", str(baseline)).returncode == 0
    project.top_toml += 'baseline = "lint-baseline.json"\n'
    for args in ((), ("--select", "ST401"), ("--ignore", "ST301"), ("--select", "ST3")):
        done = _cli(project, *args)
        assert done.returncode == 0, (args, done.stdout)
        assert "ST007" not in done.stdout
    # a baselined finding that is gone is still a stale entry when its rule runs
    project.write("src/pkg/up/a.py", "X = 1\n")
    done = _cli(project, "--select", "ST3")
    assert done.returncode == 1
    assert "ST007" in done.stdout


def test_an_ignore_entry_covers_only_the_boundaries_it_names(project: Project) -> None:
    project.boundary_toml += OTHER
    project.write("src/pkg/up/a.py", "import pkg.sealed\nimport pkg.values\n")
    project.top_toml += (
        '[[tool.sealed_trace.ignore]]\npath = "src/pkg/up/a.py"\ncodes = ["ST401"]\n'
        'boundary = "other"\nreason = "values moves out of the upstream packages"\n'
    )
    # the other boundary's import is covered, not this one's
    assert _failing(project) == {(1, "ST401", "sealed")}


def test_an_ignore_entry_for_every_boundary_says_so(project: Project) -> None:
    project.boundary_toml += OTHER
    project.write("src/pkg/up/a.py", "import pkg.sealed\nimport pkg.values\n")
    entry = (
        '[[tool.sealed_trace.ignore]]\npath = "src/pkg/up/a.py"\ncodes = ["ST401"]\n'
        'reason = "legacy"\n'
    )
    project.top_toml += entry
    with pytest.raises(ConfigError) as raised:
        project.config()
    assert "ignore[0].boundary is required with several boundaries" in str(raised.value)
    project.top_toml = project.top_toml.replace(entry, entry + 'boundary = "*"\n')
    assert _failing(project) == set()


def test_an_ignore_entry_naming_an_unknown_boundary_is_a_policy_error(project: Project) -> None:
    project.top_toml += (
        '[[tool.sealed_trace.ignore]]\npath = "src"\ncodes = ["ST401"]\n'
        'boundary = "seald"\nreason = "x"\n'
    )
    with pytest.raises(ConfigError) as raised:
        project.config()
    assert "no boundary is named 'seald'" in str(raised.value)
    assert "sealed" in str(raised.value)


def test_each_import_of_a_package_is_reported_with_its_own_label(project: Project) -> None:
    project.write(
        "src/pkg/__init__.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import sealed\n"
        "def f():\n    import pkg.sealed\n",
    )
    found = [(f.code, f.line, f.message) for f in project.run().findings]
    assert [(code, line) for code, line, _ in found] == [("ST403", 3), ("ST403", 5)]
    assert "(pkg -> pkg.sealed (under TYPE_CHECKING))" in found[0][2]
    assert "(pkg -> pkg.sealed (in a function))" in found[1][2]


def test_the_text_summary_counts_the_lines_it_shows(project: Project) -> None:
    project.boundary_toml += OTHER
    project.write(
        "src/pkg/up/a.py", "import importlib, sys\nimportlib.import_module(sys.argv[1])\n"
    )
    done = _cli(project)
    assert len(done.stdout.splitlines()) == 1
    assert "1 finding(s) (2 counting each boundary) in" in done.stderr
