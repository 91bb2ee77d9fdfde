"""What importing a module really runs (issue 8 §3-§4): ancestor packages, producers taken
from allowed modules, the sealed module's import closure, the project's Python, and findings
a person can act on.

The ``project`` fixture: ``src/pkg/{__init__,sealed,values}.py``, ``src/pkg/up/{__init__,a}.py``;
boundary ``pkg.sealed`` (preset adr-0230, allowed ``pkg.values``), upstream ``pkg.up`` and
``pkg.up.*``.
"""

from __future__ import annotations

import sys

import pytest
from lint_project import Project

from sealed_trace.lint.ast_pass import extract_graph_facts


def _found(project: Project) -> list[tuple[str, str, int]]:
    return sorted((f.path, f.code, f.line) for f in project.run().findings)


# -- 3a: importing a.b.c runs a/__init__.py and a/b/__init__.py ---------------------------------
def test_a_package_above_upstream_modules_that_imports_the_sealed_module(project: Project) -> None:
    project.write("src/pkg/__init__.py", "from . import sealed\n")
    findings = project.run().findings
    assert [(f.path, f.code, f.line) for f in findings] == [("src/pkg/__init__.py", "ST403", 1)]
    message = findings[0].message
    assert "package pkg reaches the sealed module" in message
    assert "pkg.up, pkg.up.a" in message  # once per package, naming what it affects


def test_a_package_above_upstream_modules_reaching_through_a_chain(project: Project) -> None:
    project.write("src/pkg/__init__.py", "X = 1\n\nfrom pkg import helpers\n")
    project.write("src/pkg/helpers.py", "import pkg.sealed\n")
    # the package runs the helper, whose import of the sealed module is the one fix
    findings = project.run().findings
    assert [(f.path, f.code, f.line) for f in findings] == [("src/pkg/helpers.py", "ST402", 1)]
    assert "upstream modules pkg.up, pkg.up.a reach it" in findings[0].message
    assert "pkg.up.a -> pkg -> pkg.helpers -> pkg.sealed" in findings[0].chains


def test_importing_a_module_runs_its_packages_first(project: Project) -> None:
    project.write("src/lib/__init__.py", "import pkg.sealed\n")
    project.write("src/lib/tools.py", "X = 1\n")
    project.write("src/pkg/up/a.py", "from lib.tools import X\n")
    findings = project.run().findings
    assert [(f.path, f.code) for f in findings] == [("src/lib/__init__.py", "ST402")]
    assert "pkg.up.a -> lib -> pkg.sealed" in findings[0].chains


def test_an_import_of_a_missing_submodule_still_runs_the_sealed_module(project: Project) -> None:
    project.write(
        "src/pkg/loader.py",
        "try:\n    import pkg.sealed.missing.deeper\nexcept ImportError:\n    pass\n",
    )
    project.write("src/pkg/up/a.py", "import pkg.loader\n")
    assert _found(project) == [("src/pkg/loader.py", "ST402", 2)]


# -- 4: findings a person can act on ------------------------------------------------------------
def test_every_direct_import_site_is_reported(project: Project) -> None:
    project.write("src/pkg/up/a.py", "import pkg.sealed\nX = 1\nfrom pkg import sealed as s\n")
    assert _found(project) == [("src/pkg/up/a.py", "ST401", 1), ("src/pkg/up/a.py", "ST401", 3)]


def test_one_indirect_finding_per_upstream_module_with_the_shortest_chain(project: Project) -> None:
    project.write("src/pkg/far.py", "import pkg.near\n")
    project.write("src/pkg/near.py", "import pkg.sealed\n")
    project.write("src/pkg/up/a.py", "import pkg.far\nimport pkg.near\n")
    findings = project.run().findings
    assert [(f.path, f.code, f.line) for f in findings] == [("src/pkg/near.py", "ST402", 1)]
    assert findings[0].chains == ("pkg.near -> pkg.sealed", "pkg.up.a -> pkg.near -> pkg.sealed")


def test_a_long_chain_deep_in_the_graph_is_one_finding_per_upstream_module(
    project: Project,
) -> None:
    for i in range(40):
        project.write(f"src/pkg/m{i}.py", f"import pkg.m{i + 1}\n")
    project.write("src/pkg/m40.py", "import pkg.sealed\n")
    for i in range(10):
        project.write(f"src/pkg/up/u{i}.py", "".join(f"import pkg.m{j}\n" for j in range(20)))
    (finding,) = project.run().findings
    assert (finding.path, finding.code) == ("src/pkg/m40.py", "ST402")
    assert len(finding.chains) == 11  # its own, and the shortest of each upstream module
    assert "pkg.up.u3 -> pkg.m19 -> " in " ".join(finding.chains)


def test_statistics_count_findings_per_rule(project: Project, capsys) -> None:  # type: ignore[no-untyped-def]
    from sealed_trace.cli import main

    project.write("src/pkg/up/a.py", "import pkg.sealed\nimport pkg.sealed\n")
    project.write("src/pkg/sealed.py", "import time\n")
    config = project.write_config()
    status = main(["lint", "--config", str(config), "--no-cache", "--statistics"])
    out = capsys.readouterr().out
    assert status == 1
    assert "2\tST401\treverse-import" in out
    assert "1\tST102\tbanned-import" in out


# -- 3b: value types only -------------------------------------------------------------------------
def test_a_function_taken_from_an_allowed_module_is_a_producer_import(project: Project) -> None:
    project.write(
        "src/pkg/values.py",
        """
        import enum
        from dataclasses import dataclass

        LIMIT = 3

        class Mode(enum.Enum):
            A = "a"

        @dataclass(frozen=True)
        class Record:
            name: str

        def classify(x):
            return x

        shortcut = lambda x: x
    """,
    )
    project.sealed("from pkg.values import LIMIT, Mode, Record, classify, shortcut\n")
    findings = [f for f in project.run().findings if f.code == "ST104"]
    assert [(f.line, f.anchor) for f in findings] == [
        (1, "pkg.values.classify"),
        (1, "pkg.values.shortcut"),
    ]
    assert "defined there as a function" in findings[0].message


def test_producers_are_followed_through_re_exports_and_module_references(project: Project) -> None:
    project.write("src/pkg/impl.py", "def classify_replay(x):\n    return x\n")
    project.write(
        "src/pkg/values.py",
        "from pkg.impl import classify_replay as classify\nfrom os import system as run\n",
    )
    project.write(
        "src/pkg/sealed.py",
        "from pkg import values\nfrom pkg.values import classify\nvalues.run('x')\n",
    )
    found = {(f.line, f.anchor) for f in project.run().findings if f.code == "ST104"}
    assert found == {(2, "pkg.values.classify"), (3, "pkg.values.run")}


def test_allowed_callables_admit_pure_helpers(project: Project) -> None:
    project.write("src/pkg/values.py", "def canonical(x):\n    return x\n")
    project.sealed("from pkg.values import canonical\n")
    project.boundary_toml += 'allowed_callables = ["pkg.values.canonical"]\n'
    assert not [f for f in project.run().findings if f.code == "ST104"]


# -- 3c: the sealed module's import closure (opt-in) ---------------------------------------------
def _closure(project: Project) -> None:
    project.boundary_toml += "closure = true\n"
    project.sealed("from pkg import values\n")


def test_the_closure_reports_a_banned_facility_with_its_chain(project: Project) -> None:
    _closure(project)
    project.write("src/pkg/values.py", "from pkg import state\n")
    project.write("src/pkg/state.py", "import subprocess\n")
    findings = [f for f in project.run().findings if f.code == "ST404"]
    assert [(f.path, f.line) for f in findings] == [("src/pkg/sealed.py", 1)]
    assert findings[0].message == (
        "importing sealed module pkg.sealed loads banned subprocess: "
        "pkg.sealed -> pkg.values -> pkg.state -> subprocess"
    )


def test_the_closure_counts_imports_in_functions_only_when_the_policy_says_so(
    project: Project,
) -> None:
    _closure(project)
    project.write("src/pkg/values.py", "from pkg import state\n")
    project.write("src/pkg/state.py", "def spawn():\n    import subprocess\n")
    assert [f for f in project.run().findings if f.code == "ST404"] == []
    project.boundary_toml += 'edge_kinds = { closure = ["module", "function"] }\n'
    findings = [f for f in project.run().findings if f.code == "ST404"]
    assert [f.message for f in findings] == [
        "importing sealed module pkg.sealed loads banned subprocess: "
        "pkg.sealed -> pkg.values -> pkg.state -> subprocess (in a function)"
    ]


def test_the_closure_reports_upstream_modules_it_loads(project: Project) -> None:
    _closure(project)
    project.write("src/pkg/values.py", "import pkg.up.a\n")
    project.write("src/pkg/up/a.py", "X = 1\n")
    messages = {f.message for f in project.run().findings if f.code == "ST404"}
    assert messages == {
        "importing sealed module pkg.sealed loads upstream module pkg.up: "
        "pkg.sealed -> pkg.values -> pkg.up",
        "importing sealed module pkg.sealed loads upstream module pkg.up.a: "
        "pkg.sealed -> pkg.values -> pkg.up.a",
    }


def test_the_closure_follows_the_type_checking_policy(project: Project) -> None:
    _closure(project)
    project.write(
        "src/pkg/values.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import socket\n",
    )
    assert project.run().findings == ()  # it never runs: nothing is loaded
    project.boundary_toml += 'edge_kinds = { closure = ["module", "type-checking"] }\n'
    assert [f.code for f in project.run().findings] == ["ST404"]
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    assert project.run().findings == ()


def test_the_closure_is_off_by_default(project: Project) -> None:
    project.write("src/pkg/values.py", "import subprocess\n")
    assert project.run().findings == ()


# -- TYPE_CHECKING verdicts are exact on the chains that make findings -------------------------
def test_a_type_checking_only_chain_is_no_finding_when_the_policy_ignores_it(
    project: Project,
) -> None:
    project.write(
        "src/pkg/x.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.sealed\n",
    )
    project.write("src/pkg/up/a.py", "import pkg.x\n")
    assert [f.code for f in project.run().findings] == ["ST402"]
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    assert project.run().findings == ()


def test_a_spoofed_type_checking_guard_still_counts(project: Project) -> None:
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    project.write(
        "src/pkg/x.py", "TYPE_CHECKING = True\nif TYPE_CHECKING:\n    import pkg.sealed\n"
    )
    project.write("src/pkg/up/a.py", "import pkg.x\n")
    assert [f.code for f in project.run().findings] == ["ST402"]


# -- files the compiled scanner does not judge alone ---------------------------------------------
def test_a_file_in_another_encoding_is_read_as_python_reads_it(project: Project) -> None:
    project.write(
        "src/pkg/legacy.py",
        "# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\nimport pkg.sealed\n".encode("latin-1"),
    )
    project.write("src/pkg/up/a.py", "import pkg.legacy\n")
    assert _found(project) == [("src/pkg/legacy.py", "ST402", 3)]


def test_a_relative_import_above_the_top_package_is_no_edge(project: Project) -> None:
    project.write("src/pkg/odd.py", "from .... import sealed\nimport pkg.sealed\n")
    project.write("src/pkg/up/a.py", "import pkg.odd\n")
    assert _found(project) == [("src/pkg/odd.py", "ST402", 2)]


def test_a_syntax_error_anywhere_is_reported_and_the_rest_is_still_judged(project: Project) -> None:
    project.write("src/pkg/broken.py", "def f(:\n")
    project.write("src/pkg/up/a.py", "import pkg.sealed\n")
    assert _found(project) == [("src/pkg/broken.py", "ST001", 1), ("src/pkg/up/a.py", "ST401", 1)]


def test_a_name_bound_through_its_own_attribute_does_not_grow_for_ever() -> None:
    text = "import os\nnode = os\nwhile node:\n    node = node.parent\n"
    facts = extract_graph_facts(text, "pkg.walk", False)
    assert facts.error is None
    assert any(r.qname == "os" for r in facts.refs)


# -- 3d: parse for the project's Python ------------------------------------------------------
PEP695 = "type Pair[T] = tuple[T, T]\n\ndef first[T](p: Pair[T]) -> T:\n    return p[0]\n"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="needs an interpreter older than 3.12")
def test_syntax_newer_than_the_interpreter_is_parsed_for_the_target(project: Project) -> None:
    project.write("src/pkg/up/a.py", PEP695 + "import pkg.sealed\n")
    assert [f.code for f in project.run().findings] == ["ST001"]
    project.top_toml += 'target_version = "3.12"\n'
    assert _found(project) == [("src/pkg/up/a.py", "ST401", 5)]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="needs an interpreter older than 3.12")
def test_the_target_defaults_to_requires_python(project: Project) -> None:
    from sealed_trace.lint.config import load_config
    from sealed_trace.lint.engine import lint

    project.write("src/pkg/up/a.py", PEP695 + "import pkg.sealed\n")
    path = project.write_config()
    path.write_text('[project]\nname = "k"\nrequires-python = ">=3.12"\n\n' + path.read_text())
    config = load_config(path)
    assert config.target_version == (3, 12)
    assert [(f.code, f.line) for f in lint(config, use_cache=False).findings] == [("ST401", 5)]


def test_syntax_the_target_rejects_is_a_syntax_error(project: Project) -> None:
    project.top_toml += 'target_version = "3.9"\n'
    # a file the lint parses (this one names an import function) is parsed for the target
    project.write("src/pkg/up/a.py", "import importlib\nmatch 1:\n    case 1:\n        pass\n")
    findings = project.run().findings
    assert [(f.path, f.code) for f in findings] == [("src/pkg/up/a.py", "ST001")]


def test_syntax_only_the_target_rejects_in_a_file_no_rule_reads_is_not_reported(
    project: Project,
) -> None:
    # the scanner's grammar takes every version; as docs/lint.md says, such a file is not
    # reported unless a rule must read it (ruff check --target-version reports those)
    project.top_toml += 'target_version = "3.9"\n'
    project.write("src/pkg/up/a.py", "match 1:\n    case 1:\n        pass\n")
    assert project.run().findings == ()


def test_a_bad_target_version_is_a_config_error(project: Project) -> None:
    from sealed_trace.lint.config import ConfigError

    project.top_toml += "target_version = 3.12\n"
    with pytest.raises(ConfigError, match="target_version"):
        project.config()


@pytest.mark.parametrize(
    ("values", "sealed"),
    [
        ("from subprocess import run\n", "from pkg.values import run\nrun(['x'])\n"),
        ("import subprocess as proc\n", "from pkg.values import proc\nproc.run('x')\n"),
        ("import os\nrun = os.system\n", "from pkg.values import run\n"),
        (
            "import pkg.impl as impl\nclassify = impl.run_replay\n",
            "from pkg.values import classify\n",
        ),
        ("from pkg import impl\nclassify = impl.run_replay\n", "from pkg.values import classify\n"),
        ("from pkg.impl import *\n", "from pkg.values import run_replay\n"),
        (
            "from pkg.impl import run_replay\nclassify, LIMIT = run_replay, 3\n",
            "from pkg.values import classify\n",
        ),
        ("def classify():\n    pass\n", "from pkg import values\ngetattr(values, 'classify')()\n"),
        ("from pkg import impl\n", "from pkg.values import impl\nimpl.run_replay()\n"),
    ],
    ids=[
        "banned-function",
        "banned-module-alias",
        "alias-of-banned",
        "module-alias-attribute",
        "from-module-attribute",
        "star-re-export",
        "tuple-assignment",
        "getattr",
        "re-exported-module",
    ],
)
def test_every_way_of_taking_a_producer_is_seen(project: Project, values: str, sealed: str) -> None:
    project.write("src/pkg/impl.py", "def run_replay():\n    pass\n")
    project.write("src/pkg/values.py", values)
    project.sealed(sealed)
    codes = {f.code for f in project.run().findings}
    assert "ST104" in codes, codes


def test_a_class_an_enum_and_a_constant_taken_through_re_exports_pass(project: Project) -> None:
    project.write(
        "src/pkg/impl.py",
        "import enum\nclass Mode(enum.Enum):\n    A = 1\nclass Record:\n    pass\nLIMIT = 3\n",
    )
    project.write(
        "src/pkg/values.py",
        "from pkg.impl import *\nimport pkg.impl as impl\nAlias = impl.Record\n",
    )
    project.sealed("from pkg.values import Mode, Record, LIMIT, Alias\nRecord.__name__\n")
    assert not [f for f in project.run().findings if f.code == "ST104"]


# -- found by review: each a case the lint once got wrong ----------------------------------------
def test_a_star_import_of_a_package_parsed_later_still_counts(project: Project) -> None:
    project.write("src/lib/__init__.py", "__all__ = ['m']\n")
    project.write("src/lib/m.py", "import pkg.sealed\n")
    assert project.reaches("from lib import *\n") == {("src/lib/m.py", "ST402", 1)}


def test_a_package_wins_over_a_module_of_the_same_name(project: Project) -> None:
    project.write("src/pkg/up/a.py", "import pkg.x\n")
    project.write("src/pkg/x.py", "X = 1\n")
    project.write("src/pkg/x/__init__.py", "import pkg.sealed\n")
    assert _found(project) == [("src/pkg/x/__init__.py", "ST402", 1)]
    project.write("src/pkg/x.py", "import pkg.sealed\n")
    project.write("src/pkg/x/__init__.py", "")
    assert _found(project) == []


def test_the_first_source_root_wins(project: Project) -> None:
    project.top_toml = 'source_roots = ["src", "lib"]\ncache_dir = false\n'
    project.write("src/lib2/__init__.py", "")
    project.write("src/lib2/m.py", "import pkg.sealed\n")
    project.write("lib/lib2/__init__.py", "")
    project.write("lib/lib2/m.py", "")
    project.write("src/pkg/up/a.py", "import lib2.m\n")
    assert _found(project) == [("src/lib2/m.py", "ST402", 1)]


def test_a_coding_cookie_after_a_crlf_first_line_is_honoured(project: Project) -> None:
    # UTF-7 turns "+AAo-" into a newline: Python runs the import that follows
    project.write(
        "src/pkg/mid.py",
        b"#\r\n#" + b" " * 4100 + b"coding: utf-7\r\nx = 1  #+AAo-import pkg.sealed\r\n",
    )
    project.write("src/pkg/up/a.py", "import pkg.mid\n")
    assert _found(project) == [("src/pkg/mid.py", "ST402", 4)]  # line 4 once decoded


@pytest.mark.parametrize(
    "deep",
    [
        "__import__('subprocess')\n",
        "import unittest.mock\n",
        "from unittest import mock\n",
        "from pkg.tools import *\n",
        "\ufeffimport socket\n",
    ],
    ids=["dynamic", "submodule", "from-submodule", "star", "bom"],
)
def test_the_closure_sees_what_deep_modules_import(project: Project, deep: str) -> None:
    project.write("src/pkg/tools/__init__.py", "__all__ = ['search']\n")
    project.write("src/pkg/tools/search.py", "")
    project.boundary_toml += 'closure = true\nbanned = ["pkg.tools.search", "unittest.mock"]\n'
    project.sealed("from pkg import values\n")
    project.write("src/pkg/values.py", "from pkg import deep\n")
    project.write("src/pkg/deep.py", deep.encode("utf-8"))
    assert [f.code for f in project.run().findings] == ["ST404"]


@pytest.mark.parametrize(
    "spoof",
    [
        "import typing as TYPE_CHECKING\n",
        "match True:\n    case TYPE_CHECKING:\n        pass\n",
        "globals()['TYPE_CHECKING'] = True\n",
        "globals().update(TYPE_CHECKING=True)\n",
        "import typing\ntyping.__dict__['TYPE_CHECKING'] = True\n",
    ],
)
def test_a_spoofed_type_checking_guard_is_not_trusted(project: Project, spoof: str) -> None:
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    project.write(
        "src/pkg/mid.py",
        "from typing import TYPE_CHECKING\n" + spoof + "if TYPE_CHECKING:\n    import pkg.sealed\n",
    )
    project.write("src/pkg/up/a.py", "import pkg.mid\n")
    assert [f.code for f in project.run().findings] == ["ST402"]
    project.sealed(
        "from typing import TYPE_CHECKING\n" + spoof + "if TYPE_CHECKING:\n    import subprocess\n"
    )
    assert "ST102" in {f.code for f in project.run().findings}


def test_a_first_party_typing_module_makes_every_guard_count(project: Project) -> None:
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    project.write("src/typing_extensions.py", "TYPE_CHECKING = True\n")
    project.write(
        "src/pkg/up/a.py",
        "from typing_extensions import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.sealed\n",
    )
    assert [f.code for f in project.run().findings] == ["ST401"]


def test_a_changed_package_path_is_reported(project: Project) -> None:
    project.write(
        "src/pkg/up/__init__.py",
        "import os\n__path__.insert(0, os.path.join(os.path.dirname(__file__), '..', 'impl'))\n",
    )
    findings = project.run().findings
    assert [(f.path, f.code) for f in findings] == [("src/pkg/up/__init__.py", "ST301")]
    assert "__path__ is changed" in findings[0].message


def test_an_empty_source_roots_is_a_config_error(project: Project) -> None:
    from sealed_trace.lint.config import ConfigError

    project.top_toml = "source_roots = []\ncache_dir = false\n"
    with pytest.raises(ConfigError, match="source_roots is empty"):
        project.config()


def test_consecutive_import_statements_are_reported_each(project: Project) -> None:
    project.write(
        "src/pkg/up/a.py",
        "from pkg import sealed\nfrom pkg import sealed as s2\n"
        "from pkg.sealed import (\n    a,\n    b,\n)\n",
    )
    assert _found(project) == [("src/pkg/up/a.py", "ST401", n) for n in (1, 2, 4)]


@pytest.mark.parametrize(
    "text",
    [
        "return 1\n",
        "nonlocal x\n",
        "def f(a, a):\n    pass\n",
        "x = 1\nfrom __future__ import annotations\n",
    ],
)
def test_what_the_compiler_refuses_is_a_syntax_error(project: Project, text: str) -> None:
    project.write("src/pkg/up/a.py", "import pkg.sealed\n" + text)
    assert [f.code for f in project.run().findings] == ["ST001"]


def test_type_checking_chains_are_verified_in_one_batch(project: Project) -> None:
    project.boundary_toml += 'type_checking_imports = "ignore"\n'
    for i in range(30):
        project.write(
            f"src/pkg/m{i}.py",
            "from typing import TYPE_CHECKING\n"
            f"import pkg.m{i + 1}\nif TYPE_CHECKING:\n    import pkg.sealed\n",
        )
    project.write("src/pkg/m30.py", "")
    project.write("src/pkg/up/a.py", "import pkg.m0\n")
    parsed: list[str] = []
    assert project.run(parsed=parsed).findings == ()
    assert {f"src/pkg/m{i}.py" for i in range(30)} <= set(parsed)
