"""Issue 18, item 4: an internal error is one line saying what failed and how to get the
traceback; exit 2 on the command line, pytest's internal-error status under pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from sealed_trace import cli, episode_json

ROOT = Path(__file__).resolve().parents[1]
EPISODE = ROOT / "examples" / "episodes" / "sealed" / "06-candidate-replay-closed.json"


def _boom(*args: object, **kwargs: object) -> object:
    raise RuntimeError("simulated failure")


def test_the_cli_turns_a_bug_into_one_line_and_exit_2(monkeypatch, capsys) -> None:
    monkeypatch.setattr(episode_json, "seal_document", _boom)
    monkeypatch.delenv("SEALED_TRACE_TRACEBACK", raising=False)
    status = cli.main(["seal", str(EPISODE)])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(
        "sealed-trace: error: internal error while running seal: RuntimeError: simulated failure"
    )
    assert "SEALED_TRACE_TRACEBACK=1 or pass --traceback" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_the_traceback_is_there_when_asked_for(monkeypatch, how: str) -> None:
    monkeypatch.setattr(episode_json, "seal_document", _boom)
    argv = ["seal", str(EPISODE)]
    if how == "flag":
        argv.insert(0, "--traceback")
    else:
        monkeypatch.setenv("SEALED_TRACE_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="simulated failure"):
        cli.main(argv)


def test_the_standalone_lint_turns_a_bug_into_one_line(monkeypatch, capsys) -> None:
    import sealed_trace.lint.engine as engine
    from sealed_trace.lint import cli as lint_cli

    monkeypatch.setattr(engine, "lint", _boom)
    monkeypatch.delenv("SEALED_TRACE_TRACEBACK", raising=False)
    monkeypatch.chdir(ROOT)
    status = lint_cli.main(["--no-cache"])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err == (
        "sealed-trace lint: internal error while running lint: RuntimeError: simulated failure "
        "(a bug in sealed-trace; set SEALED_TRACE_TRACEBACK=1 to see the traceback)\n"
    )
    monkeypatch.setenv("SEALED_TRACE_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="simulated failure"):
        lint_cli.main(["--no-cache"])


POLICY = """
[tool.sealed_trace]
source_roots = ["."]
cache_dir = false

[[tool.sealed_trace.boundary]]
name = "sealed"
module = "sealedmod"
allowed_imports = ["json"]
upstream = []
"""

BREAKS = """
import {module}


def _boom(*args, **kwargs):
    raise RuntimeError("simulated failure")


{module}.{function} = _boom
"""


def _project(pytester: pytest.Pytester, module: str, function: str) -> None:
    pytester.makepyprojecttoml(POLICY)
    pytester.makepyfile(sealedmod="import json\n")
    pytester.makeconftest(BREAKS.format(module=module, function=function))
    pytester.makepyfile(
        test_marked="""
        import pytest


        @pytest.mark.sealed_trace_forbid_imports("sealedmod", allowed=["json"])
        def test_marked():
            pass
        """
    )


def test_a_bug_in_the_lint_under_pytest_is_one_line(pytester: pytest.Pytester) -> None:
    _project(pytester, "sealed_trace.lint.engine", "lint")
    result = pytester.runpytest_subprocess(
        "-p", "sealed_trace", "--sealed-trace-lint", "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    out = result.stdout.str() + result.stderr.str()
    assert (
        "sealed-trace: internal error while starting the sealed_trace plugin (its lint): "
        "RuntimeError: simulated failure" in out
    )
    assert "SEALED_TRACE_TRACEBACK=1" in out
    assert "Traceback" not in out
    assert "INTERNALERROR" not in out


def test_a_bug_in_a_marker_fails_its_test_with_one_line(pytester: pytest.Pytester) -> None:
    _project(pytester, "pytest_sealed_trace.markers", "_shown")
    result = pytester.runpytest_subprocess("-p", "sealed_trace", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "sealed_trace_forbid_imports: internal error while checking the marker: "
            "RuntimeError: simulated failure (a bug in sealed-trace; set "
            "SEALED_TRACE_TRACEBACK=1 to see the traceback)"
        ]
    )
    result.stdout.no_fnmatch_line("*markers.py*")
