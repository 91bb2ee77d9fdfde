"""``sealed-trace init [MODULE]``: a starter policy for an existing project (issue 9 §1).

The proposal is read from the project as it stands, statically (nothing is imported or run):

* ``source_roots``: ``src`` when the packages live there (or the named module does), else
  ``.``; directories holding tests, docs, examples, benchmarks or builds are ``exclude``d when
  the root is the project itself. Namespace packages (no ``__init__.py``) are found like any
  other, by their files.
* for the sealed ``MODULE``: one boundary with the ``adr-0230`` preset; its current
  first-party imports as ``allowed_imports``; the first-party modules it imports from as
  ``upstream`` candidates (ADR-0230 §15: the records it consumes come from there, and those
  modules must never import it back); its imports that the preset bans (ST102) or that lie
  outside the allowed surface (ST101) are listed as comments, so that the first lint reports
  nothing the proposal did not announce.

Every line of the proposal carries a comment saying why it is there. With ``--write`` it is
appended to ``pyproject.toml`` (created when missing), never over an existing
``[tool.sealed_trace]`` table, and only after the resulting file has been read back and
validated as a policy; the file is replaced in one step, so it is never half-written.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sealed_trace.lint._files import SourceFile, discover
from sealed_trace.lint.config import ConfigError, name_is_banned, parse_config
from sealed_trace.lint.presets import PRESETS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib
__all__ = ["InitError", "Proposal", "propose", "write_proposal"]

#: Directories that hold no production code, excluded when the source root is the project.
_NOT_CODE = ("tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks",
             "bench", "build", "dist", "venv", "env", "scripts")
_PRESET = "adr-0230"


class InitError(Exception):
    """The proposal cannot be made or written: one line for the user (exit status 2)."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """A starter policy: ``text`` (TOML, each line commented), the ``source_roots`` and
    ``module`` it is for, and ``warnings`` about imports the first lint will report."""

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


def _module_file(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _source_root(project: Path, module: str | None) -> str:
    if module is not None:
        for root in ("src", "."):
            if _module_file(project / root, module) is not None:
                return root
        for entry in sorted(project.iterdir()):
            if entry.is_dir() and not entry.name.startswith(".") \
                    and _module_file(entry, module) is not None:
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
    layout = ("src layout: the packages live in src/" if source_root == "src"
              else "the packages live at the top of the project" if source_root == "."
              else f"the packages live in {source_root}/")
    lines.append(f"source_roots = [{_toml_string(source_root)}]  # {layout}")
    exclude: list[str] = []
    if source_root == ".":
        exclude = [d for d in _NOT_CODE if (root_dir / d).is_dir() and _has_python(root_dir / d)]
    if exclude:
        lines.append("exclude = [" + ", ".join(_toml_string(d) for d in exclude)
                     + "]  # not production code: not reported (their imports still count)")
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

    preset = PRESETS[_PRESET]
    first_party: dict[str, str] = {}
    warnings: list[str] = []
    for imported, name, line in sorted(_imports_of(sealed, Path(sealed.abspath)),
                                       key=lambda item: item[2]):
        target = imported
        if name is not None and name != "*" and f"{imported}.{name}" in modules:
            target = f"{imported}.{name}"
        if target == module or target.startswith(module + "."):
            continue  # inside a sealed package
        below = [m for m in modules if m.startswith(target + ".")]
        if target in modules or below:
            note = f"imported by {module} (line {line})"
            if below:
                note += f"; allows the {len(below)} modules below it too: narrow it if you can"
            first_party.setdefault(target, note)
            continue
        qualified = f"{imported}.{name}" if name not in (None, "*") else imported
        if name_is_banned(qualified, preset.banned) or f"{imported}.*" in preset.banned:
            warnings.append(f"{qualified} (line {line}): banned by the {_PRESET} preset: "
                            "ST102 until it goes (or baseline it)")
        elif not any(imported == a or imported.startswith(a + ".")
                     for a in preset.allowed_imports):
            warnings.append(f"{imported} (line {line}): outside the preset's value-type "
                            "surface: ST101 until it goes or is added to allowed_imports")
    name = module.rpartition(".")[2].strip("_") or "sealed"
    lines += [
        "",
        "[[tool.sealed_trace.boundary]]",
        f"name = {_toml_string(name)}  # the name of this boundary in reports and pytest items",
        f"module = {_toml_string(module)}  # the sealed module (ADR-0230 §15)",
        f'preset = "{_PRESET}"  # §15.1 value-type imports, §15.2 bans, §7.3 forbidden fields',
    ]
    allowed = sorted(first_party.items())
    lines += _lines_of_list("allowed_imports", allowed,
                            "it imports no first-party module today")
    if warnings:
        lines.append(f"# imports of {module} the first lint will report:")
        lines.extend(f"#   {w}" for w in warnings)
    upstream = [(m, "it imports from here: this module must never import it back")
                for m, _ in allowed]
    lines += _lines_of_list("upstream", upstream,
                            "no first-party module feeds it today: name the record producers")
    return Proposal("\n".join(lines) + "\n", (source_root,), module, tuple(warnings))


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
        raise InitError(f"{path.name} already has a [tool.sealed_trace] table; not changed "
                        "(run without --write and merge the proposal by hand)")
    new = old + ("\n" if old and not old.endswith("\n") else "") + ("\n" if old else "") \
        + proposal.text
    try:
        section = tomllib.loads(new)["tool"]["sealed_trace"]
        project_table = tomllib.loads(new).get("project")
        requires = (project_table.get("requires-python")
                    if isinstance(project_table, dict) else None)
        parse_config(section, str(root_dir), str(path), requires_python=requires)
    except tomllib.TOMLDecodeError as exc:
        raise InitError(f"{path.name}: the proposal cannot be appended to it as TOML ({exc}); "
                        "not changed") from None
    except ConfigError as exc:
        raise InitError(f"{path.name}: the proposal would not be a valid policy "
                        f"({'; '.join(exc.problems)}); not changed") from None
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
