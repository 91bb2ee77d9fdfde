"""Issue 18, item 1: the markers that replace hand-written boundary tests.

``third_party`` on every marker, ``sealed_trace_forbid_importers`` (reverse imports as the
lint's ST401-ST403 judge them) and the field presets of ADR-0231 and ADR-0232.
"""

from __future__ import annotations

import pytest
from plugin_support import write_files

from sealed_trace.lint.presets import FIELD_PRESETS

NO_CACHE = ("-p", "no:cacheprovider")

#: A small kernel: ``kern.sealing`` is sealed; ``kern.gate`` imports it relatively,
#: ``kern.budget`` through ``kern.helpers``, ``kern.run`` runs ``kern/engine/__init__.py``,
#: which imports it; ``kern.records`` is clean.
KERNEL = {
    "kern/__init__.py": "",
    "kern/sealing.py": """
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class Trace:
            proof: str
            name: str
        """,
    "kern/records.py": """
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class Record:
            name: str
        """,
    "kern/gate.py": """
        from . import sealing as s
        """,
    "kern/helpers.py": """
        import kern.sealing
        """,
    "kern/budget.py": """
        from kern import helpers
        """,
    "kern/engine/__init__.py": """
        from kern.sealing import Trace
        """,
    "kern/engine/run.py": """
        X = 1
        """,
    "kern/net.py": """
        import requests


        def get():
            return requests.get("https://example.org")
        """,
}


def _run(pytester: pytest.Pytester, tests: str) -> pytest.RunResult:
    write_files(pytester, KERNEL)
    pytester.makepyfile(test_marked=tests)
    return pytester.runpytest("test_marked.py", "-rA", "--strict-markers", *NO_CACHE)


def test_forbid_importers_finds_every_spelling_chain_and_package(
    pytester: pytest.Pytester,
) -> None:
    result = _run(
        pytester,
        """
        import pytest


        @pytest.mark.sealed_trace_forbid_importers(
            "kern.sealing", upstream=["kern.gate", "kern.budget", "kern.engine.run"]
        )
        def test_reverse():
            pass


        @pytest.mark.sealed_trace_forbid_importers("kern.sealing", upstream=["kern.records"])
        def test_clean():
            pass
        """,
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "upstream modules import kern.sealing:",
            "kern/engine/__init__.py:* ST403 *",
            "kern/gate.py:* ST401 *from . import sealing*",
            # the helper's import is the one fix for the upstream module behind it
            "kern/helpers.py:* ST402 *upstream module kern.budget reaches it*",
        ],
        consecutive=False,
    )
    result.stdout.no_fnmatch_line("*ST101*")


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("sealed_trace_forbid_importers('kern.sealing')", "needs upstream=[...]"),
        (
            "sealed_trace_forbid_importers('kern.sealing', upstrem=['kern.gate'])",
            "unknown argument upstrem= (did you mean upstream=?)",
        ),
        (
            "sealed_trace_forbid_importers('kern.sealing', upstream=['kern.nosuch'])",
            "sealed_trace_forbid_importers: upstream: pattern 'kern.nosuch' matches no module",
        ),
        ("sealed_trace_forbid_importers(upstream=['kern.gate'])", "takes one module name"),
        ("sealed_trace_forbid_importers('kern.sealing', upstream=3)", "upstream=3: must be"),
    ],
    ids=["no-upstream", "unknown-kwarg", "upstream-matches-nothing", "no-module", "not-strings"],
)
def test_forbid_importers_misuse_is_one_line(
    pytester: pytest.Pytester, marker: str, message: str
) -> None:
    result = _run(
        pytester,
        f"""
        import pytest


        @pytest.mark.{marker}
        def test_bad():
            pass
        """,
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert message in out
    assert "pytest_sealed_trace" not in out


def test_third_party_declares_a_module_that_is_not_installed(pytester: pytest.Pytester) -> None:
    result = _run(
        pytester,
        """
        import pytest


        @pytest.mark.sealed_trace_forbid_imports("kern.net", forbidden=["requests.*"])
        def test_undeclared():
            pass


        @pytest.mark.sealed_trace_forbid_imports(
            "kern.net", forbidden=["requests.*"], third_party=["requests"]
        )
        def test_declared():
            pass


        @pytest.mark.sealed_trace_forbid_importers(
            "kern.sealing", upstream=["kern.records"], third_party="requests"
        )
        def test_importers_take_it():
            pass


        @pytest.mark.sealed_trace_forbid_fields("kern.records", third_party=["requests"])
        def test_fields_take_it():
            pass
        """,
    )
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    assert (
        "sealed_trace_forbid_imports: forbidden: entry 'requests.*' names no first-party module"
        in out
    )
    assert "name a module that is not installed here in third_party=[...]" in out
    result.stdout.fnmatch_lines(
        [
            "FAILED test_marked.py::test_undeclared - *",
            "FAILED test_marked.py::test_declared - *",
        ],
        consecutive=False,
    )
    result.stdout.fnmatch_lines(
        [
            "kern.net breaks its import surface:",
            "kern/net.py:1:8 ST102 *",
            "kern/net.py:5:12 ST201 *",
        ]
    )


def test_later_adr_field_presets_include_adr_0230() -> None:
    base = set(FIELD_PRESETS["adr-0230"])
    assert len(base) == 19
    for name in ("adr-0231", "adr-0232"):
        assert base < set(FIELD_PRESETS[name])
        assert set(FIELD_PRESETS[name]) - base == {"proof", "verdict", "selected", "best"}


def test_field_presets_of_later_adrs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under CI pytest does not shorten the summary, which would repeat each finding there.
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BUILD_NUMBER", raising=False)
    result = _run(
        pytester,
        """
        import pytest


        @pytest.mark.sealed_trace_forbid_fields("kern.sealing.Trace")
        def test_adr_0230():
            pass


        @pytest.mark.sealed_trace_forbid_fields("kern.sealing.Trace", fields="adr-0231")
        def test_adr_0231():
            pass


        @pytest.mark.sealed_trace_forbid_fields("kern.sealing.Trace", fields="adr-0232")
        def test_adr_0232():
            pass
        """,
    )
    result.assert_outcomes(passed=1, failed=2)
    assert result.stdout.str().count("declares forbidden field 'proof'") == 2


def test_forbid_importers_fails_on_an_upstream_it_cannot_read(pytester: pytest.Pytester) -> None:
    write_files(
        pytester,
        {
            **KERNEL,
            "kern/gate.py": "def broken(:\n",
            # a suppression problem elsewhere is not this marker's business
            "kern/records.py": "X = 1  # sealed-trace: ignore[ST201] -- nothing to silence\n",
        },
    )
    pytester.makepyfile(
        test_marked="""
        import pytest


        @pytest.mark.sealed_trace_forbid_importers("kern.sealing", upstream=["kern.gate"])
        def test_unreadable():
            pass


        @pytest.mark.sealed_trace_forbid_importers("kern.sealing", upstream=["kern.records"])
        def test_records():
            pass
        """
    )
    result = pytester.runpytest("test_marked.py", "-rA", *NO_CACHE)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["kern/gate.py:1:* ST001 *"])
    result.stdout.no_fnmatch_line("*ST004*")
