"""Every built-in rule's own ``valid`` and ``invalid`` snippets, run through the real lint.

Each rule class carries its examples (:class:`sealed_trace.lint.rules.base.Snippet`), written
against the project of ``lint_project.Project``; a valid snippet gives no finding of the rule's
code anywhere, an invalid one at least one in the file it is written to.
"""

from __future__ import annotations

import pytest
from lint_project import Project

from sealed_trace.lint.rules import BUILTIN_RULES
from sealed_trace.lint.rules.base import CatalogRule, Snippet

RULES = [rule for rule in BUILTIN_RULES if isinstance(rule, CatalogRule)]


def _cases(which: str) -> list[object]:
    return [
        pytest.param(rule.code, snippet, id=f"{rule.code}-{rule.name}-{which}-{index}")
        for rule in RULES
        for index, snippet in enumerate(getattr(rule, which))
    ]


def _lint(project: Project, snippet: Snippet) -> list[tuple[str, str, int]]:
    """``(code, path, line)`` of every finding once ``snippet`` is written into ``project``."""
    for path, text in snippet.files.items():
        project.write(path, text)
    project.write(snippet.path, snippet.code)
    if snippet.policy:
        project.boundary_toml += snippet.policy.rstrip("\n") + "\n"
    return [(f.code, f.path, f.line) for f in project.findings()]


def test_every_builtin_rule_carries_valid_and_invalid_snippets() -> None:
    assert len(RULES) == len(BUILTIN_RULES)
    for rule in RULES:
        assert len(rule.valid) >= 2, rule.code
        assert len(rule.invalid) >= 2, rule.code


@pytest.mark.parametrize(("code", "snippet"), _cases("valid"))
def test_valid_snippet_has_no_finding_of_its_rule(
    project: Project, code: str, snippet: Snippet
) -> None:
    found = _lint(project, snippet)
    assert [f for f in found if f[0] == code] == [], found


@pytest.mark.parametrize(("code", "snippet"), _cases("invalid"))
def test_invalid_snippet_has_a_finding_of_its_rule(
    project: Project, code: str, snippet: Snippet
) -> None:
    found = _lint(project, snippet)
    assert any(c == code and path == snippet.path for c, path, _ in found), found
