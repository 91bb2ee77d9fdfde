"""ST301 computed-dynamic-import: valid and invalid snippets (ADR-0230 §15.2, §5)."""

from __future__ import annotations

import pytest
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


# --- an import function used as a value, and relative imports against a computed base ------


@pytest.mark.parametrize(
    ("code", "line"),
    [
        ("import importlib\nmods = list(map(importlib.import_module, ['pkg.sealed']))\n", 2),
        ("import functools, importlib\nfunctools.partial(importlib.import_module)(x)\n", 2),
        ("import importlib\nimportlib.import_module.__call__('pkg.sealed')\n", 2),
        ("import importlib\nf = lambda n: 0\nf = (lambda: importlib.import_module)()\n", 3),
        ("import importlib\n[importlib.import_module][0]('pkg.sealed')\n", 2),
        ("import importlib\nf = importlib.import_module if x else None\n", 2),
        ("from importlib import import_module as imp\nhandlers = {'m': imp}\n", 2),
        ("loaders = [__import__]\n", 1),
        ("import runpy\nrun = getattr(runpy, 'run_module')\nuse(run)\n", 3),
    ],
    ids=["map", "partial", "dunder-call", "lambda", "list", "ifexp", "dict", "builtin", "getattr"],
)
def test_an_import_function_used_as_a_value_is_a_finding(
    project: Project, code: str, line: int
) -> None:
    assert ("ST301", line) in project.upstream(code)


def test_partial_of_an_import_function_is_that_call(project: Project) -> None:
    # partial(import_module, name) imports name when called: judged as that call
    partial = "import functools, importlib\np = functools.partial(importlib.import_module, {})\n"
    assert project.upstream(partial.format("'pkg.values'")) == set()
    assert project.upstream(partial.format("'pkg.sealed'")) == {("ST401", 2)}
    assert project.upstream(partial.format("name")) == {("ST301", 2)}


def test_an_import_function_bound_to_a_name_and_called_is_followed(project: Project) -> None:
    # Aliases are followed: the literal call is an edge, not an unknown import.
    code = "import importlib\nload = importlib.import_module\nload('pkg.values')\n"
    assert project.upstream(code) == set()
    code = "import importlib\ndef f(load=importlib.import_module):\n    return load('pkg.values')\n"
    assert project.upstream(code) == set()
    code = "import importlib\nload = importlib.import_module\nload('pkg.sealed')\n"
    assert project.upstream(code) == {("ST401", 3)}


@pytest.mark.parametrize("name", ["__package__", "__spec__", "__name__"])
def test_reassigning_the_base_of_relative_imports_is_a_finding(project: Project, name: str) -> None:
    # ``from . import sealed`` in pkg.up names pkg.up.sealed, which does not exist; with the
    # base reassigned it may name pkg.sealed.
    code = f"{name} = 'pkg'\nfrom . import sealed\n"
    assert ("ST301", 1) in project.upstream(code)


def test_dunder_import_resolves_its_level_under_either_name(project: Project) -> None:
    assert project.upstream(
        "import importlib\nimportlib.__import__('sealed', globals(), None, [], 2)\n"
    ) == {("ST401", 2)}
    assert project.upstream("__import__('sealed', globals(), None, [], 2)\n") == {("ST401", 1)}


def test_a_relative_dunder_import_against_other_globals_is_a_finding(project: Project) -> None:
    code = "__import__('sealed', {'__package__': 'pkg'}, None, [], 1)\n"
    assert project.upstream(code) == {("ST301", 1)}
    code = "g = dict(globals())\n__import__('sealed', g, None, [], 1)\n"
    assert project.upstream(code) == {("ST301", 2)}


@pytest.mark.parametrize(
    ("code", "line"),
    [
        ("import operator\noperator.attrgetter('__import__')(len.__self__)('pkg.sealed')\n", 2),
        ("import operator\nf = operator.attrgetter('__imp' 'ort__')\n", 2),
        ("import operator as o\nget = o.attrgetter('mod.import_module')\n", 2),
        ("import operator\ncall = operator.methodcaller('import_module', 'pkg.sealed')\n", 2),
    ],
    ids=["attrgetter", "attrgetter-spelled", "attrgetter-dotted", "methodcaller"],
)
def test_an_attribute_getter_for_an_import_function_is_a_finding(
    project: Project, code: str, line: int
) -> None:
    assert ("ST301", line) in project.upstream(code)


def test_an_attribute_getter_for_ordinary_names_is_no_finding(project: Project) -> None:
    code = "import operator\nkey = operator.attrgetter('name', 'size')\n"
    assert project.upstream(code) == set()
    code = "import operator\nup = operator.methodcaller('upper')\n"
    assert project.upstream(code) == set()
    code = "import operator\nimport pkg.values\nkey = operator.attrgetter(FIELD)\n"
    assert project.upstream(code) == set()


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import logging.config\nlogging.config.dictConfig(CONFIG)\n", ("ST301", 2)),
        ("from logging import config\nconfig.fileConfig('log.ini')\n", ("ST301", 2)),
        (
            "from importlib.metadata import EntryPoint\n"
            "EntryPoint('x', 'pkg.sealed:run', 'group').load()\n",
            ("ST301", 2),
        ),
        ("import unittest\nunittest.main(module='pkg.sealed')\n", ("ST401", 2)),
        ("import xml.sax\nxml.sax.make_parser(['pkg.values', 'pkg.sealed'])\n", ("ST401", 2)),
    ],
    ids=["dictConfig", "fileConfig", "EntryPoint", "unittest-main", "sax-make-parser"],
)
def test_standard_library_calls_that_import_by_name_are_followed_or_reported(
    project: Project, code: str, expected: tuple[str, int]
) -> None:
    assert expected in project.upstream(code)
