"""Hooks a host project may implement in its conftest.py or a plugin of its own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_sealed_trace_record_types(config: pytest.Config) -> Mapping[str, Any] | None:
    """Return the host project's record classes by reference class name, or None.

    Keys are the names of the reference types in :mod:`sealed_trace.upstream` and
    :class:`~sealed_trace.PracticeEpisode` (``"SourceSpan"``, ``"ContractResidual"``,
    ``"GeometricSearchRun"``, ...); values are callables taking that record's fields as
    keyword arguments (usually the host's frozen dataclasses). The episode fixtures then hand
    out host records instead of the reference types. The first non-None result wins; the ini
    option ``sealed_trace_record_types`` is used when no hook answers. (pytest only calls
    hook implementations named ``pytest_*``, hence the prefix.)
    """
