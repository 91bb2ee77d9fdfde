"""The import rules both passes share (``dynamic_rules``), judged on plain values: what an
import function's call imports, and where the two passes' dialects read a call differently."""

from __future__ import annotations

import pytest

from sealed_trace.lint.dynamic_rules import (
    GRAPH_PASS,
    SEALED_PASS,
    CallArgs,
    Dialect,
    Importer,
    Plain,
    Site,
    from_import_binding,
    import_binding,
    import_function,
    is_main_guard,
    judge_import_call,
    loader_facts,
    module_name_argument,
    star_imported_functions,
)

SITE = Site(3, 5, False, True, False)
MODULE = Importer("pkg.up.a", False)
PACKAGE = Importer("pkg.up", True)


def _modules(
    func: str,
    names: tuple[str, ...] | None,
    args: CallArgs,
    dialect: Dialect,
    importer: Importer = MODULE,
) -> list[tuple[str, str | None]]:
    imports, dynamics = judge_import_call(func, names, args, SITE, importer, dialect)
    return [(i.module, i.name) for i in imports] + [("<computed>", d.callee) for d in dynamics]


def _args(*positional: Plain, **keywords: Plain) -> CallArgs:
    return CallArgs(positional, keywords)


@pytest.mark.parametrize("dialect", [SEALED_PASS, GRAPH_PASS])
def test_a_literal_name_is_an_import_where_the_call_is(dialect: Dialect) -> None:
    imports, dynamics = judge_import_call(
        "importlib.import_module", ("pkg.sealed",), _args(), SITE, MODULE, dialect
    )
    assert dynamics == []
    [fact] = imports
    assert (fact.line, fact.column, fact.module, fact.kind, fact.lazy, fact.statement) == (
        3,
        5,
        "pkg.sealed",
        "dynamic",
        True,
        3,
    )
    assert fact.text == "importlib.import_module('pkg.sealed')"


@pytest.mark.parametrize("dialect", [SEALED_PASS, GRAPH_PASS])
def test_a_computed_name_or_a_relative_one_without_a_package_is_computed(
    dialect: Dialect,
) -> None:
    func = "importlib.import_module"
    assert _modules(func, None, _args(), dialect) == [("<computed>", func)]
    computed = Plain(name="where")
    assert _modules(func, (".x",), _args(computed, computed), dialect) == [("<computed>", func)]
    assert _modules(func, (".x",), _args(package=Plain(text="pkg")), dialect) == [("pkg.x", None)]
    own = _args(package=Plain(name="__package__"))
    assert _modules(func, (".x",), own, dialect) == [("pkg.up.x", None)]


@pytest.mark.parametrize("dialect", [SEALED_PASS, GRAPH_PASS])
def test_dunder_import_reads_its_level_and_fromlist(dialect: Dialect) -> None:
    fromlist = Plain(items=("b", None, ""))
    args = _args(Plain(), Plain(own_globals=True), Plain(), fromlist, Plain(integer=1))
    assert _modules("builtins.__import__", ("a",), args, dialect) == [
        ("pkg.up.a", None),
        ("pkg.up.a", "b"),
    ]
    computed_level = _args(level=Plain(name="n"))
    assert _modules("builtins.__import__", ("a",), computed_level, dialect) == [
        ("<computed>", "builtins.__import__")
    ]


def test_every_literal_a_name_can_be_is_judged() -> None:
    assert _modules("importlib.import_module", ("b", "", "a"), _args(), GRAPH_PASS) == [
        ("a", None),
        ("b", None),
        ("<computed>", "importlib.import_module"),
    ]


# -- where the dialects differ ------------------------------------------------------------------
def test_only_the_graph_pass_reads_the_level_of_importlib_dunder_import() -> None:
    args = _args(level=Plain(integer=1))
    func = "importlib.__import__"
    assert _modules(func, ("x",), args, GRAPH_PASS) == [("pkg.up.x", None)]
    assert _modules(func, ("x",), args, SEALED_PASS) == [("x", None)]


def test_only_the_graph_pass_needs_the_module_own_globals_for_a_level() -> None:
    func = "builtins.__import__"
    other = _args(Plain(), Plain(name="elsewhere"), level=Plain(integer=1))
    own = _args(Plain(), Plain(own_globals=True), level=Plain(integer=1))
    assert _modules(func, ("x",), other, GRAPH_PASS) == [("<computed>", func)]
    assert _modules(func, ("x",), own, GRAPH_PASS) == [("pkg.up.x", None)]
    assert _modules(func, ("x",), other, SEALED_PASS) == [("pkg.up.x", None)]


def test_only_the_graph_pass_takes_a_package_name_for_its_package() -> None:
    args = _args(package=Plain(name="__name__"))
    func = "importlib.import_module"
    assert _modules(func, (".x",), args, GRAPH_PASS, PACKAGE) == [("pkg.up.x", None)]
    assert _modules(func, (".x",), args, GRAPH_PASS, MODULE) == [("<computed>", func)]
    assert _modules(func, (".x",), args, SEALED_PASS, PACKAGE) == [("<computed>", func)]


def test_only_the_graph_pass_follows_the_resolvers() -> None:
    callee = {"pkgutil.resolve_name"}
    assert import_function(callee, SEALED_PASS) is None
    func = import_function(callee, GRAPH_PASS)
    assert func == "pkgutil.resolve_name"
    assert _modules(func, ("pkg.mod:attr",), _args(), GRAPH_PASS) == [("pkg.mod", None)]


# -- the other shared rules --------------------------------------------------------------------
def test_the_module_argument_of_run_module_is_mod_name() -> None:
    assert module_name_argument("runpy.run_module") == (0, "mod_name")
    assert module_name_argument("importlib.import_module") == (0, "name")


def test_loaders_and_plugin_discovery() -> None:
    facts = loader_facts({"runpy.run_path", "importlib.metadata.entry_points", "x.y"}, 2, 1)
    assert [(f.kind, f.callee) for f in facts] == [
        ("path-import", "runpy.run_path"),
        ("plugin-discovery", "importlib.metadata.entry_points"),
    ]


def test_what_import_statements_bind() -> None:
    assert import_binding("a.b", None) == ("a", "a")
    assert import_binding("a.b", "c") == ("c", "a.b")
    assert from_import_binding("m", "n", None) == ("n", "m.n")
    assert from_import_binding("m", "n", "k") == ("k", "m.n")
    assert ("import_module", "importlib.import_module") in star_imported_functions("importlib")
    assert star_imported_functions("os") == []


def test_the_main_guard() -> None:
    name, main = Plain(name="__name__"), Plain(text="__main__")
    assert is_main_guard(True, name, main)
    assert is_main_guard(True, main, name)
    assert not is_main_guard(False, name, main)
    assert not is_main_guard(True, name, name)
    assert not is_main_guard(True, Plain(name="x"), main)
