"""SARIF 2.1.0 format for GitHub code scanning.

Every rule that ran is declared in ``tool.driver.rules`` (with ``ruleIndex`` on each result;
``helpUri`` to the rule's section of ``docs/lint.md`` and the driver's ``informationUri`` when
the distribution declares a ``Documentation`` URL),
locations are repo-relative URIs against ``%SRCROOT%``, columns count Unicode code points, and
``partialFingerprints["sealedTrace/v1"]`` is the line-independent fingerprint with an
occurrence index (two findings with the same anchor in one file differ), so an alert survives
code moving up or down. A reverse-dependency result's ``properties.chains`` lists the shortest
chain of each upstream module its import makes reach the sealed module.

Asked to (``sealed-trace lint --format sarif --include-suppressed``), the log also holds the
findings that are not failures, each with a ``suppressions`` entry saying why: ``inSource``
for a ``# sealed-trace: ignore[...] -- reason`` comment (its reason as the justification),
``external`` for the baseline or an ignore entry of the policy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple
from urllib.parse import quote

from sealed_trace.lint import catalog
from sealed_trace.lint.catalog import RULES, RuleInfo, help_anchor
from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.findings import Finding, occurrence_fingerprints

__all__ = ["SARIF_SCHEMA", "Suppressed", "render"]


class Suppressed(NamedTuple):
    """A finding that is not a failure: ``kind`` is SARIF's ``inSource`` or ``external``,
    ``justification`` the reason given for it."""

    finding: Finding
    kind: str
    justification: str


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _rule(info: RuleInfo, docs: str | None) -> dict[str, object]:
    rule: dict[str, object] = {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.explanation},
        "help": {"text": info.explanation},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["sealed-trace", "boundary"]},
    }
    if docs is not None:
        rule["helpUri"] = f"{docs}#{help_anchor(info)}"
    return rule


def _result(f: Finding, rule_index: int, fingerprint: str) -> dict[str, object]:
    if f.path.startswith("/"):  # a file outside the project root, named explicitly
        artifact: dict[str, str] = {"uri": "file://" + quote(f.path)}
    else:
        artifact = {"uri": quote(f.path), "uriBaseId": "%SRCROOT%"}
    return {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": f.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": {"startLine": f.line, "startColumn": f.column},
                }
            }
        ],
        "partialFingerprints": {"sealedTrace/v1": fingerprint},
        **({"properties": {"chains": list(f.chains)}} if f.chains else {}),
    }


def render(result: LintResult, tool_version: str, suppressed: Sequence[Suppressed] = ()) -> str:
    """Return the SARIF log as JSON text; ``suppressed`` findings are added with their
    ``suppressions`` entry."""
    infos = _rules_declared(result, suppressed)
    index = {info.code: i for i, info in enumerate(infos)}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": _driver(tool_version, infos)},
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "repository root"}}},
                "results": _results(result, suppressed, index),
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _rules_declared(result: LintResult, suppressed: Sequence[Suppressed]) -> list[RuleInfo]:
    """Every rule of the catalog and every code a result has, in code order (a code the
    catalog does not know is declared by its code alone)."""
    codes = sorted(
        set(RULES) | {f.code for f in (*result.findings, *(s.finding for s in suppressed))}
    )
    return [RULES.get(code) or RuleInfo(code, code.lower(), code, code) for code in codes]


def _results(
    result: LintResult, suppressed: Sequence[Suppressed], index: dict[str, int]
) -> list[dict[str, object]]:
    """The failures, then the ``suppressed`` findings with their ``suppressions`` entry."""
    prints = occurrence_fingerprints(result.findings)
    results = [
        _result(f, index[f.code], fingerprint)
        for f, fingerprint in zip(result.findings, prints, strict=True)
    ]
    hidden = [s.finding for s in suppressed]
    for entry, fingerprint in zip(suppressed, occurrence_fingerprints(hidden), strict=True):
        shown = _result(entry.finding, index[entry.finding.code], fingerprint)
        shown["suppressions"] = [{"kind": entry.kind, "justification": entry.justification}]
        results.append(shown)
    return results


def _driver(tool_version: str, infos: list[RuleInfo]) -> dict[str, object]:
    """``tool.driver``: the tool, its documentation when declared, and the rules."""
    docs = catalog.docs_url()
    driver: dict[str, object] = {
        "name": "sealed-trace",
        "version": tool_version,
        "semanticVersion": tool_version,
    }
    if docs is not None:
        driver["informationUri"] = docs
    driver["rules"] = [_rule(info, docs) for info in infos]
    return driver
