"""Shared fixtures of the boundary-lint tests: a throw-away project under ``tmp_path``."""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_project import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A fresh :class:`Project` in ``tmp_path``."""
    return Project(tmp_path)
