"""Helpers of the pytest-plugin tests: project files and result parsing."""

from __future__ import annotations

import re
import textwrap

import pytest

#: A boundary-lint project: one failing boundary (three findings), one clean boundary.
LINT_PYPROJECT = """
[tool.sealed_trace]
source_roots = ["."]
exclude = ["tests", "conftest.py"]

[[tool.sealed_trace.boundary]]
name = "seal"
module = "kern.seal"
allowed_imports = ["kern.records", "dataclasses"]
banned = ["time.*"]
upstream = []

[[tool.sealed_trace.boundary]]
name = "clean"
module = "kern.clean"
allowed_imports = ["json"]
upstream = []
"""

LINT_FILES = {
    "kern/__init__.py": "",
    "kern/records.py": """
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class R:
            x: int
        """,
    "kern/seal.py": """
        from dataclasses import dataclass
        from time import monotonic as tick

        import os

        from kern.records import R


        @dataclass(frozen=True)
        class Sealed:
            r: R
            stamp: float = 0.0


        def seal(r):
            return Sealed(r, tick())
        """,
    "kern/clean.py": """
        import json


        def dump(x):
            return json.dumps(x)
        """,
    "tests/test_trivial.py": """
        def test_trivial():
            pass
        """,
}

#: The three findings of boundary ``seal``, as a lint item prints them.
SEAL_FINDINGS = (
    "kern/seal.py:2:18 ST102 `from time import monotonic` imports a banned name",
    "kern/seal.py:4:8 ST101 `import os` imports os, outside the allowed surface of boundary 'seal'",
    "kern/seal.py:16:22 ST201 call of banned time.monotonic",
)

_SUMMARY = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)")
_FINDING = re.compile(r"^\S+\.py:\d+:\d+ ST\d{3} .*$")
_SECTION = re.compile(r"^=+ (.*?) =+$")


def write_files(pytester: pytest.Pytester, files: dict[str, str]) -> None:
    """Write ``files`` (relative path -> dedented source) under the pytester directory."""
    for relpath, source in files.items():
        path = pytester.path / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")


def summary(result: pytest.RunResult) -> dict[str, str]:
    """Node id -> outcome word from the ``-rA`` short test summary of ``result``."""
    found: dict[str, str] = {}
    for line in result.outlines:
        match = _SUMMARY.match(line)
        if match:
            found[match.group(2)] = match.group(1)
    return found


def finding_lines(result: pytest.RunResult) -> list[str]:
    """Every ``path:line:col RULE message`` line of the FAILURES section of ``result``, in order.

    Only that section counts: on a CI machine (``CI`` or ``BUILD_NUMBER`` set) pytest prints a
    failed item's whole text again in the short test summary, so the same finding appears twice.
    """
    lines: list[str] = []
    in_failures = False
    for line in result.outlines:
        header = _SECTION.match(line)
        if header:
            in_failures = header.group(1) == "FAILURES"
        elif in_failures and _FINDING.match(line):
            lines.append(line)
    return lines
