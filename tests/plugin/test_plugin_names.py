"""The plugin's import-time name lists agree with the core they stand in for."""

from __future__ import annotations

import subprocess
import sys

from pytest_sealed_trace._names import (
    BOUND_DISPOSITION_NAMES,
    BOUND_TAMPER_NAMES,
    SEALED_DISPOSITION_NAMES,
    TAMPER_NAMES,
)
from sealed_trace.builder import BOUND_DISPOSITION_NAMES as CORE_BOUND_DISPOSITIONS
from sealed_trace.builder import BOUND_TAMPERS, TAMPERS
from sealed_trace.builder import SEALED_DISPOSITION_NAMES as CORE_DISPOSITIONS


def test_sealed_disposition_names_match_the_builder():
    assert SEALED_DISPOSITION_NAMES == CORE_DISPOSITIONS


def test_tamper_names_match_the_builder():
    assert tuple(sorted(TAMPERS)) == TAMPER_NAMES


def test_bound_names_match_the_builder():
    assert BOUND_DISPOSITION_NAMES == CORE_BOUND_DISPOSITIONS
    assert tuple(sorted(BOUND_TAMPERS)) == BOUND_TAMPER_NAMES


def test_importing_the_plugin_does_not_import_the_sealing_core():
    code = (
        "import sys, pytest_sealed_trace.plugin; "
        "print(sorted(m for m in sys.modules if m == 'sealed_trace' or "
        "m.startswith('sealed_trace.')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    # the core package and the lint's API package load their names on first use: neither
    # loads a module of its own when the plugin is imported
    assert result.stdout.strip() in ("[]", "['sealed_trace', 'sealed_trace.lint']")
