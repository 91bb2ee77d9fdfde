"""Which file each first-party module name means, as Python's import finds it.

The first source root (in ``source_roots`` order) that holds a module wins, and there a
package (``x/__init__.py``) wins over a module file (``x.py``). A package beside a module of
the same name in the same root is *shadowing*: the compiled scanner would read the module
where Python imports the package, so the lint parses such packages itself.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass

from sealed_trace.lint.discover import SourceFile

__all__ = ["Layout"]


@dataclass(frozen=True)
class Layout:
    """The module layout of one run's ``files``.

    ``by_path``: each file by its root-relative path; ``roots``: the longest source root each
    file lies in (None outside every root); ``modules``: each first-party module name to the
    path of the file Python imports under it; ``packages``: the modules that are packages;
    ``shadowing``: the packages beside a module of the same name."""

    files: tuple[SourceFile, ...]
    by_path: dict[str, SourceFile]
    roots: dict[str, str | None]
    modules: dict[str, str]
    packages: frozenset[str]
    shadowing: frozenset[str]

    @classmethod
    def of(cls, files: Sequence[SourceFile], source_roots: Sequence[str]) -> Layout:
        """The layout of ``files`` under ``source_roots`` (absolute directories)."""
        roots = [os.path.realpath(r) for r in source_roots]
        where = {f.relpath: _root_of(f.abspath, roots) for f in files}
        modules: dict[str, str] = {}
        ranked: dict[str, tuple[int, int, str]] = {}
        for f in files:
            if f.module is None:
                continue
            root = where[f.relpath]
            rank = (roots.index(root) if root in roots else len(roots), int(not f.is_package))
            if f.module not in ranked or (*rank, f.relpath) < ranked[f.module]:
                ranked[f.module] = (*rank, f.relpath)
                modules[f.module] = f.relpath
        plain = {(f.module, where[f.relpath]) for f in files if not f.is_package}
        shadowing = frozenset(
            m for m, rank in ranked.items() if rank[1] == 0 and (m, where[modules[m]]) in plain
        )
        packages = frozenset(
            f.module
            for f in files
            if f.module is not None and f.is_package and modules.get(f.module) == f.relpath
        )
        by_path = {f.relpath: f for f in files}
        return cls(tuple(files), by_path, where, modules, packages, shadowing)

    def owns(self, file: SourceFile) -> bool:
        """Whether ``file`` is the one Python imports under its module name."""
        return file.module is not None and self.modules.get(file.module) == file.relpath

    def key(self, *salt: object) -> str:
        """A digest of the layout (and ``salt``): what the scan's resolution of every import
        depends on besides the importing file itself."""
        rows = sorted(
            (f.relpath, f.module or "", f.is_package, self.roots[f.relpath] or "")
            for f in self.files
        )
        text = json.dumps([rows, [str(s) for s in salt]], separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def _root_of(path: str, roots: list[str]) -> str | None:
    """The longest source root ``path`` lies in."""
    best: str | None = None
    for root in roots:
        if path.startswith(root.rstrip(os.sep) + os.sep) and (
            best is None or len(root) > len(best)
        ):
            best = root
    return best
