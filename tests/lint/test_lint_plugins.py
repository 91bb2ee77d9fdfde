"""Extension through pluggy: a test plugin, installed through an entry point of the
``sealed_trace`` group, adds a rule; a crashing plugin rule is ST006, never a crash."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from lint_project import Project

from sealed_trace.hookspecs import hookimpl
from sealed_trace.lint.catalog import explain_rule
from sealed_trace.lint.plugins import PluginError, load_plugin_rules, plugin_manager

PLUGIN = """
from sealed_trace.hookspecs import hookimpl


class NoJsonRule:
    code = "ST901"
    name = "no-json-in-kernel"
    summary = "the kernel does not use json"
    explanation = "A demonstration rule added by a plugin."
    roles = frozenset({"boundary"})

    def check(self, ctx):
        for ref in ctx.facts.refs:
            if ref.qname.startswith("json."):
                yield ctx.finding(ref.line, ref.column, self.code, f"uses {ref.qname}", ref.qname)


@hookimpl
def sealed_trace_lint_rules():
    return [NoJsonRule()]
"""


def _install_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Install the demo plugin as a distribution with an entry point on ``sys.path``."""
    site = tmp_path / "site"
    (site / "sealed_trace_demo_plugin-0.1.dist-info").mkdir(parents=True)
    (site / "sealed_trace_demo_plugin.py").write_text(PLUGIN, encoding="utf-8")
    info = site / "sealed_trace_demo_plugin-0.1.dist-info"
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: sealed-trace-demo-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        textwrap.dedent("[sealed_trace]\ndemo = sealed_trace_demo_plugin\n"), encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(site))
    return site


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo plugin, installed for one test."""
    return _install_plugin(tmp_path, monkeypatch)


def test_entry_point_plugin_adds_rule(installed_plugin: Path, project: Project) -> None:
    rules = load_plugin_rules(plugin_manager())
    assert [r.code for r in rules] == ["ST901"]
    project.write("src/pkg/sealed.py", "import json\njson.dumps({})\n")
    found = {(f.code, f.line) for f in project.findings(extra_rules=rules)}
    assert found == {("ST901", 2)}
    explained = explain_rule("no-json-in-kernel")
    assert explained is not None
    assert explained.startswith("ST901 no-json-in-kernel")


def test_plugin_rule_can_be_suppressed(installed_plugin: Path, project: Project) -> None:
    rules = load_plugin_rules(plugin_manager())
    project.write(
        "src/pkg/sealed.py",
        "import json\njson.dumps({})  # sealed-trace: ignore[ST901] -- canonical JSON is allowed\n",
    )
    assert project.findings(extra_rules=rules) == []


class _Crashing:
    code = "ST902"
    name = "crashing-rule"
    summary = "always crashes"
    explanation = "A rule that raises."
    roles = frozenset({"boundary"})

    def check(self, ctx: object) -> list[object]:
        raise RuntimeError("boom")


class _CrashPlugin:
    @hookimpl
    def sealed_trace_lint_rules(self) -> list[object]:
        return [_Crashing()]


def test_crashing_rule_is_a_finding(project: Project) -> None:
    rules = load_plugin_rules(plugin_manager([_CrashPlugin()], entry_points=False))
    found = project.findings(extra_rules=rules)
    assert [(f.code, f.path) for f in found] == [("ST006", "src/pkg/sealed.py")]
    assert "boom" in found[0].message


class _Clashing:
    @hookimpl
    def sealed_trace_lint_rules(self) -> list[object]:
        rule = _Crashing()
        rule.code = "ST201"  # type: ignore[misc]
        return [rule]


def test_code_clash_is_rejected() -> None:
    with pytest.raises(PluginError, match="ST201"):
        load_plugin_rules(plugin_manager([_Clashing()], entry_points=False))


class _Incomplete:
    @hookimpl
    def sealed_trace_lint_rules(self) -> list[object]:
        return [object()]


def test_incomplete_rule_is_rejected() -> None:
    with pytest.raises(PluginError, match="lacks"):
        load_plugin_rules(plugin_manager([_Incomplete()], entry_points=False))


def _run_cli(project: Project) -> int:
    import argparse

    from sealed_trace.lint.cli import add_lint_arguments, run_lint

    parser = argparse.ArgumentParser()
    add_lint_arguments(parser)
    config = project.write_config()
    return run_lint(parser.parse_args(["--config", str(config), "--format", "json"]))


def test_cli_loads_plugins_and_warm_run_keeps_their_findings(
    installed_plugin: Path,
    project: Project,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import json

    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import json\njson.dumps({})\n")
    assert _run_cli(project) == 1
    cold = json.loads(capsys.readouterr().out)["findings"]
    assert [f["code"] for f in cold] == ["ST901"]

    def no_scan(*args: object) -> None:
        raise AssertionError("the warm path must not load plugins")

    monkeypatch.setattr("sealed_trace.lint.plugins.plugin_manager", no_scan)
    assert _run_cli(project) == 1  # warm: answered from the cache
    warm = json.loads(capsys.readouterr().out)["findings"]
    assert warm == cold
    assert warm[0]["rule"] == "no-json-in-kernel"


def test_installing_a_plugin_invalidates_the_warm_cache(
    project: Project,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import json\njson.dumps({})\n")
    assert _run_cli(project) == 0
    capsys.readouterr()
    _install_plugin(tmp_path, monkeypatch)
    assert _run_cli(project) == 1


def test_installed_plugin_rules_run_under_pytest_as_in_the_cli(
    installed_plugin: Path,
    project: Project,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    # the subprocess finds the plugin's distribution where the test installed it
    monkeypatch.setenv(
        "PYTHONPATH",
        os.pathsep.join(p for p in (str(installed_plugin), os.environ.get("PYTHONPATH", "")) if p),
    )
    project.top_toml = 'source_roots = ["src"]\ncache_dir = false\n'
    project.write("src/pkg/sealed.py", "import json\njson.dumps({})\n")
    config = project.write_config()
    result = pytester.runpytest_subprocess(
        "-p",
        "sealed_trace",
        "--sealed-trace-lint",
        "--sealed-trace-config",
        str(config),
        "-p",
        "no:cacheprovider",
        str(config),
    )
    result.assert_outcomes(failed=1)
    assert "src/pkg/sealed.py:2:1 ST901 uses json.dumps" in result.stdout.str()
