"""Regressions from the second adversarial review of the lint: reverse imports through a
sealed package's submodule paths, relative ``__import__``, first-party names shadowing
standard-library ones, enum members, banned modules reached under other names, escape names
in strings and computed ``getattr``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sealed_trace.lint.config import load_config
from sealed_trace.lint.engine import lint
from sealed_trace.lint.findings import Finding

BOUNDARY = """
[[tool.sealed_trace.boundary]]
name = "b"
module = "pkg.sealed"
preset = "adr-0230"
upstream = ["pkg.*"]
"""


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _lint(
    root: Path, files: dict[str, str], *, boundary: str = BOUNDARY, sealed_package: bool = False,
) -> list[Finding]:
    _write(root, "pyproject.toml",
           '[tool.sealed_trace]\nsource_roots = ["src"]\ncache_dir = false\n' + boundary)
    _write(root, "src/pkg/__init__.py", "")
    if "src/pkg/sealed.py" not in files and "src/pkg/sealed/__init__.py" not in files:
        _write(root, "src/pkg/sealed/__init__.py" if sealed_package else "src/pkg/sealed.py",
               "x = 1\n")
    if "src/pkg/up.py" not in files:
        _write(root, "src/pkg/up.py", "y = 2\n")
    for rel, text in files.items():
        _write(root, rel, text)
    return list(lint(load_config(root / "pyproject.toml")).findings)


def _codes(findings: list[Finding], path: str | None = None) -> list[str]:
    return [f.code for f in findings if path is None or f.path == path]


UP = "src/pkg/up.py"
SEALED = "src/pkg/sealed.py"


# -- A1: any submodule path under a sealed package imports the package ---------------------------
@pytest.mark.parametrize("source", [
    "try:\n    import pkg.sealed.nothing\nexcept ImportError:\n    pass\n",
    "import pkg.sealed.__init__\n",
    "try:\n    from pkg.sealed.nothing import x\nexcept ImportError:\n    pass\n",
    "import pkg.sealed.__init__ as m\n",
])
def test_submodule_path_of_sealed_package_is_a_reverse_import(
        tmp_path: Path, source: str) -> None:
    found = _lint(tmp_path, {UP: source, "src/pkg/sealed/sub.py": "x = 1\n"},
                  sealed_package=True)
    assert _codes(found, UP) == ["ST401"]


# -- A2: __import__ with a level is relative to the calling module's package -------------------
@pytest.mark.parametrize("source", [
    '__import__("sealed", globals(), None, [], 1)\n',
    '__import__("sealed", level=1)\n',
    '__import__("", globals(), None, ["sealed"], 1)\n',
])
def test_relative_dunder_import_is_a_reverse_import(tmp_path: Path, source: str) -> None:
    assert _codes(_lint(tmp_path, {UP: source}), UP) == ["ST401"]


def test_computed_dunder_import_level_is_st301(tmp_path: Path) -> None:
    found = _lint(tmp_path, {UP: 'n = 1\n__import__("sealed", globals(), None, [], n)\n'})
    assert "ST301" in _codes(found, UP)


def test_relative_dunder_import_in_sealed_module_resolves(tmp_path: Path) -> None:
    found = _lint(tmp_path, {SEALED: '__import__("os", level=0)\nn = 1\n'
                                     '__import__("x", None, None, [], n)\n'})
    assert {"ST102", "ST301"} <= set(_codes(found, SEALED))
