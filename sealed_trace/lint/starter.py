"""``sealed-trace init [MODULE]``: a starter policy for an existing project (issue 9 §1).

The proposal is read from the project as it stands, statically (nothing is imported or run):

* ``source_roots``: ``src`` when the packages live there (or the named module does), else
  ``.``; directories holding tests, docs, examples, benchmarks or builds are ``exclude``d when
  the root is the project itself. Namespace packages (no ``__init__.py``) are found like any
  other, by their files.
* for the sealed ``MODULE``: one boundary with the ``adr-0230`` preset; its current
  first-party imports as ``allowed_imports``; as ``upstream`` candidates, the first-party
  modules importing it loads (ADR-0230 §15: the records it consumes come from there, and none
  of them may import it back, which would also be a cycle).
* a forecast, as comments: the findings the first lint of this very policy reports (the
  engine is run on it), so that nothing the proposal did not announce turns up.

Every line of the proposal carries a comment saying why it is there. With ``--write`` it is
appended to ``pyproject.toml`` (created when missing), never over an existing
``[tool.sealed_trace]`` table, and only after the resulting file has been read back and
validated as a policy; the file is replaced in one step, so it is never half-written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sealed_trace.lint._files import SourceFile, discover, module_file
from sealed_trace.lint.config import ConfigError, parse_config

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
#: Findings of the first lint shown in the proposal (the rest are counted).
_FORECAST_LINES = 15


class InitError(Exception):
    """The proposal cannot be made or written: one line for the user (exit status 2)."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """A starter policy: ``text`` (TOML, each line commented), the ``source_roots`` and
    ``module`` it is for, and ``warnings``: the comment lines forecasting what its first lint
    reports."""

    text: str
    source_roots: tuple[str, ...]
    module: str | None
    warnings: tuple[str, ...] = field(default=())


def _has_python(directory: Path) -> bool:
    for _, dirs, files in os.walk(directory):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        if any(f.endswith(".py") for f in files):
            return True
    return False


def _source_root(project: Path, module: str | None) -> str:
    if module is not None:
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
    src = project / "src"
    return "src" if src.is_dir() and _has_python(src) else "."


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
    """``(module, from-imported name or None, line)`` of every import of the file."""
    from sealed_trace.lint._graph import extract_graph_facts

    try:
        text = target.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InitError(f"{path.relpath}: cannot read: {exc}") from None
    facts = extract_graph_facts(text, path.module, path.is_package)
    if facts.error is not None:
        raise InitError(f"{path.relpath}:{facts.error[1]}:{facts.error[2]}: {facts.error[3]}")
    return [(f.module, f.name, f.line) for f in facts.imports if f.module]


def propose(project: str | os.PathLike[str], module: str | None) -> Proposal:
    """Read the project in ``project`` (a directory) and return the starter policy.

    Raises :class:`InitError` when ``module`` is given but no file of the project defines it
    (with the closest module names), or when its file cannot be read or parsed.
    """
    root_dir = Path(project).resolve()
    if not root_dir.is_dir():
        raise InitError(f"{project}: not a directory")
    source_root = _source_root(root_dir, module)
    lines = ["[tool.sealed_trace]"]
    layout = (
        "src layout: the packages live in src/"
        if source_root == "src"
        else "the packages live at the top of the project"
        if source_root == "."
        else f"the packages live in {source_root}/"
    )
    lines.append(f"source_roots = [{_toml_string(source_root)}]  # {layout}")
    exclude: list[str] = []
    if source_root == ".":
        exclude = [d for d in _NOT_CODE if (root_dir / d).is_dir() and _has_python(root_dir / d)]
    if exclude:
        lines.append(
            "exclude = ["
            + ", ".join(_toml_string(d) for d in exclude)
            + "]  # not production code: not reported (their imports still count)"
        )
    if module is None:
        lines += [
            "",
            "# Name the sealed module to get a boundary: sealed-trace init mykernel.sealing",
            "# [[tool.sealed_trace.boundary]]",
            '# name = "sealing"',
            '# module = "mykernel.sealing"',
            f'# preset = "{_PRESET}"',
            "# upstream = []",
        ]
        return Proposal("\n".join(lines) + "\n", (source_root,), None)

    files = discover(str(root_dir), (str(root_dir / source_root),), tuple(exclude))
    modules = {f.module: f for f in files if f.module is not None and f.problem is None}
    sealed = modules.get(module)
    if sealed is None:
        close = difflib.get_close_matches(module, sorted(modules), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise InitError(f"no module {module!r} under {source_root}/{hint}")

    first_party: dict[str, str] = {}
    for target, line in _first_party_imports(sealed, module, modules):
        below = [m for m in modules if m.startswith(target + ".")]
        note = f"imported by {module} (line {line})"
        if below:
            note += f"; allows the {len(below)} modules below it too: narrow it if you can"
        first_party.setdefault(target, note)
    # The sealer itself: a sealing module that imports sealed_trace does so to seal.
    sealer: dict[str, str] = {}
    for imported, _, line in sorted(_imports_of(sealed, Path(sealed.abspath)), key=lambda i: i[2]):
        if imported.partition(".")[0] == "sealed_trace" and not _resolve(imported, None, modules):
            sealer.setdefault("sealed_trace", f"the sealer, imported by {module} (line {line})")
    name = module.rpartition(".")[2].strip("_") or "sealed"
    lines += [
        "",
        "[[tool.sealed_trace.boundary]]",
        f"name = {_toml_string(name)}  # the name of this boundary in reports and pytest items",
        f"module = {_toml_string(module)}  # the sealed module (ADR-0230 §15)",
        f'preset = "{_PRESET}"  # §15.1 value-type imports, §15.2 bans, §7.3 forbidden fields',
    ]
    allowed = sorted(first_party.items())
    lines += _lines_of_list(
        "allowed_imports",
        sorted({**first_party, **sealer}.items()),
        "it imports no first-party module today",
    )
    closure = _closure(module, [m for m, _ in allowed], modules)
    upstream = [
        (
            m,
            "it imports from here: must never import it back"
            if via is None
            else f"loaded through {via} when it is imported: must never import it back",
        )
        for m, via in sorted(closure.items())
    ]
    lines += _lines_of_list(
        "upstream", upstream, "no first-party module feeds it today: name the record producers"
    )
    forecast = _forecast(root_dir, "\n".join(lines) + "\n")
    return Proposal("\n".join(lines + forecast) + "\n", (source_root,), module, tuple(forecast))


def _resolve(imported: str, name: str | None, modules: dict[str, SourceFile]) -> str | None:
    """The first-party module an import loads (``from pkg import mod`` loads ``pkg.mod``), or
    None for a module of the standard library or another distribution."""
    if name is not None and name != "*" and f"{imported}.{name}" in modules:
        return f"{imported}.{name}"
    if imported in modules or any(m.startswith(imported + ".") for m in modules):
        return imported
    return None


def _first_party_imports(
    file: SourceFile, module: str, modules: dict[str, SourceFile]
) -> list[tuple[str, int]]:
    """``(first-party module, line)`` of each import of ``file``, in line order, outside the
    sealed module ``module`` itself (a sealed package's own submodules)."""
    out = []
    for imported, name, line in sorted(
        _imports_of(file, Path(file.abspath)), key=lambda item: item[2]
    ):
        target = _resolve(imported, name, modules)
        if target is not None and target != module and not target.startswith(module + "."):
            out.append((target, line))
    return out


def _closure(
    module: str, starts: list[str], modules: dict[str, SourceFile]
) -> dict[str, str | None]:
    """The first-party modules importing ``starts`` loads, transitively: ``{module: the
    module it is first reached from (None for a start)}``; never into the sealed module."""
    reached: dict[str, str | None] = dict.fromkeys(starts)
    queue = list(starts)
    while queue:
        current = queue.pop(0)
        file = modules.get(current)
        if file is None:
            continue
        try:
            imports = _first_party_imports(file, module, modules)
        except InitError:
            continue  # a module that does not parse: the lint reports it (ST001)
        for target, _ in imports:
            if target not in reached:
                reached[target] = current
                queue.append(target)
    return reached


def _forecast(root_dir: Path, text: str) -> list[str]:
    """Comment lines saying what the first lint of the proposal ``text`` reports. Raises
    :class:`InitError` when the proposal is not a valid policy (it must always be one)."""
    from collections import Counter

    from sealed_trace.lint.engine import lint

    requires = None
    with contextlib.suppress(OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        project = tomllib.loads((root_dir / "pyproject.toml").read_text("utf-8")).get("project")
        requires = project.get("requires-python") if isinstance(project, dict) else None
    try:
        config = parse_config(
            tomllib.loads(text)["tool"]["sealed_trace"],
            str(root_dir),
            "the proposal",
            requires_python=requires,
        )
    except ConfigError as exc:
        raise InitError(f"the proposal is not a valid policy: {'; '.join(exc.problems)}") from None
    findings = lint(dataclasses.replace(config, cache_dir=None), use_cache=False).findings
    if not findings:
        return ["# The first lint of this policy reports no findings."]
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
    new = (
        old
        + ("\n" if old and not old.endswith("\n") else "")
        + ("\n" if old else "")
        + proposal.text
    )
    try:
        section = tomllib.loads(new)["tool"]["sealed_trace"]
        project_table = tomllib.loads(new).get("project")
        requires = project_table.get("requires-python") if isinstance(project_table, dict) else None
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
    return path
