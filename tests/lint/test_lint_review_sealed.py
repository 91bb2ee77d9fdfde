"""Regression tests of the review of the sealed module's own rules: evasions that a fail-closed
lint must catch (builtins rebound or reached without their names, banned modules re-exported
by allowed ones, code-running parts of the allowed surface, TYPE_CHECKING writes, fields the
ST501 walk missed, flat but long code, colliding SARIF fingerprints)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from sealed_trace.lint.config import load_config
from sealed_trace.lint.engine import LintResult, lint
from sealed_trace.lint.formats import json_format, sarif

PYPROJECT = """
[tool.sealed_trace]
source_roots = ["src"]
cache_dir = false

[[tool.sealed_trace.boundary]]
name = "b"
module = "pkg.sealed"
preset = "adr-0230"
allowed_imports = ["pkg.values"]
upstream = ["pkg.*"]
"""


def _run(tmp_path: Path, code: str, values: str = "") -> LintResult:
    (tmp_path / "src" / "pkg").mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "src" / "pkg" / "values.py").write_text(values, encoding="utf-8")
    (tmp_path / "src" / "pkg" / "sealed.py").write_text(textwrap.dedent(code), encoding="utf-8")
    return lint(load_config(tmp_path / "pyproject.toml"), [], use_cache=False, jobs=1)


def _codes(tmp_path: Path, code: str, values: str = "") -> set[tuple[str, int]]:
    return {
        (f.code, f.line)
        for f in _run(tmp_path, code, values).findings
        if f.path == "src/pkg/sealed.py"
    }


# -- 1. module-level rebinding does not hide a builtin -------------------------------------

REBINDINGS = [
    ("if False:\n    open = None\nopen('f')\n", {("ST203", 2), ("ST201", 3)}),
    ("open = 1\ndel open\nopen('f')\n", {("ST203", 1), ("ST202", 2), ("ST201", 3)}),
    (
        "if 0:\n    __import__ = None\n__import__('os')\n",
        {("ST203", 2), ("ST201", 3), ("ST102", 3)},
    ),
    (
        "try:\n    1 / 0\nexcept Exception as print:\n    pass\nprint('x')\n",
        {("ST203", 3), ("ST201", 5)},
    ),
    ("exec('1')\nexec = None\n", {("ST201", 1), ("ST203", 2)}),
    ("for eval in ():\n    pass\neval('2')\n", {("ST203", 1), ("ST201", 3)}),
    ("def g():\n    return open('f')\ng()\nopen = len\n", {("ST201", 2), ("ST203", 4)}),
    (
        "def f():\n    global compile\n    compile = len\ncompile('1', 'f', 'exec')\n",
        {("ST203", 3), ("ST201", 4)},
    ),
    ("with x as vars:\n    pass\nvars()\n", {("ST203", 1), ("ST201", 3)}),
    ("open = len\nopen = 2\nopen('f')\n", {("ST203", 1), ("ST203", 2), ("ST201", 3)}),
    ("class C:\n    if False:\n        open = None\n    open('f')\n", {("ST201", 4)}),
]


@pytest.mark.parametrize(("code", "expected"), REBINDINGS, ids=range(len(REBINDINGS)))
def test_module_rebinding_does_not_hide_a_banned_builtin(
    tmp_path: Path, code: str, expected: set[tuple[str, int]]
) -> None:
    assert _codes(tmp_path, code) == expected


@pytest.mark.parametrize(
    "code",
    [
        "def f(open):\n    return open('x')\n",
        "def f():\n    def open(p):\n        return p\n    return open('x')\n",
        "def print(*a):\n    return a\nprint(1)\n",
        "open = len\nopen('x')\n",
        "def f(clock):\n    return clock.time()\n",
        "x = 'open(1)'  # open('f')\n",
        "def timeit(n):\n    return n\ntimeit(1)\n",
        "class X:\n    def open(self):\n        return 1\nX().open()\n",
    ],
)
def test_shadowing_traps_stay_clean(tmp_path: Path, code: str) -> None:
    assert _codes(tmp_path, code) == set()


# -- 2. builtins reached without their names -----------------------------------------------

NAMELESS = [
    ("__builtins__['open']('f')\n", {("ST202", 1)}),
    ("__builtins__.open('g')\n", {("ST201", 1)}),
    ("getattr(__builtins__, 'exec')('1')\n", {("ST202", 1)}),
    ("import typing\ntyping.__builtins__['open']\n", {("ST202", 2)}),
    ("__loader__.get_data('x')\n", {("ST201", 1)}),
    ("__spec__.loader.get_data('x')\n", {("ST201", 1)}),
    ("().__class__.__base__.__subclasses__()\n", {("ST201", 1)}),
    ("def f():\n    pass\nf.__globals__['x']\n", {("ST202", 3)}),
    (
        "x = f.__code__\ny = f.__closure__\nz = o.__dict__\n",
        {("ST202", 1), ("ST202", 2), ("ST202", 3)},
    ),
    ("object.__getattribute__(o, 'x')\n", {("ST201", 1)}),
    ("getattr(f, '__globals__')\n", {("ST202", 1)}),
    ("p = __file__\n", {("ST202", 1)}),
    ("len.__self__.open('f')\n", {("ST202", 1)}),
    ("g = (x for x in ())\ng.gi_frame.f_globals\n", {("ST202", 2)}),
]


@pytest.mark.parametrize(("code", "expected"), NAMELESS, ids=range(len(NAMELESS)))
def test_builtins_reached_without_their_names(
    tmp_path: Path, code: str, expected: set[tuple[str, int]]
) -> None:
    assert _codes(tmp_path, code) >= expected
    assert _codes(tmp_path, code)


# -- 3. banned modules re-exported by allowed modules --------------------------------------

REEXPORTS = [
    ("import dataclasses\ndataclasses.sys.modules['os']\n", {("ST202", 2)}),
    ("import dataclasses\ndataclasses.builtins.open('f')\n", {("ST201", 2)}),
    ("import typing\ntyping.sys.stdout.write('x')\n", {("ST201", 2)}),
    ("import enum\nenum.sys.exit(1)\n", {("ST201", 2)}),
    ("from dataclasses import sys, builtins, inspect\n", {("ST102", 1)}),
    ("from pkg.values import os as o2\n", {("ST102", 1)}),
    ("from pkg.values import *\n", {("ST102", 1)}),
    ("from pkg.values import time\ntime()\n", {("ST102", 1), ("ST201", 2)}),
    ("from pkg import values\nvalues.os.system('x')\n", {("ST201", 2)}),
]


@pytest.mark.parametrize(("code", "expected"), REEXPORTS, ids=range(len(REEXPORTS)))
def test_banned_module_reexported_by_an_allowed_module(
    tmp_path: Path, code: str, expected: set[tuple[str, int]]
) -> None:
    assert _codes(tmp_path, code, values="import os\nimport time\n") == expected


def test_star_import_from_pure_stdlib_module_is_allowed(tmp_path: Path) -> None:
    assert _codes(tmp_path, "from dataclasses import *\nfrom enum import *\n") == set()


# -- 4. code-running parts of the allowed surface ------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import json.tool\n", {("ST102", 1)}),
        ("import typing\ntyping.get_type_hints(object)\n", {("ST201", 2)}),
        ("from typing import ForwardRef\n", {("ST102", 1)}),
        ("import typing\ntyping._eval_type(x, {}, {})\n", {("ST201", 2)}),
        ("import dataclasses\ndataclasses._create_fn('f', [], ['return 1'])\n", {("ST201", 2)}),
        ("import types\ntypes.CodeType\n", {("ST202", 2)}),
    ],
)
def test_code_running_surface_is_banned(
    tmp_path: Path, code: str, expected: set[tuple[str, int]]
) -> None:
    assert _codes(tmp_path, code) == expected


# -- 5. TYPE_CHECKING writes ----------------------------------------------------------------

TYPE_CHECKING_IGNORE = PYPROJECT.rstrip() + '\ntype_checking_imports = "ignore"\n'


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (
            "import typing\ntyping.TYPE_CHECKING = True\nif typing.TYPE_CHECKING:\n    import os\n",
            {("ST203", 2), ("ST102", 4)},
        ),
        (
            "from typing import TYPE_CHECKING\nTYPE_CHECKING = True\nif TYPE_CHECKING:\n"
            "    import os\n",
            {("ST203", 2), ("ST102", 4)},
        ),
        (
            "import typing\nsetattr(typing, 'TYPE_CHECKING', True)\nif typing.TYPE_CHECKING:\n"
            "    import os\n",
            {("ST203", 2), ("ST102", 4)},
        ),
        ("TYPE_CHECKING = True\nif TYPE_CHECKING:\n    import os\n", {("ST203", 1), ("ST102", 3)}),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import os\n", set()),
    ],
)
def test_type_checking_writes(tmp_path: Path, code: str, expected: set[tuple[str, int]]) -> None:
    _run(tmp_path, "")
    (tmp_path / "pyproject.toml").write_text(TYPE_CHECKING_IGNORE, encoding="utf-8")
    (tmp_path / "src" / "pkg" / "sealed.py").write_text(code, encoding="utf-8")
    result = lint(load_config(tmp_path / "pyproject.toml"), [], use_cache=False, jobs=1)
    assert {(f.code, f.line) for f in result.findings} == expected


# -- 6. ST501 through compound statements and computed specs -------------------------------

FIELDS = [
    (
        "from dataclasses import dataclass\n@dataclass\nclass R:\n    if True:\n"
        "        answer: int = 0\n",
        {("ST501", 5)},
    ),
    (
        "from dataclasses import dataclass\n@dataclass\nclass R:\n    try:\n        score: int\n"
        "    except Exception:\n        pass\n",
        {("ST501", 5)},
    ),
    ("class R:\n    __slots__: tuple = ('mutation',)\n", {("ST501", 2)}),
    ("class R:\n    __slots__ = tuple(['runnable'])\n", {("ST501", 2)}),
    ("class R:\n    __slots__ = ('a', NAME)\n", {("ST501", 2)}),
    ("from dataclasses import make_dataclass\nM = make_dataclass('M', names)\n", {("ST501", 2)}),
    # a record (it declares a field) gains the fields its methods assign to ``self``
    (
        "class R:\n    name: str\n    def __init__(self):\n        self.served_output = 1\n",
        {("ST501", 4)},
    ),
    (
        "class R:\n    name: str\n    def __init__(me):\n        if True:\n"
        "            me.rank: int = 1\n",
        {("ST501", 5)},
    ),
    (
        "class R:\n    __slots__ = ()\n    def __init__(self, k):\n        setattr(self, k, 1)\n",
        {("ST501", 4)},
    ),
    (
        "from dataclasses import dataclass\n@dataclass\nclass R:\n    def __post_init__(self):\n"
        "        object.__setattr__(self, 'priority', 1)\n",
        {("ST501", 5)},
    ),
    # a plain class is not a record: its instance attributes are state, not fields
    ("class Counter:\n    def __init__(self):\n        self.score = 0\n", set()),
    ("class Counter:\n    def bump(self, k):\n        setattr(self, k, 1)\n", set()),
    ("class R:\n    teaching_update = None\n", {("ST501", 2)}),
    ("class R:\n    confidence = property(lambda self: 1)\n", {("ST501", 2)}),
    ("class R:\n    __annotations__ = {'promotion': int}\n", {("ST501", 2)}),
    ("class R:\n    __annotations__ = dict(promotion=int)\n", {("ST501", 2)}),
]


@pytest.mark.parametrize(("code", "expected"), FIELDS, ids=range(len(FIELDS)))
def test_fields_in_compound_statements_and_computed_specs(
    tmp_path: Path, code: str, expected: set[tuple[str, int]]
) -> None:
    assert _codes(tmp_path, code) == expected


def test_clean_record_has_no_field_findings(tmp_path: Path) -> None:
    code = (
        "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass R:\n"
        "    name: str\n    __slots__ = ('name',)\n    def f(self, other):\n"
        "        other.answer = 1\n        return self.name\n"
    )
    assert _codes(tmp_path, code) == set()


# -- 7. flat but long code ------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "x = " + " + ".join(["1"] * 400) + "\n",
        "def f(a):\n    return " + " and ".join(["a"] * 400) + "\n",
        "def f(x):\n    return x" + ".y" * 400 + "\n",
        "x = (\n" + "".join(f"    'part{i}'\n" for i in range(450)) + ")\n",
    ],
)
def test_flat_long_code_is_analysed(tmp_path: Path, code: str) -> None:
    compile(code, "sealed.py", "exec")
    assert _codes(tmp_path, code) == set()


def test_flat_long_code_still_finds_banned_calls(tmp_path: Path) -> None:
    code = "x = " + " + ".join(["1"] * 400) + "\nopen('f')\n"
    assert _codes(tmp_path, code) == {("ST201", 2)}


# -- 8. fingerprints ------------------------------------------------------------------------


def test_sarif_fingerprints_and_json_ids_are_unique(tmp_path: Path) -> None:
    result = _run(tmp_path, "open('a')\nopen('b')\n")
    log = json.loads(sarif.render(result, "0"))
    prints = [r["partialFingerprints"]["sealedTrace/v1"] for r in log["runs"][0]["results"]]
    assert len(prints) == 2
    assert len(set(prints)) == 2
    doc = json.loads(json_format.render(result, "0"))
    assert len({f["id"] for f in doc["findings"]}) == 2
    assert len({f["fingerprint"] for f in doc["findings"]}) == 2


def test_fingerprints_survive_line_moves(tmp_path: Path) -> None:
    before = json.loads(sarif.render(_run(tmp_path, "open('a')\nopen('b')\n"), "0"))
    after = json.loads(sarif.render(_run(tmp_path, "\n\nx = 1\nopen('a')\n\nopen('b')\n"), "0"))

    def prints(log: dict[str, object]) -> list[str]:
        runs = log["runs"]
        assert isinstance(runs, list)
        return [r["partialFingerprints"]["sealedTrace/v1"] for r in runs[0]["results"]]

    assert prints(before) == prints(after)
