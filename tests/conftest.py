"""Shared fixtures for the core suite: lawful episodes built by the fixture factory."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # the independent recomputation helper lives beside the tests
    sys.path.insert(0, _HERE)

from sealed_trace.builder import SEALED_DISPOSITION_NAMES, build_episode  # noqa: E402

pytest_plugins = ["pytester"]


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Run the suite on every core by default (``-n auto``) when pytest-xdist is installed.

    An explicit ``-n``/``--dist`` (``-n 0`` for serial), ``-p no:xdist``, ``--pdb``, or no
    xdist at all, runs as asked; so does a worker itself.
    """
    if not config.pluginmanager.hasplugin("xdist") or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if config.option.numprocesses is None and config.option.dist == "no":
        config.option.numprocesses = "auto"


@pytest.fixture(params=SEALED_DISPOSITION_NAMES)
def any_sealed_episode(request: pytest.FixtureRequest):
    """One lawful episode per sealed disposition."""
    return build_episode(request.param)


@pytest.fixture
def closed_episode():
    """Two attempts: one contract_and_proof_closed result, one contract_refused result."""
    return build_episode("sealed_candidate_replay_closed")


@pytest.fixture
def mixed_episode():
    """Two attempts: one replay result and one replay refusal."""
    return build_episode(
        "sealed_candidate_replay_closed",
        outcomes=["contract_and_proof_closed", "contract_replay_unavailable"],
    )


@pytest.fixture
def refusal_episode():
    """A gate-blocked episode whose run is a SearchRunRefusal."""
    return build_episode("sealed_original_refusal")
