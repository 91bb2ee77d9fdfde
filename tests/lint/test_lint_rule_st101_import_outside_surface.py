"""ST101 import-outside-surface: valid and invalid snippets (ADR-0230 §15.1)."""

from __future__ import annotations

import pytest
from lint_project import Project

VALID = [
    "from __future__ import annotations\nimport hashlib\nimport json\n",
    "from collections.abc import Mapping\nfrom dataclasses import dataclass, field\n",
    "import typing as t\nfrom enum import Enum\nfrom types import MappingProxyType\n",
    "from pkg import values\nfrom pkg.values import X\nfrom . import values as v\n",
    "from .values import X\n",
    "from collections import abc\n",  # collections.abc is allowed
    "import collections.abc\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import hashlib\n",
]

INVALID = [
    ("import decimal\n", {("ST101", 1)}),
    ("import collections\n", {("ST101", 1)}),  # a parent of an allowed name is not allowed
    ("from pkg import other\n", {("ST101", 1)}),
    ("from . import other\n", {("ST101", 1)}),
    ("from .. import x\n", {("ST101", 1)}),  # leaves the top-level package
    ("def f():\n    import decimal\n", {("ST101", 2)}),
    ("try:\n    import fractions\nexcept ImportError:\n    pass\n", {("ST101", 2)}),
    ("import hashlib, decimal\n", {("ST101", 1)}),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import decimal\n", {("ST101", 3)}),
    ("import pkg.valuesx\n", {("ST101", 1)}),  # similar name is not a submodule
]


@pytest.mark.parametrize("code", VALID)
def test_valid(project: Project, code: str) -> None:
    assert project.sealed(code) == set()


@pytest.mark.parametrize(("code", "expected"), INVALID)
def test_invalid(project: Project, code: str, expected: set[tuple[str, int]]) -> None:
    assert project.sealed(code) == expected


def test_type_checking_ignore_policy(project: Project) -> None:
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    code = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import decimal\n"
        "else:\n    import fractions\n"
    )
    assert project.sealed(code) == {("ST101", 5)}


def test_message_names_module_and_boundary(project: Project) -> None:
    project.write("src/pkg/sealed.py", "import decimal\n")
    (finding,) = project.findings()
    assert finding.path == "src/pkg/sealed.py"
    assert (finding.line, finding.column) == (1, 8)
    assert "decimal" in finding.message
    assert "'sealed'" in finding.message
