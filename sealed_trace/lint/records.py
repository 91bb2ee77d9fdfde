"""What one run learnt of each file, kept for the next run (the cache's per-file records).

A record holds a file's stat fingerprint with what the screen (:mod:`.screen`), the scan
(:mod:`.grimp_scan`) and the hiding check (:mod:`.hiding`) found in it. The next run takes
them back for each file whose fingerprint is unchanged, under the same module layout (the
cache keys the records by :meth:`.layout.Layout.key`): an edit costs a read and a scan of
the edited files, not of the tree. A record that does not decode is ignored (the file is read
again).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from sealed_trace.lint.discover import SourceFile
from sealed_trace.lint.grimp_scan import StaticGraph
from sealed_trace.lint.hiding import Hiding
from sealed_trace.lint.layout import Layout
from sealed_trace.lint.screen import Screened

__all__ = ["Records"]

#: What a malformed record raises while it is decoded.
_MALFORMED = (KeyError, IndexError, TypeError, ValueError, AttributeError)


class Records:
    """The cached records of one layout (``stored``: relpath -> record), and this run's
    scan (``scans``) and hiding checks (``hidings``), to be stored in turn."""

    def __init__(self, stored: Mapping[str, Any], layout: Layout) -> None:
        self.stored = stored
        self.layout = layout
        self.scans = StaticGraph({}, {}, set(), {})
        self.hidings: dict[str, Hiding] = {}
        #: the stored scan row of each module whose scan was taken back (stored again as is)
        self._scan_rows: dict[str, Any] = {}

    def _valid(self, file: SourceFile) -> list[Any] | None:
        record = self.stored.get(file.relpath)
        if (
            file.problem is None
            and isinstance(record, list)
            and len(record) == 4
            and record[0] == list(file.fingerprint)
        ):
            return record
        return None

    def screened(self, file: SourceFile) -> Screened | None:
        """The screen of ``file`` when it is unchanged, else None."""
        record = self._valid(file)
        if record is None:
            return None
        with contextlib.suppress(*_MALFORMED):
            error, marker, exact, lines = record[1]
            return Screened(
                (str(error[0]), int(error[1]), int(error[2]), str(error[3])) if error else None,
                bool(marker),
                bool(exact),
                None if lines is None else frozenset(int(n) for n in lines),
            )
        return None

    def scanned(self, files: Iterable[SourceFile]) -> StaticGraph:
        """The cached scan of each of ``files`` that is unchanged."""
        graph = StaticGraph({}, {}, set(), {})
        for file in files:
            record = self._valid(file)
            if record is None or record[2] is None or file.module is None:
                continue
            with contextlib.suppress(*_MALFORMED):
                edges, external, state = record[2]
                module = file.module
                graph.edges[module] = tuple((str(t), int(n)) for t, n in edges)
                graph.external[module] = frozenset(str(e) for e in external)
                if state == "u":
                    graph.unresolved.add(module)
                elif state.startswith("f:"):
                    graph.failed[module] = state[2:]
                self._scan_rows[module] = record[2]
        return graph

    def hiding(self, path: str) -> Hiding | None:
        """What the file at ``path`` may hide: this run's answer, or the cached one of an
        unchanged file; None when neither is known."""
        found = self.hidings.get(path)
        if found is not None:
            return found
        record = self._valid(self.layout.by_path[path])
        if record is None or record[3] is None:
            return None
        with contextlib.suppress(*_MALFORMED):
            dynamic, star, words = record[3]
            found = Hiding(bool(dynamic), bool(star), frozenset(w.encode("latin-1") for w in words))
            self.hidings[path] = found
        return found

    def dump(self, screens: Mapping[str, Screened]) -> dict[str, Any]:
        """Every file's record, for the cache (a scan taken back is stored as it was read)."""
        return {
            f.relpath: [
                list(f.fingerprint),
                _screen_row(screens[f.relpath]),
                self._scan_row(f),
                self._hiding_row(f.relpath),
            ]
            for f in self.layout.files
            if f.problem is None and f.relpath in screens
        }

    def _scan_row(self, file: SourceFile) -> list[Any] | None:
        module = file.module
        if module is None or not self.layout.owns(file) or module not in self.scans.edges:
            return None
        if module in self._scan_rows:
            return self._scan_rows[module]  # type: ignore[no-any-return]
        state = (
            "u"
            if module in self.scans.unresolved
            else f"f:{self.scans.failed[module]}"
            if module in self.scans.failed
            else ""
        )
        return [
            [list(edge) for edge in self.scans.edges[module]],
            sorted(self.scans.external.get(module, ())),
            state,
        ]

    def _hiding_row(self, path: str) -> list[Any] | None:
        found = self.hidings.get(path)
        if found is None:
            return None
        return [found.dynamic, found.star, sorted(w.decode("latin-1") for w in found.words)]


def _screen_row(screened: Screened) -> list[Any]:
    lines = screened.unknown_lines
    return [
        list(screened.error) if screened.error else None,
        screened.marker,
        screened.exact_only,
        None if lines is None else sorted(lines),
    ]
