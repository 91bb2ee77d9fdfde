"""One finding per root cause (issue 17 §3-§4): a reverse dependency is reported once, at the
import that causes it, naming how many other upstream modules it makes reach the sealed module
(JSON and SARIF carry the shortest chain of each); fingerprints do not change with unrelated
edits; ST404 counts whole modules, once per banned module; ST104 is per import site.

The ``project`` fixture: ``src/pkg/{__init__,sealed,values}.py``, ``src/pkg/up/{__init__,a}.py``;
boundary ``pkg.sealed`` (preset adr-0230, allowed ``pkg.values``), upstream ``pkg.up`` and
``pkg.up.*``.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from lint_project import Project

from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.formats import json_format, sarif


def _plant(project: Project) -> None:
    """One reverse import in pkg.up.a; four other upstream modules reach it through a."""
    project.write("src/pkg/up/a.py", "X = 1\nfrom pkg import sealed\n")
    project.write("src/pkg/up/b.py", "from pkg.up import a\n")
    project.write("src/pkg/up/c.py", "import pkg.up.b\n")
    project.write("src/pkg/up/d.py", "def f():\n    import pkg.up.c\n")
    project.write("src/pkg/helper.py", "import pkg.up.a\n")
    project.write("src/pkg/up/e.py", "import pkg.helper\n")


def test_one_reverse_import_is_one_finding_naming_what_it_affects(project: Project) -> None:
    _plant(project)
    (finding,) = project.run().findings
    assert (finding.path, finding.code, finding.line) == ("src/pkg/up/a.py", "ST401", 2)
    assert finding.message == (
        "upstream module pkg.up.a imports sealed module pkg.sealed (`from pkg import sealed`); "
        "4 other upstream modules reach it through this import"
    )
    assert finding.chains == (
        "pkg.up.a -> pkg.sealed",
        "pkg.up.b -> pkg.up.a -> pkg.sealed",
        "pkg.up.c -> pkg.up.b -> pkg.up.a -> pkg.sealed",
        "pkg.up.d -> pkg.up.c (in a function) -> pkg.up.b -> pkg.up.a -> pkg.sealed",
        "pkg.up.e -> pkg.helper -> pkg.up.a -> pkg.sealed",
    )


def test_json_and_sarif_carry_the_chain_of_each_affected_module(project: Project) -> None:
    _plant(project)
    result = project.run()
    document = json.loads(json_format.render(result, "0"))
    (entry,) = document["findings"]
    assert len(entry["chains"]) == 5
    log = json.loads(sarif.render(result, "0"))
    (sarif_result,) = log["runs"][0]["results"]
    assert sarif_result["properties"]["chains"] == entry["chains"]


def test_a_helper_is_the_cause_of_the_upstream_modules_behind_it(project: Project) -> None:
    project.write("src/pkg/helper.py", "import pkg.sealed\n")
    project.write("src/pkg/up/a.py", "import pkg.helper\n")
    project.write("src/pkg/up/b.py", "import pkg.up.a\n")
    (finding,) = project.run().findings
    assert (finding.path, finding.code) == ("src/pkg/helper.py", "ST402")
    assert finding.message.endswith(
        "upstream modules pkg.up.a, pkg.up.b reach it through this import"
    )
    assert finding.chains == (
        "pkg.helper -> pkg.sealed",
        "pkg.up.a -> pkg.helper -> pkg.sealed",
        "pkg.up.b -> pkg.up.a -> pkg.helper -> pkg.sealed",
    )


def test_a_run_on_some_files_reports_on_the_nearest_one_of_them(project: Project) -> None:
    # pre-commit lints the files that changed: an upstream module that newly imports the
    # helper is reported itself when the helper is not among them
    project.write("src/pkg/helper.py", "import pkg.sealed\n")
    project.write("src/pkg/up/a.py", "import json\nimport pkg.helper\n")
    (finding,) = project.run(paths=["src/pkg/up/a.py"]).findings
    assert (finding.path, finding.code, finding.line) == ("src/pkg/up/a.py", "ST402", 2)
    assert "pkg.up.a -> pkg.helper -> pkg.sealed" in finding.message


def test_two_independent_causes_are_two_findings(project: Project) -> None:
    project.write("src/pkg/up/a.py", "import pkg.sealed\n")
    project.write("src/pkg/up/b.py", "from pkg import sealed\n")
    found = sorted((f.path, f.code) for f in project.run().findings)
    assert found == [("src/pkg/up/a.py", "ST401"), ("src/pkg/up/b.py", "ST401")]


def test_a_package_that_runs_first_is_the_cause_of_its_upstream_modules(project: Project) -> None:
    project.write("src/pkg/up/__init__.py", "")
    project.write("src/pkg/mid/__init__.py", "from pkg import sealed\n")
    project.write("src/pkg/mid/up.py", "X = 1\n")
    project.boundary_toml = project.boundary_toml.replace(
        'upstream = ["pkg.up", "pkg.up.*"]', 'upstream = ["pkg.mid.up", "pkg.up.*"]'
    )
    project.write("src/pkg/up/a.py", "import pkg.mid.up\n")
    (finding,) = project.run().findings
    assert (finding.path, finding.code) == ("src/pkg/mid/__init__.py", "ST403")
    assert "importing upstream modules pkg.mid.up, pkg.up.a runs it first" in finding.message
    assert finding.chains == (
        "pkg.mid -> pkg.sealed",
        "pkg.mid.up -> pkg.mid -> pkg.sealed",
        "pkg.up.a -> pkg.mid -> pkg.sealed",
    )


def _fingerprints(result: LintResult) -> set[str]:
    return {f.fingerprint() for f in result.findings}


def test_fingerprints_do_not_change_with_a_shorter_chain_elsewhere(project: Project) -> None:
    project.write("src/pkg/x.py", "import pkg.y\n")
    project.write("src/pkg/y.py", "import pkg.z\n")
    project.write("src/pkg/z.py", "import pkg.sealed\n")
    project.write("src/pkg/up/a.py", "import pkg.x\n")
    before = project.run(paths=["src/pkg/up/a.py"])
    project.write("src/pkg/y.py", "import pkg.sealed\n")  # the chain is shorter now
    after = project.run(paths=["src/pkg/up/a.py"])
    assert [f.message for f in before.findings] != [f.message for f in after.findings]
    assert _fingerprints(before) == _fingerprints(after)


def test_a_computed_import_reached_from_upstream_names_no_upstream_module(
    project: Project,
) -> None:
    project.write(
        "src/pkg/lazy.py", "import importlib\ndef load(n):\n    importlib.import_module(n)\n"
    )
    project.write("src/pkg/up/a.py", "import pkg.lazy\n")
    (finding,) = project.run().findings
    project.write("src/pkg/up/b.py", "import pkg.lazy\n")  # an unrelated second loader
    (again,) = project.run().findings
    assert finding.message == again.message
    assert finding.message.endswith("(an upstream module loads this module)")
    assert finding.chains == ("pkg.up.a -> pkg.lazy",)


# -- ST404: whole modules, once per banned module ---------------------------------------------
def _closure(project: Project, values: str) -> list[str]:
    project.boundary_toml += "closure = true\n"
    project.write("src/pkg/sealed.py", "from pkg import values\n")
    project.write("src/pkg/values.py", values)
    return [f.message for f in project.run().findings if f.code == "ST404"]


def test_names_from_one_statement_are_one_finding_for_their_module(project: Project) -> None:
    messages = _closure(project, "from datetime import datetime, timezone\n")
    assert messages == [
        "importing sealed module pkg.sealed loads banned datetime: pkg.sealed -> pkg.values -> "
        "datetime"
    ]


def test_a_class_of_an_allowed_module_is_no_module_loaded(project: Project) -> None:
    assert _closure(project, "from types import FunctionType\nfrom typing import Any\n") == []


def test_a_banned_submodule_taken_by_name_is_a_module_loaded(project: Project) -> None:
    messages = _closure(project, "from xml.etree import ElementTree\nfrom os import path\n")
    assert [m.split(" loads ")[1].split(":")[0] for m in messages] == ["banned os"]
    project.boundary_toml += 'banned = ["xml.etree.ElementTree"]\n'
    messages = [f.message for f in project.run().findings if f.code == "ST404"]
    assert sorted(m.split(" loads ")[1].split(":")[0] for m in messages) == [
        "banned os",
        "banned xml.etree.ElementTree",
    ]


# -- ST104: per import site ------------------------------------------------------------------
def test_each_import_of_a_producer_is_a_finding(project: Project) -> None:
    project.write("src/pkg/values.py", "def run():\n    return 1\n")
    project.write(
        "src/pkg/sealed.py",
        "from pkg.values import run\n\n"
        "def f():\n    from pkg.values import run\n    return run()\n",
    )
    found = [(f.line, f.code) for f in project.run().findings if f.code == "ST104"]
    assert found == [(1, "ST104"), (4, "ST104")]
    project.write(
        "src/pkg/sealed.py",
        "from pkg.values import run  # sealed-trace: ignore[ST104] -- reviewed\n\n"
        "def f():\n    from pkg.values import run\n    return run()\n",
    )
    assert [(f.line, f.code) for f in project.run().findings] == [(4, "ST104")]


def test_without_every_chain_a_finding_carries_its_own_chain_and_parses_less(
    project: Project,
) -> None:
    _plant(project)
    parsed: list[str] = []
    config = project.config()
    from sealed_trace.lint.engine import lint

    (finding,) = lint(config, use_cache=False, on_parse=parsed.append, every_chain=False).findings
    assert finding.message == (
        "upstream module pkg.up.a imports sealed module pkg.sealed (`from pkg import sealed`); "
        "4 other upstream modules reach it through this import"
    )
    assert finding.chains == ("pkg.up.a -> pkg.sealed",)
    # pkg.up.d's import of pkg.up.c is in a function: only a chain shown needs its kind
    assert "src/pkg/up/d.py" not in parsed
    every: list[str] = []
    lint(config, use_cache=False, on_parse=every.append)
    assert "src/pkg/up/d.py" in every


def test_the_command_line_computes_every_chain_for_the_formats_that_show_them(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sealed_trace.lint import cli

    _plant(project)
    project.write_config()
    monkeypatch.chdir(project.root)
    for argv, shown in ((["--format", "json"], 5), (["--format", "sarif"], 5), ([], None)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert cli.main(["--no-cache", *argv]) == 1
        if shown is not None:
            text = out.getvalue()
            document = json.loads(text)
            chains = (
                document["findings"][0]["chains"]
                if "findings" in document
                else document["runs"][0]["results"][0]["properties"]["chains"]
            )
            assert len(chains) == shown
