"""The static boundary lint of ADR-0230 (§5 reverse dependencies, §7.3 forbidden fields,
§15 allowed surface and banned facilities); the only package that imports libcst.

Importing this package does not import libcst: the libcst pass (:mod:`.cst_pass`) is loaded
only when a file must be parsed. Public entry points: :func:`sealed_trace.lint.config.load_config`,
:func:`sealed_trace.lint.engine.lint`, :mod:`sealed_trace.lint.cli` and
:func:`sealed_trace.lint.catalog.explain_rule`.
"""

from __future__ import annotations

__all__: list[str] = []
