"""The trees ``bench_lint.py`` measures, and the policies it writes for them.

``build(kind, base, copies)`` makes one tree in ``base`` (a copy of the standard library or of
the installed site-packages, or a generated tree) with the boundaries its policy names;
``write_policy`` writes the same facts for every tool: ``[tool.sealed_trace]`` and ruff's
``banned-api`` in ``pyproject.toml``, import-linter's contract in ``.importlinter``.
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


@dataclass
class Tree:
    name: str
    root: Path
    package: str  # the first copy's package
    packages: list[str]
    modules: int
    size: int
    boundaries: list[tuple[str, list[str]]] = field(default_factory=list)


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


def _importers(root: Path, targets: list[str]) -> dict[str, list[str]]:
    """First-party modules importing each target, from the lint's own scanner."""
    graph, _ = _scan_tree(root)
    out: dict[str, list[str]] = {t: [] for t in targets}
    for module, edges in graph.edges.items():  # type: ignore[attr-defined]
        for target, _line in edges:
            if target in out and module != target:
                out[target].append(module)
    return {t: sorted(set(v)) for t, v in out.items()}


def build(kind: str, base: Path, copies: int) -> Tree:
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
    importers = _importers(root, candidates)
    for module in candidates:
        ups = importers[module][:MAX_UPSTREAM]
        if ups and len(tree.boundaries) < 4:
            tree.boundaries.append((module, ups))
    if not tree.boundaries:
        sys.exit(f"{kind}: none of the boundary candidates exists with importers")
    return tree


def _ruff_banned() -> list[str]:
    out = []
    for pattern in PRESETS["adr-0230"].banned:
        name = pattern[:-2] if pattern.endswith(".*") else pattern
        if "*" not in name and name not in out:
            out.append(name)
    return out


def write_policy(tree: Tree, boundaries: int) -> None:
    lines = ["[tool.sealed_trace]", 'source_roots = ["."]', ""]
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
    for index, (module, ups) in enumerate(tree.boundaries[:boundaries]):
        contract += [
            f"[importlinter:contract:b{index}]",
            f"name = b{index}",
            "type = forbidden",
            "source_modules =",
            *(f"    {u}" for u in ups),
            "forbidden_modules =",
            f"    {module}",
            "",
        ]
    (tree.root / ".importlinter").write_text("\n".join(contract))
