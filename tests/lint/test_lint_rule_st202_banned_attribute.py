"""ST202 banned-attribute: valid and invalid snippets (ADR-0230 §15.2)."""

from __future__ import annotations

import pytest
from lint_project import Project

VALID = [
    "environ = {}\nx = environ.get('A')\n",
    "def f(os):\n    return os.environ\n",
    "import json\nfn = json.dumps\n",
]

INVALID = [
    ("import os\nx = os.environ\n", {("ST102", 1), ("ST202", 2)}),
    ("import time\nclk = time.time\n", {("ST102", 1), ("ST202", 2)}),
    ("f = open\n", {("ST202", 1)}),
    ("def f(reader=print):\n    pass\n", {("ST202", 1)}),
]


@pytest.mark.parametrize("code", VALID)
def test_valid(project: Project, code: str) -> None:
    assert project.sealed(code) == set()


@pytest.mark.parametrize(("code", "expected"), INVALID)
def test_invalid(project: Project, code: str, expected: set[tuple[str, int]]) -> None:
    assert project.sealed(code) == expected


def test_annotation_through_type_checking_import_is_ignored_with_policy(project: Project) -> None:
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    code = (
        "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import socket\n"
        "def f(x: socket.socket) -> None:\n    return None\n"
    )
    assert project.sealed(code) == set()
