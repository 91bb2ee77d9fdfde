"""The reference tables of ``docs/lint.md``, rendered from the declarations.

Each table in the document follows a marker line ``<!-- keys of NAME ... -->`` naming one of
:data:`TABLES`; :func:`with_tables` gives the document with every such table rendered afresh
from the fields (a test holds the document to it). ``python -m
sealed_trace.lint.config.reference docs/lint.md`` rewrites the file so.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from sealed_trace.lint.config.fields import (
    BOUNDARY_FIELDS,
    EDGE_KIND_FIELDS,
    IGNORE_FIELDS,
    TOP_FIELDS,
)
from sealed_trace.lint.config.table import Field

__all__ = ["TABLES", "main", "render_table", "with_tables"]

#: The tables a marker can name, by the name it uses.
TABLES: Final[dict[str, tuple[Field[Any], ...]]] = {
    "[tool.sealed_trace]": TOP_FIELDS,
    "[[tool.sealed_trace.boundary]]": BOUNDARY_FIELDS,
    "edge_kinds": EDGE_KIND_FIELDS,
    "[[tool.sealed_trace.ignore]]": IGNORE_FIELDS,
}
#: A marker line and the table below it (every following line that starts with ``|``).
_MARKED: Final = re.compile(r"^(<!-- keys of (\S+) .*-->\n)(?:\|.*\n)*", re.MULTILINE)


def render_table(fields: Sequence[Field[Any]]) -> str:
    """The Markdown table of ``fields``: one ``| key | type | default | meaning |`` row each, in
    declaration order, each line ending in a newline."""
    rows = [
        "| key | type | default | meaning |",
        "|---|---|---|---|",
        *(f"| `{f.name}` | {f.type} | {f.default_text()} | {f.doc} |" for f in fields),
    ]
    return "".join(f"{row}\n" for row in rows)


def with_tables(text: str) -> str:
    """``text`` with the table after each marker rendered from the fields it names. Raises
    KeyError for a marker naming no table of :data:`TABLES`."""
    return _MARKED.sub(lambda m: m.group(1) + render_table(TABLES[m.group(2)]), text)


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite each file named in ``argv`` (default: the command line) with its tables
    rendered afresh; print the names of those that changed. Returns the exit status, 0."""
    for name in sys.argv[1:] if argv is None else argv:
        path = Path(name)
        text = path.read_text(encoding="utf-8")
        fresh = with_tables(text)
        if fresh != text:
            path.write_text(fresh, encoding="utf-8")
            print(f"rewrote {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
