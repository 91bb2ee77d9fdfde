"""A re-export through a package is two root causes (ADR-0230 §5, §15.2): the package (ST403,
or ST401 when it is upstream itself) and each upstream module that names the sealed module's
objects through it (ST402 at the first place it does). Removing the re-export alone leaves
such a module broken, so each is a fix of its own; a module that only imports the package is
covered by the package's finding.

The ``project`` fixture: ``src/pkg/{__init__,sealed,values}.py``, ``src/pkg/up/{__init__,a}.py``;
boundary ``pkg.sealed``, upstream ``pkg.up`` and ``pkg.up.*``.
"""

from __future__ import annotations

import pytest
from lint_project import Project

PACKAGE = "src/pkg/__init__.py"
UPSTREAM = "src/pkg/up/a.py"


def _found(project: Project) -> set[tuple[str, str, int]]:
    return {(f.path, f.code, f.line) for f in project.findings()}


@pytest.mark.parametrize(
    ("upstream", "line"),
    [
        ("from pkg import seal\n", 1),
        ("from pkg import seal as s\ns()\n", 1),
        ("from .. import seal\n", 1),
        ("import pkg\nX = 1\nY = pkg.seal\n", 3),
        ("import pkg as p\n\np.seal()\n", 3),
        ("import pkg.values\npkg.seal.attribute\n", 2),
        ("import pkg\nf = getattr(pkg, 'seal')\n", 2),
        ("from pkg import values, seal\n", 1),
    ],
)
def test_naming_a_reexported_object_through_an_ancestor_package_is_its_own_finding(
    project: Project, upstream: str, line: int
) -> None:
    project.write(PACKAGE, "from pkg.sealed import seal\n")
    project.write(UPSTREAM, upstream)
    assert _found(project) == {(PACKAGE, "ST403", 1), (UPSTREAM, "ST402", line)}


def test_the_finding_shows_the_chain_through_the_package(project: Project) -> None:
    project.write(PACKAGE, "from pkg.sealed import seal\n")
    project.write(UPSTREAM, "from pkg import seal\n")
    (named,) = [f for f in project.findings() if f.code == "ST402"]
    assert named.message == (
        "upstream module pkg.up.a reaches the sealed module through `from pkg import seal`: "
        "pkg.up.a -> pkg -> pkg.sealed"
    )
    assert named.column == len("from pkg import ") + 1


@pytest.mark.parametrize(
    "upstream",
    [
        "import pkg\n",  # imports the package only: its ST403 covers it
        "from pkg import values\n",  # another name of the package
        "import pkg\n# pkg.seal in a comment\nX = 'pkg.seal'\n",
        "from pkg import sealing\n",  # a name that only starts like it
        "from pkg import other\n",
    ],
)
def test_a_module_naming_nothing_sealed_through_the_package_is_covered_by_its_st403(
    project: Project, upstream: str
) -> None:
    project.write(PACKAGE, "from pkg.sealed import seal\n\n\ndef other():\n    pass\n")
    project.write(UPSTREAM, upstream)
    assert _found(project) == {(PACKAGE, "ST403", 1)}


HELPER = "src/pkg/helper.py"


@pytest.mark.parametrize(
    ("package", "extra", "cause"),
    [
        # the helper imports the sealed module: it is the cause the package runs
        (
            "from pkg.helper import seal\n",
            {HELPER: "from pkg.sealed import seal\n"},
            (HELPER, "ST402"),
        ),
        ("from pkg.sealed import *\n", {}, (PACKAGE, "ST403")),
        ("from . import sealed\nseal = sealed.seal\n", {}, (PACKAGE, "ST403")),
        (
            "from pkg.helper import *\n",
            {HELPER: "from pkg.sealed import seal\n"},
            (HELPER, "ST402"),
        ),
    ],
)
def test_the_reexport_is_followed_through_helpers_stars_and_aliases(
    project: Project, package: str, extra: dict[str, str], cause: tuple[str, str]
) -> None:
    for rel, text in extra.items():
        project.write(rel, text)
    project.write(PACKAGE, package)
    project.write(UPSTREAM, "from pkg import seal\n")
    found = _found(project)
    assert (UPSTREAM, "ST402", 1) in found
    assert {(p, c) for p, c, _ in found} == {cause, (UPSTREAM, "ST402")}


def test_a_reexporting_upstream_package_and_each_module_naming_through_it(
    project: Project,
) -> None:
    project.write("src/pkg/up/__init__.py", "from pkg.sealed import seal\n")
    project.write(UPSTREAM, "from pkg.up import seal\n")
    project.write("src/pkg/up/b.py", "import pkg.up\n")  # only imports it
    assert _found(project) == {
        ("src/pkg/up/__init__.py", "ST401", 1),
        (UPSTREAM, "ST402", 1),
    }


def test_a_name_taken_under_type_checking_follows_the_policy(project: Project) -> None:
    project.write(PACKAGE, "from pkg.sealed import seal\n")
    project.write(
        UPSTREAM,
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import seal\n",
    )
    assert _found(project) == {(PACKAGE, "ST403", 1), (UPSTREAM, "ST402", 3)}
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    assert _found(project) == {(PACKAGE, "ST403", 1)}


def test_a_name_used_in_a_function_follows_the_reverse_edge_kinds(project: Project) -> None:
    project.write(PACKAGE, "from pkg.sealed import seal\n")
    project.write(UPSTREAM, "import pkg\n\n\ndef f():\n    return pkg.seal\n")
    assert _found(project) == {(PACKAGE, "ST403", 1), (UPSTREAM, "ST402", 5)}
    project.boundary_toml += 'edge_kinds = {reverse = ["module"]}\n'
    assert _found(project) == {(PACKAGE, "ST403", 1)}


def test_only_files_spelling_a_reexported_name_are_parsed_for_it(project: Project) -> None:
    project.write(PACKAGE, "from pkg.sealed import seal\n")
    project.write(UPSTREAM, "import pkg\n")
    project.write("src/pkg/up/b.py", "import pkg\nX = pkg.seal\n")
    parsed: list[str] = []
    project.run(parsed=parsed)
    assert "src/pkg/up/b.py" in parsed
    assert UPSTREAM not in parsed


@pytest.mark.parametrize(
    ("package", "upstream", "named"),
    [
        ("from pkg.sealed import seal\n__all__ = ['seal']\n", "from pkg import *\n", True),
        ("from pkg.sealed import seal\n", "from pkg import *\nseal()\n", True),
        ("from pkg.sealed import seal\n__all__ = ['x']\nx = 1\n", "from pkg import *\n", False),
        # importing pkg.sealed binds `sealed` on the package: a star import without
        # __all__ takes it, whatever name the sealed object is bound to
        ("from pkg.sealed import seal as _seal\n", "from pkg import *\n", True),
        # the package's own submodule, bound as its name by importing it
        ("import pkg.sealed\n", "from pkg import *\n", True),
        ("from pkg import sealed\n", "from pkg import *\n", True),
        ("from pkg import sealed\n__all__ = ['x']\nx = 1\n", "from pkg import *\n", False),
    ],
)
def test_a_star_import_binding_a_reexported_name_names_it(
    project: Project, package: str, upstream: str, named: bool
) -> None:
    project.write(PACKAGE, package)
    project.write(UPSTREAM, upstream)
    expected = {(PACKAGE, "ST403", 1)} | ({(UPSTREAM, "ST402", 1)} if named else set())
    assert _found(project) == expected
