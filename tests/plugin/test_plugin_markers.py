"""Issue 4, item 3: ``sealed_trace_forbid_imports`` and ``sealed_trace_forbid_fields``.

A marked test fails with the lint's ``path:line:col RULE message`` lines when the checked
module breaks the rule, and passes when it is clean. The markers are registered, so
``--strict-markers`` and ini ``strict = true`` pass.
"""

from __future__ import annotations

import pytest
from plugin_support import write_files

NO_CACHE = ("-p", "no:cacheprovider")

#: Checked modules. ``{pkg}`` is "" (top-level modules) or "kernel/" (a package).
CHECKED = {
    "{pkg}clockmod.py": """
        from time import monotonic as tick


        def now():
            return tick()
        """,
    "{pkg}importsmod.py": """
        import json
        import os.path


        def home():
            return os.path.expanduser(json.dumps("~"))
        """,
    "{pkg}recordsmod.py": """
        from dataclasses import dataclass
        from typing import TypedDict


        @dataclass(frozen=True)
        class Rec:
            wall_clock: float
            name: str


        class Row(TypedDict):
            hostname: str
            ok: int


        @dataclass(frozen=True)
        class Scored:
            confidence: float
        """,
    "{pkg}cleanmod.py": """
        import json
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class Clean:
            name: str


        def dump(x):
            return json.dumps(x)
        """,
}

#: One marked test per case; ``M`` is the module prefix ("" or "kernel.").
MARKED_TESTS = """
import pytest


@pytest.mark.sealed_trace_forbid_imports("{M}clockmod", forbidden=["time.*"])
def test_aliased_clock():
    pass


@pytest.mark.sealed_trace_forbid_imports("{M}importsmod", allowed=["json"])
def test_import_outside_allowed():
    pass


@pytest.mark.sealed_trace_forbid_imports("{M}importsmod", forbidden=["time.*"])
def test_forbidden_only_ignores_the_surface():
    pass


@pytest.mark.sealed_trace_forbid_fields("{M}recordsmod.Rec", fields=["wall_clock"])
def test_dataclass_field():
    pass


@pytest.mark.sealed_trace_forbid_fields("{M}recordsmod.Row", fields=["hostname", "ok"])
def test_typeddict_field():
    pass


@pytest.mark.sealed_trace_forbid_fields("{M}recordsmod.Scored")
def test_adr_preset_field():
    pass


@pytest.mark.sealed_trace_forbid_fields("{M}recordsmod.Rec")
def test_adr_preset_clean_class():
    pass


@pytest.mark.sealed_trace_forbid_fields("{M}recordsmod", fields="wall_clock")
def test_whole_module():
    pass


@pytest.mark.sealed_trace_forbid_imports("{M}cleanmod", allowed=["json", "dataclasses"],
                                         forbidden=["time.*", "os.environ"])
@pytest.mark.sealed_trace_forbid_fields("{M}cleanmod.Clean", "{M}cleanmod")
def test_clean():
    pass
"""

EXPECTED_OUTCOMES = {
    "test_aliased_clock": "FAILED",
    "test_import_outside_allowed": "FAILED",
    "test_forbidden_only_ignores_the_surface": "PASSED",
    "test_dataclass_field": "FAILED",
    "test_typeddict_field": "FAILED",
    "test_adr_preset_field": "FAILED",
    "test_adr_preset_clean_class": "PASSED",
    "test_whole_module": "FAILED",
    "test_clean": "PASSED",
}


def _expected_lines(path: str, module: str) -> list[str]:
    """The exact failure text of each failing case (``path`` is the directory prefix)."""
    return [
        f"{module}clockmod breaks its import surface:",
        f"{path}clockmod.py:1:18 ST102 `from time import monotonic` imports a banned name",
        f"{path}clockmod.py:5:12 ST201 call of banned time.monotonic",
        f"{module}importsmod breaks its import surface:",
        f"{path}importsmod.py:2:8 ST101 `import os.path` imports os.path, outside the allowed "
        "surface of boundary 'marker:test_import_outside_allowed'",
        "forbidden fields declared:",
        f"{path}recordsmod.py:7:5 ST501 dataclass Rec declares forbidden field 'wall_clock' "
        "(ADR-0230 §7.3)",
        "forbidden fields declared:",
        f"{path}recordsmod.py:12:5 ST501 TypedDict Row declares forbidden field 'hostname' "
        "(ADR-0230 §7.3)",
        f"{path}recordsmod.py:13:5 ST501 TypedDict Row declares forbidden field 'ok' "
        "(ADR-0230 §7.3)",
        "forbidden fields declared:",
        f"{path}recordsmod.py:18:5 ST501 dataclass Scored declares forbidden field "
        "'confidence' (ADR-0230 §7.3)",
        "forbidden fields declared:",
        f"{path}recordsmod.py:7:5 ST501 dataclass Rec declares forbidden field 'wall_clock' "
        "(ADR-0230 §7.3)",
    ]


def _outcomes(result: pytest.RunResult) -> dict[str, str]:
    found = {}
    for line in result.outlines:
        for word in ("PASSED", "FAILED", "ERROR"):
            if line.startswith(f"{word} test_marked.py::"):
                found[line.split("::")[1].split(" ")[0]] = word
    return found


def _project(pytester: pytest.Pytester, pkg: str) -> None:
    files = {relpath.format(pkg=pkg): source for relpath, source in CHECKED.items()}
    if pkg:
        files[f"{pkg}__init__.py"] = ""
    write_files(pytester, files)
    module = pkg.replace("/", ".")
    pytester.makepyfile(test_marked=MARKED_TESTS.replace("{M}", module))


def test_markers_report_findings_and_pass_when_clean(pytester: pytest.Pytester) -> None:
    _project(pytester, "")
    result = pytester.runpytest("-rA", "--strict-markers", *NO_CACHE)
    assert _outcomes(result) == EXPECTED_OUTCOMES
    result.stdout.fnmatch_lines(_expected_lines("", ""), consecutive=False)
    # Only the findings are shown: no traceback through the plugin.
    result.stdout.no_fnmatch_line("*markers.py*")


def test_markers_on_modules_inside_a_package(pytester: pytest.Pytester) -> None:
    _project(pytester, "kernel/")
    result = pytester.runpytest("-rA", "--strict-markers", *NO_CACHE)
    result.stdout.no_fnmatch_line("*matches no module in the source roots*")
    assert _outcomes(result) == EXPECTED_OUTCOMES
    result.stdout.fnmatch_lines(_expected_lines("kernel/", "kernel."), consecutive=False)


def test_forbid_fields_takes_the_class_object(pytester: pytest.Pytester) -> None:
    _project(pytester, "")
    pytester.makepyfile(
        test_objects="""
        import pytest

        import cleanmod
        from recordsmod import Rec, Row
        from cleanmod import Clean


        @pytest.mark.sealed_trace_forbid_fields(Rec, Row, fields=["wall_clock", "hostname"])
        def test_classes():
            pass


        @pytest.mark.sealed_trace_forbid_fields(Clean, cleanmod)
        def test_clean_class_and_module():
            pass
        """
    )
    pytester.syspathinsert()
    result = pytester.runpytest("test_objects.py", "-rA", *NO_CACHE)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "forbidden fields declared:",
            "recordsmod.py:7:5 ST501 dataclass Rec declares forbidden field 'wall_clock' *",
            "recordsmod.py:12:5 ST501 TypedDict Row declares forbidden field 'hostname' *",
        ]
    )


def test_markers_are_listed_by_pytest_markers(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers", *NO_CACHE)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.sealed_trace_forbid_imports(module, allowed=(), forbidden=(), "
            "preset=None):*",
            "@pytest.mark.sealed_trace_forbid_fields(*types, fields='adr-0230'):*",
        ],
        consecutive=False,
    )


STRICT_SUITE = """
import pytest


@pytest.mark.sealed_trace_forbid_imports("cleanmod", allowed=["json", "dataclasses"])
def test_imports():
    pass


@pytest.mark.sealed_trace_forbid_fields("cleanmod.Clean")
def test_fields():
    pass


@pytest.mark.not_registered_anywhere
def test_unregistered():
    pass
"""


@pytest.mark.parametrize("how", ["--strict-markers", "ini-strict"])
def test_strict_mode_accepts_the_markers(pytester: pytest.Pytester, how: str) -> None:
    if how == "ini-strict" and pytest.version_tuple < (9,):
        pytest.skip("ini 'strict' needs pytest 9")
    _project(pytester, "")
    pytester.makepyfile(test_strict=STRICT_SUITE)
    args = ["test_strict.py", "-rA", *NO_CACHE]
    if how == "ini-strict":
        pytester.makeini("[pytest]\nstrict = true\n")
    else:
        args.append("--strict-markers")
    # The unknown marker proves strictness is on; the plugin's two markers pass it.
    result = pytester.runpytest(*args)
    result.stdout.fnmatch_lines(
        ["*'not_registered_anywhere' not found in `markers` configuration option*"]
    )
    result.stdout.no_fnmatch_line("*sealed_trace_forbid_* not found*")
    pytester.makepyfile(test_strict=STRICT_SUITE.split("@pytest.mark.not_registered")[0])
    pytester.runpytest(*args).assert_outcomes(passed=2)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            "sealed_trace_forbid_imports()",
            "sealed_trace_forbid_imports: takes one module name as a string, got ()",
        ),
        (
            "sealed_trace_forbid_imports('cleanmod', 'clockmod', allowed=['json'])",
            "sealed_trace_forbid_imports: takes one module name as a string, got "
            "('cleanmod', 'clockmod')",
        ),
        (
            "sealed_trace_forbid_imports(cleanmod_object, allowed=['json'])",
            "sealed_trace_forbid_imports: takes one module name",
        ),
        (
            "sealed_trace_forbid_imports('cleanmod')",
            "sealed_trace_forbid_imports: needs allowed=..., forbidden=... and/or preset=...",
        ),
        (
            "sealed_trace_forbid_imports('cleanmod', allowed=['json'], allow=['os'])",
            "sealed_trace_forbid_imports: unknown argument allow= (did you mean allowed=?)",
        ),
        (
            "sealed_trace_forbid_imports('cleanmod', allowed=5)",
            "allowed=5: must be a string or a list of strings",
        ),
        (
            "sealed_trace_forbid_imports('cleanmod', forbidden=['time.*', 3])",
            "forbidden=['time.*', 3]: must be a string or a list of strings",
        ),
        (
            "sealed_trace_forbid_imports('cleanmod', forbidden=['time-*'])",
            "sealed_trace_forbid_imports: forbidden: ",
        ),
        ("sealed_trace_forbid_imports('cleanmod', forbidden=['tiem.*'])", "did you mean 'time.*'?"),
        (
            "sealed_trace_forbid_imports('cleanmod', preset='adr0230')",
            "sealed_trace_forbid_imports: preset: 'adr0230' is not a built-in preset "
            "(did you mean 'adr-0230'?)",
        ),
        ("sealed_trace_forbid_fields()", "sealed_trace_forbid_fields: needs a record type"),
        (
            "sealed_trace_forbid_fields('cleanmod.Clean', field=['x'])",
            "sealed_trace_forbid_fields: unknown argument field= (did you mean fields=?)",
        ),
        (
            "sealed_trace_forbid_fields('cleanmod.Clean', fields=3)",
            "fields=3: must be a string or a list of strings",
        ),
        (
            "sealed_trace_forbid_fields('cleanmod.Clean', fields='adr-231')",
            "did you mean fields='adr-0231'?",
        ),
        (
            "sealed_trace_forbid_fields(42)",
            "sealed_trace_forbid_fields: takes types, modules or dotted names, not 42",
        ),
        (
            "sealed_trace_forbid_fields('nosuchthing')",
            "'nosuchthing': no module of it has a source file",
        ),
        (
            "sealed_trace_forbid_fields('cleanmod.NoSuchClass')",
            "'cleanmod.NoSuchClass': cleanmod defines no NoSuchClass",
        ),
        (
            "sealed_trace_forbid_fields('cleanmod.Clean.NoSuchInner')",
            "cleanmod defines no Clean.NoSuchInner",
        ),
    ],
    ids=[
        "imports-no-module",
        "imports-two-modules",
        "imports-module-object",
        "imports-no-lists",
        "imports-unknown-kwarg",
        "imports-allowed-not-strings",
        "imports-forbidden-mixed",
        "imports-bad-pattern",
        "imports-typo-module",
        "imports-bad-preset",
        "fields-no-type",
        "fields-unknown-kwarg",
        "fields-not-strings",
        "fields-bad-preset",
        "fields-not-a-type",
        "fields-unknown-name",
        "fields-missing-class",
        "fields-missing-inner-class",
    ],
)
def test_bad_marker_usage_fails_the_test_with_one_clean_line(
    pytester: pytest.Pytester, marker: str, message: str
) -> None:
    _project(pytester, "")
    pytester.makepyfile(
        test_bad=f"""
        import pytest

        import cleanmod as cleanmod_object


        @pytest.mark.{marker}
        def test_bad():
            pass
        """
    )
    pytester.syspathinsert()
    result = pytester.runpytest("test_bad.py", "-rA", *NO_CACHE)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["FAILED test_bad.py::test_bad - Failed: sealed_trace_forbid_*"])
    out = result.stdout.str()
    assert message in out
    assert "pytest_sealed_trace" not in out  # no plugin traceback
    assert "During handling" not in out


def test_a_module_without_source_fails_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_missing="""
        import pytest


        @pytest.mark.sealed_trace_forbid_imports("no_such_module_here", allowed=["json"])
        def test_missing():
            pass
        """
    )
    result = pytester.runpytest("-rA", *NO_CACHE)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*sealed_trace marker: module 'no_such_module_here' has no source file under the "
            "rootdir or sys.path*"
        ]
    )


def test_the_checked_module_is_read_never_imported(pytester: pytest.Pytester) -> None:
    write_files(
        pytester,
        {
            "boom.py": """
            import time

            raise RuntimeError("imported!")
            """
        },
    )
    pytester.makepyfile(
        test_boom="""
        import sys

        import pytest


        @pytest.mark.sealed_trace_forbid_imports("boom", forbidden=["time"])
        def test_boom():
            pass


        def test_not_imported():
            assert "boom" not in sys.modules
        """
    )
    result = pytester.runpytest("-rA", "-p", "no:randomly", *NO_CACHE)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["boom.py:1:8 ST102 *"])
    result.stdout.no_fnmatch_line("*imported!*")


def test_a_bare_builtin_in_forbidden_means_the_builtin(pytester: pytest.Pytester) -> None:
    write_files(
        pytester,
        {
            "readsmod.py": """
            import builtins


            def read(path, text):
                grab = open
                return open(path), builtins.open(path), grab(path), eval(text)
            """
        },
    )
    pytester.makepyfile(
        test_reads="""
        import pytest


        @pytest.mark.sealed_trace_forbid_imports("readsmod", forbidden=["open", "eval"])
        def test_reads():
            pass


        @pytest.mark.sealed_trace_forbid_imports("readsmod", forbidden=["__import__"])
        def test_no_dynamic_import():
            pass
        """
    )
    result = pytester.runpytest("-rA", *NO_CACHE)
    result.assert_outcomes(failed=1, passed=1)  # `__import__` is accepted, and not used
    result.stdout.fnmatch_lines(
        [
            # `grab = open` is reported at its use, `grab(path)`: one finding per chain
            "readsmod.py:6:12 ST201 call of banned builtins.open",
            "readsmod.py:6:24 ST201 call of banned builtins.open",
            "readsmod.py:6:45 ST201 call of banned builtins.open (through local name 'grab')",
            "readsmod.py:6:57 ST201 call of banned builtins.eval",
        ],
        consecutive=False,
    )
    result.stdout.no_fnmatch_line("*names no first-party module*")
