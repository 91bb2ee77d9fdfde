"""ST401 reverse-import: every spelling of an upstream module importing the sealed module."""

from __future__ import annotations

import pytest
from lint_project import Project

INVALID = [
    ("import pkg.sealed\n", 1),
    ("import pkg.sealed as s\n", 1),
    ("from pkg import sealed\n", 1),
    ("from pkg.sealed import thing\n", 1),
    ("from .. import sealed\n", 1),
    ("from ..sealed import thing\n", 1),
    ("def f():\n    from pkg import sealed\n", 2),
    ("try:\n    import pkg.sealed\nexcept ImportError:\n    pass\n", 2),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import sealed\n", 3),
    ("import importlib\nimportlib.import_module('pkg.sealed')\n", 2),
    ("import importlib\nimportlib.import_module('..sealed', __package__)\n", 2),
    ("__import__('pkg.sealed')\n", 1),
    ("import pkg\nx = pkg.sealed.thing\n", 2),
]


@pytest.mark.parametrize(("code", "line"), INVALID)
def test_invalid(project: Project, code: str, line: int) -> None:
    assert project.upstream(code) == {("ST401", line)}


def test_relative_from_dot_in_sibling(project: Project) -> None:
    project.write("src/pkg/up2.py", "from . import sealed\n")
    project.boundary_toml = project.boundary_toml.replace('"pkg.up.*"]', '"pkg.up.*", "pkg.up2"]')
    assert project.codes("src/pkg/up2.py") == {("ST401", 1)}


def test_from_dot_sealed_import(project: Project) -> None:
    project.write("src/pkg/up2.py", "from .sealed import x\n")
    project.boundary_toml = project.boundary_toml.replace('"pkg.up.*"]', '"pkg.up.*", "pkg.up2"]')
    assert project.codes("src/pkg/up2.py") == {("ST401", 1)}


def test_submodule_of_sealed_package(project: Project) -> None:
    (project.root / "src/pkg/sealed.py").unlink()
    project.write("src/pkg/sealed/__init__.py", "")
    project.write("src/pkg/sealed/core.py", "")
    assert project.upstream("import pkg.sealed.core\n") == {("ST401", 1)}


def test_type_checking_ignore_policy(project: Project) -> None:
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    code = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import sealed\n"
    assert project.upstream(code) == set()


def test_valid_upstream(project: Project) -> None:
    code = "from pkg import values\nimport pkg.values\nx = 'pkg.sealed'  # import pkg.sealed\n"
    assert project.upstream(code) == set()


def test_non_upstream_module_may_import_sealed(project: Project) -> None:
    project.write("src/pkg/cli.py", "from pkg import sealed\n")
    assert project.codes("src/pkg/cli.py") == set()


def test_annotation_through_type_checking_import_is_ignored_with_policy(project: Project) -> None:
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    code = (
        "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import pkg\n    import pkg.sealed\n"
        "def f(x: pkg.sealed.Thing) -> None:\n    return None\n"
    )
    assert project.upstream(code) == set()
    project.boundary_toml = project.boundary_toml.replace('"ignore"', '"count"')
    assert project.upstream(code) == {("ST401", 5)}
