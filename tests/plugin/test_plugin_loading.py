"""Issue 4, item 1: every way of loading the plugin registers it exactly once.

Spellings: plugin autoload with no ``-p``; ``-p sealed_trace`` (the entry point's name);
``-p pytest_sealed_trace``; ``-p pytest_sealed_trace.plugin``; ``PYTEST_PLUGINS``; each also with
``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``. ``-p no:sealed_trace`` disables it. The core package never
imports pytest, and importing the plugin does not import libcst.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: A test that reports how the plugin is registered in the run that collects it.
PROBE = """
import json
import sys


def test_probe(request, practice_episode):
    pm = request.config.pluginmanager
    plugin = sys.modules["pytest_sealed_trace.plugin"]
    ours = [
        name for name, p in pm.list_name_plugin()
        if p is not None and getattr(p, "__name__", "").startswith("pytest_sealed_trace")
    ]
    report = {
        "plugin_names": [name for name, p in pm.list_name_plugin() if p is plugin],
        "ours": ours,
        "configure_impls": [
            i.plugin_name for i in pm.hook.pytest_configure.get_hookimpls()
            if getattr(i.plugin, "__name__", "").startswith("pytest_sealed_trace")
        ],
        "addoption_impls": [
            i.plugin_name for i in pm.hook.pytest_addoption.get_hookimpls()
            if getattr(i.plugin, "__name__", "").startswith("pytest_sealed_trace")
        ],
        "markers": [
            line.split("(")[0] for line in request.config.getini("markers")
            if line.startswith("sealed_trace_")
        ],
        "xdist": pm.hasplugin("xdist"),
        "episode": type(practice_episode).__name__,
    }
    print("\\nPROBE " + json.dumps(report))
"""

#: A test that needs the plugin's fixture: it errors when the plugin is disabled.
NEEDS_FIXTURE = """
import sys


def test_needs_fixture(request, practice_episode):
    pass


def test_not_registered(request):
    pm = request.config.pluginmanager
    plugin = sys.modules.get("pytest_sealed_trace.plugin")
    assert plugin is None or not pm.is_registered(plugin)
    assert pm.get_plugin("pytest_sealed_trace.plugin") is None
    assert not [line for line in request.config.getini("markers")
                if line.startswith("sealed_trace_")]
"""

SPELLINGS = {
    "autoload": ([], {}),
    "p-entry-point": (["-p", "sealed_trace"], {}),
    "p-package": (["-p", "pytest_sealed_trace"], {}),
    "p-plugin-module": (["-p", "pytest_sealed_trace.plugin"], {}),
    "env-PYTEST_PLUGINS": ([], {"PYTEST_PLUGINS": "pytest_sealed_trace.plugin"}),
    # the entry point's name as a module name: pytest 8.0 imports the core package
    "env-PYTEST_PLUGINS-core": ([], {"PYTEST_PLUGINS": "sealed_trace"}),
}

#: Autoload off with no spelling at all loads nothing: test_autoload_off_alone_... covers it.
IN_PROCESS_CASES = [
    (spelling, off)
    for spelling in SPELLINGS
    for off in (False, True)
    if not (spelling == "autoload" and off)
]

#: Subprocess runs cost ~1 s each on a shared machine: one per spelling, autoload on and off
#: alternating so each switch is also seen in a fresh interpreter.
SUBPROCESS_CASES = [
    ("autoload", False),
    ("p-entry-point", True),
    ("p-package", False),
    ("p-plugin-module", True),
    ("env-PYTEST_PLUGINS", True),
    ("env-PYTEST_PLUGINS", False),
    ("env-PYTEST_PLUGINS-core", True),
]


def _probe(result: pytest.RunResult) -> dict[str, object]:
    lines = [line for line in result.outlines if line.startswith("PROBE ")]
    assert len(lines) == 1, result.stdout.str()
    report: dict[str, object] = json.loads(lines[0][len("PROBE ") :])
    return report


def _run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    spelling: str,
    autoload_disabled: bool,
    subprocess_run: bool,
    *extra: str,
) -> pytest.RunResult:
    args, env = SPELLINGS[spelling]
    for key in ("PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    if autoload_disabled:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    options = [*args, "-s", "-p", "no:cacheprovider", *extra]
    if subprocess_run:
        return pytester.runpytest_subprocess(*options)
    return pytester.runpytest(*options)


def _assert_registered_once(report: dict[str, object], autoload_disabled: bool) -> None:
    assert report["plugin_names"] == ["pytest_sealed_trace.plugin"]
    assert report["configure_impls"] == ["pytest_sealed_trace.plugin"]
    assert report["addoption_impls"] == ["pytest_sealed_trace.plugin"]
    assert report["markers"] == [
        "sealed_trace_forbid_imports",
        "sealed_trace_forbid_fields",
        "sealed_trace_forbid_importers",
    ]
    assert report["episode"] == "PracticeEpisode"
    ours = report["ours"]
    assert isinstance(ours, list)
    assert ours.count("pytest_sealed_trace.plugin") == 1
    # The environment switch really took effect: xdist comes only through autoload.
    assert report["xdist"] is (not autoload_disabled)


@pytest.mark.parametrize(
    ("spelling", "autoload_disabled"),
    IN_PROCESS_CASES,
    ids=[f"{s}-{'autoload-off' if off else 'autoload-on'}" for s, off in IN_PROCESS_CASES],
)
def test_each_spelling_registers_the_plugin_once_in_process(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    spelling: str,
    autoload_disabled: bool,
) -> None:
    pytester.makepyfile(test_probe=PROBE)
    result = _run(pytester, monkeypatch, spelling, autoload_disabled, False)
    result.assert_outcomes(passed=1)
    _assert_registered_once(_probe(result), autoload_disabled)


@pytest.mark.parametrize(
    ("spelling", "autoload_disabled"),
    SUBPROCESS_CASES,
    ids=[f"{s}-{'autoload-off' if off else 'autoload-on'}" for s, off in SUBPROCESS_CASES],
)
def test_each_spelling_registers_the_plugin_once_in_a_subprocess(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    spelling: str,
    autoload_disabled: bool,
) -> None:
    pytester.makepyfile(test_probe=PROBE)
    result = _run(pytester, monkeypatch, spelling, autoload_disabled, True)
    result.assert_outcomes(passed=1)
    _assert_registered_once(_probe(result), autoload_disabled)


def test_all_spellings_at_once_still_register_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_probe=PROBE)
    monkeypatch.setenv("PYTEST_PLUGINS", "pytest_sealed_trace.plugin")
    result = pytester.runpytest(
        "-p",
        "sealed_trace",
        "-p",
        "pytest_sealed_trace",
        "-p",
        "pytest_sealed_trace.plugin",
        "-s",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=1)
    _assert_registered_once(_probe(result), autoload_disabled=False)


@pytest.mark.parametrize("subprocess_run", [False, True], ids=["in-process", "subprocess"])
def test_autoload_off_alone_does_not_load_the_plugin(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, subprocess_run: bool
) -> None:
    pytester.makepyfile(test_needs=NEEDS_FIXTURE)
    result = _run(pytester, monkeypatch, "autoload", True, subprocess_run, "-rA")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*fixture 'practice_episode' not found*"])


@pytest.mark.parametrize("autoload_disabled", [False, True], ids=["autoload-on", "autoload-off"])
@pytest.mark.parametrize("subprocess_run", [False, True], ids=["in-process", "subprocess"])
def test_p_no_sealed_trace_disables_the_plugin(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    subprocess_run: bool,
    autoload_disabled: bool,
) -> None:
    pytester.makepyfile(test_needs=NEEDS_FIXTURE)
    result = _run(
        pytester,
        monkeypatch,
        "autoload",
        autoload_disabled,
        subprocess_run,
        "-p",
        "no:sealed_trace",
        "-rA",
    )
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*fixture 'practice_episode' not found*"])


def test_disabled_plugin_options_are_unknown(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_needs=NEEDS_FIXTURE)
    result = pytester.runpytest("-p", "no:sealed_trace", "--sealed-trace-lint")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --sealed-trace-lint*"])


def _imported_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    modules: list[str] = json.loads(done.stdout)
    return modules


def test_core_never_imports_pytest() -> None:
    modules = _imported_after(
        "import sealed_trace, sealed_trace.trace, sealed_trace.episode_json, sealed_trace.cli"
    )
    assert "sealed_trace.trace" in modules
    assert [m for m in modules if m.split(".")[0] in ("pytest", "_pytest")] == []


def test_importing_the_plugin_does_not_import_libcst_or_the_lint() -> None:
    modules = _imported_after("import pytest_sealed_trace.plugin, pytest_sealed_trace._entry")
    assert "pytest_sealed_trace.plugin" in modules
    assert [m for m in modules if m.split(".")[0] == "libcst"] == []
    # the lint package's names load on first use: none of its modules is imported
    assert [m for m in modules if m.startswith("sealed_trace.lint.")] == []


def test_a_plugin_run_without_lint_does_not_import_libcst(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_mods="""
        import sys

        def test_no_libcst(practice_episode):
            assert not [m for m in sys.modules if m.split(".")[0] == "libcst"]
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "sealed_trace", "-p", "no:xdist", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "args",
    [
        ["-p", "sealed_trace", "-p", "pytest_sealed_trace"],
        ["-p", "sealed_trace", "-p", "pytest_sealed_trace.plugin"],
        ["-p", "pytest_sealed_trace", "-p", "pytest_sealed_trace.plugin"],
    ],
    ids=["entry+package", "entry+module", "package+module"],
)
def test_two_spellings_together_pass_under_w_error(
    pytester: pytest.Pytester, args: list[str]
) -> None:
    pytester.makepyfile(
        test_uses_fixture="""
        def test_episode(practice_episode):
            assert practice_episode is not None
        """
    )
    result = pytester.runpytest_subprocess("-W", "error", *args, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "PytestAssertRewriteWarning" not in result.stdout.str() + result.stderr.str()
