"""The kernel's boundary, checked statically: the plugin's markers and the lint engine itself.

The marked tests are checks in their own right: a marker fails its test with the lint's
findings. The same policies are also run through the lint engine directly below.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kernel.practice import PracticeReport

from sealed_trace.lint.config import load_config, parse_config
from sealed_trace.lint.engine import lint

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = (
    "kernel.frame",
    "kernel.assessment",
    "kernel.residuals",
    "kernel.gate",
    "kernel.budget",
    "kernel.search",
    "kernel.replay",
    "kernel.identity",
    "kernel.records",
)
SEALING_MAY_IMPORT = ["__future__", "sealed_trace", "kernel.records"]
SEALING_MUST_NOT_USE = [
    "time.*",
    "datetime.*",
    "random.*",
    "uuid.*",
    "os",
    "os.*",
    "kernel.search",
    "kernel.replay",
    "kernel.practice",
]
OUTCOME_FACING = (
    "kernel.practice.PracticeReport",
    "kernel.records.PracticeEpisode",
    "kernel.records.CandidateAttempt",
    "kernel.records.ReplayAdapterResult",
    "kernel.sealing",
)


@pytest.mark.sealed_trace_forbid_imports(
    "kernel.sealing", allowed=SEALING_MAY_IMPORT, forbidden=SEALING_MUST_NOT_USE
)
def test_sealing_imports_only_its_surface():
    import kernel.sealing

    assert kernel.sealing.__all__ == ["PracticeTraceOutcome", "build_episode", "seal_episode"]


@pytest.mark.parametrize(
    "module",
    [
        pytest.param(
            m,
            marks=[
                pytest.mark.sealed_trace_forbid_imports(
                    m, forbidden=["sealed_trace", "kernel.sealing", "kernel.practice"]
                )
            ],
        )
        for m in UPSTREAM
    ],
)
def test_upstream_never_imports_the_sealing_side(module):
    assert module.startswith("kernel.")


@pytest.mark.sealed_trace_forbid_fields(*OUTCOME_FACING)
def test_outcome_facing_types_have_no_adr_forbidden_fields():
    assert OUTCOME_FACING


@pytest.mark.sealed_trace_forbid_fields(PracticeReport, fields=["answer", "result", "score"])
def test_the_practice_report_carries_no_answer():
    assert "outcome" in PracticeReport.__dataclass_fields__


def _lint(tree: pytest.Config, **boundary: object) -> list[str]:
    """Findings of one ad-hoc boundary over the tree under test, as ``path:line:col RULE
    message``: the source roots of the rootdir's own policy (this kernel's, or a tree built on
    it, such as ``../kernel_violations/``)."""
    policy = load_config(tree.rootpath / "pyproject.toml")
    section = {
        "source_roots": [os.path.relpath(root, policy.root) for root in policy.source_roots],
        "exclude": ["tests"],
        "cache_dir": False,
        "boundary": [{"name": "check", "upstream": [], **boundary}],
    }
    config = parse_config(section, policy.root, "tests/test_boundary_markers.py")
    return [
        f"{f.path}:{f.line}:{f.column} {f.code} {f.message}"
        for f in lint(config, use_cache=False, jobs=1).findings
    ]


def test_lint_sealing_surface(pytestconfig):
    assert (
        _lint(
            pytestconfig,
            module="kernel.sealing",
            allowed_imports=SEALING_MAY_IMPORT,
            banned=SEALING_MUST_NOT_USE,
        )
        == []
    )


def test_lint_sealing_with_adr_preset_and_no_reverse_imports(pytestconfig):
    assert (
        _lint(
            pytestconfig,
            module="kernel.sealing",
            preset="adr-0230",
            allowed_imports=SEALING_MAY_IMPORT,
            upstream=list(UPSTREAM),
        )
        == []
    )


@pytest.mark.parametrize("module", ["kernel.practice", "kernel.records", "kernel.sealing"])
def test_lint_outcome_facing_modules_have_no_forbidden_fields(pytestconfig, module):
    findings = _lint(
        pytestconfig, module=module, preset="adr-0230", allowed_imports=["kernel", "sealed_trace"]
    )
    st5 = [f for f in findings if " ST5" in f]
    # runnable is an input field of the original assessment (sealing-policy §2), never output.
    allowed = "ContractAssessmentProjection declares forbidden field 'runnable'"
    assert [f for f in st5 if allowed not in f] == []
    assert len(st5) == (module == "kernel.records")


def test_lint_catches_a_reverse_import(tmp_path):
    """The same policy on a copy with ``from . import sealing`` in the gate finds it."""
    for source in (ROOT / "kernel").glob("*.py"):
        text = source.read_text(encoding="utf-8")
        if source.name == "gate.py":
            text += "\n\ndef _peek():\n    from . import sealing\n\n    return sealing\n"
        (tmp_path / "kernel").mkdir(exist_ok=True)
        (tmp_path / "kernel" / source.name).write_text(text, encoding="utf-8")
    section = {
        "source_roots": ["."],
        "cache_dir": False,
        "boundary": [{"name": "check", "module": "kernel.sealing", "upstream": list(UPSTREAM)}],
    }
    config = parse_config(section, str(tmp_path), "copy")
    codes = {(f.path, f.code) for f in lint(config, use_cache=False, jobs=1).findings}
    assert ("kernel/gate.py", "ST401") in codes
