"""`show` draws a bound trace's bindings (ADR-0232, ADR-0233; sealing-policy §10): each
binding in the identity tree, above the attempt it carries, and beside each attempt."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sealed_trace import cli

ROOT = Path(__file__).resolve().parents[1]
BOUND = sorted((ROOT / "examples" / "episodes" / "expected").glob("*-bound-*.outcome.json"))


def _episode(outcome: Path) -> Path:
    return ROOT / "examples" / "episodes" / "sealed" / outcome.name.replace(".outcome", "")


def _show(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert cli.main(["show", *args]) == 0
    return capsys.readouterr().out


def test_there_are_bound_examples() -> None:
    assert len(BOUND) >= 2


@pytest.mark.parametrize("outcome", BOUND, ids=lambda p: p.name)
@pytest.mark.parametrize("with_episode", [True, False])
def test_each_binding_sits_above_the_attempt_it_carries(
    capsys: pytest.CaptureFixture[str], outcome: Path, with_episode: bool
) -> None:
    document = json.loads(outcome.read_text(encoding="utf-8"))
    args = [str(outcome), str(_episode(outcome))] if with_episode else [str(outcome)]
    lines = _show(capsys, *args).splitlines()
    attempts = document["candidate_attempt_ids"]
    bindings = document["candidate_attempt_binding_ids"]
    assert len(bindings) == len(attempts) > 0
    for index, (attempt, binding) in enumerate(zip(attempts, bindings, strict=True)):
        at = next(
            i
            for i, line in enumerate(lines)
            if re.search(rf"attempt run binding {binding[:12]}\b", line)
        )
        assert f"carries candidate attempt #{index} into the original run" in lines[at]
        assert f"candidate attempt #{index} {attempt[:12]}" in lines[at + 1]
        assert lines[at + 1].index("candidate attempt") > lines[at].index("attempt run binding")


@pytest.mark.parametrize("outcome", BOUND, ids=lambda p: p.name)
def test_each_attempt_names_its_binding_in_text_and_html(
    capsys: pytest.CaptureFixture[str], outcome: Path
) -> None:
    document = json.loads(outcome.read_text(encoding="utf-8"))
    text = _show(capsys, str(outcome), str(_episode(outcome)))
    row = next(line for line in text.splitlines() if line.strip().startswith("bound by"))
    assert row.split()[2:] == [b[:12] for b in document["candidate_attempt_binding_ids"][:3]]
    page = _show(capsys, str(outcome), str(_episode(outcome)), "--format", "html")
    for binding in document["candidate_attempt_binding_ids"]:
        assert f'binding <span class="id">{binding[:12]}</span>' in page


def test_an_unbound_trace_shows_no_binding(capsys: pytest.CaptureFixture[str]) -> None:
    outcome = ROOT / "examples" / "episodes" / "expected" / "07-multi-attempt.outcome.json"
    out = _show(capsys, str(outcome), str(_episode(outcome)))
    assert "attempt run binding" not in out
    assert "bound by" not in out
