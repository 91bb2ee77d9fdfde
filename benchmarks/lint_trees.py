"""The trees ``bench_lint.py`` measures, and the policies it writes for them.

``build(kind, base, copies)`` makes one tree in ``base`` (a copy of the standard library or of
the installed site-packages, the generated tree, or a generated chain of ``CHAINS``) with the
boundaries its policy names; ``write_policy`` writes the same facts for every tool:
``[tool.sealed_trace]`` and ruff's ``banned-api`` in ``pyproject.toml``, import-linter's
contract in ``.importlinter``. ``write_marker_tests`` writes the pytest marker session over a
chain, and its unmarked baseline.
"""

from __future__ import annotations

import os
import random
import re
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from sealed_trace.lint.presets import PRESETS

#: Boundary candidates per tree: the first that exists is the policy's boundary; the first
#: four that exist make the four-boundary policy.
CANDIDATES = {
    "stdlib": (
        "email._policybase",
        "json.encoder",
        "tomllib._parser",
        "concurrent.futures._base",
        "email.charset",
        "http.cookiejar",
    ),
    "site-packages": (
        "packaging.version",
        "pluggy._result",
        "_pytest.timing",
        "iniconfig._parse",
        "packaging.specifiers",
        "pluggy._tracing",
    ),
    "generated": (
        "bench.kernel.seal",
        "bench.kernel.seal1",
        "bench.kernel.seal2",
        "bench.kernel.seal3",
    ),
}
MAX_UPSTREAM = 40
SKIP_DIRS = {"__pycache__", "site-packages", "dist-packages"}


# -- building the trees ---------------------------------------------------------------------------
def _top_names(source: Path) -> set[str]:
    names: set[str] = set()
    for entry in source.iterdir():
        stem = entry.name[:-3] if entry.name.endswith(".py") else entry.name
        if not stem.isidentifier() or entry.name in SKIP_DIRS:
            continue
        if (entry.is_dir() and any(entry.rglob("*.py"))) or entry.suffix == ".py":
            names.add(stem)
    return names


_FROM = re.compile(r"^([ \t]*)from([ \t]+)([A-Za-z_][A-Za-z0-9_]*)(?=[ \t.])", re.M)
_IMPORT = re.compile(r"^([ \t]*)import[ \t]+([^\n#;\\(]+)", re.M)


def _rewrite(text: str, tops: set[str], prefix: str) -> str:
    """Absolute imports of the tree's own top-level names go through ``prefix``."""

    def from_sub(m: re.Match[str]) -> str:
        name = m.group(3)
        return f"{m.group(1)}from{m.group(2)}{prefix}.{name}" if name in tops else m.group(0)

    def import_sub(m: re.Match[str]) -> str:
        items = []
        for item in m.group(2).split(","):
            stripped = item.strip()
            head = stripped.split(".")[0].split(" ")[0]
            if head in tops:
                lead = item[: len(item) - len(item.lstrip())]
                tail = item[len(item.rstrip()) :]
                items.append(f"{lead}{prefix}.{stripped}{tail}")
            else:
                items.append(item)
        return f"{m.group(1)}import {','.join(items).lstrip()}"

    return _IMPORT.sub(import_sub, _FROM.sub(from_sub, text))


def copy_tree(source: Path, dest_root: Path, package: str) -> int:
    """Copy every ``.py`` file below ``source`` into ``dest_root/package`` with rewritten
    imports; return the number of files."""
    tops = _top_names(source)
    target = dest_root / package
    target.mkdir(parents=True)
    (target / "__init__.py").write_text("")
    count = 0
    for directory, dirs, files in os.walk(source):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIP_DIRS and not d.endswith(".dist-info") and not d.startswith(".")
        )
        rel = Path(directory).relative_to(source)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            out = target / rel / name
            out.parent.mkdir(parents=True, exist_ok=True)
            data = (Path(directory) / name).read_bytes()
            # latin-1 keeps every byte: only ASCII import lines are rewritten
            out.write_bytes(_rewrite(data.decode("latin-1"), tops, package).encode("latin-1"))
            count += 1
    return count


WORDS = (
    "frame",
    "budget",
    "gate",
    "residual",
    "replay",
    "span",
    "run",
    "attempt",
    "record",
    "policy",
    "digest",
    "window",
    "queue",
    "ledger",
    "vector",
    "matrix",
    "report",
    "table",
)


def _generated_module(rng: random.Random, index: int, names: list[str]) -> str:
    pkg = names[index].rsplit(".", 1)[0]
    lines = [
        f'"""{WORDS[index % len(WORDS)].title()} helpers of {names[index]}."""',
        "",
        "from __future__ import annotations",
        "",
        "import dataclasses",
        "import logging",
        "from collections.abc import Iterable",
        "",
    ]
    deps = sorted({rng.randrange(index) for _ in range(min(index, 4))}) if index else []
    for dep in deps:
        dpkg, dmod = names[dep].rsplit(".", 1)
        if dpkg == pkg and rng.random() < 0.5:
            lines.append(f"from . import {dmod}")
        else:
            lines.append(f"from {dpkg}.{dmod} import compute_{dep:04d} as _c{dep}")
    lines += ["", "logger = logging.getLogger(__name__)", ""]
    for n in range(12):
        word = WORDS[(index + n) % len(WORDS)]
        suffix = "" if n == 0 else f"_{n}"
        lines += [
            "",
            "@dataclasses.dataclass(frozen=True)",
            f"class {word.title()}{n}:",
            "    name: str",
            "    value: int",
            "",
            f"def compute_{index:04d}{suffix}(items: Iterable[int]) -> int:",
            "    total = 0",
            "    for item in items:",
            "        total += item",
            "    return total",
            "",
        ]
    return "\n".join(lines) + "\n"


SEAL = (
    '"""A sealing module."""\n\nimport hashlib\nimport json\n\n\ndef seal(p):\n'
    "    return hashlib.sha256(json.dumps(p).encode()).hexdigest()\n"
)


def generate(root: Path, modules: int, package: str = "bench") -> int:
    rng = random.Random(20260230)
    per = max(1, (modules - 5) // 20)
    names = [f"{package}.pkg_{i // per:02d}.mod_{i:04d}" for i in range(modules - 5)]
    (root / package / "kernel").mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    (root / package / "kernel" / "__init__.py").write_text("")
    for k in range(4):
        name = "seal" if k == 0 else f"seal{k}"
        (root / package / "kernel" / f"{name}.py").write_text(SEAL)
    for index, name in enumerate(names):
        path = root / (name.replace(".", "/") + ".py")
        if not path.parent.exists():
            path.parent.mkdir(parents=True)
            (path.parent / "__init__.py").write_text("")
        text = _generated_module(rng, index, names)
        if index % 50 == 7:  # some modules do import a sealing module
            which = (index // 50) % 4
            text += f"from {package}.kernel import seal{'' if which == 0 else which}\n"
        path.write_text(text)
    return modules


# -- chain trees ----------------------------------------------------------------------------------
#: ``chainN``: one package ``chain`` of N modules in sub-packages of 50, the sealed module
#: ``chain.seal`` beside them and every other module upstream; ``-clean``: without the one
#: reverse import. Name: (modules, whether the 4th module imports the sealed module).
CHAINS = {
    "chain200": (200, True),
    "chain5000": (5000, True),
    "chain5000-clean": (5000, False),
    "chain20000": (20000, True),
}
CHAIN_SEALED = "chain.seal"
CHAIN_UPSTREAM = "chain.p*"
CHAIN_PER_PACKAGE = 50
#: The module that imports the sealed module (the 4th of the chain), when one does.
CHAIN_REVERSE = 3


@dataclass(frozen=True)
class ChainModule:
    """One generated module: its chain imports (module level, in functions, under
    ``TYPE_CHECKING``) and whether it is a records module, which takes only classes from the
    chain and uses only the ``adr-0230`` surface (the marker tests' clean modules)."""

    name: str
    index: int
    imports: tuple[str, ...]
    records: bool
    reaches: bool  # whether importing it loads the sealed module


def _chain_name(index: int) -> str:
    return f"chain.p{index // CHAIN_PER_PACKAGE:03d}.m{index:05d}"


def _chain_module(
    rng: random.Random, index: int, reverse: bool
) -> tuple[str, list[int], list[int]]:
    """The source of module ``index``, the indices of the modules it imports at module level,
    and those of the others it imports."""
    records = index % 10 == 5  # takes classes only, uses the adr-0230 surface only
    logs = not records and index % 5 == 2
    word = WORDS[index % len(WORDS)]
    deps: list[int] = []
    if index:  # 1 to 3 earlier modules: a near one, so that the chain is long, and far ones
        picks = {rng.randrange(max(0, index - 8), index)}
        picks.update(rng.randrange(index) for _ in range(rng.randrange(3)))
        deps = sorted(picks)
    lazy = rng.randrange(index) if index and index % 3 == 0 else None
    typed = rng.randrange(index) if index and index % 4 == 1 else None
    lines = [
        f'"""{word.title()} stage {index} of the chain: its records and their helpers."""',
        "",
        "from __future__ import annotations",
        "",
        "import dataclasses",
    ]
    if index % 6 == 0:
        lines.append("import enum")
    if logs:
        lines.append("import logging")
    lines += ["from collections.abc import Iterable, Sequence"]
    if typed is not None:
        lines.append("from typing import TYPE_CHECKING")
    lines.append("")
    calls: list[str] = []
    for dep in deps:
        if records:
            lines.append(f"from {_chain_name(dep)} import Record{dep}")
            continue
        z = rng.randrange(2)  # every module defines its own f0 and f1: an alias
        lines.append(f"from {_chain_name(dep)} import f{z} as f{z}_{dep}")
        calls.append(f"f{z}_{dep}")
    if reverse and index == CHAIN_REVERSE:
        lines.append(f"from {CHAIN_SEALED} import seal as seal_payload")
    if typed is not None:
        lines += ["", "if TYPE_CHECKING:", f"    from {_chain_name(typed)} import Record{typed}"]
    lines += [""]
    if logs:
        lines += ["logger = logging.getLogger(__name__)"]
    lines += [f"LIMIT = {index % 97 + 3}", f'LABEL = "{word}-{index}"']
    if records and deps:
        parents = ", ".join(f"Record{d}" for d in deps)
        lines.append(f"PARENTS = ({parents}{',' if len(deps) == 1 else ''})")
    lines.append("")
    if index % 6 == 0:
        lines += [
            "",
            f"class Mode{index}(enum.Enum):",
            '    FAST = "fast"',
            '    SLOW = "slow"',
            "",
        ]
    parent = f"Record{deps[-1]} | None = None" if records and deps else "str | None = None"
    lines += [
        "",
        "@dataclasses.dataclass(frozen=True)",
        f"class Record{index}:",
        f'    """One {word} of stage {index}."""',
        "",
        "    name: str",
        "    value: int",
        "    weight: float = 1.0",
        f"    parent: {parent}",
        "",
        "    def scaled(self) -> float:",
        "        return self.value * self.weight",
        "",
    ]
    if index % 3 == 1:
        lines += [
            "",
            "@dataclasses.dataclass",
            f"class Batch{index}:",
            f"    items: list[Record{index}] = dataclasses.field(default_factory=list)",
            "",
            "    def total(self) -> int:",
            "        return sum(item.value for item in self.items)",
            "",
        ]
    lines += [
        "",
        "def f0(values: Iterable[int]) -> int:",
        '    """The sum of the values, from the stage\'s limit."""',
        "    total = LIMIT",
        "    for value in values:",
        "        total += value",
        "    return total",
        "",
        "",
        "def f1(values: Sequence[int]) -> int:",
        "    total = f0(values)",
        *(f"    total += {name}(values)" for name in calls),
        "    return total if total > 0 else -total",
        "",
        "",
        f"def f2(name: str, value: int) -> Record{index}:",
        f"    return Record{index}(name, value)",
        "",
        "",
        f"def f3(records: Iterable[Record{index}]) -> dict[str, int]:",
        "    out: dict[str, int] = {}",
        "    for record in records:",
        "        out[record.name] = out.get(record.name, 0) + record.value",
    ]
    if logs:
        lines.append('    logger.debug("%s: %d names", LABEL, len(out))')
    lines += ["    return out", ""]
    if lazy is not None:  # an import inside a function
        taken, bound = (f"Record{lazy}", "Lazy") if records else ("f0", f"f0_{lazy}")
        call = "(LABEL, len(values))" if records else "(values)"
        lines += [
            "",
            "def f4(values: Sequence[int]) -> object:",
            f"    from {_chain_name(lazy)} import {taken} as {bound}",
            "",
            f"    return {bound}{call}",
            "",
        ]
    if typed is not None:
        lines += [
            "",
            f"def f5(record: Record{typed}) -> int:",
            "    return record.value + LIMIT",
            "",
        ]
    if reverse and index == CHAIN_REVERSE:
        lines += [
            "",
            "def digest(values: Sequence[int]) -> str:",
            "    return seal_payload(list(values))",
            "",
        ]
    others = [d for d in (lazy, typed) if d is not None]
    return "\n".join(lines).rstrip() + "\n", deps, others


def generate_chain(root: Path, modules: int, reverse: bool) -> list[ChainModule]:
    rng = random.Random(20260230 + modules)
    (root / "chain").mkdir(parents=True)
    (root / "chain" / "__init__.py").write_text('"""A generated chain of modules."""\n')
    (root / "chain" / "seal.py").write_text(SEAL)
    out: list[ChainModule] = []
    for index in range(modules):
        name = _chain_name(index)
        path = root / (name.replace(".", "/") + ".py")
        if not path.parent.exists():
            path.parent.mkdir()
            (path.parent / "__init__.py").write_text("")
        text, deps, others = _chain_module(rng, index, reverse)
        path.write_text(text)
        every = sorted(set(deps + others))
        reaches = (reverse and index == CHAIN_REVERSE) or any(out[d].reaches for d in every)
        out.append(
            ChainModule(name, index, tuple(_chain_name(d) for d in every), index % 10 == 5, reaches)
        )
    return out


def build_chain(kind: str, base: Path) -> Tree:
    modules, reverse = CHAINS[kind]
    root = base / kind
    root.mkdir(parents=True)
    chain = generate_chain(root, modules, reverse)
    size = sum(p.stat().st_size for p in root.rglob("*.py"))
    packages = sorted({m.name.rsplit(".", 1)[0] for m in chain})
    reach = sum(m.reaches for m in chain)
    note = (
        f"{reach} reach it through {_chain_name(CHAIN_REVERSE)}"
        if reverse
        else "none imports it (clean)"
    )
    return Tree(
        kind,
        root,
        "chain",
        ["chain"],
        modules + 1,
        size,
        boundaries=[(CHAIN_SEALED, [CHAIN_UPSTREAM])],
        contract_sources=[packages],
        edit_module=_chain_name(modules // 2),
        note=note,
        chain=chain,
    )


@dataclass
class Tree:
    name: str
    root: Path
    package: str  # the first copy's package
    packages: list[str]
    modules: int
    size: int
    #: (sealed module, upstream modules or patterns) per boundary of the policy
    boundaries: list[tuple[str, list[str]]] = field(default_factory=list)
    #: import-linter's source modules per boundary, where the upstream are patterns
    contract_sources: list[list[str]] = field(default_factory=list)
    #: the upstream module whose file the edit timing changes
    edit_module: str = ""
    #: how the upstream modules reach the sealed module, for the report's header
    note: str = ""
    #: a generated chain's modules, for the marker tests
    chain: list[ChainModule] = field(default_factory=list)
    #: the modules ``sealed-trace init`` is timed on
    init_modules: list[str] = field(default_factory=list)

    def module_path(self, module: str) -> Path:
        base = self.root / module.replace(".", "/")
        source = base.with_suffix(".py")
        return source if source.exists() else base / "__init__.py"


def _scan_tree(root: Path) -> tuple[object, dict[str, str]]:
    from sealed_trace.lint.discover import discover
    from sealed_trace.lint.grimp_scan import ScanTarget, scan

    files = discover(str(root), (str(root),), ())
    paths: dict[str, str] = {}
    for f in files:
        if f.module and f.module not in paths:
            paths[f.module] = f.abspath
    return scan([ScanTarget(m, str(root), p) for m, p in paths.items()]), paths


def drop_unscannable(root: Path) -> int:
    """Delete the files import-linter's scanner cannot read (the standard library's tests
    hold deliberately broken files: bad encodings, Python 2 syntax), so that every tool
    measures the same tree. Returns how many were dropped."""
    graph, paths = _scan_tree(root)
    for module in graph.failed:  # type: ignore[attr-defined]
        os.unlink(paths[module])
    return len(graph.failed)  # type: ignore[attr-defined]


def _edges(root: Path) -> dict[str, set[str]]:
    """The first-party modules each module imports, from the lint's own scanner."""
    graph, _ = _scan_tree(root)
    edges: dict[str, list[tuple[str, int]]] = graph.edges  # type: ignore[attr-defined]
    return {module: {target for target, _line in found} for module, found in edges.items()}


def _importers(edges: dict[str, set[str]], targets: list[str]) -> dict[str, list[str]]:
    """First-party modules importing each target."""
    out: dict[str, list[str]] = {t: [] for t in targets}
    for module, imported in edges.items():
        for target in imported:
            if target in out and module != target:
                out[target].append(module)
    return {t: sorted(set(v)) for t, v in out.items()}


#: ``sealed-trace init`` on the site-packages copy: modules with many imports, in sympy when
#: it is installed (``pip install sympy``); else the largest package's three modules that
#: import the most first-party modules.
INIT_MODULES = ("sympy.sets.sets", "sympy.solvers.solveset", "sympy.integrals.integrals")


def _init_modules(package: str, edges: dict[str, set[str]]) -> list[str]:
    chosen = [f"{package}.{m}" for m in INIT_MODULES if f"{package}.{m}" in edges]
    if chosen:
        return chosen
    sizes: dict[str, int] = {}
    for module in edges:
        parts = module.split(".")
        if len(parts) > 2:
            sizes[parts[1]] = sizes.get(parts[1], 0) + 1
    largest = max(sizes, key=lambda top: (sizes[top], top))
    inside = [m for m in edges if m.startswith(f"{package}.{largest}.")]
    return sorted(inside, key=lambda m: (-len(edges[m]), m))[:3]


def build(kind: str, base: Path, copies: int) -> Tree:
    if kind in CHAINS:
        return build_chain(kind, base)
    root = base / f"{kind}-x{copies}"
    root.mkdir(parents=True)
    if kind == "generated":
        packages = ["bench" if i == 0 else f"bench{i}" for i in range(copies)]
        modules = sum(generate(root, 2000, p) for p in packages)
    else:
        source = Path(sysconfig.get_paths()["stdlib" if kind == "stdlib" else "purelib"])
        stem = "stdlib_copy" if kind == "stdlib" else "site_copy"
        packages = [stem if copies == 1 else f"{stem}{i}" for i in range(copies)]
        modules = sum(copy_tree(source, root, p) for p in packages)
        modules -= drop_unscannable(root)
    size = sum(p.stat().st_size for p in root.rglob("*.py"))
    tree = Tree(
        f"{kind}{'' if copies == 1 else f' x{copies}'}", root, packages[0], packages, modules, size
    )
    prefix = "" if kind == "generated" else packages[0] + "."
    candidates = [prefix + c for c in CANDIDATES[kind]]
    if kind == "generated":
        candidates = [c.replace("bench.", packages[0] + ".", 1) for c in CANDIDATES[kind]]
    edges = _edges(root)
    importers = _importers(edges, candidates)
    for module in candidates:
        ups = importers[module][:MAX_UPSTREAM]
        if ups and len(tree.boundaries) < 4:
            tree.boundaries.append((module, ups))
    if not tree.boundaries:
        sys.exit(f"{kind}: none of the boundary candidates exists with importers")
    tree.edit_module = tree.boundaries[0][1][0]
    if kind == "site-packages" and copies == 1:
        tree.init_modules = _init_modules(tree.package, edges)
    return tree


def _ruff_banned() -> list[str]:
    out = []
    for pattern in PRESETS["adr-0230"].banned:
        name = pattern[:-2] if pattern.endswith(".*") else pattern
        if "*" not in name and name not in out:
            out.append(name)
    return out


def write_policy(tree: Tree, boundaries: int) -> None:
    """The policy of the first ``boundaries`` boundaries for every tool; 0: a
    ``pyproject.toml`` without a ``[tool.sealed_trace]`` table (where ``init`` runs)."""
    lines = ["[tool.sealed_trace]", 'source_roots = ["."]', ""] if boundaries else []
    for index, (module, ups) in enumerate(tree.boundaries[:boundaries]):
        lines += [
            "[[tool.sealed_trace.boundary]]",
            f'name = "b{index}"',
            f'module = "{module}"',
            'preset = "adr-0230"',
            f"upstream = {ups!r}".replace("'", '"'),
            "",
        ]
    lines += ["[tool.ruff.lint.flake8-tidy-imports.banned-api]"]
    lines += [f'"{name}".msg = "banned by ADR-0230"' for name in _ruff_banned()]
    (tree.root / "pyproject.toml").write_text("\n".join(lines) + "\n")
    contract = ["[importlinter]", "root_packages =", *(f"    {p}" for p in tree.packages), ""]
    sources = tree.contract_sources or [ups for _, ups in tree.boundaries]
    for index, (module, _) in enumerate(tree.boundaries[:boundaries]):
        contract += [
            f"[importlinter:contract:b{index}]",
            f"name = b{index}",
            "type = forbidden",
            "source_modules =",
            *(f"    {u}" for u in sources[index]),
            "forbidden_modules =",
            f"    {module}",
            "",
        ]
    (tree.root / ".importlinter").write_text("\n".join(contract))


# -- marker tests ---------------------------------------------------------------------------------
MARKER_TESTS = 160


def _marker_targets(tree: Tree) -> list[ChainModule]:
    """Five records modules spread over the chain, past its first package."""
    count = len(tree.chain)
    picks = [count * k // 5 for k in range(1, 5)] + [count - 1]
    out = []
    for pick in picks:
        index = pick - pick % 10 + 5  # records modules end in 5
        index = max(CHAIN_PER_PACKAGE + 5, index if index < count else index - 10)
        out.append(tree.chain[index])
    return out


def _marker_kinds(tree: Tree) -> list[str]:
    """The markers, one per combination of kind, module and arguments; each passes (the
    sealed module's importers are left out: the 4th module imports it)."""
    q = repr
    out = [
        f"sealed_trace_forbid_imports({q(CHAIN_SEALED)}, preset='adr-0230')",
        f"sealed_trace_forbid_imports({q(CHAIN_SEALED)}, allowed=['hashlib', 'json'])",
        f"sealed_trace_forbid_fields({q(CHAIN_SEALED)}, fields='adr-0230')",
    ]
    for module in _marker_targets(tree):
        package = module.index // CHAIN_PER_PACKAGE
        # what the module cannot reach: the packages before its own, the modules before it
        upstream = [f"chain.p{p:03d}*" for p in range(package)]
        upstream += [m.name for m in tree.chain[package * CHAIN_PER_PACKAGE : module.index]]
        out += [
            f"sealed_trace_forbid_imports({q(module.name)}, preset='adr-0230', "
            f"allowed={list(module.imports)!r})",
            f"sealed_trace_forbid_fields('{module.name}.Record{module.index}', fields='adr-0230')",
            f"sealed_trace_forbid_fields({q(module.name)}, fields='adr-0231')",
            f"sealed_trace_forbid_importers({q(module.name)}, upstream={upstream!r})",
        ]
    return out


def write_marker_tests(tree: Tree, directory: Path) -> tuple[Path, Path]:
    """``test_markers.py``: 160 tests with one marker each, mixing the three kinds over a
    handful of the chain's modules, bodies ``pass``; ``test_unmarked.py``: the same tests
    without markers (the session's baseline)."""
    directory.mkdir(parents=True, exist_ok=True)
    kinds = _marker_kinds(tree)
    marked = ['"""Marker tests over a generated chain (bench_lint.py)."""', "", "import pytest", ""]
    bare = ['"""The marker tests\' baseline: no markers (bench_lint.py)."""', ""]
    for number in range(MARKER_TESTS):
        marked += ["", f"@pytest.mark.{kinds[number % len(kinds)]}"]
        marked += [f"def test_{number:03d}():", "    pass", ""]
        bare += ["", f"def test_{number:03d}():", "    pass", ""]
    paths = directory / "test_markers.py", directory / "test_unmarked.py"
    paths[0].write_text("\n".join(marked))
    paths[1].write_text("\n".join(bare))
    return paths
