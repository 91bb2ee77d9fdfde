"""The lint's cache: the last run, and what is known of each file (never pickle: a planted
cache file must not run code).

Two JSON files in ``cache_dir``:

* :data:`RUN_FILE`, small: the last run's key (engine version, policy, rules, selection,
  installed environment), every file's stat fingerprint and the run's findings. When nothing
  changed, the warm path reads this file alone and answers without reading any source file.
* :data:`KNOWN_FILE`: facts by content hash (what a parse found), and per file, under a key
  of the tree's module layout, its stat fingerprint with what the screen, the scan and the
  hiding check found in it. An edit re-reads and re-scans only the files whose fingerprint
  changed (all of them when a module was added, removed or moved: the scan resolves imports
  against the whole layout).

Writes are atomic (a temporary file renamed over the old one); a cache that cannot be read
or written is ignored, never an error. The directory holds a ``.gitignore`` and a
``CACHEDIR.TAG`` (backup tools skip it).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from typing import Any

__all__ = ["ENGINE_VERSION", "KNOWN_FILE", "RUN_FILE", "LintCache"]

#: The engine's version: part of every cache key, so a new engine never reads an old
#: engine's facts or findings (bump it when what a pass finds, or how, changes).
ENGINE_VERSION = "12"

#: The last run (the warm path); its name is its format's version.
RUN_FILE = "lint-v1.json"
#: Facts and per-file records (read on a cache miss only).
KNOWN_FILE = "known-v1.json"
_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by sealed-trace.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


class LintCache:
    """The cache in ``directory`` (None: no cache; nothing is read or written)."""

    def __init__(self, directory: str | None) -> None:
        self.directory = directory
        self._known: dict[str, Any] | None = None

    def last_run(self) -> dict[str, Any]:
        """The last run's record (empty when there is none or it cannot be read)."""
        return self._read(RUN_FILE)

    def known(self) -> dict[str, Any]:
        """What is known of the files: ``{"facts": {key: facts}, "files": {"layout": key,
        "records": {relpath: record}}}`` (empty parts when there is nothing)."""
        if self._known is None:
            self._known = self._read(KNOWN_FILE)
        return self._known

    def facts(self) -> dict[str, Any]:
        """Facts by content key (see :meth:`.store.FactStore.cache_key`)."""
        value = self.known().get("facts")
        return value if isinstance(value, dict) else {}

    def records(self, layout: str) -> dict[str, Any]:
        """Per-file records of the module layout ``layout`` (empty for another layout)."""
        files = self.known().get("files")
        if not isinstance(files, dict) or files.get("layout") != layout:
            return {}
        records = files.get("records")
        return records if isinstance(records, dict) else {}

    def save(self, run: dict[str, Any], known: dict[str, Any]) -> None:
        """Write the run's record and what is known now (silently nothing when the directory
        cannot be written)."""
        if self.directory is None:
            return
        with contextlib.suppress(OSError):
            os.makedirs(self.directory, exist_ok=True)
            for name, text in ((".gitignore", "*\n"), ("CACHEDIR.TAG", _TAG)):
                path = os.path.join(self.directory, name)
                if not os.path.exists(path):
                    with open(path, "w", encoding="utf-8") as handle:
                        handle.write(text)
            _write(self.directory, KNOWN_FILE, known)
            _write(self.directory, RUN_FILE, run)

    def _read(self, name: str) -> dict[str, Any]:
        if self.directory is None:
            return {}
        with contextlib.suppress(OSError, ValueError):
            with open(os.path.join(self.directory, name), encoding="utf-8") as handle:
                loaded = json.load(handle)
            if isinstance(loaded, dict):
                return loaded
        return {}


def _write(directory: str, name: str, data: dict[str, Any]) -> None:
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, separators=(",", ":")))
        os.replace(tmp, os.path.join(directory, name))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
