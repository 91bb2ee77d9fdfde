"""grimp's scanner is used through one adapter module (``sealed_trace.lint.grimp_scan``).

The adapter reaches into grimp's own modules (its public ``build_graph`` fails the whole
build on one bad file and finds packages through ``sys.path``, so it would lose the per-file
ST001). These tests fail the day grimp moves or reshapes what the adapter uses; CI runs them
on the lowest grimp the metadata allows and on the newest release.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from sealed_trace.lint import grimp_scan
from sealed_trace.lint.grimp_scan import ScanTarget, scan

PACKAGE = Path(grimp_scan.__file__).parents[1]


def test_the_adapter_is_the_only_module_that_imports_grimp() -> None:
    importers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n == "grimp" or n.startswith("grimp.") for n in names):
                importers.append(path.relative_to(PACKAGE).as_posix())
    assert sorted(set(importers)) == ["lint/grimp_scan.py"]


def test_grimp_still_has_what_the_adapter_uses() -> None:
    scan_imports, found_package, module_file, module = grimp_scan._grimp()
    parameters = inspect.signature(scan_imports).parameters
    for name in (
        "module_files",
        "found_packages",
        "include_external_packages",
        "exclude_type_checking_imports",
    ):
        assert name in parameters, name
    one = module_file(module=module("pkg.a"), mtime=0.0)
    assert one.module.name == "pkg.a"
    package = found_package(name="pkg", directory="/nowhere/pkg", module_files=frozenset({one}))
    assert package.name == "pkg"


def test_a_scan_gives_each_import_its_target_and_line(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "b.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("import os\n\n\ndef f():\n    from pkg import b\n")
    targets = [
        ScanTarget(m, str(tmp_path), str(tmp_path / p))
        for m, p in (("pkg", "pkg/__init__.py"), ("pkg.a", "pkg/a.py"), ("pkg.b", "pkg/b.py"))
    ]
    graph = scan(targets)
    assert graph.edges["pkg.a"] == (("pkg.b", 5),)
    assert graph.external["pkg.a"] == frozenset({"os"})
    assert graph.failed == {}


def test_a_file_grimp_cannot_parse_fails_alone(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "bad.py").write_text("def (:\n")
    (tmp_path / "pkg" / "good.py").write_text("from pkg import bad\n")
    targets = [
        ScanTarget(m, str(tmp_path), str(tmp_path / p))
        for m, p in (
            ("pkg", "pkg/__init__.py"),
            ("pkg.bad", "pkg/bad.py"),
            ("pkg.good", "pkg/good.py"),
        )
    ]
    graph = scan(targets)
    assert set(graph.failed) == {"pkg.bad"}
    assert graph.edges["pkg.good"] == (("pkg.bad", 1),)
