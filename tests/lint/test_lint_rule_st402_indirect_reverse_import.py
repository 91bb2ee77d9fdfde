"""ST402 indirect-reverse-import: chains of first-party modules, with the chain shown."""

from __future__ import annotations

from lint_project import Project


def test_chain_through_helpers(project: Project) -> None:
    # the one fix is the helper's import of the sealed module: one finding there, naming the
    # upstream module behind it, whose chain JSON and SARIF carry
    project.write("src/pkg/helpers/__init__.py", "")
    project.write("src/pkg/helpers/b.py", "from pkg.helpers import c\n")
    project.write("src/pkg/helpers/c.py", "import json\n\nimport pkg.sealed\n")
    project.write("src/pkg/up/a.py", "import json\nfrom pkg.helpers import b\n")
    (finding,) = project.findings()
    assert (finding.path, finding.code, finding.line) == ("src/pkg/helpers/c.py", "ST402", 3)
    assert finding.message == (
        "module pkg.helpers.c reaches the sealed module through `import pkg.sealed` "
        "(pkg.helpers.c -> pkg.sealed); upstream module pkg.up.a reaches it through this import"
    )
    assert "pkg.up.a -> pkg.helpers.b -> pkg.helpers.c -> pkg.sealed" in finding.chains


def test_a_helper_imported_by_many_upstream_modules_is_one_finding(project: Project) -> None:
    project.write("src/pkg/gen.py", "import json\nfrom pkg import sealed\n")
    project.write("src/pkg/up/a.py", "import pkg.gen\n")
    project.write("src/pkg/up/b.py", "from pkg import gen\n")
    project.write("src/pkg/up/c.py", "import pkg.up.a\n")
    (finding,) = project.findings()
    assert (finding.path, finding.code, finding.line) == ("src/pkg/gen.py", "ST402", 2)
    assert finding.message.endswith(
        "upstream modules pkg.up.a, pkg.up.b, pkg.up.c reach it through this import"
    )


def test_parent_package_reexports_sealed(project: Project) -> None:
    # the re-exporting module is one cause; an upstream module naming Thing through it is
    # another (removing the re-export alone leaves it broken)
    project.write("src/pkg/reexport.py", "from pkg.sealed import Thing\n")
    assert project.reaches("from pkg.reexport import Thing\n") == {
        ("src/pkg/reexport.py", "ST402", 1),
        ("src/pkg/up/a.py", "ST402", 1),
    }
    assert project.reaches("import pkg.reexport\n") == {("src/pkg/reexport.py", "ST402", 1)}


def test_a_package_above_the_upstream_module_is_a_cause(project: Project) -> None:
    # pkg/__init__ runs before every upstream module: a finding there, once; pkg.up.a names
    # the sealed module's Thing through it, a root cause of its own (removing the re-export
    # alone leaves it broken); pkg.up.b only imports the package
    project.write("src/pkg/__init__.py", "from pkg.sealed import Thing\n")
    project.write("src/pkg/up/a.py", "from pkg import Thing\n")
    project.write("src/pkg/up/b.py", "import pkg\n")
    assert {(f.path, f.code) for f in project.findings()} == {
        ("src/pkg/__init__.py", "ST403"),
        ("src/pkg/up/a.py", "ST402"),
    }


def test_relative_star_of_parent_that_reexports(project: Project) -> None:
    project.write("src/pkg/up/__init__.py", "from ..sealed import *\n")
    # pkg.up itself is upstream and imports the sealed module directly: one cause; pkg.up.a
    # (which runs it first) star-imports what it re-exports, binding the sealed module's
    # names itself: a cause of its own
    project.write("src/pkg/up/a.py", "from . import *\n")
    found = sorted((f.path, f.code, f.line) for f in project.findings())
    assert found == [("src/pkg/up/__init__.py", "ST401", 1), ("src/pkg/up/a.py", "ST402", 1)]
    (package,) = [f for f in project.findings() if f.code == "ST401"]
    assert package.chains == ("pkg.up -> pkg.sealed", "pkg.up.a -> pkg.up -> pkg.sealed")


def test_a_star_import_binding_no_reexported_name_is_covered_by_the_package(
    project: Project,
) -> None:
    project.write("src/pkg/up/__init__.py", "from ..sealed import seal\n__all__ = ['x']\nx = 1\n")
    project.write("src/pkg/up/a.py", "from . import *\n")
    found = sorted((f.path, f.code) for f in project.findings())
    assert found == [("src/pkg/up/__init__.py", "ST401")]


def test_cycle_does_not_hang(project: Project) -> None:
    project.write("src/pkg/x.py", "import pkg.y\n")
    project.write("src/pkg/y.py", "import pkg.x\nimport pkg.sealed\n")
    assert project.reaches("import pkg.x\n") == {("src/pkg/y.py", "ST402", 2)}


def test_chain_through_type_checking_ignored(project: Project) -> None:
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    project.write(
        "src/pkg/x.py", "import typing\nif typing.TYPE_CHECKING:\n    import pkg.sealed\n"
    )
    assert project.upstream("import pkg.x\n") == set()


def test_no_chain(project: Project) -> None:
    project.write("src/pkg/x.py", "import pkg.values\n")
    assert project.upstream("import pkg.x\n") == set()


# --- the prefilter's token sets: every spelling that reaches the sealed module is parsed ----


def test_chain_through_a_module_with_a_non_ascii_name(project: Project) -> None:
    # The word searched for is not an ASCII identifier: its whole-word search runs on bytes.
    project.write("src/pkg/módulo.py", "import pkg.sealed\n")
    found = {("src/pkg/módulo.py", "ST402", 1)}
    assert project.reaches("from pkg import módulo\n") == found
    assert project.reaches("import pkg.módulo as m\n") == found
    # NFKC: a compatibility spelling of the same identifier names the same module.
    assert project.reaches("from pkg import mo\u0301dulo\n") == found


def test_a_reaching_module_named_inside_a_longer_identifier_is_not_an_import(
    project: Project,
) -> None:
    project.write("src/pkg/helper.py", "import pkg.sealed\n")
    assert project.reaches("helpers = 1\nmy_helper = helpers\n") == set()
    found = {("src/pkg/helper.py", "ST402", 1)}
    assert project.reaches("from pkg import (\n    helper,\n)\n") == found


def test_dynamic_words_inside_longer_identifiers_still_make_a_file_parsed(
    project: Project,
) -> None:
    # A dynamic-import word inside a longer token must still send the file to the parser: the
    # token holds the word, so the prefilter cannot rule the file out.
    project.write("src/pkg/helper.py", "import pkg.sealed\n")
    text = (
        "import importlib as my_importlib_alias\nmy_importlib_alias.import_module('pkg.helper')\n"
    )
    assert project.reaches(text) == {("src/pkg/helper.py", "ST402", 1)}


def test_a_star_import_after_a_closing_bracket_or_semicolon_is_seen(project: Project) -> None:
    project.write("src/pkg/__init__.py", '__all__ = ["sealed"]\n')
    assert project.upstream("x = (1);from pkg import *\n") == {("ST401", 1)}
    assert project.upstream("x = 1\nfrom pkg import\\\n  *\n") == {("ST401", 2)}
