"""Finding values produced by the boundary lint (issue 3, "Findings").

A :class:`Finding` is an immutable value: repo-relative POSIX ``path``, 1-based ``line`` and
``column``, a rule ``code`` (``ST201``) and a ``message``. ``anchor`` is the line-independent
text the finding is about (for example the qualified name ``time.time``); together with path,
code and boundary it gives :meth:`Finding.fingerprint`, which survives the finding moving to
another line. :meth:`Finding.finding_id` additionally includes the line and column, so it is
unique within one report and stable across runs. ``chains`` (reverse dependencies) lists,
for each upstream module the finding's import makes reach the sealed module, its shortest
chain; it is neither compared nor fingerprinted.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from sealed_trace.lint.catalog import lookup_rule

__all__ = ["Finding", "finding_ids", "occurrence_fingerprints", "sort_findings"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One lint finding; see the module docstring for the field meanings."""

    path: str
    line: int
    column: int
    code: str
    message: str
    anchor: str = ""
    boundary: str = ""
    chains: tuple[str, ...] = field(default=(), compare=False)

    @property
    def rule_name(self) -> str:
        """The kebab name of :attr:`code` (``banned-call``), or the code when unknown."""
        info = lookup_rule(self.code)
        return info.name if info is not None else self.code

    def fingerprint(self) -> str:
        """A 32-hex digest of path, code, boundary and anchor (no line or column)."""
        text = "\x1f".join((self.path, self.code, self.boundary, self.anchor or self.message))
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def finding_id(self) -> str:
        """A stable 16-hex id: the fingerprint plus the position."""
        text = f"{self.fingerprint()}:{self.line}:{self.column}"
        return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]

    def to_dict(self) -> dict[str, object]:
        """The JSON object of this finding (used by the json format and the cache)."""
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "message": self.message,
            "anchor": self.anchor,
            "boundary": self.boundary,
            "chains": list(self.chains),
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Finding:
        """Inverse of :meth:`to_dict`; raises ``KeyError``/``TypeError`` on a bad object."""
        line, column = data["line"], data["column"]
        if not isinstance(line, int) or not isinstance(column, int):
            raise TypeError("line and column must be integers")
        return cls(
            path=str(data["path"]),
            line=line,
            column=column,
            code=str(data["code"]),
            message=str(data["message"]),
            anchor=str(data.get("anchor", "")),
            boundary=str(data.get("boundary", "")),
            chains=tuple(str(c) for c in _list(data.get("chains"))),
        )


def _list(value: object) -> list[object]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError("chains must be a list")
    return value


def occurrence_fingerprints(findings: list[Finding] | tuple[Finding, ...]) -> list[str]:
    """Per finding, its fingerprint made unique within the report: the n-th finding (in the
    given, sorted, order) with the same path, code, boundary and anchor gets occurrence index
    n folded in (the first keeps :meth:`Finding.fingerprint`). Moving code up or down keeps
    the order, so the fingerprints survive line moves; two ``open(...)`` calls in one file no
    longer collide."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for finding in findings:
        base = finding.fingerprint()
        index = seen.get(base, 0)
        seen[base] = index + 1
        if index == 0:
            out.append(base)
        else:
            text = f"{base}:{index}"
            out.append(hashlib.sha256(text.encode("ascii")).hexdigest()[:32])
    return out


def finding_ids(findings: list[Finding] | tuple[Finding, ...]) -> list[str]:
    """Per finding, a 16-hex id unique within the report and stable across runs: the
    occurrence fingerprint plus the position."""
    out = []
    for finding, fingerprint in zip(findings, occurrence_fingerprints(findings), strict=True):
        text = f"{fingerprint}:{finding.line}:{finding.column}"
        out.append(hashlib.sha256(text.encode("ascii")).hexdigest()[:16])
    return out


def sort_findings(findings: list[Finding] | tuple[Finding, ...]) -> list[Finding]:
    """Return the findings deduplicated and sorted by path, line, column, code, message."""
    unique = set(findings)
    return sorted(unique, key=lambda f: (f.path, f.line, f.column, f.code, f.message, f.boundary))
