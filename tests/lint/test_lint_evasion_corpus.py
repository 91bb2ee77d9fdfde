"""Evasion corpus: spellings that try to slip past the lint, with the findings they must give
(by rule and line), and false-positive traps that must give none.

Each entry: ``(id, file, source, expected {(code, line)}, extra files)``. ``file`` is
``sealed`` (the boundary module ``pkg.sealed``) or ``up`` (the upstream module ``pkg.up.a``).
"""

from __future__ import annotations

import pytest
from lint_project import Project

Entry = tuple[str, str, str, set[tuple[str, int]], dict[str, str]]

EVASIONS: list[Entry] = [
    ("alias-import", "sealed", "import time as t\nt.time()\n", {("ST102", 1), ("ST201", 2)}, {}),
    (
        "from-as",
        "sealed",
        "from time import time as now\nnow()\n",
        {("ST102", 1), ("ST201", 2)},
        {},
    ),
    (
        "rebind-local",
        "sealed",
        "import time\nclk = time.time\nclk()\n",
        {("ST102", 1), ("ST201", 3)},  # the alias's use, not each step
        {},
    ),
    (
        "rebind-chain",
        "sealed",
        "import time\na = time.time\nb = a\nb()\n",
        {("ST102", 1), ("ST201", 4)},
        {},
    ),
    (
        "rebind-tuple",
        "sealed",
        "import random\nr, _ = random.random, 1\nr()\n",
        {("ST102", 1), ("ST201", 3)},
        {},
    ),
    (
        "rebind-walrus",
        "sealed",
        "import uuid\nif (g := uuid.uuid4):\n    g()\n",
        {("ST102", 1), ("ST201", 3)},
        {},
    ),
    (
        "rebind-before-use-in-function",
        "sealed",
        "def f():\n    return clk()\nimport time\nclk = time.time\n",
        {("ST201", 2), ("ST102", 3)},
        {},
    ),
    ("getattr-literal", "sealed", "import json\ngetattr(json, 'load')(None)\n", {("ST201", 2)}, {}),
    (
        "getattr-builtins",
        "sealed",
        "import builtins\ngetattr(builtins, 'open')('f')\n",
        {("ST101", 1), ("ST201", 2)},
        {},
    ),
    (
        "getattr-nested",
        "sealed",
        "import os\ngetattr(getattr(os, 'path'), 'exists')('x')\n",
        {("ST102", 1), ("ST201", 2), ("ST202", 2)},
        {},
    ),
    (
        "getattr-then-attribute",
        "sealed",
        "import os\ngetattr(os, 'environ').get('A')\n",
        {("ST102", 1), ("ST201", 2), ("ST202", 2)},
        {},
    ),
    (
        "attribute-chain",
        "sealed",
        "import os\nos.environ.get('HOME')\n",
        {("ST102", 1), ("ST201", 2)},
        {},
    ),
    (
        "from-submodule",
        "sealed",
        "from os import path\npath.join('a')\n",
        {("ST102", 1), ("ST201", 2)},
        {},
    ),
    (
        "builtins-module",
        "sealed",
        "import builtins\nbuiltins.print('x')\n",
        {("ST101", 1), ("ST201", 2)},
        {},
    ),
    # the star import, and the use of a name it may bind
    ("star-random", "sealed", "from random import *\nrandom()\n", {("ST102", 1), ("ST201", 2)}, {}),
    ("star-os", "sealed", "from os import *\ngetcwd()\n", {("ST102", 1), ("ST201", 2)}, {}),
    (
        "import-module-literal",
        "sealed",
        "import importlib\nimportlib.import_module('socket')\n",
        {("ST102", 1), ("ST201", 2), ("ST102", 2)},
        {},
    ),
    (
        "dunder-import-literal",
        "sealed",
        "m = __import__('subprocess')\n",
        {("ST201", 1), ("ST102", 1)},
        {},
    ),
    (
        "dunder-import-computed",
        "sealed",
        "__import__('sub' + 'process')\n",
        {("ST201", 1), ("ST301", 1)},
        {},
    ),
    (
        "import-module-alias-computed",
        "sealed",
        "from importlib import import_module as im\nim(NAME)\n",
        {("ST102", 1), ("ST201", 2), ("ST301", 2)},
        {},
    ),
    (
        "entry-points-alias",
        "sealed",
        "from importlib.metadata import entry_points as eps\neps()\n",
        {("ST102", 1), ("ST201", 2), ("ST302", 2)},
        {},
    ),
    ("getattr-computed", "sealed", "import json\ngetattr(json, 'lo' + 'ad')\n", {("ST303", 2)}, {}),
    (
        "import-in-function",
        "sealed",
        "def f():\n    import socket\n    return socket.socket()\n",
        {("ST102", 2), ("ST201", 3)},
        {},
    ),
    (
        "import-in-class",
        "sealed",
        "class C:\n    import time\n    t = time.time\n",
        {("ST102", 2), ("ST202", 3)},
        {},
    ),
    (
        "lambda-default",
        "sealed",
        "import time\nf = lambda clk=time.monotonic: clk()\n",
        {("ST102", 1), ("ST202", 2)},
        {},
    ),
    ("builtin-alias", "sealed", "o = open\no('f')\n", {("ST201", 2)}, {}),
    ("builtin-in-dict", "sealed", "fns = {'o': open}\n", {("ST202", 1)}, {}),
    ("exec-string", "sealed", "exec('import os')\n", {("ST201", 1)}, {}),
    (
        "try-import",
        "sealed",
        "try:\n    import secrets\nexcept ImportError:\n    secrets = None\n",
        {("ST102", 2)},
        {},
    ),
    (
        "type-checking-counts",
        "sealed",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import socket\n",
        {("ST102", 3)},
        {},
    ),
    (
        "datetime-now",
        "sealed",
        "from datetime import datetime\ndatetime.now()\n",
        {("ST102", 1), ("ST201", 2)},
        {},
    ),
    ("sys-modules", "sealed", "import sys\nsys.modules['os']\n", {("ST102", 1), ("ST202", 2)}, {}),
    ("relative-sibling", "sealed", "from .up import a\n", {("ST101", 1)}, {}),
    ("nfkc-builtin", "sealed", "\uff4fpen('f')\n", {("ST201", 1)}, {}),
    ("nfkc-module", "sealed", "import \uff54ime\n", {("ST102", 1)}, {}),
    (
        "environ-alias",
        "sealed",
        "from os import environ as ENV\nENV['X']\n",
        {("ST102", 1), ("ST202", 2)},
        {},
    ),
    (
        "importlib-util",
        "sealed",
        "import importlib.util\nimportlib.util.spec_from_file_location('m', 'p')\n",
        {("ST102", 1), ("ST201", 2), ("ST301", 2)},
        {},
    ),
    (
        "class-attr-dunder-import",
        "sealed",
        "class K:\n    clock = __import__('time')\n",
        {("ST201", 2), ("ST102", 2)},
        {},
    ),
    (
        "socket-alias-multi",
        "sealed",
        "import socket as s, json\nconn = s.create_connection\n",
        {("ST102", 1), ("ST202", 2)},
        {},
    ),
    (
        "random-instance",
        "sealed",
        "import random\nrandom.Random().random()\n",
        {("ST102", 1), ("ST201", 2)},
        {},
    ),
    (
        "pathlib-read",
        "sealed",
        "from pathlib import Path\nPath('x').read_text()\n",
        {("ST102", 1), ("ST201", 2)},
        {},
    ),
    ("field-via-slots-list", "sealed", "class T:\n    __slots__ = ['rank']\n", {("ST501", 2)}, {}),
    (
        "field-typed-dict-kw",
        "sealed",
        "from typing import TypedDict\nT = TypedDict('T', score=int)\n",
        {("ST501", 2)},
        {},
    ),
    # upstream spellings
    ("up-as", "up", "from pkg import sealed as not_sealed\n", {("ST401", 1)}, {}),
    (
        "up-method",
        "up",
        "class C:\n    def m(self):\n        from .. import sealed\n",
        {("ST401", 3)},
        {},
    ),
    (
        "up-concat-literal",
        "up",
        "import importlib\nimportlib.import_module('pkg.' 'sealed')\n",
        {("ST401", 2)},
        {},
    ),
    ("up-escaped-literal", "up", "__import__('pkg.s\\x65aled')\n", {("ST401", 1)}, {}),
    (
        "up-aliased-importlib",
        "up",
        "import importlib as il\nil.import_module('pkg.sealed')\n",
        {("ST401", 2)},
        {},
    ),
    ("up-nfkc", "up", "from pkg import \uff53ealed\n", {("ST401", 1)}, {}),
    (
        "up-coding-cookie",
        "up",
        "# -*- coding: unicode_escape -*-\nfrom pkg import s\\x65aled\n",
        {("ST401", 2)},
        {},
    ),
    (
        "up-parenthesized",
        "up",
        "from pkg import (\n    values,\n    sealed,\n)\n",
        {("ST401", 3)},
        {},
    ),
    ("up-backslash", "up", "from pkg \\\n    import sealed\n", {("ST401", 2)}, {}),
    ("up-package-attribute", "up", "import pkg\npkg.sealed.build()\n", {("ST401", 2)}, {}),
    ("up-multi-import", "up", "import pkg.values, pkg.sealed\n", {("ST401", 1)}, {}),
    ("up-semicolon", "up", "x = 1; import pkg.sealed\n", {("ST401", 1)}, {}),
    ("up-fromlist", "up", "__import__('pkg', fromlist=['sealed'])\n", {("ST401", 1)}, {}),
    ("up-run-module", "up", "import runpy\nrunpy.run_module('pkg.sealed')\n", {("ST401", 2)}, {}),
    (
        "up-path-loader",
        "up",
        "from importlib.util import spec_from_file_location as sf\nsf('m', 'src/pkg/sealed.py')\n",
        {("ST401", 2)},
        {},
    ),
    (
        "up-path-loader-computed",
        "up",
        "from importlib.util import spec_from_file_location as sf\nsf('m', where() + '.py')\n",
        {("ST301", 2)},
        {},
    ),
    (
        "up-chain-reexport",
        "up",
        "from pkg.values import helper\n",
        {("ST402", 1)},
        {"src/pkg/values.py": "from pkg.sealed import helper\n"},
    ),
    (
        "up-chain-relative-star",
        "up",
        "from ..reexport import *\n",
        {("ST402", 1)},
        {"src/pkg/reexport/__init__.py": "from ..sealed import *\n"},
    ),
    (
        "up-chain-dynamic",
        "up",
        "import pkg.values\n",
        {("ST402", 2)},  # at the helper's import
        {"src/pkg/values.py": "import importlib\nimportlib.import_module('pkg.s\\x65aled')\n"},
    ),
]

TRAPS: list[Entry] = [
    ("docstring", "sealed", '"""time.time() and open(path)"""\n', set(), {}),
    ("comment", "sealed", "# import os; os.environ\nx = 1\n", set(), {}),
    ("string", "sealed", "x = 'open'\ny = \"import socket\"\n", set(), {}),
    ("param-open", "sealed", "def f(open):\n    return open('x')\n", set(), {}),
    ("local-print", "sealed", "def print(*a):\n    return a\nprint(1)\n", set(), {}),
    ("module-rebinds-open", "sealed", "open = len\nopen('x')\n", set(), {}),
    ("method-time", "sealed", "def f(clock):\n    return clock.time()\n", set(), {}),
    (
        "self-random",
        "sealed",
        "class C:\n    def f(self):\n        return self.random.random()\n",
        set(),
        {},
    ),
    ("json-named-time", "sealed", "import json as time\ntime.dumps({})\n", set(), {}),
    ("values-clock", "sealed", "from pkg.values import clock\nclock()\n", set(), {}),
    (
        "method-open",
        "sealed",
        "class X:\n    def open(self):\n        return 1\nX().open()\n",
        set(),
        {},
    ),
    ("dict-environ", "sealed", "environ = {}\nenviron.get('x')\n", set(), {}),
    ("answer-dict-key", "sealed", "x = {'answer': 1, 'score': 2}\n", set(), {}),
    ("fstring", "sealed", "def f(x):\n    return f'{x} time.time()'\n", set(), {}),
    ("up-string", "up", "x = 'import pkg.sealed'\n# from pkg import sealed\n", set(), {}),
    ("up-alias-named-sealed", "up", "from pkg import values as sealed\nsealed.x\n", set(), {}),
    ("up-local-sealed", "up", "sealed = 1\ndef sealed_f():\n    return sealed\n", set(), {}),
    ("up-name-in-values", "up", "from pkg.values import sealed\n", set(), {}),
    (
        "up-lookalike-module",
        "up",
        "import pkg.sealed_helpers\n",
        set(),
        {"src/pkg/sealed_helpers.py": ""},
    ),
    ("up-lookalike-top", "up", "import pkgsealed\nimport sealed\n", set(), {}),
]


def _run(project: Project, entry: Entry) -> set[tuple[str, int]]:
    _id, which, source, _expected, extra = entry
    for rel, text in extra.items():
        project.write(rel, text)
    if which != "sealed":  # the upstream module's findings, and those of what it reaches
        return {(code, line) for _, code, line in project.reaches(source)}
    project.write("src/pkg/sealed.py", source)
    return project.codes("src/pkg/sealed.py")


def test_corpus_is_large_enough() -> None:
    assert len(EVASIONS) >= 40
    assert len({e[0] for e in EVASIONS + TRAPS}) == len(EVASIONS) + len(TRAPS)


@pytest.mark.parametrize("entry", EVASIONS, ids=[e[0] for e in EVASIONS])
def test_evasion_is_caught(project: Project, entry: Entry) -> None:
    assert _run(project, entry) == entry[3]


@pytest.mark.parametrize("entry", TRAPS, ids=[e[0] for e in TRAPS])
def test_false_positive_trap(project: Project, entry: Entry) -> None:
    assert _run(project, entry) == entry[3]
