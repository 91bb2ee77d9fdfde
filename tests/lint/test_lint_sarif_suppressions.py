"""Issue 18, item 4: SARIF marks the findings that are not failures, when asked to.

``--include-suppressed`` adds them to the log with a ``suppressions`` entry: ``inSource`` for
a suppression comment (its reason as the justification), ``external`` for an ignore entry of
the policy or the baseline.
"""

from __future__ import annotations

import json

import pytest
from lint_project import Project
from test_lint_cli import _cli

IGNORED = """
[[tool.sealed_trace.ignore]]
path = "src/pkg/up/a.py"
codes = ["ST401"]
reason = "the legacy importer, removed next release"
"""


@pytest.fixture
def adopted(project: Project) -> Project:
    """One finding of each kind: silenced inline, by an ignore entry, by the baseline."""
    project.write(
        "src/pkg/sealed.py",
        "import os  # sealed-trace: ignore[ST102] -- the seed is read once, at import\n"
        "import time\n",
    )
    project.write("src/pkg/up/a.py", "from pkg import sealed\n")
    project.top_toml += IGNORED
    baseline = project.root / "lint-baseline.json"
    assert _cli(project, "--write-baseline", str(baseline))[0] == 0
    project.top_toml = 'baseline = "lint-baseline.json"\n' + project.top_toml
    return project


def _results(out: str) -> list[dict[str, object]]:
    results: list[dict[str, object]] = json.loads(out)["runs"][0]["results"]
    return results


def test_sarif_leaves_suppressed_findings_out_by_default(adopted: Project) -> None:
    code, out, _ = _cli(adopted, "--format", "sarif")
    assert code == 0
    assert _results(out) == []


def test_sarif_marks_every_suppressed_finding_with_its_reason(adopted: Project) -> None:
    code, out, _ = _cli(adopted, "--format", "sarif", "--include-suppressed")
    assert code == 0  # suppressed findings are not failures
    shown = sorted(
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],  # type: ignore[index]
            r["locations"][0]["physicalLocation"]["region"]["startLine"],  # type: ignore[index]
            json.dumps(r["suppressions"]),
        )
        for r in _results(out)
    )
    assert shown == [
        (
            "ST102",
            "src/pkg/sealed.py",
            1,
            '[{"kind": "inSource", "justification": "the seed is read once, at import"}]',
        ),
        (
            "ST102",
            "src/pkg/sealed.py",
            2,
            '[{"kind": "external", "justification": "recorded in the baseline '
            'lint-baseline.json"}]',
        ),
        (
            "ST401",
            "src/pkg/up/a.py",
            1,
            '[{"kind": "external", "justification": "ignore[0]: the legacy importer, removed '
            'next release"}]',
        ),
    ]


def test_include_suppressed_needs_sarif(adopted: Project) -> None:
    code, out, err = _cli(adopted, "--include-suppressed")
    assert (code, out) == (2, "")
    assert "--include-suppressed needs --format sarif" in err
