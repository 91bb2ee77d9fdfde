"""``sealed-trace init [MODULE]``: a starter policy for an existing project (issue 9 §1).

The proposal is read from the project as it stands, statically (nothing is imported or run):

* ``source_roots``: ``src`` when the packages live there (or the named module does), else
  ``.``; directories holding tests, docs, examples, benchmarks or builds are ``exclude``d when
  the root is the project itself. Namespace packages (no ``__init__.py``) are found like any
  other, by their files.
* for the sealed ``MODULE``: one boundary with the ``adr-0230`` preset; its current
  first-party imports as ``allowed_imports`` (with a warning for each that the preset bans:
  allowing it lifts no ban); as ``upstream`` candidates, the first-party modules that importing
  it loads: its module-level imports, in turn, and the package ``__init__`` files they run, but
  not imports inside functions, under ``TYPE_CHECKING`` or under ``if __name__ ==
  "__main__":`` (ADR-0230 §15: the records it consumes come from there, and none of them may
  import it back, which would also be a cycle).
* a forecast, as comments: the findings the first lint of this very policy reports (the
  engine is run on it), so that nothing the proposal did not announce turns up.

Every line of the proposal carries a comment saying why it is there. A directory without
Python modules gets no proposal, and an existing ``[tool.sealed_trace]`` table is named (the
proposal is then for comparison). With ``--write`` it is appended to ``pyproject.toml``
(created when missing), never over an existing table, and only after the resulting file has
been read back and validated as a policy; the file is replaced in one step, so it is never
half-written.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import os
import sys
import tempfile
from collections import Counter, deque
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sealed_trace.lint.api import LintOptions, lint_project
from sealed_trace.lint.ast_pass import extract_graph_facts
from sealed_trace.lint.compiler import parse
from sealed_trace.lint.config import (
    DEFAULT_EDGE_KINDS,
    ConfigError,
    name_is_banned,
    parse_config,
)
from sealed_trace.lint.discover import SourceFile, discover, module_file
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.graph import EdgeKind
from sealed_trace.lint.presets import PRESETS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib
__all__ = ["InitError", "Proposal", "propose", "write_proposal"]

#: Directories that hold no production code, excluded when the source root is the project.
_NOT_CODE = (
    "tests",
    "test",
    "testing",
    "docs",
    "doc",
    "examples",
    "example",
    "benchmarks",
    "bench",
    "build",
    "dist",
    "venv",
    "env",
    "scripts",
)
_PRESET = "adr-0230"
#: The imports that load a module, for upstream candidates: those the closure follows
#: (ST404) by default.
_CLOSURE_KINDS = frozenset(EdgeKind(kind) for kind in DEFAULT_EDGE_KINDS["closure"])
#: Which kind an import under two guards has, the first of these that applies (the lint's).
_PRECEDENCE = (EdgeKind.TYPE_CHECKING, EdgeKind.FUNCTION, EdgeKind.MAIN, EdgeKind.MODULE)
#: Findings of the first lint shown in the proposal (the rest are counted).
_FORECAST_LINES = 15


class InitError(Exception):
    """The proposal cannot be made or written: one line for the user (exit status 2)."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """A starter policy: ``text`` (TOML, each line commented), the ``source_roots`` and
    ``module`` it is for, ``warnings``: the comment lines forecasting what its first lint
    reports, and ``notes``: what the user must know before using it (an existing table, an
    allowed module the preset bans), one line each, also in ``text`` as comments."""

    text: str
    source_roots: tuple[str, ...]
    module: str | None
    warnings: tuple[str, ...] = field(default=())
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class _Tree:
    """The project's modules: ``modules`` by name, and ``names``: those names and every
    package above them (namespace packages, which have no file, included)."""

    modules: dict[str, SourceFile]
    names: frozenset[str]

    @classmethod
    def of(cls, files: list[SourceFile]) -> _Tree:
        modules = {f.module: f for f in files if f.module is not None and f.problem is None}
        names = {name for module in modules for name in _self_and_parents(module)}
        return cls(modules, frozenset(names))


def _self_and_parents(module: str) -> Iterator[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``: what importing it runs, in order."""
    parts = module.split(".")
    for end in range(1, len(parts) + 1):
        yield ".".join(parts[:end])


def _has_python(directory: Path) -> bool:
    for _, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        if any(f.endswith(".py") for f in files):
            return True
    return False


def _source_root(project: Path, module: str | None) -> str:
    """``src`` or ``.``, or the top directory that holds the named ``module``."""
    found = None if module is None else _root_holding(project, module)
    if found is not None:
        return found
    src = project / "src"
    return "src" if src.is_dir() and _has_python(src) else "."


def _root_holding(project: Path, module: str) -> str | None:
    """The first of ``src``, ``.`` and the top directories (in name order) whose files
    define ``module``, or None."""
    for root in ("src", "."):
        if module_file(project / root, module) is not None:
            return root
    for entry in sorted(project.iterdir()):
        if (
            entry.is_dir()
            and not entry.name.startswith(".")
            and module_file(entry, module) is not None
        ):
            return entry.name
    return None


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _lines_of_list(key: str, items: list[tuple[str, str]], empty_note: str) -> list[str]:
    if not items:
        return [f"{key} = []  # {empty_note}"]
    out = [f"{key} = ["]
    out.extend(f"    {_toml_string(value)},  # {note}" for value, note in items)
    out.append("]")
    return out


def _imports_of(path: SourceFile, target: Path) -> list[tuple[str, str | None, int]]:
    """``(module, from-imported name or None, line)`` of every import of the file, wherever it
    runs (what the sealed module's import surface is judged on)."""
    try:
        text = target.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InitError(f"{path.relpath}: cannot read: {exc}") from None
    facts = extract_graph_facts(text, path.module, path.is_package)
    if facts.error is not None:
        raise InitError(f"{path.relpath}:{facts.error[1]}:{facts.error[2]}: {facts.error[3]}")
    return [(f.module, f.name, f.line) for f in facts.imports if f.module]


#: What the proposal says when no sealed module is named.
_BOUNDARY_HINT = (
    "",
    "# Name the sealed module to get a boundary: sealed-trace init mykernel.sealing",
    "# [[tool.sealed_trace.boundary]]",
    '# name = "sealing"',
    '# module = "mykernel.sealing"',
    f'# preset = "{_PRESET}"',
    "# upstream = []",
)


def propose(project: str | os.PathLike[str], module: str | None) -> Proposal:
    """Read the project in ``project`` (a directory) and return the starter policy.

    Raises :class:`InitError` when the directory holds no Python module (there is nothing to
    propose), when ``module`` is given but no file of the project defines it (with the closest
    module names), or when its file cannot be read or parsed.
    """
    root_dir = Path(project).resolve()
    if not root_dir.is_dir():
        raise InitError(f"{project}: not a directory")
    source_root = _source_root(root_dir, module)
    exclude = _not_code(root_dir) if source_root == "." else []
    tree = _project_tree(root_dir, source_root, exclude)
    notes = _existing_table_notes(root_dir)
    lines = [f"# {note}" for note in notes]
    lines += _table_lines(source_root, exclude, tree)
    if module is None:
        lines += _BOUNDARY_HINT
        return Proposal("\n".join(lines) + "\n", (source_root,), None, notes=notes)
    sealed = _sealed_file(module, source_root, tree)
    boundary, banned_notes = _boundary_lines(module, sealed, tree)
    lines += boundary
    forecast = _forecast(root_dir, "\n".join(lines) + "\n")
    return Proposal(
        "\n".join(lines + forecast) + "\n",
        (source_root,),
        module,
        tuple(forecast),
        notes + banned_notes,
    )


def _not_code(root_dir: Path) -> list[str]:
    """The directories of :data:`_NOT_CODE` at the top of the project that hold Python."""
    return [d for d in _NOT_CODE if (root_dir / d).is_dir() and _has_python(root_dir / d)]


def _project_tree(root_dir: Path, source_root: str, exclude: list[str]) -> _Tree:
    """The modules under ``source_root`` outside ``exclude``. Raises :class:`InitError` when
    there are none (there is nothing to propose)."""
    files = discover(str(root_dir), (str(root_dir / source_root),), exclude=tuple(exclude))
    tree = _Tree.of(files)
    if not tree.modules:
        raise InitError(
            f"nothing to propose: no Python module under {root_dir} (outside "
            f"{', '.join(exclude) or 'hidden directories'}); run it in the project's directory"
        )
    return tree


def _table_lines(source_root: str, exclude: list[str], tree: _Tree) -> list[str]:
    """The ``[tool.sealed_trace]`` header with its ``source_roots`` and ``exclude``."""
    lines = ["[tool.sealed_trace]"]
    lines.append(f"source_roots = [{_toml_string(source_root)}]  # {_layout(source_root, tree)}")
    if exclude:
        lines.append(
            "exclude = ["
            + ", ".join(_toml_string(d) for d in exclude)
            + "]  # not production code: not reported (their imports still count)"
        )
    return lines


def _sealed_file(module: str, source_root: str, tree: _Tree) -> SourceFile:
    """The file of the sealed ``module``. Raises :class:`InitError`, with the closest module
    names, when no file of the project defines it."""
    sealed = tree.modules.get(module)
    if sealed is None:
        close = difflib.get_close_matches(module, sorted(tree.modules), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise InitError(f"no module {module!r} under {source_root}/{hint}")
    return sealed


def _layout(source_root: str, tree: _Tree) -> str:
    """What the source root holds, as found: its top-level packages and modules."""
    tops = sorted({m.partition(".")[0] for m in tree.modules})
    shown = ", ".join(tops[:5]) + (f" and {len(tops) - 5} more" if len(tops) > 5 else "")
    where = "at the top of the project" if source_root == "." else f"in {source_root}/"
    return f"{len(tree.modules)} module(s) {where}: {shown}"


def _existing_table_notes(root_dir: Path) -> tuple[str, ...]:
    """A note when ``pyproject.toml`` already has a ``[tool.sealed_trace]`` table."""
    with contextlib.suppress(OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        document = tomllib.loads((root_dir / "pyproject.toml").read_text("utf-8"))
        tool = document.get("tool")
        if isinstance(tool, dict) and "sealed_trace" in tool:
            return (
                "pyproject.toml already has a [tool.sealed_trace] table: this proposal is for "
                "comparison; --write will not touch that table (merge by hand)",
            )
    return ()


def _boundary_lines(
    module: str, sealed: SourceFile, tree: _Tree
) -> tuple[list[str], tuple[str, ...]]:
    """The ``[[tool.sealed_trace.boundary]]`` lines for ``module``, and a warning for each
    preset ban that matches allowed modules."""
    allowed = _allowed_imports(module, sealed, tree)
    notes = _ban_warnings(allowed)
    name = module.rpartition(".")[2].strip("_") or "sealed"
    lines = [
        "",
        "[[tool.sealed_trace.boundary]]",
        f"name = {_toml_string(name)}  # the name of this boundary in reports and pytest items",
        f"module = {_toml_string(module)}  # the sealed module (ADR-0230 §15)",
        f'preset = "{_PRESET}"  # §15.1 value-type imports, §15.2 bans, §7.3 forbidden fields',
    ]
    lines += [f"# {note}" for note in notes]
    lines += _lines_of_list(
        "allowed_imports", sorted(allowed.items()), "it imports no first-party module today"
    )
    lines += _lines_of_list(
        "upstream",
        _upstream_items(module, tree),
        "importing it loads no first-party module: name the record producers",
    )
    return lines, tuple(notes)


def _allowed_imports(module: str, sealed: SourceFile, tree: _Tree) -> dict[str, str]:
    """``{module the sealed module imports today: the comment saying why it is allowed}``:
    its first-party imports, and the sealer itself (a sealing module that imports
    sealed_trace does so to seal)."""
    allowed: dict[str, str] = {}
    for target, line in _first_party_imports(sealed, module, tree):
        below = sum(1 for m in tree.modules if m.startswith(target + "."))
        note = f"imported by {module} (line {line})"
        if below:
            note += f"; allows the {below} modules below it too: narrow it if you can"
        allowed.setdefault(target, note)
    for imported, _, line in sorted(_imports_of(sealed, Path(sealed.abspath)), key=lambda i: i[2]):
        if imported.partition(".")[0] == "sealed_trace" and imported not in tree.names:
            allowed.setdefault("sealed_trace", f"the sealer, imported by {module} (line {line})")
    return allowed


def _upstream_items(module: str, tree: _Tree) -> list[tuple[str, str]]:
    """``(upstream candidate, the comment saying how importing ``module`` loads it)``."""
    return [
        (
            m,
            "it imports from here: must never import it back"
            if via is None
            else f"loaded through {via} when it is imported: must never import it back",
        )
        for m, via in sorted(_loaded_when_imported(module, tree).items())
    ]


def _ban_warnings(allowed: dict[str, str]) -> list[str]:
    """One warning per preset ban that matches modules of ``allowed`` (``{module: its
    comment}``), whose comments say so too: allowing a banned module lifts no ban."""
    by_pattern: dict[str, list[str]] = {}
    for name in sorted(allowed):
        pattern = _preset_ban(name)
        if pattern is not None:
            by_pattern.setdefault(pattern, []).append(name)
            allowed[name] += f"; BANNED by the preset ({pattern}): see the warning above"
    warnings = []
    for pattern, names in by_pattern.items():
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        warnings.append(
            f"warning: the {_PRESET} preset bans {pattern!r}, which matches {len(names)} "
            f"allowed module(s) ({shown}): allowed_imports lifts no ban, so the first lint "
            "reports their use; if the sealed module must use them, this preset does not fit "
            "the boundary"
        )
    return warnings


def _preset_ban(module: str) -> str | None:
    """The first pattern of the preset's bans that bans ``module``, or None."""
    banned = PRESETS[_PRESET].banned
    for pattern in banned:
        if name_is_banned(module, (pattern,)) or pattern == f"{module}.*":
            return pattern
    return None


def _resolve(imported: str, name: str | None, tree: _Tree) -> str | None:
    """The first-party module an import loads (``from pkg import mod`` loads ``pkg.mod``), or
    None for a module of the standard library or another distribution."""
    if name is not None and name != "*" and f"{imported}.{name}" in tree.modules:
        return f"{imported}.{name}"
    return imported if imported in tree.names else None


def _first_party_imports(file: SourceFile, module: str, tree: _Tree) -> list[tuple[str, int]]:
    """``(first-party module, line)`` of each import of ``file``, in line order, outside the
    sealed module ``module`` itself (a sealed package's own submodules)."""
    out = []
    for imported, name, line in sorted(
        _imports_of(file, Path(file.abspath)), key=lambda item: item[2]
    ):
        target = _resolve(imported, name, tree)
        if target is not None and not _seals(module, target):
            out.append((target, line))
    return out


def _loaded_when_imported(
    module: str, tree: _Tree, kinds: Collection[EdgeKind] = _CLOSURE_KINDS
) -> dict[str, str | None]:
    """The first-party modules that importing ``module`` loads: ``{loaded module: the module
    whose import first loads it (None for the sealed module's own imports)}``.

    An import loads its target and the packages above it, whose ``__init__`` files run first.
    Only imports of ``kinds`` are followed: by default those that load a module into the
    closure (ST404), module-level ones (in a class body and in ``if``/``try``/``with``/loop
    blocks too), not those inside a function, under ``TYPE_CHECKING`` or under ``if __name__
    == "__main__":``. The sealed module, its submodules and the packages above it (which ran
    before it) are left out.
    """
    reached: dict[str, str | None] = {}
    seen = {module}
    queue = deque([module])
    while queue:
        current = queue.popleft()
        for target in _import_targets(tree.modules[current], tree, kinds):
            if target in seen or module.startswith(target + "."):
                continue  # loaded already, or a package above the sealed module (ran first)
            seen.add(target)
            queue.append(target)
            if not _seals(module, target):  # a sealed package's submodules are sealed too
                reached[target] = None if _seals(module, current) else current
    return reached


def _seals(module: str, other: str) -> bool:
    """Whether ``other`` is the sealed ``module`` or, for a sealed package, below it."""
    return other == module or other.startswith(module + ".")


def _import_targets(file: SourceFile, tree: _Tree, kinds: Collection[EdgeKind]) -> list[str]:
    """The first-party modules that the imports of ``kinds`` in ``file`` load, in file
    order."""
    try:
        syntax = parse(Path(file.abspath).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # the lint reports a file it cannot read or parse (ST001, ST002)
    own = file.module or ""
    package = own if file.is_package else own.rpartition(".")[0]
    out: list[str] = []
    for statement, kind in _import_statements(syntax.body):
        if kind in kinds:
            out += _loaded_by(statement, package, tree)
    return list(dict.fromkeys(out))


def _loaded_by(statement: ast.Import | ast.ImportFrom, package: str, tree: _Tree) -> list[str]:
    """The first-party modules one import statement of a module of ``package`` loads: each
    target and the packages above it, in the order they run."""
    out: list[str] = []
    for imported, name in _imported(statement, package):
        target = _resolve(imported, name, tree)
        if target is not None:
            out += [m for m in _self_and_parents(target) if m in tree.modules]
    return out


def _import_statements(
    body: list[ast.stmt],
) -> Iterator[tuple[ast.Import | ast.ImportFrom, EdgeKind]]:
    """Each import statement of ``body``, in file order, with how it runs (as the lint's
    import graph says it: ``TYPE_CHECKING`` before a function, before the ``__main__``
    guard)."""
    work = [(statement, EdgeKind.MODULE) for statement in reversed(body)]
    while work:
        statement, kind = work.pop()
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            yield statement, kind
            continue
        guard = _guard(statement)
        if guard is None:
            work += [(child, kind) for child in reversed(_nested(statement))]
            continue
        if isinstance(statement, ast.If):  # its ``else`` runs as the ``if`` itself does
            work += [(child, kind) for child in reversed(statement.orelse)]
        if isinstance(statement, (ast.If, ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = _stronger(kind, guard)
            work += [(child, inner) for child in reversed(statement.body)]


def _guard(statement: ast.stmt) -> EdgeKind | None:
    """How the body of ``statement`` runs when that is not as the statement itself: a
    function's, or that of ``if TYPE_CHECKING:`` or ``if __name__ == "__main__":``."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return EdgeKind.FUNCTION
    if isinstance(statement, ast.If) and _type_checking(statement.test):
        return EdgeKind.TYPE_CHECKING
    if isinstance(statement, ast.If) and _main_guard(statement.test):
        return EdgeKind.MAIN
    return None


def _stronger(kind: EdgeKind, guard: EdgeKind) -> EdgeKind:
    """The kind of an import under both ``kind`` and ``guard``."""
    return next(k for k in _PRECEDENCE if k in (kind, guard))


def _nested(statement: ast.stmt) -> list[ast.stmt]:
    """The statements inside a compound statement (class body, ``if``, ``try``, loops,
    ``with``, ``match``), in file order."""
    out: list[ast.stmt] = []
    for part in ("body", "handlers", "cases", "orelse", "finalbody"):
        for child in getattr(statement, part, None) or []:
            if isinstance(child, (ast.ExceptHandler, ast.match_case)):
                out += child.body
            elif isinstance(child, ast.stmt):
                out.append(child)
    return out


def _type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
    return name == "TYPE_CHECKING"


def _main_guard(test: ast.expr) -> bool:
    """``if __name__ == "__main__":`` (either way round)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return isinstance(test.ops[0], ast.Eq) and sides == {
        ast.dump(ast.Name("__name__", ast.Load())),
        ast.dump(ast.Constant("__main__")),
    }


def _imported(statement: ast.Import | ast.ImportFrom, package: str) -> list[tuple[str, str | None]]:
    """``(module, from-imported name or None)`` of one import statement; relative imports are
    resolved against ``package``."""
    if isinstance(statement, ast.Import):
        return [(alias.name, None) for alias in statement.names]
    base = _from_base(statement, package)
    return [(base, alias.name) for alias in statement.names] if base else []


def _from_base(statement: ast.ImportFrom, package: str) -> str:
    """The module a ``from`` import imports from, relative imports resolved against
    ``package``; empty when it climbs above the top-level package."""
    base = statement.module or ""
    if not statement.level:
        return base
    parts = package.split(".") if package else []
    if statement.level - 1 > len(parts):
        return ""
    parent = ".".join(parts[: len(parts) - statement.level + 1])
    return ".".join(p for p in (parent, base) if p)


def _forecast(root_dir: Path, text: str) -> list[str]:
    """Comment lines saying what the first lint of the proposal ``text`` reports. Raises
    :class:`InitError` when the proposal is not a valid policy (it must always be one)."""
    requires = None
    with contextlib.suppress(OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        requires = _requires_python(tomllib.loads((root_dir / "pyproject.toml").read_text("utf-8")))
    try:
        config = parse_config(
            tomllib.loads(text)["tool"]["sealed_trace"],
            str(root_dir),
            "the proposal",
            requires_python=requires,
        )
    except ConfigError as exc:
        raise InitError(f"the proposal is not a valid policy: {'; '.join(exc.problems)}") from None
    options = LintOptions(policy=config, use_cache=False, every_chain=False)
    findings = lint_project(options).result.findings
    if not findings:
        return ["# The first lint of this policy reports no findings."]
    return _forecast_lines(findings)


def _requires_python(document: dict[str, Any]) -> object:
    """The ``project.requires-python`` of a ``pyproject.toml`` document, or None."""
    project = document.get("project")
    return project.get("requires-python") if isinstance(project, dict) else None


def _forecast_lines(findings: Sequence[Finding]) -> list[str]:
    """The forecast of a first lint that reports ``findings`` (some)."""
    counts = Counter(f.code for f in findings)
    summary = ", ".join(f"{code} x{n}" for code, n in sorted(counts.items()))
    out = [
        f"# The first lint of this policy reports {len(findings)} finding(s) ({summary}):",
        "# fix them, or record them: sealed-trace lint --write-baseline lint-baseline.json",
    ]
    out += [
        f"#   {f.path}:{f.line}:{f.column} {f.code} {f.message}" for f in findings[:_FORECAST_LINES]
    ]
    if len(findings) > _FORECAST_LINES:
        out.append(
            f"#   ... and {len(findings) - _FORECAST_LINES} more (sealed-trace lint shows them all)"
        )
    if "ST104" in counts:
        out.append(
            "# ST104: a function taken from a first-party module. If that module "
            "produces records (search, replay),"
        )
        out.append(
            "# move it from allowed_imports to banned; list pure helpers in allowed_callables."
        )
    return out


def write_proposal(project: str | os.PathLike[str], proposal: Proposal) -> Path:
    """Append ``proposal`` to ``project``'s ``pyproject.toml`` (created when missing) and
    return its path.

    Raises :class:`InitError`, leaving the file untouched, when the file already has a
    ``tool.sealed_trace`` table, is not UTF-8 TOML, or the result would not be a valid policy.
    """
    if proposal.module is None:
        raise InitError("--write needs the sealed MODULE (sealed-trace init mykernel.sealing)")
    root_dir = Path(project).resolve()
    path = root_dir / "pyproject.toml"
    old = _pyproject_without_table(path)
    new = (
        old
        + ("\n" if old and not old.endswith("\n") else "")
        + ("\n" if old else "")
        + proposal.text
    )
    _check_appended(path, root_dir, new)
    _replace_pyproject(path, root_dir, new)
    return path


def _pyproject_without_table(path: Path) -> str:
    """The text of ``pyproject.toml`` (empty when missing). Raises :class:`InitError` when it
    is not UTF-8 TOML or already has a ``[tool.sealed_trace]`` table."""
    try:
        old = path.read_bytes().decode("utf-8") if path.exists() else ""
        document = tomllib.loads(old)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InitError(f"{path.name}: cannot read it as TOML ({exc}); not changed") from None
    tool = document.get("tool")
    if isinstance(tool, dict) and "sealed_trace" in tool:
        raise InitError(
            f"{path.name} already has a [tool.sealed_trace] table; not changed "
            "(run without --write and merge the proposal by hand)"
        )
    return old


def _check_appended(path: Path, root_dir: Path, new: str) -> None:
    """Raise :class:`InitError` unless ``new``, the file with the proposal appended, is TOML
    with a valid policy."""
    try:
        section = tomllib.loads(new)["tool"]["sealed_trace"]
        requires = _requires_python(tomllib.loads(new))
        parse_config(section, str(root_dir), str(path), requires_python=requires)
    except tomllib.TOMLDecodeError as exc:
        raise InitError(
            f"{path.name}: the proposal cannot be appended to it as TOML ({exc}); not changed"
        ) from None
    except ConfigError as exc:
        raise InitError(
            f"{path.name}: the proposal would not be a valid policy "
            f"({'; '.join(exc.problems)}); not changed"
        ) from None


def _replace_pyproject(path: Path, root_dir: Path, new: str) -> None:
    """Replace ``path`` by ``new`` in one step, keeping its mode (``0o644`` when new). Raises
    :class:`InitError`, leaving it untouched, when that fails."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    handle, temporary = tempfile.mkstemp(prefix=".pyproject.", suffix=".tmp", dir=root_dir)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(new)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise InitError(f"{path.name}: cannot write: {exc.strerror or exc}") from None
