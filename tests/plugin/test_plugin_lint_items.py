"""Issue 4, item 4: the boundary lint of ``[tool.sealed_trace]`` as collected items.

The project (``lint_project`` in conftest.py) has two boundaries: ``seal`` with three findings
and ``clean`` with none, plus one ordinary test. xdist runs go through a subprocess; the other
cases run in process.
"""

from __future__ import annotations

import json

import pytest
from plugin_support import SEAL_FINDINGS, finding_lines, summary

LINT = "--sealed-trace-lint"

EXPECTED_BOUNDARY_ITEMS = {
    "tests/test_trivial.py::test_trivial": "PASSED",
    "pyproject.toml::clean": "PASSED",
    "pyproject.toml::seal": "FAILED",
}

#: Counts the lint engine's runs per process (and whether the cache answered) into lint.log.
COUNTING_CONFTEST = """
import json
import os
from pathlib import Path

import pytest

import sealed_trace.lint.api as _api

_LOG = Path(__file__).with_name("lint.log")
_real = _api.lint_project
_role = {"role": "unknown"}


def _counting(*args, **kwargs):
    result = _real(*args, **kwargs)
    with _LOG.open("a", encoding="utf-8") as log:
        log.write(json.dumps({"pid": os.getpid(), "role": _role["role"],
                              "cache_hit": result.result.cache_hit}) + "\\n")
    return result


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    _role["role"] = "worker" if hasattr(config, "workerinput") else "controller"
    _api.lint_project = _counting


def pytest_unconfigure(config):
    _api.lint_project = _real  # in-process runs share the module: leave it as found
"""

#: Runs on an xdist worker: the controller's results arrived through ``workerinput``.
WORKER_INPUT_TEST = """
import json


def test_worker_input(request):
    groups = json.loads(request.config.workerinput["sealed_trace_lint"])["groups"]
    assert sorted(groups) == ["clean", "seal"]
    assert groups["clean"] == []
    assert [f["code"] for f in groups["seal"]] == ["ST102", "ST101", "ST201"]
"""


def _lint_calls(pytester: pytest.Pytester) -> list[dict[str, object]]:
    log = pytester.path / "lint.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _assert_boundary_outcome(result: pytest.RunResult) -> None:
    assert summary(result) == EXPECTED_BOUNDARY_ITEMS
    assert finding_lines(result) == list(SEAL_FINDINGS)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("how", ["option", "ini"])
def test_one_item_per_boundary(lint_project: pytest.Pytester, how: str) -> None:
    if how == "ini":
        lint_project.makeini("[pytest]\nsealed_trace_lint = true\n")
        args = ["-rA"]
    else:
        args = ["-rA", LINT]
    result = lint_project.runpytest(*args)
    _assert_boundary_outcome(result)


@pytest.mark.parametrize("on_ci", [False, True], ids=["local", "ci"])
def test_findings_are_reported_once_on_and_off_ci(
    lint_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, on_ci: bool
) -> None:
    # pytest prints a failed item's whole text in the short summary when CI or BUILD_NUMBER
    # is set, and only its first line otherwise; the FAILURES section is the same either way.
    monkeypatch.delenv("BUILD_NUMBER", raising=False)
    if on_ci:
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.delenv("CI", raising=False)
    result = lint_project.runpytest("-rA", LINT)
    _assert_boundary_outcome(result)
    failed = [line for line in result.outlines if line.startswith("FAILED pyproject.toml::seal")]
    assert len(failed) == 1
    printed = [line for line in result.outlines if line in SEAL_FINDINGS[1:]]
    if failed[0] == "FAILED pyproject.toml::seal":  # pytest 8.0: the summary names the item only
        assert len(printed) == 2
        return
    assert failed[0].startswith("FAILED pyproject.toml::seal - kern/seal.py:2:18 ST102 ")
    assert len(printed) == (4 if on_ci else 2)


def test_items_are_listed_by_collect_only(lint_project: pytest.Pytester) -> None:
    result = lint_project.runpytest(LINT, "--collect-only", "-q")
    result.stdout.fnmatch_lines_random(
        [
            "tests/test_trivial.py::test_trivial",
            "pyproject.toml::clean",
            "pyproject.toml::seal",
        ]
    )
    # The policy file is collected like any file, so pytest's count includes the lint items.
    result.stdout.fnmatch_lines(["3 tests collected*"])


def test_items_added_beside_testpaths_count_where_pytest_counts(
    lint_project: pytest.Pytester,
) -> None:
    """With ``testpaths`` elsewhere the policy file is not collected as a file: the lint items
    are added after collection, and still counted in "collected N items" and --collect-only,
    each reported once."""
    lint_project.makeini("[pytest]\ntestpaths = tests\nsealed_trace_lint = true\n")
    listed = lint_project.runpytest("--collect-only", "-q")
    listed.stdout.fnmatch_lines(["3 tests collected*"])
    ran = lint_project.runpytest("-rA")
    ran.stdout.fnmatch_lines(["collected 3 items"])
    ran.assert_outcomes(passed=2, failed=1)
    assert [line for line in ran.outlines if line.startswith("PASSED pyproject.toml::")] == [
        "PASSED pyproject.toml::clean"
    ]


def test_a_lint_item_runs_again_by_its_node_id(lint_project: pytest.Pytester) -> None:
    result = lint_project.runpytest("-rA", LINT, "pyproject.toml::seal")
    assert summary(result) == {"pyproject.toml::seal": "FAILED"}


def test_running_one_test_file_adds_no_lint_items(lint_project: pytest.Pytester) -> None:
    result = lint_project.runpytest("-rA", LINT, "tests/test_trivial.py")
    assert summary(result) == {"tests/test_trivial.py::test_trivial": "PASSED"}


def test_failure_shows_every_finding_and_the_suppression_hint(
    lint_project: pytest.Pytester,
) -> None:
    result = lint_project.runpytest(LINT)
    result.stdout.fnmatch_lines(
        [
            "*_ sealed-trace lint: seal _*",
            *SEAL_FINDINGS,
            "",
            "3 finding(s) in seal.",
            "Fix them, or suppress one on its line with a reason: "
            "# sealed-trace: ignore[[]ST101[]] -- <why this is safe>",
            "Explain a rule: sealed-trace explain ST101 | ST102 | ST201",
        ]
    )
    # No traceback through the plugin: the report is the findings.
    result.stdout.no_fnmatch_line("*items.py*")


def test_without_the_flag_there_are_no_lint_items(lint_project: pytest.Pytester) -> None:
    result = lint_project.runpytest("-rA")
    assert summary(result) == {"tests/test_trivial.py::test_trivial": "PASSED"}


def test_one_item_per_module(lint_project: pytest.Pytester) -> None:
    lint_project.makeini("[pytest]\nsealed_trace_lint = true\nsealed_trace_lint_items = module\n")
    result = lint_project.runpytest("-rA")
    assert summary(result) == {
        "tests/test_trivial.py::test_trivial": "PASSED",
        "pyproject.toml::kern/__init__.py": "PASSED",
        "pyproject.toml::kern/clean.py": "PASSED",
        "pyproject.toml::kern/records.py": "PASSED",
        "pyproject.toml::kern/seal.py": "FAILED",
    }
    assert finding_lines(result) == list(SEAL_FINDINGS)
    result.stdout.fnmatch_lines(["3 finding(s) in kern/seal.py."])


def test_unknown_item_mode_is_a_usage_error(lint_project: pytest.Pytester) -> None:
    lint_project.makeini("[pytest]\nsealed_trace_lint_items = file\n")
    result = lint_project.runpytest(LINT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*sealed_trace_lint_items must be one of boundary, module, not 'file'*"]
    )


def test_suppressed_finding_passes(lint_project: pytest.Pytester) -> None:
    seal = lint_project.path / "kern" / "seal.py"
    source = seal.read_text(encoding="utf-8").replace(
        "import os\n", "import os  # sealed-trace: ignore[ST101] -- test of suppression\n"
    )
    seal.write_text(source, encoding="utf-8")
    result = lint_project.runpytest("-rA", LINT)
    assert finding_lines(result) == [SEAL_FINDINGS[0], SEAL_FINDINGS[2]]


BAD_CONFIG = """
[tool.sealed_trace]
source_roots = ["."]
colour = "blue"
jobs = "two"

[[tool.sealed_trace.boundary]]
name = "seal"
module = "kern.seal"
allowed_imports = "kern.records"
bogus = 1
"""


@pytest.mark.parametrize("how", ["option", "ini"])
def test_config_errors_are_a_usage_error_listing_every_problem(
    lint_project: pytest.Pytester, how: str
) -> None:
    lint_project.makepyprojecttoml(BAD_CONFIG)
    if how == "ini":
        lint_project.makeini("[pytest]\nsealed_trace_lint = true\n")
    result = lint_project.runpytest(*([] if how == "ini" else [LINT]))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    # worded as the command line words them: one line per problem, with its file and line
    result.stderr.fnmatch_lines(
        [
            "ERROR: sealed-trace lint: *pyproject.toml:3: unknown key 'colour'",
            "sealed-trace lint: *pyproject.toml:4: jobs must be a non-negative integer "
            "(0 = one per core), not *",
            "sealed-trace lint: *pyproject.toml:10: boundary[[]0[]]: unknown key 'bogus'",
            "sealed-trace lint: *pyproject.toml:9: boundary[[]0[]].allowed_imports must be an "
            "array of strings, not a string*",
        ]
    )


def test_config_file_option_and_missing_config(lint_project: pytest.Pytester) -> None:
    (lint_project.path / "elsewhere.toml").write_text(BAD_CONFIG, encoding="utf-8")
    result = lint_project.runpytest(LINT, "--sealed-trace-config", "elsewhere.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: sealed-trace lint: elsewhere.toml:*: unknown key*"])
    (lint_project.path / "pyproject.toml").unlink()
    result = lint_project.runpytest(LINT)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--sealed-trace-lint: no pyproject.toml with a [[]tool.sealed_trace[]] table*"]
    )


@pytest.mark.parametrize("flag", ["--help", "--markers", "--fixtures"])
def test_help_works_when_the_lint_config_is_broken(
    lint_project: pytest.Pytester, flag: str
) -> None:
    lint_project.makepyprojecttoml(BAD_CONFIG)
    lint_project.makeini("[pytest]\nsealed_trace_lint = true\n")
    result = lint_project.runpytest(flag)
    assert result.ret == pytest.ExitCode.OK
    expected = {
        "--help": "*--sealed-trace-lint*",
        "--markers": "*sealed_trace_forbid_imports*",
        "--fixtures": "*sealed_trace_episodes*",
    }[flag]
    result.stdout.fnmatch_lines([expected])


def test_same_outcome_with_xdist_without_and_disabled(lint_project: pytest.Pytester) -> None:
    runs = {
        "xdist -n 2": lint_project.runpytest_subprocess("-rA", LINT, "-n", "2"),
        "xdist -n 0": lint_project.runpytest("-rA", LINT, "-n", "0"),
        "-p no:xdist": lint_project.runpytest("-rA", LINT, "-p", "no:xdist"),
        "no cache provider": lint_project.runpytest("-rA", LINT, "-p", "no:cacheprovider"),
    }
    for name, result in runs.items():
        assert summary(result) == EXPECTED_BOUNDARY_ITEMS, name
        assert finding_lines(result) == list(SEAL_FINDINGS), name
        assert result.ret == pytest.ExitCode.TESTS_FAILED, name


def test_autoload_off_with_explicit_plugin(
    lint_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = lint_project.runpytest_subprocess("-rA", "-p", "sealed_trace", LINT)
    _assert_boundary_outcome(result)


def test_lint_runs_once_on_the_controller_and_workers_receive_it(
    lint_project: pytest.Pytester,
) -> None:
    lint_project.makeconftest(COUNTING_CONFTEST)
    (lint_project.path / "tests" / "test_workerinput.py").write_text(
        WORKER_INPUT_TEST, encoding="utf-8"
    )
    result = lint_project.runpytest_subprocess("-rA", LINT, "-n", "2", "-p", "no:cacheprovider")
    assert summary(result) == {
        **EXPECTED_BOUNDARY_ITEMS,
        "tests/test_workerinput.py::test_worker_input": "PASSED",
    }
    calls = _lint_calls(lint_project)
    assert [c["role"] for c in calls] == ["controller"], calls


def test_lint_runs_once_without_xdist(lint_project: pytest.Pytester) -> None:
    lint_project.makeconftest(COUNTING_CONFTEST)
    result = lint_project.runpytest("-rA", LINT, "-p", "no:xdist")
    assert summary(result) == EXPECTED_BOUNDARY_ITEMS
    assert [c["role"] for c in _lint_calls(lint_project)] == ["controller"]


def test_second_run_reuses_the_cache_in_pytest_cache(lint_project: pytest.Pytester) -> None:
    lint_project.makeconftest(COUNTING_CONFTEST)
    first = lint_project.runpytest("-rA", LINT)
    second = lint_project.runpytest("-rA", LINT)
    assert summary(first) == summary(second) == EXPECTED_BOUNDARY_ITEMS
    assert finding_lines(first) == finding_lines(second) == list(SEAL_FINDINGS)
    assert [c["cache_hit"] for c in _lint_calls(lint_project)] == [False, True]
    cache = lint_project.path / ".pytest_cache" / "d" / "sealed_trace"
    assert (cache / "lint-v1.json").is_file()
    # The policy's own default cache directory is not used under pytest.
    assert not (lint_project.path / ".sealed_trace_cache").exists()


def test_cache_notices_an_edit(lint_project: pytest.Pytester) -> None:
    lint_project.runpytest(LINT)
    clean = lint_project.path / "kern" / "clean.py"
    clean.write_text("import json\nimport os\n", encoding="utf-8")
    result = lint_project.runpytest("-rA", LINT)
    assert summary(result)["pyproject.toml::clean"] == "FAILED"


def test_no_cacheprovider_runs_uncached_and_writes_no_cache(lint_project: pytest.Pytester) -> None:
    lint_project.makeconftest(COUNTING_CONFTEST)
    for _ in range(2):
        result = lint_project.runpytest("-rA", LINT, "-p", "no:cacheprovider")
        assert summary(result) == EXPECTED_BOUNDARY_ITEMS
    assert [c["cache_hit"] for c in _lint_calls(lint_project)] == [False, False]
    assert not (lint_project.path / ".pytest_cache").exists()
    assert not (lint_project.path / ".sealed_trace_cache").exists()


def test_keyword_selection_deselects_lint_items(lint_project: pytest.Pytester) -> None:
    result = lint_project.runpytest("-rA", LINT, "-k", "clean")
    assert summary(result) == {"pyproject.toml::clean": "PASSED"}
    assert result.ret == pytest.ExitCode.OK


def test_collect_only_lists_the_items_without_linting(lint_project: pytest.Pytester) -> None:
    lint_project.makeconftest(COUNTING_CONFTEST)
    result = lint_project.runpytest(LINT, "--collect-only", "-q", "-p", "no:xdist")
    result.stdout.fnmatch_lines(["3 tests collected*"])
    assert _lint_calls(lint_project) == []
    assert "sealed-trace lint:" not in result.stdout.str()


def test_the_lint_time_is_shown_and_recorded(lint_project: pytest.Pytester) -> None:
    junit = lint_project.path / "junit.xml"
    result = lint_project.runpytest(LINT, "-p", "no:xdist", f"--junitxml={junit}")
    result.stdout.fnmatch_lines(
        [
            "sealed-trace lint: * file(s) in *s, before collection (not part of the session time)",
        ]
    )
    text = junit.read_text(encoding="utf-8")
    assert text.count('name="sealed_trace_lint_seconds"') == 2  # one per lint item


def test_a_boundary_whose_module_does_not_parse_fails_its_own_item(
    lint_project: pytest.Pytester,
) -> None:
    lint_project.makepyfile(**{"kern/clean": "import json\ndef broken(:\n"})
    result = lint_project.runpytest(LINT, "-p", "no:cacheprovider", "-rA", "-k", "clean")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "FAILED pyproject.toml::clean" in out
    assert "kern/clean.py:2:" in out
    assert "ST001" in out


def test_an_unparsable_package_above_fails_every_boundary_below_it(
    lint_project: pytest.Pytester,
) -> None:
    lint_project.makepyfile(**{"kern/__init__": "def broken(:\n"})
    result = lint_project.runpytest(LINT, "-p", "no:cacheprovider", "-rA", "-k", "clean")
    result.assert_outcomes(failed=1)
    assert "kern/__init__.py:1:" in result.stdout.str()


def test_an_unparsable_file_no_boundary_needs_goes_to_the_engine_item(
    lint_project: pytest.Pytester,
) -> None:
    lint_project.makepyfile(**{"elsewhere": "def broken(:\n"})
    result = lint_project.runpytest(LINT, "-p", "no:cacheprovider", "-rA")
    out = result.stdout.str()
    assert "FAILED pyproject.toml::engine" in out
    assert "PASSED pyproject.toml::clean" in out


def test_lint_items_carry_a_registered_marker(lint_project: pytest.Pytester) -> None:
    only = lint_project.runpytest(
        LINT, "-p", "no:cacheprovider", "--strict-markers", "-m", "sealed_trace", "-rA"
    )
    only.assert_outcomes(passed=1, failed=1)  # clean and seal; not the ordinary test
    without = lint_project.runpytest(
        LINT, "-p", "no:cacheprovider", "--strict-markers", "-m", "not sealed_trace", "-rA"
    )
    without.assert_outcomes(passed=1)
    assert "pyproject.toml::" not in without.stdout.str()


def test_junit_names_the_policy_file_given(lint_project: pytest.Pytester) -> None:
    sub = lint_project.path / "sub"
    sub.mkdir()
    (lint_project.path / "pyproject.toml").rename(sub / "pyproject.toml")
    (lint_project.path / "kern").rename(sub / "kern")
    # the rootdir stays at the top, where pytest's own configuration is
    (lint_project.path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    report = lint_project.path / "junit.xml"
    lint_project.runpytest(
        LINT,
        "--sealed-trace-config",
        str(sub / "pyproject.toml"),
        "-p",
        "no:cacheprovider",
        f"--junitxml={report}",
        "-o",
        "junit_family=xunit1",
    )  # the family that writes file=
    text = report.read_text()
    assert 'file="sub/pyproject.toml"' in text
    assert 'file="pyproject.toml"' not in text
