"""ST201 banned-call: valid and invalid snippets (ADR-0230 §15.2)."""

from __future__ import annotations

import pytest
from lint_project import Project

VALID = [
    "def f(open):\n    return open('x')\n",
    "def open(p):\n    return p\nopen('x')\n",
    "class C:\n    def time(self):\n        return 1\nC().time()\n",
    "def f(clock):\n    return clock.time()\n",
    "import json\njson.dumps({})\njson.loads('1')\n",
    "x = 'time.time()'  # time.time()\n",
    '"""open(\'file\')"""\n',
]

INVALID = [
    ("open('f')\n", {("ST201", 1)}),
    ("print('x')\n", {("ST201", 1)}),
    ("import builtins\nbuiltins.open('f')\n", {("ST101", 1), ("ST201", 2)}),
    ("from json import dumps\nimport json\njson.dump({}, None)\n", {("ST201", 3)}),
    ("eval('1')\nexec('x=1')\n", {("ST201", 1), ("ST201", 2)}),
    ("__import__('json')\n", {("ST201", 1)}),
]


@pytest.mark.parametrize("code", VALID)
def test_valid(project: Project, code: str) -> None:
    assert project.sealed(code) == set()


@pytest.mark.parametrize(("code", "expected"), INVALID)
def test_invalid(project: Project, code: str, expected: set[tuple[str, int]]) -> None:
    assert project.sealed(code) == expected


def test_extra_banned_wildcard(project: Project) -> None:
    project.boundary_toml += 'banned = ["pkg.values.run_*"]\n'
    code = "from pkg import values\nvalues.run_search()\nvalues.render()\n"
    assert project.sealed(code) == {("ST201", 2)}


def test_message_says_how_it_resolved(project: Project) -> None:
    project.write("src/pkg/sealed.py", "import time as t\nclk = t.monotonic\nclk()\n")
    messages = {f.line: f.message for f in project.findings() if f.code == "ST201"}
    assert "time.monotonic" in messages[3]
    assert "clk" in messages[3]
