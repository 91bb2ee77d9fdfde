"""ST303 computed-module-attribute: valid and invalid snippets (ADR-0230 §15.2)."""

from __future__ import annotations

from lint_project import Project


def test_computed_getattr_on_module(project: Project) -> None:
    code = "import json\nname = 'dum' + 'ps'\ngetattr(json, name)\n"
    assert project.sealed(code) == {("ST303", 3)}


def test_literal_getattr_on_allowed_name_is_clean(project: Project) -> None:
    assert project.sealed("import json\ngetattr(json, 'dumps')({})\n") == set()


def test_computed_getattr_on_local_object_is_reported(project: Project) -> None:
    # fail closed: the name may be an escape (``__globals__``) whatever the object
    assert project.sealed("def f(obj, name):\n    return getattr(obj, name)\n") == {("ST303", 2)}
