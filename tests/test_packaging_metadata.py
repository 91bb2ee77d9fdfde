"""Issue 18, item 4: the package says what it is where indexes and tools look."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CLASSIFIERS = PROJECT["classifiers"]


def test_the_classifiers_say_pytest_plugin_typed_and_each_python() -> None:
    assert "Framework :: Pytest" in CLASSIFIERS
    assert "Typing :: Typed" in CLASSIFIERS
    assert "License :: OSI Approved :: MIT License" in CLASSIFIERS
    assert PROJECT["license"] == {"text": "MIT"}
    assert PROJECT["requires-python"] == ">=3.10"
    versions = [
        c.rsplit(" :: ", 1)[1]
        for c in CLASSIFIERS
        if c.count(" :: ") == 2 and c.startswith("Programming Language :: Python :: 3.")
    ]
    assert versions == ["3.10", "3.11", "3.12", "3.13"]


def test_every_classifier_is_a_known_one() -> None:
    trove = pytest.importorskip("trove_classifiers")
    assert [c for c in CLASSIFIERS if c not in trove.classifiers] == []
    assert sorted(CLASSIFIERS) == CLASSIFIERS


def test_the_typed_marker_ships() -> None:
    assert (ROOT / "sealed_trace" / "py.typed").is_file()
    assert (ROOT / "pytest_sealed_trace" / "py.typed").is_file()
