"""Issue 18, item 4: every plugin setting is an option and an ini key; a bad ini value is a
usage error that names the key and what it takes."""

from __future__ import annotations

import json

import pytest
from plugin_support import LINT_FILES, LINT_PYPROJECT, summary, write_files

NO_CACHE = ("-p", "no:cacheprovider")
PYTEST_SETTINGS = "[tool.pytest.ini_options]\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_files(pytester, LINT_FILES)
    return pytester


def _ini(pytester: pytest.Pytester, *lines: str) -> None:
    pytester.makeini("[pytest]\n" + "".join(line + "\n" for line in lines))


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_a_bad_lint_flag_names_the_key_and_its_values(project: pytest.Pytester, value: str) -> None:
    project.makepyprojecttoml(LINT_PYPROJECT)
    _ini(project, f"sealed_trace_lint = {value}")
    result = project.runpytest(*NO_CACHE)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: ini sealed_trace_lint: invalid truth value '{value}'; it takes true or "
            "false (yes/no, on/off and 1/0 work too)"
        ]
    )


def test_the_policy_file_from_the_ini(project: pytest.Pytester) -> None:
    (project.path / "policy.toml").write_text(LINT_PYPROJECT, encoding="utf-8")
    _ini(project, "sealed_trace_lint = true", "sealed_trace_config = policy.toml")
    result = project.runpytest("-rA", *NO_CACHE)
    assert summary(result) == {
        "tests/test_trivial.py::test_trivial": "PASSED",
        "policy.toml::clean": "PASSED",
        "policy.toml::seal": "FAILED",
    }


def test_one_item_per_module_from_the_command_line(project: pytest.Pytester) -> None:
    project.makepyprojecttoml(LINT_PYPROJECT)
    result = project.runpytest(
        "--sealed-trace-lint", "--sealed-trace-lint-items", "module", "-rA", *NO_CACHE
    )
    outcomes = summary(result)
    assert outcomes["pyproject.toml::kern/seal.py"] == "FAILED"
    assert outcomes["pyproject.toml::kern/clean.py"] == "PASSED"
    assert "pyproject.toml::seal" not in outcomes


@pytest.mark.parametrize("how", ["options", "ini"])
def test_the_lint_report_in_a_format_to_a_file(project: pytest.Pytester, how: str) -> None:
    project.makepyprojecttoml(LINT_PYPROJECT)
    if how == "options":
        args = ["--sealed-trace-lint-format", "sarif", "--sealed-trace-lint-output", "lint.sarif"]
        _ini(project, "sealed_trace_lint = true")
    else:
        args = []
        _ini(
            project,
            "sealed_trace_lint = true",
            "sealed_trace_lint_format = sarif",
            "sealed_trace_lint_output = lint.sarif",
        )
    result = project.runpytest(*args, *NO_CACHE)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    log = json.loads((project.path / "lint.sarif").read_text(encoding="utf-8"))
    rules = sorted(r["ruleId"] for r in log["runs"][0]["results"])
    assert rules == ["ST101", "ST102", "ST201"]


def test_the_lint_report_after_the_summary(project: pytest.Pytester) -> None:
    project.makepyprojecttoml(LINT_PYPROJECT)
    result = project.runpytest(
        "--sealed-trace-lint", "--sealed-trace-lint-format", "github", *NO_CACHE
    )
    result.stdout.fnmatch_lines(
        [
            "*sealed-trace lint report*",
            "::error title=sealed-trace (ST102),file=kern/seal.py,line=2,*",
        ]
    )


def test_a_bad_report_format_in_the_ini_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makepyprojecttoml(LINT_PYPROJECT)
    _ini(project, "sealed_trace_lint = true", "sealed_trace_lint_format = pdf")
    result = project.runpytest(*NO_CACHE)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: sealed_trace_lint_format must be one of text, json, sarif, github, not 'pdf'"]
    )


def test_the_report_formats_are_the_lints() -> None:
    from pytest_sealed_trace._settings import LINT_FORMATS
    from sealed_trace.lint.formats import FORMATS

    assert set(LINT_FORMATS) == set(FORMATS)


def test_host_record_types_from_the_command_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        hostrec="""
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class SourceSpan:
            text: str
            start: int
            end: int
            sentence_index: int | None = None
        """,
        test_host="""
        import hostrec


        def test_spans_are_host_objects(sealed_trace_episodes):
            records = sealed_trace_episodes.records("sealed_candidate_replay_closed")
            span = records.contract_assessment.evidence_spans[0]
            assert type(span) is hostrec.SourceSpan
        """,
    )
    pytester.syspathinsert()
    result = pytester.runpytest("--sealed-trace-record-types", "hostrec", *NO_CACHE)
    result.assert_outcomes(passed=1)


class _Recorder:
    """Stands in for pytest's parser: records the options and ini keys the plugin adds."""

    def __init__(self) -> None:
        self.options: dict[str, str] = {}
        self.ini: list[str] = []

    def getgroup(self, *args: object, **kwargs: object) -> _Recorder:
        return self

    def addoption(self, name: str, **kwargs: object) -> None:
        self.options[name] = str(kwargs["dest"])

    def addini(self, name: str, *args: object, **kwargs: object) -> None:
        self.ini.append(name)


def test_every_option_has_its_ini_key_and_the_readme_lists_both() -> None:
    from pathlib import Path

    from pytest_sealed_trace import plugin

    recorder = _Recorder()
    plugin.pytest_addoption(recorder)  # type: ignore[arg-type]
    assert sorted(recorder.options.values()) == sorted(recorder.ini)
    for option, dest in recorder.options.items():
        assert option == "--" + dest.replace("_", "-")
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Settings", 1)[1].split("\n\n", 3)[2]
    for option, dest in recorder.options.items():
        assert f"`{option}" in table, option
        assert f"`{dest}`" in table, dest
