"""Computed imports over literal constants resolve (issue 17 §4): the clean-tree cases give no
ST301, and a literal that names the sealed module, or a module reaching it, is found under its
real name, whatever the spelling (constants, loops, dict lookups, PEP 562 ``__getattr__``,
aliases of the import function, ``__import__``, nested packages).

The ``project`` fixture: ``src/pkg/{__init__,sealed,values}.py``, ``src/pkg/up/{__init__,a}.py``;
boundary ``pkg.sealed`` (preset adr-0230, allowed ``pkg.values``), upstream ``pkg.up`` and
``pkg.up.*``.
"""

from __future__ import annotations

import pytest
from lint_project import Project

from sealed_trace.lint.ast_pass import extract_graph_facts

CLEAN = {
    "module-constant": "import importlib\n_BACKEND = 'json'\nimportlib.import_module(_BACKEND)\n",
    "annotated-constant": (
        "import importlib\nfrom typing import Final\n_BACKEND: Final = 'json'\n"
        "def load():\n    return importlib.import_module(_BACKEND)\n"
    ),
    "loop-over-literal-tuple": (
        "import importlib\nfor name in ('json', 'csv'):\n    importlib.import_module(name)\n"
    ),
    "loop-over-constant-list": (
        "import importlib\nCODECS = ['json', 'csv']\n"
        "mods = [importlib.import_module(n) for n in sorted(CODECS)]\n"
    ),
    "dict-lookup": (
        "import importlib\n_MAP = {'a': 'json', 'b': 'csv'}\n"
        "def load(key):\n    return importlib.import_module(_MAP[key])\n"
    ),
    "dict-get-with-default": (
        "import importlib\n_MAP = {'a': 'json'}\n"
        "def load(key):\n    return importlib.import_module(_MAP.get(key, 'csv'))\n"
    ),
    "dict-items-loop": (
        "import importlib\n_MAP = {'a': 'json'}\n"
        "for key, mod in _MAP.items():\n    importlib.import_module(mod)\n"
    ),
    "pep562-mapping": (
        "import importlib\n_LAZY = {'Decoder': 'json.decoder'}\n"
        "def __getattr__(name):\n"
        "    if name in _LAZY:\n"
        "        return getattr(importlib.import_module(_LAZY[name]), name)\n"
        "    raise AttributeError(name)\n"
    ),
    "a-list-only-read": (
        "import importlib\nL = ['json', 'csv']\nprint(len(L), sorted(L), 'csv' in L)\n"
        "for m in L:\n    importlib.import_module(m)\n"
    ),
    "the-namespace-only-read": (
        "import importlib\nM = 'json'\nnames = sorted(set(globals()))\nimportlib.import_module(M)\n"
    ),
    "a-tuple-handed-anywhere": (
        "import importlib\nT = ('json', 'csv')\nregister(T)\nfor m in T:\n"
        "    importlib.import_module(m)\n"
    ),
    "find-spec-below-a-third-party-package": (
        "from importlib.util import find_spec\ndef have(x):\n"
        "    return find_spec('numpy.' + x), find_spec(f'scipy.{x}')\n"
    ),
    "find-spec-third-party": (
        "import importlib.util\n"
        "HAVE = {n: importlib.util.find_spec(n) is not None for n in ('numpy', 'scipy')}\n"
    ),
    "concatenated-constants": (
        "import importlib\nBASE = 'json'\nimportlib.import_module(BASE + '.decoder')\n"
        "importlib.import_module(f'{BASE}.encoder')\n"
    ),
    # issue 22: literals after all
    "loop-unpacking-literal-pairs": (
        "import importlib\nPAIRS = (('a', 'json'), ('b', 'os.path'))\n"
        "for name, module in PAIRS:\n    importlib.import_module(module)\n"
    ),
    "loop-unpacking-sorted-rows": (
        "import importlib\nROWS = [('json', 1), ('csv', 2)]\n"
        "for module, _ in sorted(ROWS):\n    importlib.import_module(module)\n"
    ),
    "private-function-parameter": (
        "import importlib\ndef _load(name, package=None):\n"
        "    return importlib.import_module(name, package)\n"
        "_load('json')\n_load(name='os.path')\n"
    ),
    "private-function-default": (
        "import importlib\ndef _load(name='json'):\n    return importlib.import_module(name)\n"
        "_load()\n_load('csv')\n"
    ),
    "private-function-through-a-constant": (
        "import importlib\nCODECS = ('json', 'csv')\n"
        "def _load(name):\n    return importlib.import_module(name)\n"
        "for c in CODECS:\n    _load(c)\n"
    ),
    "class-constant-through-self": (
        "import importlib\nclass Runner:\n    PYTEST = 'pytest'\n"
        "    def run(self):\n        return importlib.import_module(self.PYTEST)\n"
    ),
    "class-constant-through-the-class": (
        "import importlib\nclass Runner:\n    PYTEST: str = 'pytest'\n"
        "importlib.import_module(Runner.PYTEST)\n"
    ),
    "dataclass-field-in-a-literal-dict": (
        "import importlib.util\nfrom dataclasses import dataclass\n"
        "@dataclass(frozen=True)\nclass Spec:\n    lane: str\n    probe: str\n"
        "    role: str = ''\n"
        "SPECS = {'a': Spec('a', 'encodec'), 'b': Spec('b', probe='json', role='x')}\n"
        "def available(k):\n    spec = SPECS.get(k)\n"
        "    return importlib.util.find_spec(spec.probe) is not None\n"
    ),
    "namedtuple-field-by-subscript": (
        "import importlib, typing\nclass Row(typing.NamedTuple):\n    module: str\n"
        "ROWS = [Row('json'), Row('csv')]\n"
        "def load(i):\n    return importlib.import_module(ROWS[i].module)\n"
    ),
    "conditional-expression": (
        "import importlib, sys\n"
        "importlib.import_module('tomllib' if sys.version_info >= (3, 11) else 'tomli')\n"
    ),
}


@pytest.mark.parametrize("source", CLEAN.values(), ids=CLEAN.keys())
def test_a_computed_import_over_literals_is_no_st301(project: Project, source: str) -> None:
    project.write("src/pkg/up/a.py", source)
    assert project.run().findings == ()


@pytest.mark.parametrize("source", CLEAN.values(), ids=CLEAN.keys())
def test_a_reached_module_with_such_an_import_is_clean_too(project: Project, source: str) -> None:
    project.write("src/pkg/helper.py", source)
    project.write("src/pkg/up/a.py", "import pkg.helper\n")
    assert project.run().findings == ()


def test_pep562_over_a_literal_set_of_submodules(project: Project) -> None:
    project.write(
        "src/pkg/up/__init__.py",
        "import importlib\n_SUBMODULES = {'a', 'b'}\n"
        "def __getattr__(name):\n"
        "    if name not in _SUBMODULES:\n"
        "        raise AttributeError(name)\n"
        "    return importlib.import_module(f'.{name}', __name__)\n",
    )
    project.write("src/pkg/up/b.py", "X = 1\n")
    assert project.run().findings == ()


FOUND = {
    "constant": "import importlib\nTARGET = 'pkg.sealed'\nimportlib.import_module(TARGET)\n",
    "alias-of-the-function": (
        "import importlib\nTARGET = 'pkg.sealed'\nimp = importlib.import_module\nimp(TARGET)\n"
    ),
    "dunder-import-in-a-loop": "for n in ('json', 'pkg.sealed'):\n    __import__(n)\n",
    "dict-lookup": (
        "import importlib\n_MAP = {'x': 'json', 'y': 'pkg.sealed'}\n"
        "def load(k):\n    return importlib.import_module(_MAP[k])\n"
    ),
    "concatenation": "import importlib\nBASE = 'pkg.'\nimportlib.import_module(BASE + 'sealed')\n",
    "functools-partial": (
        "import importlib, functools\n"
        "load = functools.partial(importlib.import_module, 'pkg.sealed')\n"
    ),
    "eval-of-a-literal": "eval(\"__import__('pkg.sealed')\")\n",
    "conditional-expression": (
        "import importlib\nDEBUG = False\n"
        "importlib.import_module('pkg.sealed' if DEBUG else 'json')\n"
    ),
    "loop-unpacking": (
        "import importlib\nfor key, mod in (('a', 'json'), ('b', 'pkg.sealed')):\n"
        "    importlib.import_module(mod)\n"
    ),
    "private-function-parameter": (
        "import importlib\ndef _load(name):\n    return importlib.import_module(name)\n"
        "_load('json')\n_load('pkg.sealed')\n"
    ),
    "dataclass-field": (
        "import importlib\nimport dataclasses\n@dataclasses.dataclass\nclass Spec:\n"
        "    probe: str\nSPECS = {'x': Spec('json'), 'y': Spec('pkg.sealed')}\n"
        "def load(k):\n    return importlib.import_module(SPECS[k].probe)\n"
    ),
    "class-constant": (
        "import importlib\nclass Runner:\n    TARGET = 'pkg.sealed'\n"
        "    def run(self):\n        return importlib.import_module(self.TARGET)\n"
    ),
    "pep562-mapping": (
        "import importlib\n_LAZY = {'Thing': 'pkg.sealed'}\n"
        "def __getattr__(name):\n"
        "    if name in _LAZY:\n"
        "        return importlib.import_module(_LAZY[name])\n"
    ),
}


@pytest.mark.parametrize("source", FOUND.values(), ids=FOUND.keys())
def test_a_literal_naming_the_sealed_module_is_found_under_its_name(
    project: Project, source: str
) -> None:
    project.write("src/pkg/up/a.py", source)
    (finding,) = project.run().findings
    assert finding.code == "ST401"
    assert "('pkg.sealed')" in finding.message


def test_a_literal_naming_a_module_that_reaches_the_sealed_module(project: Project) -> None:
    project.write("src/pkg/helper.py", "import pkg.sealed\n")
    project.write(
        "src/pkg/up/a.py",
        "import importlib\nNAMES = ('json', 'pkg.helper')\n"
        "for n in NAMES:\n    importlib.import_module(n)\n",
    )
    (finding,) = project.run(paths=["src/pkg/up/a.py"]).findings
    assert finding.code == "ST402"
    assert "importlib.import_module('pkg.helper')" in finding.message
    (finding,) = project.run().findings  # the one fix: the helper's import
    assert (finding.path, finding.code) == ("src/pkg/helper.py", "ST402")


def test_pep562_in_a_nested_package_reaching_the_sealed_module(project: Project) -> None:
    project.write(
        "src/pkg/up/sub/__init__.py",
        "import importlib\n_SUBMODULES = ('inner',)\n"
        "def __getattr__(name):\n"
        "    if name in _SUBMODULES:\n"
        "        return importlib.import_module('.' + name, __name__)\n",
    )
    project.write("src/pkg/up/sub/inner.py", "from pkg import sealed\n")
    (finding,) = project.run().findings
    assert (finding.path, finding.code) == ("src/pkg/up/sub/inner.py", "ST401")
    assert "pkg.up.sub -> pkg.up.sub.inner (in a function) -> pkg.sealed" in finding.chains


STILL_COMPUTED = {
    "parameter": "import importlib\ndef load(n):\n    return importlib.import_module(n)\n",
    "rebound-by-global": (
        "import importlib\nNAME = 'json'\n"
        "def set_name(x):\n    global NAME\n    NAME = x\n"
        "importlib.import_module(NAME)\n"
    ),
    "augmented": "import importlib\nNAME = 'json'\nNAME += suffix\nimportlib.import_module(NAME)\n",
    "loop-over-computed": (
        "import importlib\nfor n in discover():\n    importlib.import_module(n)\n"
    ),
    "dict-spread": (
        "import importlib\n_MAP = {**other}\n"
        "def load(k):\n    return importlib.import_module(_MAP[k])\n"
    ),
    "self-referencing": (
        "import importlib\nNAME = 'a'\nwhile True:\n    NAME = NAME + '.b'\n"
        "    importlib.import_module(NAME)\n"
    ),
    "private-function-used-as-a-value": (
        "import importlib\ndef _load(n):\n    return importlib.import_module(n)\n"
        "_load('json')\nmods = list(map(_load, discover()))\n"
    ),
    "private-function-called-with-unpacking": (
        "import importlib\ndef _load(n):\n    return importlib.import_module(n)\n"
        "_load(*discover())\n"
    ),
    "private-function-decorated": (
        "import importlib, functools\n@functools.cache\ndef _load(n):\n"
        "    return importlib.import_module(n)\n_load('json')\n"
    ),
    "private-function-rebound": (
        "import importlib\ndef _load(n):\n    return importlib.import_module(n)\n"
        "_load('json')\n_load = other\n"
    ),
    "private-function-never-called-here": (
        "import importlib\ndef _load(n):\n    return importlib.import_module(n)\n"
    ),
    "class-constant-assigned-elsewhere": (
        "import importlib\nclass Runner:\n    NAME = 'json'\n"
        "    def set(self, x):\n        self.NAME = x\n"
        "    def run(self):\n        return importlib.import_module(self.NAME)\n"
    ),
    "class-constant-of-an-unknown-object": (
        "import importlib\nclass Runner:\n    NAME = 'json'\n"
        "def run(config):\n    return importlib.import_module(config.NAME)\n"
    ),
    "instance-attribute-only": (
        "import importlib\nclass Runner:\n    def __init__(self, n):\n        self.n = n\n"
        "    def run(self):\n        return importlib.import_module(self.n)\n"
    ),
    "field-of-a-class-with-its-own-init": (
        "import importlib\nclass Spec:\n    def __init__(self, probe):\n"
        "        self.probe = probe.upper()\n"
        "SPECS = {'x': Spec('json')}\n"
        "def load(k):\n    return importlib.import_module(SPECS[k].probe)\n"
    ),
    "dataclass-with-post-init": (
        "import importlib\nfrom dataclasses import dataclass\n@dataclass\nclass Spec:\n"
        "    probe: str\n    def __post_init__(self):\n        self.probe = compute()\n"
        "SPECS = {'x': Spec('json')}\n"
        "def load(k):\n    return importlib.import_module(SPECS[k].probe)\n"
    ),
    "dataclass-field-of-a-computed-mapping": (
        "import importlib\nfrom dataclasses import dataclass\n@dataclass\nclass Spec:\n"
        "    probe: str\nSPECS = load_specs()\n"
        "def load(k):\n    return importlib.import_module(SPECS[k].probe)\n"
    ),
    "dataclass-constructed-with-unpacking": (
        "import importlib\nfrom dataclasses import dataclass\n@dataclass\nclass Spec:\n"
        "    probe: str\nSPECS = {'x': Spec(*args)}\n"
        "def load(k):\n    return importlib.import_module(SPECS[k].probe)\n"
    ),
    # a write that changes a value without assigning its name (issue 22 review)
    "list-appended-to": (
        "import importlib\nL = ['json']\nL.append(NAME)\nfor m in L:\n"
        "    importlib.import_module(m)\n"
    ),
    "list-item-assigned": (
        "import importlib\nL = ['json']\nL[0] = x\nimportlib.import_module(L[0])\n"
    ),
    "dict-item-assigned": (
        "import importlib\nD = {'a': 'json'}\nD['a'] = x\nimportlib.import_module(D['a'])\n"
    ),
    "globals-item-assigned": (
        "import importlib\nM = 'json'\nglobals()['M'] = x\nimportlib.import_module(M)\n"
    ),
    "globals-computed-key": (
        "import importlib\nM = 'json'\nglobals()[k] = x\nimportlib.import_module(M)\n"
    ),
    "module-attribute-through-sys-modules": (
        "import importlib, sys\nM = 'json'\nsys.modules[__name__].M = x\n"
        "importlib.import_module(M)\n"
    ),
    "exec-assigning-the-name": (
        "import importlib\nM = 'json'\nexec('M = other()')\nimportlib.import_module(M)\n"
    ),
    "setattr-on-the-class": (
        "import importlib\nclass C:\n    X = 'json'\n"
        "    def go(self):\n        return importlib.import_module(self.X)\n"
        "setattr(C, 'X', x)\n"
    ),
    "object-setattr-in-init": (
        "import importlib\nclass C:\n    X = 'json'\n    def __init__(self):\n"
        "        object.__setattr__(self, 'X', x)\n"
        "    def go(self):\n        return importlib.import_module(self.X)\n"
    ),
    "instance-dict-write": (
        "import importlib\nclass C:\n    X = 'json'\n    def __init__(self):\n"
        "        self.__dict__['X'] = x\n"
        "    def go(self):\n        return importlib.import_module(self.X)\n"
    ),
    "list-changed-through-an-alias": (
        "import importlib\nL = ['json']\nL2 = L\nL2.append(x)\nfor m in L:\n"
        "    importlib.import_module(m)\n"
    ),
    "list-handed-to-a-function": (
        "import importlib\ndef add(items):\n    items.append(x)\nL = ['json']\nadd(L)\n"
        "for m in L:\n    importlib.import_module(m)\n"
    ),
    "dict-changed-by-operator-setitem": (
        "import importlib, operator\nD = {'a': 'json'}\noperator.setitem(D, 'a', x)\n"
        "importlib.import_module(D['a'])\n"
    ),
    "list-changed-through-a-bound-method": (
        "import importlib\nL = ['json']\nap = L.append\nap(x)\nfor m in L:\n"
        "    importlib.import_module(m)\n"
    ),
    "namespace-handed-on": (
        "import importlib\nD = {'k': 'json'}\ng = globals()\ng['D'] = x\n"
        "importlib.import_module(D['k'])\n"
    ),
    "namespace-item-changed": (
        "import importlib\nD = {'k': 'json'}\nglobals().get('D')['k'] = x\n"
        "importlib.import_module(D['k'])\n"
    ),
    "exec-changing-a-list": (
        "import importlib\nL = ['json']\nexec('L.append(x)')\nfor m in L:\n"
        "    importlib.import_module(m)\n"
    ),
    "exec-into-the-module-namespace": (
        "import importlib\nD = {'k': 'json'}\nexec('D = other()', {}, globals())\n"
        "importlib.import_module(D['k'])\n"
    ),
    "dataclass-field-assigned-later": (
        "import importlib\nfrom dataclasses import dataclass\n@dataclass\nclass S:\n"
        "    probe: str\nSPECS = {'a': S('json')}\nSPECS['a'].probe = x\n"
        "def go(k):\n    return importlib.import_module(SPECS[k].probe)\n"
    ),
    "rows-of-other-widths": (
        "import importlib\nfor a, b in (('json', 'x'), ('csv',)):\n    importlib.import_module(b)\n"
    ),
    "rows-computed": (
        "import importlib\nfor a, b in discover():\n    importlib.import_module(b)\n"
    ),
    "guard-of-another-name": (
        "import importlib\n_OK = ('json',)\n"
        "def __getattr__(name):\n    if other in _OK:\n"
        "        return importlib.import_module(name)\n"
    ),
}


@pytest.mark.parametrize("source", STILL_COMPUTED.values(), ids=STILL_COMPUTED.keys())
def test_a_name_with_a_non_literal_binding_stays_computed(source: str) -> None:
    facts = extract_graph_facts(source, "pkg.up.a", False)
    assert [d.kind for d in facts.dynamics] == ["computed-import"]


def test_too_many_values_are_taken_as_computed() -> None:
    names = ", ".join(f"'m{i}'" for i in range(100))
    source = f"import importlib\nfor n in ({names}):\n    importlib.import_module(n)\n"
    facts = extract_graph_facts(source, "pkg.up.a", False)
    assert [d.kind for d in facts.dynamics] == ["computed-import"]


HOSTILE = {
    "long-concatenation": "import importlib\nN = " + " + ".join(["'a'"] * 3000) + "\n"
    "importlib.import_module(N)\n",
    "names-bound-through-each-other": (
        "import importlib\nA = B\nB = A\nimportlib.import_module(A)\n"
    ),
    "deeply-nested-guards": (
        "import importlib\n_OK = ('json',)\ndef __getattr__(name):\n"
        + "".join("    " * (i + 1) + "if name in _OK:\n" for i in range(60))
        + "    " * 61
        + "importlib.import_module(name)\n"
    ),
    "huge-product": (
        "import importlib\nA = ('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i')\n"
        "for x in A:\n    for y in A:\n        importlib.import_module(x + y)\n"
    ),
}


@pytest.mark.parametrize("source", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_literal_spellings_never_crash(source: str) -> None:
    facts = extract_graph_facts(source, "pkg.up.a", False)
    assert facts.error is None or facts.error[0] == "ST001"
    assert [d.kind for d in facts.dynamics] in ([], ["computed-import"])


# -- one rule for the module a literal dynamic import names, in both passes ----------------
DYNAMIC = [
    ("importlib.import_module('pkg.sealed')", "pkg.sealed"),
    ("importlib.import_module('.sealed', 'pkg')", "pkg.sealed"),
    ("importlib.import_module('..sealed', 'pkg.up')", "pkg.sealed"),
    ("importlib.import_module('.sealed', __package__)", "pkg.up.sealed"),
    ("__import__('sealed', globals(), None, [], 2)", "pkg.sealed"),
    ("importlib.import_module('....x', 'pkg')", ""),
]


@pytest.mark.parametrize(("call", "module"), DYNAMIC)
def test_both_passes_resolve_a_literal_dynamic_import_alike(call: str, module: str) -> None:
    from sealed_trace.lint.cst_pass import extract_facts

    text = f"import importlib\n{call}\n"
    for extract in (extract_graph_facts, extract_facts):
        facts = extract(text, "pkg.up.a", False)
        assert [f.module for f in facts.imports if f.kind == "dynamic"] == [module], extract


MODULE_LEVEL = {
    "decorator-lambda": (
        "@(lambda f: (__import__('pkg.sealed'), f)[1])\ndef g():\n    pass\n",
        {("ST401", 1)},
    ),
    "lambda-called-at-once": ("(lambda: __import__('pkg.sealed'))()\n", {("ST401", 1)}),
    "lambda-not-called": ("load = lambda: __import__('pkg.sealed')\n", set()),
    "lambda-called-in-a-function": (
        "def f():\n    (lambda: __import__('pkg.sealed'))()\n",
        set(),
    ),
}


@pytest.mark.parametrize(("source", "expected"), MODULE_LEVEL.values(), ids=MODULE_LEVEL.keys())
def test_a_lambda_called_where_it_stands_runs_there(
    project: Project, source: str, expected: set[tuple[str, int]]
) -> None:
    # with module-level imports only counting, what runs on import is still found
    project.boundary_toml += 'edge_kinds = {reverse = ["module"]}\n'
    assert project.upstream(source) == expected


NOT_IMPORTS = {
    "exec-without-an-import": "exec('x = 1')\n",
    "exec-of-invalid-code": "exec('import (')\n",
    "partial-of-another-function": "import functools\nf = functools.partial(print, 'pkg.sealed')\n",
    "a-method-named-exec": (
        "class C:\n    def exec(self, q):\n        pass\nC().exec('import pkg.sealed')\n"
    ),
}


@pytest.mark.parametrize("source", NOT_IMPORTS.values(), ids=NOT_IMPORTS.keys())
def test_code_strings_and_binders_that_import_nothing_first_party(
    project: Project, source: str
) -> None:
    assert project.upstream(source) == set()


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("exec('import pkg.sealed')\n", "exec('import pkg.sealed')"),
        ("CODE = 'from pkg import sealed'\nexec(CODE, {})\n", "exec('from pkg import sealed')"),
        ("def f():\n    exec('import pkg.up.b\\nimport pkg.sealed')\n", "import pkg.sealed"),
    ],
)
def test_the_imports_of_literal_code_run_by_exec_are_its_own(
    project: Project, source: str, shown: str
) -> None:
    (finding,) = project.run().findings if project.upstream(source) else ()
    assert (finding.code, finding.line) == ("ST401", source.count("\n"))
    assert shown in finding.message


FILE_LOADS = {
    "divided-path": (
        "import importlib.util\nfrom pathlib import Path\nHERE = Path(__file__).parent\n"
        "spec = importlib.util.spec_from_file_location('runner', HERE / 'runner.py')\n"
    ),
    "os-path-join": (
        "import os, runpy\nrunpy.run_path(os.path.join(os.path.dirname(__file__), 'runner.py'))\n"
    ),
    "property-of-a-record": (
        "import importlib.util\nfrom dataclasses import dataclass\nfrom pathlib import Path\n"
        "@dataclass\nclass Lane:\n    root: Path\n    @property\n    def runner_path(self):\n"
        "        return self.root / 'runner.py'\n"
        "def load(lane):\n    runner_path = lane.runner_path\n"
        "    return importlib.util.spec_from_file_location(f'x.{lane}', runner_path)\n"
    ),
}


@pytest.mark.parametrize("source", FILE_LOADS.values(), ids=FILE_LOADS.keys())
def test_a_file_loaded_by_a_literal_name_is_an_import_of_the_files_of_that_name(
    project: Project, source: str
) -> None:
    project.write("src/pkg/tools/__init__.py", "")
    project.write("src/pkg/tools/runner.py", "X = 1\n")
    assert project.reaches(source) == set()  # the only runner.py reaches nothing sealed
    project.write("src/pkg/tools/runner.py", "import json\nimport pkg.sealed\n")
    (finding,) = project.run().findings
    assert (finding.path, finding.code, finding.line) == ("src/pkg/tools/runner.py", "ST402", 2)
    assert any(c.startswith("pkg.up.a -> pkg.tools.runner") for c in finding.chains)


@pytest.mark.parametrize(
    "source",
    [
        "import runpy, sys\nrunpy.run_path(sys.argv[1])\n",
        "import importlib.util\nimportlib.util.spec_from_file_location('x', find_it())\n",
        "import runpy\nfrom pathlib import Path\nrunpy.run_path(Path(ROOT) / NAME)\n",
    ],
)
def test_a_file_loaded_by_a_computed_name_stays_unknown(project: Project, source: str) -> None:
    assert {code for _, code, _ in project.reaches(source)} == {"ST301"}


def test_find_spec_below_a_first_party_package_stays_computed(project: Project) -> None:
    source = (
        "import importlib.util\ndef have(x):\n    return importlib.util.find_spec('pkg.' + x)\n"
    )
    (finding,) = project.upstream(source) and project.run().findings
    assert (finding.code, finding.line) == ("ST301", 3)
    assert "below first-party package pkg" in finding.message


@pytest.mark.parametrize(
    "source",
    [
        "import sys\nexec(sys.argv[1])\n",
        "eval(input())\n",
        "exec(compile(source(), 'x', 'exec'))\n",
    ],
)
def test_code_computed_at_run_time_may_import_anything(project: Project, source: str) -> None:
    assert {code for _, code, _ in project.reaches(source)} == {"ST301"}


def test_literal_code_compiled_then_run_is_read(project: Project) -> None:
    found = project.reaches("exec(compile('import pkg.sealed', 'x', 'exec'))\n")
    assert found == {("src/pkg/up/a.py", "ST401", 1)}
