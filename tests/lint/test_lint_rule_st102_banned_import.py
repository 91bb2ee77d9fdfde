"""ST102 banned-import: valid and invalid snippets (ADR-0230 §15.2)."""

from __future__ import annotations

import pytest
from lint_project import Project

VALID = [
    "import json\nfrom json import dumps, loads\n",
    "import hashlib\nfrom hashlib import sha256\n",
    "import timeit\n",  # flagged by ST101 only: not banned, merely outside the surface
]

INVALID = [
    ("import time\n", {("ST102", 1)}),
    ("import os.path\n", {("ST102", 1)}),
    ("from os import environ\n", {("ST102", 1)}),
    ("from time import *\n", {("ST102", 1)}),
    ("from json import load\n", {("ST102", 1)}),
    ("from hashlib import file_digest\n", {("ST102", 1)}),
    ("from builtins import open\n", {("ST102", 1)}),
    ("import importlib.metadata\n", {("ST102", 1)}),
]


@pytest.mark.parametrize("code", VALID)
def test_valid(project: Project, code: str) -> None:
    assert {c for c, _ in project.sealed(code)} <= {"ST101"}


@pytest.mark.parametrize(("code", "expected"), INVALID)
def test_invalid(project: Project, code: str, expected: set[tuple[str, int]]) -> None:
    assert project.sealed(code) == expected


def test_star_import_from_module_with_one_banned_name(project: Project) -> None:
    project.boundary_toml += 'banned = ["pkg.values.clock"]\n'
    assert project.sealed("from pkg.values import *\n") == {("ST102", 1)}
    assert project.sealed("from pkg.values import other\n") == set()
