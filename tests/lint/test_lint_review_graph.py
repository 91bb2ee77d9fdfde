"""Regressions from the adversarial review of the reverse-dependency side of the lint:
prefilter soundness, the import-graph pass, discovery and config validation (issue 3 §1,
§2 "reverse dependency in every spelling", §5, §6)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from sealed_trace.lint.config import ConfigError, load_config
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


def _project(
    root: Path,
    files: dict[str, str],
    *,
    boundary: str = BOUNDARY,
    top: str = 'source_roots = ["src"]\ncache_dir = false\n',
    sealed_package: bool = False,
) -> Path:
    _write(root, "pyproject.toml", "[tool.sealed_trace]\n" + top + boundary)
    _write(root, "src/pkg/__init__.py", "")
    _write(
        root,
        "src/pkg/sealed/__init__.py" if sealed_package else "src/pkg/sealed.py",
        "from __future__ import annotations\n",
    )
    for rel, text in files.items():
        _write(root, rel, text)
    return root / "pyproject.toml"


def _findings(root: Path, files: dict[str, str], **kwargs: object) -> list[Finding]:
    config = load_config(_project(root, files, **kwargs))  # type: ignore[arg-type]
    return list(lint(config, use_cache=False, jobs=1).findings)


def _codes(root: Path, files: dict[str, str], rel: str, **kwargs: object) -> set[tuple[str, int]]:
    return {(f.code, f.line) for f in _findings(root, files, **kwargs) if f.path == rel}


UP = "src/pkg/up.py"


# -- 1. a sealed package followed by a line starting with "." ----------------------------------
@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("def f():\n    from pkg import sealed\n    ...\n", 2),
        ("import pkg.sealed\n.5\n", 1),
        ("from pkg import (\n    sealed\n)\n", 1),
        ("from pkg import sealed  \\\n\n...\n", 1),
    ],
)
def test_sealed_package_followed_by_a_dot_line_is_found(
    tmp_path: Path, source: str, line: int
) -> None:
    codes = _codes(tmp_path, {UP: source}, UP, sealed_package=True)
    assert "ST401" in {c for c, _ in codes}, codes
    assert min(n for c, n in codes if c == "ST401") in (line, line + 1)


# -- 2. literals spelled through escapes or implicit concatenation ---------------------------
@pytest.mark.parametrize(
    "source",
    [
        'import importlib\ngetattr(importlib, "import_\\x6dodule")("pkg.s\\x65aled")\n',
        'import importlib\nf = getattr(importlib, "import_" "module")\nf("pkg.se" "aled")\n',
        'g = getattr(getattr(getattr, "__s\\x65lf__"), "__imp" "ort__")\ng("pkg.sealed")\n',
        'getattr(__builtins__, "__imp\\x6frt__")("pkg.s\\x65aled")\n',
    ],
)
def test_escaped_and_concatenated_spellings_are_found(tmp_path: Path, source: str) -> None:
    codes = _codes(tmp_path, {UP: source}, UP)
    assert {c for c, _ in codes} & {"ST401"}, codes


# -- 3. dynamic-import spellings in the graph pass --------------------------------------------
@pytest.mark.parametrize(
    "source",
    [
        'imp = __import__\nimp("pkg.sealed")\n',
        'import importlib\nm = importlib.import_module\nm("pkg.sealed")\n',
        'import importlib\ndef f():\n    m = importlib.import_module\n    m("pkg.sealed")\n',
        'def f(i=__import__):\n    return i("pkg.sealed")\n',
        '__builtins__["__import__"]("pkg.sealed")\n',
        '__builtins__.__import__("pkg.sealed")\n',
        'from importlib import *\nimport_module("pkg.sealed")\n',
        'import pkgutil\npkgutil.resolve_name("pkg.sealed:x")\n',
        'from pkgutil import resolve_name\nresolve_name("pkg.sealed.x")\n',
        'import importlib.util\nspec = importlib.util.find_spec("pkg.sealed")\n',
        "from importlib.util import find_spec, module_from_spec\n"
        'module_from_spec(find_spec("pkg.sealed"))\n',
    ],
)
def test_dynamic_import_spellings_are_edges(tmp_path: Path, source: str) -> None:
    codes = _codes(tmp_path, {UP: source}, UP)
    assert any(c == "ST401" for c, _ in codes), codes


@pytest.mark.parametrize(
    "source",
    [
        "import pkgutil\npkgutil.resolve_name(name)\n",
        "import importlib.util\nimportlib.util.find_spec(name)\n",
        'import importlib\ngetattr(importlib, name)("x")\n',
        "imp = __import__\nimp(name)\n",
    ],
)
def test_computed_arguments_are_st301_upstream(tmp_path: Path, source: str) -> None:
    codes = _codes(tmp_path, {UP: source}, UP)
    assert any(c == "ST301" for c, _ in codes), codes


@pytest.mark.parametrize(
    ("init", "reached"),
    [
        ('__all__ = ["sealed"]\n', True),
        ('__all__ = ["other"]\n', False),
        ('__all__ = ["oth" + "er"]\n', True),  # not literal: every submodule, fail-closed
        ('__all__ = ["other"]\n__all__ += ["sealed"]\n', True),
        ('__all__ = ["other"]\n__all__.append("sealed")\n', True),
        ("", False),
    ],
)
def test_star_import_follows_the_packages_all(tmp_path: Path, init: str, reached: bool) -> None:
    files = {"src/pkg/__init__.py": init, "src/pkg/other.py": "", UP: "from pkg import *\n"}
    codes = _codes(tmp_path, files, UP)
    assert (("ST401", 1) in codes) is reached, codes


def test_relative_star_import_follows_the_packages_all(tmp_path: Path) -> None:
    files = {"src/pkg/__init__.py": '__all__ = ["sealed"]\n', UP: "from . import *\n"}
    assert ("ST401", 1) in _codes(tmp_path, files, UP)


# -- 4. symlinked subpackages ----------------------------------------------------------------
def test_symlinked_subpackage_is_followed(tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    _write(ext, "mod.py", "from pkg import sealed\n")
    _project(tmp_path / "p", {})
    os.symlink(ext, tmp_path / "p/src/pkg/linked")
    found = list(lint(load_config(tmp_path / "p/pyproject.toml"), use_cache=False, jobs=1).findings)
    assert ("src/pkg/linked/mod.py", "ST401") in {(f.path, f.code) for f in found}


def test_symlinked_directory_loop_terminates_and_is_reported(tmp_path: Path) -> None:
    _project(tmp_path, {"src/pkg/sub/__init__.py": ""})
    os.symlink(tmp_path / "src/pkg", tmp_path / "src/pkg/sub/loop")
    found = list(lint(load_config(tmp_path / "pyproject.toml"), use_cache=False, jobs=1).findings)
    assert [(f.path, f.code) for f in found] == [("src/pkg/sub/loop", "ST002")]


# -- 5. TYPE_CHECKING spoofing -----------------------------------------------------------------
IGNORE_TC = BOUNDARY + 'type_checking_imports = "ignore"\n'


@pytest.mark.parametrize(
    ("source", "counted"),
    [
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import sealed\n",
            False,
        ),
        ("import typing as t\nif t.TYPE_CHECKING:\n    from pkg import sealed\n", False),
        (
            "from typing_extensions import TYPE_CHECKING as TC\n"
            "if TC:\n    from pkg import sealed\n",
            False,
        ),
        ("TYPE_CHECKING = True\nif TYPE_CHECKING:\n    from pkg import sealed\n", True),
        (
            "from typing import TYPE_CHECKING\nTYPE_CHECKING = True\n"
            "if TYPE_CHECKING:\n    from pkg import sealed\n",
            True,
        ),
        ("from mylib import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import sealed\n", True),
        (
            "import typing\ntyping.TYPE_CHECKING = True\n"
            "if typing.TYPE_CHECKING:\n    from pkg import sealed\n",
            True,
        ),
        (
            "class C:\n    TYPE_CHECKING = 1\nif C.TYPE_CHECKING:\n    from pkg import sealed\n",
            True,
        ),
    ],
)
def test_only_typing_type_checking_guards_imports(
    tmp_path: Path, source: str, counted: bool
) -> None:
    lines = {
        line
        for code, line in _codes(tmp_path, {UP: source}, UP, boundary=IGNORE_TC)
        if code == "ST401"
    }
    assert bool(lines) is counted


# -- 6. ST402 chains and duplicates ----------------------------------------------------------
def test_indirect_chain_never_loops_back_through_the_reporting_module(tmp_path: Path) -> None:
    files = {
        "src/pkg/meta/__init__.py": "from pkg.meta import codegen\nfrom pkg import pos\n",
        "src/pkg/meta/codegen.py": "import pkg.meta\n",
        "src/pkg/pos.py": "from pkg import sealed\n",
    }
    found = _findings(tmp_path, files)
    # pkg.pos (upstream) imports the sealed module: the one cause; pkg.meta and its codegen
    # reach it through pkg.pos and are reported with it, each chain without a loop
    assert [(f.path, f.code) for f in found] == [("src/pkg/pos.py", "ST401")]
    for chain in found[0].chains:
        steps = chain.split(" -> ")
        assert len(steps) == len(set(steps)), chain
    assert "pkg.meta -> pkg.pos -> pkg.sealed" in found[0].chains


def test_one_finding_per_module_edge_at_its_first_line(tmp_path: Path) -> None:
    files = {
        "src/pkg/code.py": "from pkg import sealed\nA = B = 1\n",
        UP: "from .code import A\nfrom .code import B\nimport pkg.code\n",
    }
    # pkg.code is upstream too (pkg.*): its import of the sealed module is the cause, and
    # pkg.up is reported with it, not on each of its three imports
    found = [(f.path, f.code, f.line) for f in _findings(tmp_path, files)]
    assert found == [("src/pkg/code.py", "ST401", 1)]
    boundary = BOUNDARY.replace('upstream = ["pkg.*"]', 'upstream = ["pkg.up"]')
    found = [(f.code, f.line) for f in _findings(tmp_path, files, boundary=boundary)]
    assert found == [("ST402", 1)]


# -- 7. config: every problem at once ---------------------------------------------------------
def test_unmatched_patterns_are_reported_with_other_boundary_problems(tmp_path: Path) -> None:
    boundary = (
        BOUNDARY.replace('module = "pkg.sealed"', 'module = "pkg.nothing"')
        .replace(
            'upstream = ["pkg.*"]', 'upstream = ["zzz.*"]\nupstreem = []\nforbidden_fields = "x"'
        )
        .replace('"adr-0230"', '"adr-230"')
    )
    with pytest.raises(ConfigError) as info:
        load_config(_project(tmp_path, {}, boundary=boundary))
    text = "\n".join(info.value.problems)
    assert "upstreem" in text
    assert "forbidden_fields must be an array" in text
    assert "'adr-230' is not a built-in preset" in text
    assert "'pkg.nothing' matches no module" in text
    assert "'zzz.*' matches no module" in text


def test_unmatched_patterns_are_reported_with_a_missing_root(tmp_path: Path) -> None:
    boundary = BOUNDARY.replace('upstream = ["pkg.*"]', 'upstream = ["zzz.*"]')
    top = 'source_roots = ["src", "nope"]\ncache_dir = false\n'
    with pytest.raises(ConfigError) as info:
        load_config(_project(tmp_path, {}, boundary=boundary, top=top))
    text = "\n".join(info.value.problems)
    assert "'nope' is not a directory" in text
    assert "'zzz.*' matches no module" in text
    assert "pkg.sealed" not in text


# -- 8. syntax errors where the lint must analyse --------------------------------------------
def test_syntax_error_in_a_file_that_could_reach_the_sealed_module(tmp_path: Path) -> None:
    codes = _codes(tmp_path, {UP: "from pkg import sealed\ndef (:\n"}, UP)
    assert codes == {("ST001", 2)}


def test_adjacent_literals_with_a_prefix_letter_in_between_are_seen() -> None:
    """``'a''b'`` must not be hidden by a prefix-like letter inside the second literal."""
    from sealed_trace.lint.hiding import _spelled

    assert _spelled(b"getattr(m, 'import_mod''b')")
    assert _spelled(b'x = "ab""cd"')
    assert not _spelled(b'"""docstring"""\nx = ""\n')
