"""The static boundary lint of ADR-0230 (§5 reverse dependencies, §7.3 forbidden fields,
§15 allowed surface and banned facilities); the only package that imports libcst.

The public API is what ``__all__`` lists: :func:`lint_project` (the one use case, which the
command line, the pytest plugin and ``sealed-trace init`` call) with :class:`LintOptions`
and :class:`LintRun`, the policy (:func:`load_config`, :func:`parse_config`,
:func:`find_config`, :class:`LintConfig`, :class:`ConfigError`), findings and their reports
(:class:`Finding`, :func:`render_report`), and the lookups a caller needs without linting
(:func:`module_file`, :func:`is_excluded`, :func:`lookup_rule`, :data:`FIELD_PRESETS`).

The pipeline, one module per stage: :mod:`.discover` (files and module names),
:mod:`.screen` (one read of every file), :mod:`.grimp_scan` (the compiled import scan),
:mod:`.plan` (what to parse, and why), :mod:`.hiding` (what a file's text may hide from the
scan), :mod:`.ast_pass` and :mod:`.cst_pass` (the two parsers), :mod:`.store` (facts and the
graph they make), :mod:`.graph` (the typed import graph), :mod:`.reverse` and
:mod:`.closure` (what reaches the sealed module, what it loads), :mod:`.rules` (one rule per
module), :mod:`.filters` and :mod:`.suppressions`, :mod:`.formats`, :mod:`.engine` (the
run), :mod:`.api` (the use case) and :mod:`.cli`.

Names load on first use (PEP 562), so importing this package, or one of its modules such as
:mod:`.catalog`, loads neither the engine nor libcst.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sealed_trace.lint.api import (
        LintError,
        LintOptions,
        LintRun,
        LintUsageError,
        error_lines,
        lint_project,
    )
    from sealed_trace.lint.catalog import lookup_rule
    from sealed_trace.lint.config import (
        ConfigError,
        LintConfig,
        find_config,
        load_config,
        parse_config,
    )
    from sealed_trace.lint.discover import discover_files, is_excluded, module_file
    from sealed_trace.lint.findings import Finding
    from sealed_trace.lint.formats import render_report
    from sealed_trace.lint.presets import FIELD_PRESETS

#: Each public name and the module that defines it.
_HOME = {
    "LintError": "api",
    "LintOptions": "api",
    "LintRun": "api",
    "LintUsageError": "api",
    "error_lines": "api",
    "lint_project": "api",
    "lookup_rule": "catalog",
    "ConfigError": "config",
    "LintConfig": "config",
    "find_config": "config",
    "load_config": "config",
    "parse_config": "config",
    "discover_files": "discover",
    "is_excluded": "discover",
    "module_file": "discover",
    "Finding": "findings",
    "render_report": "formats",
    "FIELD_PRESETS": "presets",
}

__all__ = [
    "FIELD_PRESETS",
    "ConfigError",
    "Finding",
    "LintConfig",
    "LintError",
    "LintOptions",
    "LintRun",
    "LintUsageError",
    "discover_files",
    "error_lines",
    "find_config",
    "is_excluded",
    "lint_project",
    "load_config",
    "lookup_rule",
    "module_file",
    "parse_config",
    "render_report",
]


def __getattr__(name: str) -> Any:
    """Load a public name from the module that defines it, on first access (PEP 562)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'sealed_trace.lint' has no attribute {name!r}")
    # not cached here: the defining module's attribute is the one every caller sees
    return getattr(importlib.import_module(f"sealed_trace.lint.{home}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
