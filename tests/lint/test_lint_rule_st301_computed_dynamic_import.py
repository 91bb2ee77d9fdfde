"""ST301 computed-dynamic-import: valid and invalid snippets (ADR-0230 §15.2, §5)."""

from __future__ import annotations

from lint_project import Project


def test_computed_name_in_boundary(project: Project) -> None:
    code = "import importlib\nname = 'js' + 'on'\nimportlib.import_module(name)\n"
    assert ("ST301", 3) in project.sealed(code)


def test_literal_name_is_judged_as_import(project: Project) -> None:
    code = "import importlib\nimportlib.import_module('json')\nimportlib.import_module('decimal')\n"
    found = project.sealed(code)
    assert ("ST301", 2) not in found
    assert ("ST301", 3) not in found
    assert ("ST101", 3) in found
    assert ("ST101", 2) not in found


def test_computed_name_in_upstream(project: Project) -> None:
    assert project.upstream("import importlib\nimportlib.import_module(NAME)\n") == {("ST301", 2)}


def test_dunder_import_computed_in_upstream(project: Project) -> None:
    assert project.upstream("mod = __import__(f'{x}')\n") == {("ST301", 1)}


def test_literal_in_upstream_is_clean(project: Project) -> None:
    assert project.upstream("import importlib\nimportlib.import_module('json')\n") == set()


def test_not_reported_in_unrelated_module(project: Project) -> None:
    project.write("src/pkg/other.py", "import importlib\nimportlib.import_module(NAME)\n")
    assert project.codes("src/pkg/other.py") == set()
