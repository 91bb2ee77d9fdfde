"""JSON format: ``{"schema_version": "sealed_trace.lint.v1", "findings": [...], ...}``.

Each finding object has ``id`` (stable 16-hex, :meth:`Finding.finding_id`), ``fingerprint``
(line-independent), ``path``, ``line``, ``column``, ``code``, ``rule`` (kebab name),
``message`` and ``boundary``; a reverse-dependency finding also has ``chains``: the shortest
chain of each upstream module its import makes reach the sealed module. Output is sorted and
ends with a newline.
"""

from __future__ import annotations

import json

from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.findings import finding_ids, occurrence_fingerprints

__all__ = ["SCHEMA_VERSION", "render"]

SCHEMA_VERSION = "sealed_trace.lint.v1"


def render(result: LintResult, tool_version: str) -> str:
    """Return the JSON document."""
    ids = finding_ids(result.findings)
    prints = occurrence_fingerprints(result.findings)
    document = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "sealed-trace", "version": tool_version},
        "summary": {"findings": len(result.findings), "files_checked": result.checked},
        "findings": [
            {
                "id": ident,
                "fingerprint": fingerprint,
                "path": f.path,
                "line": f.line,
                "column": f.column,
                "code": f.code,
                "rule": f.rule_name,
                "message": f.message,
                "boundary": f.boundary,
                **({"chains": list(f.chains)} if f.chains else {}),
            }
            for f, ident, fingerprint in zip(result.findings, ids, prints, strict=True)
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
