"""Pluggy hook specifications of sealed-trace (entry-point group ``sealed_trace``).

A package extends sealed-trace by declaring an entry point in the ``sealed_trace`` group whose
object (usually a module) implements hooks marked with :data:`hookimpl`::

    [project.entry-points.sealed_trace]
    my_rules = "my_package.sealed_trace_plugin"

Every hook name starts with ``sealed_trace_``. This module holds only specifications; loading
lives in :mod:`sealed_trace.lint.plugins`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pluggy

__all__ = ["ENTRY_POINT_GROUP", "PROJECT_NAME", "hookimpl", "hookspec", "sealed_trace_lint_rules"]

PROJECT_NAME = "sealed_trace"
ENTRY_POINT_GROUP = "sealed_trace"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def sealed_trace_lint_rules() -> Sequence[Any]:  # type: ignore[empty-body]
    """Return extra boundary-lint rules (each call's results are concatenated).

    Each rule is an object with ``code`` (a stable code not used by another rule, for example
    ``ST901``), ``name`` (kebab case), ``summary``, ``explanation``, ``roles`` (a subset of
    :class:`sealed_trace.lint.rules.base.Role`, or of its strings ``{"boundary", "upstream",
    "reached", "ancestor"}``) and ``check(ctx)`` returning an iterable of
    :class:`sealed_trace.lint.findings.Finding`; ``ctx`` is a
    :class:`sealed_trace.lint.rules.base.RuleContext` (facts, decoded text, boundary policy).
    A rule that raises is reported as ST006 on the file; it never stops the lint.
    """
