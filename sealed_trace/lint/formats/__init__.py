"""Report formats of the boundary lint: ``text``, ``json``, ``sarif`` and ``github``.

Each format module exposes ``render(result, tool_version) -> str``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version

from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.formats import github, json_format, sarif, text

__all__ = ["FORMATS", "render", "render_report", "repo_relative"]

FORMATS: dict[str, Callable[[LintResult, str], str]] = {
    "text": text.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}


def render(name: str, result: LintResult, tool_version: str) -> str:
    """Render ``result`` in format ``name``; raises ``KeyError`` for an unknown format."""
    return FORMATS[name](result, tool_version)


def render_report(result: LintResult, lint_format: str, root: str) -> str:
    """``result`` as ``sealed-trace lint --format lint_format`` prints it, without colour or
    source lines (what the pytest plugin writes for ``--sealed-trace-lint-format``)."""
    if lint_format == "text":
        return text.render_text(result, root=root, show_source=False, colour=False)
    if lint_format in ("sarif", "github"):
        result = repo_relative(result, root)
    return render(lint_format, result, tool_version())


def tool_version() -> str:
    """This distribution's version, as reports name the tool (``0.0.0`` when not installed)."""
    try:
        return version("sealed-trace")
    except PackageNotFoundError:
        return "0.0.0"


def repo_relative(result: LintResult, root: str) -> LintResult:
    """``result`` with paths relative to the enclosing git repository (GitHub's frame of
    reference for annotations and code scanning), when the policy lives below its top."""
    top = os.path.realpath(root)
    here = top
    while not os.path.exists(os.path.join(here, ".git")):
        parent = os.path.dirname(here)
        if parent == here:
            return result
        here = parent
    prefix = os.path.relpath(top, here).replace(os.sep, "/")
    if prefix == ".":
        return result
    findings = tuple(dataclasses.replace(f, path=f"{prefix}/{f.path}") for f in result.findings)
    return dataclasses.replace(result, findings=findings)
