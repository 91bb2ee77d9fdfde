"""Engine behaviour: the fixpoint parses only where a verdict can change, and the cache (content
hash + policy hash, warm stat path)."""

from __future__ import annotations

import json
import os

import pytest
from lint_project import Project

from sealed_trace.lint import engine
from sealed_trace.lint.cache import KNOWN_FILE


def test_files_no_clean_upstream_module_loads_are_never_parsed(project: Project) -> None:
    # a computed import far from every upstream module cannot make one of them reach
    project.write("src/pkg/tools/loader.py", "import importlib\nimportlib.import_module(N)\n")
    project.write("src/pkg/helpers.py", "import json\n")
    project.write("src/pkg/up/b.py", "from pkg import helpers\n")
    parsed: list[str] = []
    result = project.run(parsed=parsed)
    assert "src/pkg/sealed.py" in parsed
    # an upstream module whose text can hide no edge is judged from the scan alone
    assert "src/pkg/up/b.py" not in parsed
    assert "src/pkg/tools/loader.py" not in parsed
    assert "src/pkg/helpers.py" not in parsed  # loaded, but nothing in it can hide an edge
    assert result.findings == ()


def test_a_loaded_file_that_can_hide_an_edge_is_parsed(project: Project) -> None:
    project.write("src/pkg/helpers.py", "import importlib\nM = importlib.import_module(N)\n")
    project.write("src/pkg/up/b.py", "from pkg import helpers\n")
    parsed: list[str] = []
    result = project.run(parsed=parsed)
    assert "src/pkg/helpers.py" in parsed
    assert [(f.path, f.code) for f in result.findings] == [("src/pkg/helpers.py", "ST301")]


def test_a_chain_step_the_scan_cannot_tell_is_parsed_for_its_kind(project: Project) -> None:
    project.write("src/pkg/x.py", "def load():\n    import pkg.sealed\n")
    project.write("src/pkg/other.py", "def load():\n    import pkg.sealed\n")
    project.write("src/pkg/up/b.py", "import pkg.x\n")
    parsed: list[str] = []
    result = project.run(parsed=parsed)
    # the import of the step shown is indented: its module is read exactly, and the step
    # says how it runs; a module on no chain of an upstream module is not read
    assert "src/pkg/x.py" in parsed
    assert "src/pkg/other.py" not in parsed
    assert [(f.path, f.code, f.chains[1]) for f in result.findings] == [
        ("src/pkg/x.py", "ST402", "pkg.up.b -> pkg.x -> pkg.sealed (in a function)")
    ]


def test_a_chain_step_at_module_level_is_known_from_the_scan(project: Project) -> None:
    project.write("src/pkg/x.py", "import pkg.sealed\n")
    project.write("src/pkg/up/b.py", "import pkg.x\n")
    parsed: list[str] = []
    result = project.run(parsed=parsed)
    # an import at the start of a line runs at module level: the scan's edge is exact, and
    # only the module whose import is reported is read (for the import's text and column)
    assert "src/pkg/x.py" in parsed
    assert "src/pkg/up/b.py" not in parsed
    assert [(f.path, f.code, f.chains[1]) for f in result.findings] == [
        ("src/pkg/x.py", "ST402", "pkg.up.b -> pkg.x -> pkg.sealed")
    ]


def test_warm_run_uses_cache(project: Project) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import time\n")
    cold = project.run(use_cache=True)
    assert not cold.cache_hit
    parsed: list[str] = []
    warm = project.run(use_cache=True, parsed=parsed)
    assert warm.cache_hit
    assert parsed == []
    assert warm.findings == cold.findings
    assert (project.root / ".sealed_trace_cache" / ".gitignore").read_text() == "*\n"


def test_changed_file_invalidates(project: Project) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import time\n")
    project.run(use_cache=True)
    project.write("src/pkg/sealed.py", "import json\n")
    result = project.run(use_cache=True)
    assert not result.cache_hit
    assert result.findings == ()


def test_policy_change_invalidates(project: Project) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import decimal\n")
    assert project.run(use_cache=True).findings
    project.boundary_toml += 'allowed_imports = ["pkg.values", "decimal"]\n'
    project.boundary_toml = project.boundary_toml.replace(
        'allowed_imports = ["pkg.values"]\n', "", 1
    )
    result = project.run(use_cache=True)
    assert not result.cache_hit
    assert result.findings == ()


def test_facts_cache_avoids_reparse(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from sealed_trace.lint import ast_pass, cst_pass

    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/up/a.py", "import json\n")
    project.run(use_cache=True)
    project.write("src/pkg/unrelated.py", "x = 1\n")  # run cache misses, facts cache hits
    calls: list[str] = []

    def refuse(text, module, *args):  # type: ignore[no-untyped-def]
        calls.append(module)
        raise AssertionError("parsed again")

    monkeypatch.setattr(ast_pass, "extract_graph_facts", refuse)
    monkeypatch.setattr(cst_pass, "extract_facts", refuse)
    result = project.run(use_cache=True)
    assert not result.cache_hit
    assert calls == []


def test_corrupt_cache_is_ignored(project: Project) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/sealed.py", "import time\n")
    cache = project.root / ".sealed_trace_cache"
    cache.mkdir()
    (cache / engine.CACHE_FILE).write_text("{not json", encoding="utf-8")
    assert [f.code for f in project.run(use_cache=True).findings] == ["ST102"]
    (cache / engine.CACHE_FILE).write_text("{}")  # no last run: what is known is read
    known = json.loads((cache / KNOWN_FILE).read_text())
    known["facts"] = {k: {"bad": 1} for k in known["facts"]}
    records = known["files"]["records"]
    # each file's record keeps its fingerprint (so it is taken) but holds nonsense
    for path, record in records.items():
        records[path] = [record[0], ["x"], [1, 2], ["y", None]]
    (cache / KNOWN_FILE).write_text(json.dumps(known))
    assert [f.code for f in project.run(use_cache=True).findings] == ["ST102"]


def test_one_read_and_parse_per_file_with_several_boundaries(project: Project) -> None:
    project.write("src/pkg/kernel.py", "import json\n")
    project.boundary_toml += """
[[tool.sealed_trace.boundary]]
name = "kernel"
module = "pkg.kernel"
preset = "adr-0230"
upstream = ["pkg.up.*"]
"""
    project.write("src/pkg/up/a.py", "from pkg import sealed, kernel\n")
    parsed: list[str] = []
    result = project.run(parsed=parsed)
    assert len(parsed) == len(set(parsed))
    assert {(f.code, f.boundary) for f in result.findings} == {
        ("ST401", "sealed"),
        ("ST401", "kernel"),
    }


def test_paths_outside_roots_get_engine_checks(project: Project) -> None:
    outside = project.write("scripts/tool.py", b"\x00")
    result = project.run(paths=[os.path.relpath(outside, project.root)])
    assert [f.code for f in result.findings] == ["ST001"]


def test_boundary_and_upstream_findings_in_one_run(project: Project) -> None:
    project.write("src/pkg/sealed.py", "import time\nclass T:\n    answer: int\n")
    project.write("src/pkg/up/a.py", "from pkg import sealed\n")
    assert {f.code for f in project.run().findings} == {"ST102", "ST501", "ST401"}


def test_the_byte_triggers_cover_every_callable_the_parser_judges() -> None:
    """A file is parsed for dynamic imports only when its bytes name one of the trigger words;
    every callable and module the import-graph pass judges must be spelled with one."""
    from sealed_trace.lint import dynamic_rules, hiding

    words = [w.decode() for w in (*hiding.DYNAMIC_WORDS, *hiding.ROOT_WORDS)]
    names = {
        *dynamic_rules.IMPORTING_CALLABLES,
        *dynamic_rules.STRING_IMPORTS,
        *dynamic_rules.HIDDEN_IMPORTS,
        *dynamic_rules.IMPORT_ROOTS,
        *dynamic_rules.STRING_IMPORT_METHODS,
        *dynamic_rules.FUNC_BY_NAME,
        *dynamic_rules.RELATIVE_BASES,
        *dynamic_rules.CODE_RUNNERS,
        *dynamic_rules.BINDERS,
    }
    whole = [w.decode() for w in hiding.WHOLE_ROOT_WORDS]
    uncovered = sorted(
        n
        for n in names
        if not any(w in part for part in n.split(".") for w in words)
        and not any(part in whole for part in n.split("."))
        and n.split(".")[-1] not in ("imp", "__name__")
    )
    assert uncovered == []
    # the whole-word triggers: as parts of other words they do not count
    assert hiding.may_import_dynamically(b"from unittest.mock import patch\n")
    assert hiding.may_import_dynamically(b"import pydoc as d\nd.locate('x')\n")
    assert not hiding.may_import_dynamically(b"def dispatch(listener):\n    allocate()\n")
    # ``imp`` is looked for as a whole word, a write to ``__name__`` by its own pattern
    assert hiding.may_import_dynamically(b"import imp\n")
    assert hiding.may_import_dynamically(b"__name__ = 'pkg.up'\n")
    assert not hiding.may_import_dynamically(b"if __name__ == '__main__':\n    pass\n")


@pytest.mark.parametrize(
    "text",
    [
        "import unittest\nunittest.main(module='pkg.s\\x65aled', exit=False)\n",
        "import dill\ndill.loads(DATA)\n",
        "import logging.config\nlogging.config.listen(9999)\n",
        "from unittest import mock\ngetattr(mock, NAME)('x')\n",
    ],
)
def test_an_unparsed_module_with_a_hidden_import_is_parsed(project: Project, text: str) -> None:
    project.write("src/pkg/mid.py", text)
    project.write("src/pkg/up/a.py", "import pkg.mid\n")
    parsed: list[str] = []
    result = project.run(parsed=parsed)
    assert "src/pkg/mid.py" in parsed
    assert result.findings  # an edge to the sealed module (ST402) or a hidden import (ST301)


def _count_reads_and_scans(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[object]]:
    from sealed_trace.lint import screen, store

    reads: list[str] = []
    scans: list[object] = []
    real_screen, real_scan = screen.screened, store.scan

    def counting_screen(item, *args):  # type: ignore[no-untyped-def]
        reads.append(item.file.relpath)
        return real_screen(item, *args)

    def counting_scan(targets, only=None):  # type: ignore[no-untyped-def]
        scans.append(sorted(only) if only is not None else None)
        return real_scan(targets, only)

    monkeypatch.setattr(screen, "screened", counting_screen)
    monkeypatch.setattr(store, "scan", counting_scan)
    return reads, scans


def test_an_edit_reads_and_scans_the_edited_file_only(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/helper.py", "import json\n")
    project.write("src/pkg/up/b.py", "from pkg import helper\n")
    assert project.run(use_cache=True).findings == ()
    reads, scans = _count_reads_and_scans(monkeypatch)
    project.write("src/pkg/helper.py", "import json\nfrom pkg import sealed\n")
    found = project.run(use_cache=True).findings
    assert reads == ["src/pkg/helper.py"]
    assert scans == [["pkg.helper"]]
    assert [(f.path, f.code) for f in found] == [("src/pkg/helper.py", "ST402")]
    # and back: the reverse dependency is gone
    project.write("src/pkg/helper.py", "import json\n")
    assert project.run(use_cache=True).findings == ()


def test_a_new_module_makes_the_whole_tree_scanned_again(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.top_toml = 'source_roots = ["src"]\n'
    project.write("src/pkg/up/b.py", "from pkg import helper\n")  # a name, not a module yet
    assert project.run(use_cache=True).findings == ()
    reads, scans = _count_reads_and_scans(monkeypatch)
    # ``from pkg import helper`` now imports a module: every import resolves anew
    project.write("src/pkg/helper.py", "from pkg import sealed\n")
    found = project.run(use_cache=True).findings
    files = project.config().files
    assert scans == [sorted(f.module for f in files if f.module)]
    assert len(reads) == len(files)
    assert [(f.path, f.code) for f in found] == [("src/pkg/helper.py", "ST402")]
