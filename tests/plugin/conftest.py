"""Shared fixtures of the pytest-plugin tests: throw-away projects run under ``pytester``.

Every test here runs pytest on a small project of its own, in process (``runpytest``) when the
case allows it, in a subprocess (``runpytest_subprocess``) when plugin autoload, environment
variables read at interpreter start, or xdist workers are part of what is tested.
"""

from __future__ import annotations

import pytest
from plugin_support import LINT_FILES, LINT_PYPROJECT, write_files


@pytest.fixture
def lint_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with ``[tool.sealed_trace]``: boundary ``seal`` fails, ``clean`` passes."""
    pytester.makepyprojecttoml(LINT_PYPROJECT)
    write_files(pytester, LINT_FILES)
    return pytester
