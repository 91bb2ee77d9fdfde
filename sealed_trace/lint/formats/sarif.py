"""SARIF 2.1.0 format for GitHub code scanning.

Every rule that ran is declared in ``tool.driver.rules`` (with ``ruleIndex`` on each result),
locations are repo-relative URIs against ``%SRCROOT%``, columns count Unicode code points, and
``partialFingerprints["sealedTrace/v1"]`` is the line-independent fingerprint with an
occurrence index (two findings with the same anchor in one file differ), so an alert survives
code moving up or down.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from sealed_trace.lint.catalog import RULES, RuleInfo
from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.findings import occurrence_fingerprints

__all__ = ["SARIF_SCHEMA", "render"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _rule(info: RuleInfo) -> dict[str, object]:
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.explanation},
        "help": {"text": info.explanation},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["sealed-trace", "boundary"]},
    }


def render(result: LintResult, tool_version: str) -> str:
    """Return the SARIF log as JSON text."""
    codes = sorted(set(RULES) | {f.code for f in result.findings})
    infos = [RULES.get(code) or RuleInfo(code, code.lower(), code, code) for code in codes]
    index = {info.code: i for i, info in enumerate(infos)}
    results = []
    prints = occurrence_fingerprints(result.findings)
    for f, fingerprint in zip(result.findings, prints, strict=True):
        if f.path.startswith("/"):  # a file outside the project root, named explicitly
            artifact: dict[str, str] = {"uri": "file://" + quote(f.path)}
        else:
            artifact = {"uri": quote(f.path), "uriBaseId": "%SRCROOT%"}
        results.append({
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "error",
            "message": {"text": f.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": {"startLine": f.line, "startColumn": f.column},
                }
            }],
            "partialFingerprints": {"sealedTrace/v1": fingerprint},
        })
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sealed-trace",
                "version": tool_version,
                "semanticVersion": tool_version,
                "rules": [_rule(info) for info in infos],
            }},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "repository root"}}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
