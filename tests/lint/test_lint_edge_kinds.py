"""Edges say how they run (issue 17 §2): each import is an edge of one kind (module level,
inside a function, under ``TYPE_CHECKING``, under ``if __name__ == "__main__":``), every chain
marks the steps that do not run when their importer is imported, and the boundary's
``edge_kinds`` says which kinds count for reverse dependencies and for the closure.

The ``project`` fixture: ``src/pkg/{__init__,sealed,values}.py``, ``src/pkg/up/{__init__,a}.py``;
boundary ``pkg.sealed`` (preset adr-0230, allowed ``pkg.values``), upstream ``pkg.up`` and
``pkg.up.*``.
"""

from __future__ import annotations

import pytest
from lint_project import Project

from sealed_trace.lint.ast_pass import extract_graph_facts
from sealed_trace.lint.config import ConfigError
from sealed_trace.lint.cst_pass import extract_facts
from sealed_trace.lint.engine import lint
from sealed_trace.lint.graph import (
    Edge,
    EdgeKind,
    ImportGraph,
    edges_from_facts,
    kind_of_import,
)

KINDS_TEXT = (
    "from typing import TYPE_CHECKING\n"
    "import pkg.a\n"
    "def f():\n"
    "    import pkg.b\n"
    "if TYPE_CHECKING:\n"
    "    import pkg.c\n"
    'if __name__ == "__main__":\n'
    "    import pkg.d\n"
    "    def g():\n"
    "        import pkg.e\n"
    "if '__main__' == __name__:\n"
    "    from pkg import f\n"
)
EXPECTED = {
    "pkg.a": EdgeKind.MODULE,
    "pkg.b": EdgeKind.FUNCTION,
    "pkg.c": EdgeKind.TYPE_CHECKING,
    "pkg.d": EdgeKind.MAIN,
    "pkg.e": EdgeKind.FUNCTION,
    "pkg": EdgeKind.MAIN,
}


@pytest.mark.parametrize("extract", [extract_graph_facts, extract_facts])
def test_each_pass_gives_each_import_its_kind(extract: object) -> None:
    facts = extract(KINDS_TEXT, "pkg.m", False)  # type: ignore[operator]
    kinds = {(f.module if f.name != "f" else "pkg"): kind_of_import(f) for f in facts.imports}
    kinds.pop("typing")
    assert kinds == EXPECTED


def test_a_dynamic_import_in_a_function_or_under_the_main_guard_has_that_kind() -> None:
    text = (
        "import importlib\n"
        "def load():\n"
        "    importlib.import_module('pkg.b')\n"
        "if __name__ == '__main__':\n"
        "    __import__('pkg.d')\n"
    )
    facts = extract_graph_facts(text, "pkg.m", False)
    assert {f.module: kind_of_import(f) for f in facts.imports if f.kind == "dynamic"} == {
        "pkg.b": EdgeKind.FUNCTION,
        "pkg.d": EdgeKind.MAIN,
    }


@pytest.mark.parametrize("extract", [extract_graph_facts, extract_facts])
def test_decorators_defaults_and_annotations_run_where_the_function_is_defined(
    extract: object,
) -> None:
    text = (
        "import importlib\n"
        "@importlib.import_module('pkg.a')\n"
        "def f(x=importlib.import_module('pkg.b')) -> importlib.import_module('pkg.c'):\n"
        "    importlib.import_module('pkg.d')\n"
        "if __name__ == '__main__':\n"
        "    def g(y=__import__('pkg.e')):\n"
        "        __import__('pkg.f')\n"
    )
    facts = extract(text, "pkg.m", False)  # type: ignore[operator]
    assert {f.module: kind_of_import(f) for f in facts.imports if f.kind == "dynamic"} == {
        "pkg.a": EdgeKind.MODULE,
        "pkg.b": EdgeKind.MODULE,
        "pkg.c": EdgeKind.MODULE,
        "pkg.d": EdgeKind.FUNCTION,
        "pkg.e": EdgeKind.MAIN,
        "pkg.f": EdgeKind.FUNCTION,
    }


def test_a_comparison_that_is_not_the_main_guard_guards_nothing() -> None:
    text = "if __name__ != '__main__':\n    import pkg.a\nif x == '__main__':\n    import pkg.b\n"
    facts = extract_graph_facts(text, "pkg.m", False)
    assert {kind_of_import(f) for f in facts.imports} == {EdgeKind.MODULE}


def _graph() -> ImportGraph:
    modules = {"pkg", "pkg.m", "pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.e", "pkg.f", "pkg.sub"}
    modules |= {"pkg.sub.x"}
    facts = extract_graph_facts(KINDS_TEXT + "import pkg.sub.x\n", "pkg.m", False)
    return ImportGraph({"pkg.m": edges_from_facts(facts, "pkg.m", modules)}, modules)


def test_modules_loaded_on_import_follow_module_level_edges_and_packages_only() -> None:
    assert _graph().loaded_on_import("pkg.m") == {"pkg", "pkg.a", "pkg.sub", "pkg.sub.x"}


def test_the_graph_answers_reach_closure_and_chains_per_kind() -> None:
    graph = _graph()
    every = graph.closure(["pkg.m"])
    assert {"pkg.b", "pkg.c", "pkg.d", "pkg.e"} <= set(every)
    assert graph.reach(["pkg.b"]) == {"pkg.b": None, "pkg.m": "pkg.b"}
    assert graph.reach(["pkg.b"], {EdgeKind.MODULE}) == {"pkg.b": None}
    assert graph.shortest_chain("pkg.m", lambda m: m == "pkg.c") == ["pkg.m", "pkg.c"]
    assert graph.step_kind("pkg.m", "pkg.c") is EdgeKind.TYPE_CHECKING
    # two imports of one module: the step runs on import when either does
    both = ImportGraph(
        {
            "m": [
                Edge("t", 3, 1, "import t", EdgeKind.FUNCTION),
                Edge("t", 9, 1, "import t", EdgeKind.MODULE),
            ]
        },
        {"m", "t"},
    )
    assert both.step_kind("m", "t") is EdgeKind.MODULE


# -- chains mark every step that does not run on import -------------------------------------
@pytest.mark.parametrize(
    ("body", "note"),
    [
        ("def f():\n    import pkg.sealed\n", "in a function"),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.sealed\n",
            "under TYPE_CHECKING",
        ),
        (
            "if __name__ == '__main__':\n    import pkg.sealed\n",
            'under `if __name__ == "__main__"`',
        ),
        (
            "import importlib\ndef f():\n    importlib.import_module('pkg.sealed')\n",
            "in a function",
        ),
    ],
)
def test_a_chain_marks_the_step_that_does_not_run_on_import(
    project: Project, body: str, note: str
) -> None:
    project.write("src/pkg/helper.py", body)
    project.write("src/pkg/up/a.py", "from pkg import helper\n")
    findings = [f for f in project.run().findings if f.code == "ST402"]
    assert len(findings) == 1
    # the finding is the helper's import; its message marks the step, its chains the rest
    assert f"(pkg.helper -> pkg.sealed ({note}))" in findings[0].message
    assert f"pkg.up.a -> pkg.helper -> pkg.sealed ({note})" in findings[0].chains


def test_a_step_that_runs_on_import_is_not_marked(project: Project) -> None:
    project.write("src/pkg/helper.py", "import pkg.sealed\n")
    project.write("src/pkg/up/a.py", "from pkg import helper\n")
    (finding,) = project.run().findings
    assert "pkg.up.a -> pkg.helper -> pkg.sealed" in finding.chains
    assert "(in a function)" not in finding.message


def test_a_marked_step_deep_in_a_chain_through_unparsed_modules(project: Project) -> None:
    project.write("src/pkg/one.py", "import pkg.two\n")
    project.write("src/pkg/two.py", "def f():\n    import pkg.sealed\n")
    project.write("src/pkg/up/a.py", "import pkg.one\n")
    (finding,) = project.run().findings
    assert "pkg.up.a -> pkg.one -> pkg.two -> pkg.sealed (in a function)" in finding.chains


def test_a_package_chain_through_type_checking_only_says_so(project: Project) -> None:
    project.write(
        "src/pkg/__init__.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import sealed\n",
    )
    (finding,) = project.run().findings
    assert finding.code == "ST403"
    assert "pkg -> pkg.sealed (under TYPE_CHECKING)" in finding.message


# -- the policy: which kinds count ----------------------------------------------------------
def test_reverse_dependencies_count_every_kind_by_default(project: Project) -> None:
    project.write("src/pkg/up/a.py", "def f():\n    import pkg.sealed\n")
    assert [f.code for f in project.run().findings] == ["ST401"]


def test_reverse_kinds_can_leave_out_imports_in_functions(project: Project) -> None:
    project.write("src/pkg/helper.py", "def f():\n    import pkg.sealed\n")
    project.write(
        "src/pkg/up/a.py", "import pkg.helper\nif __name__ == '__main__':\n    import pkg.sealed\n"
    )
    project.boundary_toml += 'edge_kinds = { reverse = ["module"] }\n'
    assert project.run().findings == ()
    project.boundary_toml = project.boundary_toml.replace('["module"]', '["module", "main"]')
    assert [f.code for f in project.run().findings] == ["ST401"]


def test_the_closure_counts_module_level_imports_only_by_default(project: Project) -> None:
    project.boundary_toml += "closure = true\n"
    project.write("src/pkg/sealed.py", "from pkg import values\n")
    project.write(
        "src/pkg/values.py",
        "if __name__ == '__main__':\n    import socket\ndef f():\n    import subprocess\n",
    )
    assert project.run().findings == ()
    project.boundary_toml += 'edge_kinds = { closure = ["module", "main", "function"] }\n'
    messages = sorted(f.message for f in project.run().findings)
    assert messages == [
        "importing sealed module pkg.sealed loads banned socket: pkg.sealed -> pkg.values -> "
        'socket (under `if __name__ == "__main__"`)',
        "importing sealed module pkg.sealed loads banned subprocess: pkg.sealed -> pkg.values "
        "-> subprocess (in a function)",
    ]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ('{ reverse = ["modul"] }', "unknown edge kind 'modul' (did you mean 'module'?)"),
        ('{ closure = ["function"] }', 'must include "module"'),
        ('{ revers = ["module"] }', "unknown key 'revers' (did you mean 'reverse'?)"),
        ('["module"]', "must be a table"),
    ],
)
def test_a_bad_edge_kinds_policy_is_a_configuration_error(
    project: Project, value: str, problem: str
) -> None:
    project.boundary_toml += f"edge_kinds = {value}\n"
    with pytest.raises(ConfigError, match="edge_kinds") as caught:
        project.config()
    assert problem in str(caught.value)


# -- requires-python, read with packaging ---------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "target"),
    [
        (">=3.12", (3, 12)),
        ("~=3.10", (3, 10)),
        (">3.11.99", (3, 12)),
        ("==3.12.*", (3, 12)),
        (">=3.10, !=3.10.*", (3, 11)),
        ("<4", None),
        ("not a specifier", None),
    ],
)
def test_the_target_version_is_the_lowest_python_requires_python_admits(
    spec: str, target: tuple[int, int] | None
) -> None:
    from sealed_trace.lint.config import target_from_requires_python

    assert target_from_requires_python(spec) == target


def test_an_attribute_chain_to_a_module_inside_a_function_is_a_function_edge(
    project: Project,
) -> None:
    project.write("src/pkg/helper.py", "import pkg\n\n\ndef f():\n    return pkg.sealed.x\n")
    project.write("src/pkg/up/a.py", "import pkg.helper\n")
    (finding,) = project.run().findings
    assert "pkg.up.a -> pkg.helper -> pkg.sealed (in a function)" in finding.chains
    project.boundary_toml += 'edge_kinds = {reverse = ["module"]}\n'
    assert project.run().findings == ()


@pytest.mark.parametrize(
    ("policy", "upstream", "middle"),
    [
        ('edge_kinds = {reverse = ["module"]}', "def f():\n    import pkg.gen\n", None),
        (
            'type_checking_imports = "ignore"',
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.gen\n",
            None,
        ),
        (
            'edge_kinds = {reverse = ["module"]}',
            "import pkg.g1\n",
            "def f():\n    import pkg.gen\n",
        ),
    ],
)
def test_a_helper_reached_only_through_an_uncounted_step_is_no_finding(
    project: Project, policy: str, upstream: str, middle: str | None
) -> None:
    project.boundary_toml += policy + "\n"
    project.write("src/pkg/gen.py", "import pkg.sealed\n")
    if middle is not None:
        project.write("src/pkg/g1.py", middle)
    project.write("src/pkg/up/a.py", upstream)
    # as the text format asks: each finding's own chain only (the others are not computed)
    assert lint(project.config(), use_cache=False, every_chain=False).findings == ()
    assert project.run().findings == ()
