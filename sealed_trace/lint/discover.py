"""File-system adapter of the lint: discover Python files and read them (issue 3 §5).

Nothing here imports libcst or executes scanned code. Discovery follows symbolic links to
directories, as a runtime import does, but never one back to a directory on its own path (a
loop, reported); a ``.py`` entry that is not a readable regular file becomes a
:class:`SourceFile` with ``problem`` set, which the engine reports as ST002.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "SourceFile",
    "discover",
    "discover_files",
    "is_excluded",
    "module_file",
    "module_name_for",
    "read_bytes",
]

_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A discovered file.

    ``relpath``: POSIX path relative to the project root (or absolute when outside it);
    ``abspath``: the path to open; ``module``: dotted module name when the file lies in a source
    root under identifier-named directories, else None; ``is_package``: an ``__init__.py``;
    ``problem``: why the path cannot be read as a file, or None; ``fingerprint``: stat facts
    ``(mtime_ns, size, inode, ctime_ns)`` used by the warm cache.
    """

    relpath: str
    abspath: str
    module: str | None
    is_package: bool
    problem: str | None
    fingerprint: tuple[int, int, int, int]


def is_excluded(relpath: str, patterns: tuple[str, ...]) -> bool:
    """Whether the root-relative POSIX ``relpath`` matches one of the ``exclude`` patterns
    (a glob, or a directory it lies in)."""
    for pattern in patterns:
        pat = pattern.rstrip("/")
        if fnmatch.fnmatchcase(relpath, pat) or relpath.startswith(pat + "/"):
            return True
    return False


def module_file(root: str | os.PathLike[str], module: str) -> Path | None:
    """The source file of dotted ``module`` under source root ``root`` (``a/b.py`` or
    ``a/b/__init__.py``, namespace packages included), found without importing it, or None."""
    base = Path(root, *module.split("."))
    for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def module_name_for(relative_to_root: str) -> tuple[str | None, bool]:
    """Map a POSIX path relative to a source root to ``(module name or None, is_package)``."""
    parts = relative_to_root.split("/")
    if not parts or not parts[-1].endswith(".py"):
        return None, False
    stem = parts[-1][:-3]
    is_package = stem == "__init__"
    names = parts[:-1] if is_package else [*parts[:-1], stem]
    if not names or not all(name.isidentifier() for name in names):
        return None, is_package
    return ".".join(names), is_package


def _relpath(path: str, project_root: str) -> str:
    prefix = project_root.rstrip(os.sep) + os.sep
    if path.startswith(prefix):
        rel = path[len(prefix) :]
        return rel if os.sep == "/" else rel.replace(os.sep, "/")
    try:
        rel = os.path.relpath(path, project_root)
    except ValueError:
        return Path(path).as_posix()
    if rel.startswith(".."):
        return Path(os.path.abspath(path)).as_posix()
    return Path(rel).as_posix()


def _entry(path: str, project_root: str, roots: tuple[str, ...]) -> SourceFile:
    problem: str | None = None
    fingerprint = (0, 0, 0, 0)
    try:
        st = os.stat(path)
    except OSError as exc:
        problem = f"cannot stat: {exc.strerror or exc}"
    else:
        fingerprint = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        if stat.S_ISDIR(st.st_mode):
            problem = "is a directory, not a file"
        elif not stat.S_ISREG(st.st_mode):
            problem = "is not a regular file"
    module: str | None = None
    is_package = False
    best = -1
    for root in roots:
        prefix = root.rstrip(os.sep) + os.sep
        if path.startswith(prefix) and len(root) > best:
            best = len(root)
            module, is_package = module_name_for(_relpath(path, root))
    return SourceFile(_relpath(path, project_root), path, module, is_package, problem, fingerprint)


def _dir_id(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _walk(
    top: str, project_root: str, exclude: tuple[str, ...], out: list[str], problems: dict[str, str]
) -> None:
    """Collect ``.py`` paths below ``top``. Symbolic links to directories are followed (a
    runtime import follows them too); a link back to a directory on its own path (a loop) is
    not, and is recorded in ``problems`` (reported as ST002)."""
    top_id = _dir_id(top)
    stack: list[tuple[str, frozenset[tuple[int, int]]]] = [
        (top, frozenset({top_id}) if top_id else frozenset())
    ]
    while stack:
        current, ancestors = stack.pop()
        try:
            with os.scandir(current) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            if current.endswith(".py"):
                out.append(current)
            continue
        for entry in entries:
            rel = _relpath(entry.path, project_root)
            if is_excluded(rel, exclude):
                continue
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError:
                is_link, is_dir = False, False
            if is_dir:
                if entry.name.startswith(".") or entry.name in _SKIP_DIRS:
                    continue
                if entry.name.endswith(".py"):
                    out.append(entry.path)  # reported: a directory named like a module file
                    continue
                ident = _dir_id(entry.path) if is_link else None
                if is_link and (ident is None or ident in ancestors):
                    out.append(entry.path)
                    problems[entry.path] = (
                        "a symlink loop (links to a directory that contains it), not followed"
                    )
                    continue
                if ident is None:
                    try:
                        st = entry.stat(follow_symlinks=False)
                        ident = (st.st_dev, st.st_ino)
                    except OSError:
                        continue
                stack.append((entry.path, ancestors | {ident}))
            elif entry.name.endswith(".py"):
                out.append(entry.path)
            elif is_link and not os.path.exists(entry.path):
                continue  # a dangling link not named like a module is not a module


def discover(
    project_root: str,
    source_roots: tuple[str, ...],
    paths: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
) -> list[SourceFile]:
    """Return every ``.py`` file under the source roots plus the explicit ``paths``.

    Explicit paths may be files (any name) or directories. Raises ``FileNotFoundError`` for an
    explicit path that does not exist at all (not even as a dangling link).
    """
    roots = tuple(os.path.realpath(r) for r in source_roots)
    project_root = os.path.realpath(project_root)
    found: list[str] = []
    problems: dict[str, str] = {}
    for root in roots:
        if os.path.isdir(root):
            _walk(root, project_root, exclude, found, problems)
    for path in paths:
        if not os.path.lexists(path):
            raise FileNotFoundError(path)
        if os.path.isdir(path) and not os.path.islink(path) and not path.endswith(".py"):
            _walk(os.path.realpath(path), project_root, exclude, found, problems)
        else:
            parent, name = os.path.split(os.path.abspath(path))
            found.append(os.path.join(os.path.realpath(parent), name))
    seen: set[str] = set()
    files: list[SourceFile] = []
    for path in found:
        apath = path if os.path.isabs(path) and os.sep + "." not in path else os.path.abspath(path)
        if apath in seen:
            continue
        seen.add(apath)
        entry = _entry(apath, project_root, roots)
        if path in problems:
            entry = SourceFile(
                entry.relpath, entry.abspath, None, False, problems[path], entry.fingerprint
            )
        files.append(entry)
    files.sort(key=lambda f: f.relpath)
    return files


#: :func:`discover` under the name the public API gives it (``sealed_trace.lint.discover`` is
#: this module).
discover_files = discover


def read_bytes(path: str, limit: int) -> bytes:
    """Read a regular file, refusing more than ``limit`` bytes.

    Raises ``OSError`` (for example ELOOP, EACCES, EISDIR) or ``ValueError`` when too large.
    Non-regular files are refused before opening, so a FIFO never blocks the lint.
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError("is not a regular file")
    if st.st_size > limit:
        raise ValueError(f"is {st.st_size} bytes, above max_file_bytes = {limit}")
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"grew above max_file_bytes = {limit} while being read")
    return data
