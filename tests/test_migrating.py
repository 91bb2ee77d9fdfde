"""Issue 18, item 2: every example of ``docs/migrating.md`` runs.

For each example, the hand-written test and its replacement run with pytester on a small
kernel package: both pass on it as it is; then the page's change is applied, and the
replacement fails on it (with the rule the page names) while the original passes, or, for a
false alarm, the original fails and the replacement passes.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "migrating.md").read_text("utf-8")
NO_CACHE = ("-p", "no:cacheprovider")

KERNEL = {
    "kern/__init__.py": "",
    "kern/records.py": """
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class Residual:
            residual_id: str
            code: str
        """,
    "kern/helpers.py": """
        def normalize(text):
            return text.strip().lower()
        """,
    "kern/gate.py": """
        from dataclasses import dataclass

        from kern.helpers import normalize
        from kern.records import Residual


        @dataclass(frozen=True)
        class GateDecision:
            decision_id: str
            eligible: bool


        def decide_gate(residual: Residual) -> GateDecision:
            return GateDecision(normalize(residual.residual_id), residual.code != "")
        """,
    "kern/budget.py": """
        \"\"\"Compute budget for a gate decision.\"\"\"

        import hashlib
        import json
        from dataclasses import dataclass

        from kern.gate import GateDecision


        @dataclass(frozen=True)
        class BudgetDecision:
            budget_id: str
            max_steps: int


        def decide_budget(gate: GateDecision) -> BudgetDecision:
            digest = hashlib.sha256(json.dumps([gate.decision_id]).encode()).hexdigest()
            return BudgetDecision(digest, 4 if gate.eligible else 0)
        """,
    "kern/search.py": """
        from kern.budget import BudgetDecision


        def run_search(budget: BudgetDecision) -> list[str]:
            return [f"candidate-{i}" for i in range(budget.max_steps)]
        """,
    "kern/engine/__init__.py": "",
    "kern/engine/run.py": """
        from kern.budget import decide_budget
        from kern.gate import decide_gate
        from kern.search import run_search


        def run(residual):
            return run_search(decide_budget(decide_gate(residual)))
        """,
    "kern/sealing.py": """
        \"\"\"Seal an episode's evidence.\"\"\"

        import hashlib
        import json
        from dataclasses import dataclass


        @dataclass(frozen=True)
        class SealedTrace:
            trace_id: str
            residual_ids: tuple[str, ...]


        @dataclass(frozen=True)
        class TraceRefusal:
            reason: str


        def seal(residuals):
            if not residuals:
                return TraceRefusal("no residuals")
            ids = tuple(r.residual_id for r in residuals)
            return SealedTrace(hashlib.sha256(json.dumps(ids).encode()).hexdigest(), ids)
        """,
}

#: The rule each example's replacement reports on the page's change ("" for a false alarm).
CAUGHT_BY = {
    1: "ST101",
    2: "ST201",
    3: "ST201",
    4: "ST201",
    5: "ST501",
    6: "ST501",
    7: "ST402",
    8: "ST401",
    9: "ST403",
    10: "ST201",
    11: "",
}

_CHANGE = re.compile(r"^# (?P<path>kern/\S+\.py): (?P<kind>slips past the original|a false alarm)")


@dataclass(frozen=True)
class Example:
    number: int
    title: str
    original: str
    replacement: str
    changes: dict[str, str]
    false_alarm: bool


def _examples() -> list[Example]:
    examples = []
    for match in re.finditer(r"^## (\d+)\. (.*?)\n(.*?)(?=^## |\Z)", PAGE, re.S | re.M):
        blocks = re.findall(r"^```python\n(.*?)^```", match.group(3), re.S | re.M)
        by_kind = {b.splitlines()[0]: b for b in blocks}
        changes = {}
        false_alarm = False
        for block in blocks:
            head = _CHANGE.match(block)
            if head:
                changes[head.group("path")] = block
                false_alarm = false_alarm or head.group("kind") == "a false alarm"
        examples.append(
            Example(
                int(match.group(1)),
                match.group(2),
                by_kind["# original"],
                by_kind["# replacement"],
                changes,
                false_alarm,
            )
        )
    return examples


EXAMPLES = _examples()


def test_the_page_has_at_least_ten_examples_each_with_its_parts() -> None:
    assert len(EXAMPLES) >= 10
    assert [e.number for e in EXAMPLES] == list(range(1, len(EXAMPLES) + 1))
    assert set(CAUGHT_BY) == {e.number for e in EXAMPLES}
    for example in EXAMPLES:
        assert example.changes, example.title
        # The summary table names each example.
        assert re.search(rf"^\| {example.number} \| ", PAGE, re.M)


def _write(pytester: pytest.Pytester, files: dict[str, str]) -> None:
    for relpath, source in files.items():
        path = pytester.path / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")


def _passed(pytester: pytest.Pytester) -> tuple[dict[str, bool], str]:
    """Run both test files at once: whether each passed, and the output."""
    result = pytester.runpytest_subprocess("-rA", "-p", "sealed_trace", *NO_CACHE)
    out = result.stdout.str()
    passed = {
        name: f"PASSED {name}::" in out and f"FAILED {name}::" not in out
        for name in ("test_original.py", "test_replacement.py")
    }
    return passed, out


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.number}")
def test_the_example_runs_and_the_replacement_catches_more(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, example: Example
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # no stale bytecode after a change
    _write(pytester, KERNEL)
    (pytester.path / "test_original.py").write_text(example.original, encoding="utf-8")
    (pytester.path / "test_replacement.py").write_text(example.replacement, encoding="utf-8")
    passed, out = _passed(pytester)  # as the kernel is, both pass
    assert passed == {"test_original.py": True, "test_replacement.py": True}, out
    _write(pytester, example.changes)
    passed, out = _passed(pytester)
    if example.false_alarm:
        assert passed == {"test_original.py": False, "test_replacement.py": True}, out
    else:
        assert passed == {"test_original.py": True, "test_replacement.py": False}, out
        assert f" {CAUGHT_BY[example.number]} " in out, out
