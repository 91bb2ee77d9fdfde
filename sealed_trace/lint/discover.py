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
    problem, fingerprint = _stat_facts(path)
    module, is_package = _module_in_roots(path, roots)
    return SourceFile(_relpath(path, project_root), path, module, is_package, problem, fingerprint)


def _stat_facts(path: str) -> tuple[str | None, tuple[int, int, int, int]]:
    """``(why path cannot be read as a file or None, its fingerprint)``."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"cannot stat: {exc.strerror or exc}", (0, 0, 0, 0)
    fingerprint = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
    if stat.S_ISDIR(st.st_mode):
        return "is a directory, not a file", fingerprint
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file", fingerprint
    return None, fingerprint


def _module_in_roots(path: str, roots: tuple[str, ...]) -> tuple[str | None, bool]:
    """``(module name or None, is_package)`` of ``path`` under the longest root holding it."""
    module: str | None = None
    is_package = False
    best = -1
    for root in roots:
        prefix = root.rstrip(os.sep) + os.sep
        if path.startswith(prefix) and len(root) > best:
            best = len(root)
            module, is_package = module_name_for(_relpath(path, root))
    return module, is_package


def _dir_id(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


#: A directory still to list, and the identities ``(st_dev, st_ino)`` of the directories on its
#: path (itself included), which a followed link must not lead back to.
_Pending = tuple[str, frozenset[tuple[int, int]]]

_LOOP = "a symlink loop (links to a directory that contains it), not followed"


@dataclass(slots=True)
class _Walk:
    """Collects ``.py`` paths below a directory into ``out``; a path that cannot be read as a
    module gets its reason in ``problems`` (reported as ST002)."""

    project_root: str
    exclude: tuple[str, ...]
    out: list[str]
    problems: dict[str, str]

    def run(self, top: str) -> None:
        """Walk ``top`` depth first, each directory's entries in name order."""
        top_id = _dir_id(top)
        stack: list[_Pending] = [(top, frozenset({top_id}) if top_id else frozenset())]
        while stack:
            current, ancestors = stack.pop()
            for entry in self._entries(current):
                pending = self._visit(entry, ancestors)
                if pending is not None:
                    stack.append(pending)

    def _entries(self, current: str) -> list[os.DirEntry[str]]:
        """The entries of ``current`` sorted by name; none when it cannot be listed (then a
        path named like a module is kept, to be reported)."""
        try:
            with os.scandir(current) as it:
                return sorted(it, key=lambda e: e.name)
        except OSError:
            if current.endswith(".py"):
                self.out.append(current)
            return []

    def _visit(
        self, entry: os.DirEntry[str], ancestors: frozenset[tuple[int, int]]
    ) -> _Pending | None:
        """Keep a module file, or return a directory still to list. Anything else (a
        dangling link not named like a module included) is not a module."""
        if is_excluded(_relpath(entry.path, self.project_root), self.exclude):
            return None
        is_link, is_dir = _kind(entry)
        if is_dir:
            return self._directory(entry, is_link, ancestors)
        if entry.name.endswith(".py"):
            self.out.append(entry.path)
        return None

    def _directory(
        self, entry: os.DirEntry[str], is_link: bool, ancestors: frozenset[tuple[int, int]]
    ) -> _Pending | None:
        """A directory to descend into, or None: hidden and tool directories are skipped, a
        directory named like a module file is kept to be reported."""
        if entry.name.startswith(".") or entry.name in _SKIP_DIRS:
            return None
        if entry.name.endswith(".py"):
            self.out.append(entry.path)  # reported: a directory named like a module file
            return None
        ident = self._linked_dir_id(entry, ancestors) if is_link else _entry_id(entry)
        if ident is None:
            return None
        return entry.path, ancestors | {ident}

    def _linked_dir_id(
        self, entry: os.DirEntry[str], ancestors: frozenset[tuple[int, int]]
    ) -> tuple[int, int] | None:
        """The identity of the directory a link leads to; None (recorded as a loop) when it
        cannot be told or is on the link's own path."""
        ident = _dir_id(entry.path)
        if ident is None or ident in ancestors:
            self.out.append(entry.path)
            self.problems[entry.path] = _LOOP
            return None
        return ident


def _kind(entry: os.DirEntry[str]) -> tuple[bool, bool]:
    """``(is a symbolic link, is a directory or a link to one)``; both False when unknown."""
    try:
        return entry.is_symlink(), entry.is_dir(follow_symlinks=True)
    except OSError:
        return False, False


def _entry_id(entry: os.DirEntry[str]) -> tuple[int, int] | None:
    """The identity of a directory that is not a link, or None when it cannot be stat'ed."""
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return None
    return st.st_dev, st.st_ino


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
    walk = _Walk(project_root, exclude, [], {})
    for root in roots:
        if os.path.isdir(root):
            walk.run(root)
    for path in paths:
        _add_explicit(path, walk)
    files = _source_files(walk.out, walk.problems, project_root, roots)
    files.sort(key=lambda f: f.relpath)
    return files


def _add_explicit(path: str, walk: _Walk) -> None:
    """Walk an explicit directory, or keep an explicit file (its parent resolved, its own name
    kept, so a link to a file is linted under its name). Raises ``FileNotFoundError``."""
    if not os.path.lexists(path):
        raise FileNotFoundError(path)
    if os.path.isdir(path) and not os.path.islink(path) and not path.endswith(".py"):
        walk.run(os.path.realpath(path))
    else:
        parent, name = os.path.split(os.path.abspath(path))
        walk.out.append(os.path.join(os.path.realpath(parent), name))


def _source_files(
    found: list[str], problems: dict[str, str], project_root: str, roots: tuple[str, ...]
) -> list[SourceFile]:
    """One :class:`SourceFile` per distinct absolute path of ``found``, first seen first; a
    path with a walk problem has no module and that problem."""
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
