"""Reading and validating ``[tool.sealed_trace]`` (issue 3 §1; ADR-0230 §15).

:func:`load_config` reads a ``pyproject.toml`` (``tomllib``, or ``tomli`` below Python 3.11) and
returns a :class:`LintConfig`, or raises :class:`ConfigError` listing *every* problem found:
unknown keys (with a close-match suggestion), wrong types, bad values, and ``module`` or
``upstream`` patterns that match no module in the source roots. A policy is never silently
inert. :class:`ConfigError` is a usage error (exit 2), distinct from lint findings (exit 1).

The modules, by role: :mod:`.model` (the validated policy and :class:`ConfigError`),
:mod:`.fields` (every key declared once: name, type, default, doc, parser), :mod:`.table` (the
declarations' form and the loop that reads a table of them), :mod:`.checks` (generic value
checks), :mod:`.names` (which module names exist), :mod:`.parse` (:func:`parse_config`),
:mod:`.load` (finding and reading the file), :mod:`.lines` (the line a problem is about) and
:mod:`.reference` (the reference tables of ``docs/lint.md``, rendered from the declarations).
"""

from __future__ import annotations

from sealed_trace.lint.config.fields import (
    BOUNDARY_KEYS,
    IGNORE_KEYS,
    TOP_KEYS,
    target_from_requires_python,
)
from sealed_trace.lint.config.load import find_config, load_config
from sealed_trace.lint.config.model import (
    DEFAULT_EDGE_KINDS,
    DEFAULT_MAX_FILE_BYTES,
    EDGE_KINDS,
    UNHIDEABLE,
    Boundary,
    ConfigError,
    IgnoreEntry,
    LintConfig,
    name_is_banned,
)
from sealed_trace.lint.config.parse import parse_config

__all__ = [
    "BOUNDARY_KEYS",
    "DEFAULT_EDGE_KINDS",
    "DEFAULT_MAX_FILE_BYTES",
    "EDGE_KINDS",
    "IGNORE_KEYS",
    "TOP_KEYS",
    "UNHIDEABLE",
    "Boundary",
    "ConfigError",
    "IgnoreEntry",
    "LintConfig",
    "find_config",
    "load_config",
    "name_is_banned",
    "parse_config",
    "target_from_requires_python",
]
