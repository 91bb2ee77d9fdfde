"""ST302 plugin-discovery: valid and invalid snippets (ADR-0230 §15.2, §5)."""

from __future__ import annotations

from lint_project import Project


def test_entry_points_in_boundary(project: Project) -> None:
    code = "from importlib.metadata import entry_points\nentry_points(group='x')\n"
    assert ("ST302", 2) in project.sealed(code)


def test_entry_points_in_upstream(project: Project) -> None:
    code = "import importlib.metadata as md\neps = md.entry_points()\n"
    assert project.upstream(code) == {("ST302", 2)}


def test_unrelated_entry_points_function_is_clean(project: Project) -> None:
    code = "def entry_points():\n    return []\nentry_points()\n"
    assert project.upstream(code) == set()
