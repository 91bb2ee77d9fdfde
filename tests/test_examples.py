"""The bundled example episodes seal (or refuse) as their expected outcome documents say."""

from __future__ import annotations

import json
from pathlib import Path

import independent as ind
import pytest

from sealed_trace.episode_json import encode_outcome, seal_document

EPISODES = Path(__file__).resolve().parent.parent / "examples" / "episodes"
SEALED = sorted((EPISODES / "sealed").glob("*.json"))
REFUSED = sorted((EPISODES / "refused").glob("*.json"))
#: Documents sealed under the default adr-0230 layout: ``independent`` recomputes those
#: payloads. Bound documents (``"identity_layout": "adr-0233"``) are recomputed
#: independently in test_bound_episodes.py.
ADR_0230_SEALED = [p for p in SEALED if "identity_layout" not in json.loads(p.read_text())]


def test_every_sealed_disposition_has_an_example():
    dispositions = {
        json.loads((EPISODES / "expected" / f"{p.stem}.outcome.json").read_text())[
            "practice_disposition"
        ]
        for p in SEALED
    }
    assert dispositions == set(ind.SEALED_DISPOSITIONS)


@pytest.mark.parametrize("path", SEALED + REFUSED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_example_outcome_is_byte_identical_to_its_expected_document(path):
    expected = (EPISODES / "expected" / f"{path.stem}.outcome.json").read_bytes()
    outcome = seal_document(path.read_bytes())
    assert encode_outcome(outcome) == expected
    kind = "sealed" if path.parent.name == "sealed" else "refused"
    assert outcome.practice_disposition.value.startswith("sealed_") == (kind == "sealed")


@pytest.mark.parametrize("path", ADR_0230_SEALED, ids=lambda p: p.stem)
def test_sealed_example_ids_recompute_independently(path):
    document = json.loads(path.read_text())
    assert ind.id_mismatches(_attrs(document)) == []
    expected = json.loads((EPISODES / "expected" / f"{path.stem}.outcome.json").read_text())
    assert expected["trace_id"] == ind.trace_id(_attrs(document))


@pytest.mark.parametrize("path", SEALED, ids=lambda p: p.stem)
def test_sealed_example_spans_are_exact_in_the_problem_text(path):
    document = json.loads(path.read_text())
    text = document["problem_frame"]["problem_text"]
    expected = json.loads((EPISODES / "expected" / f"{path.stem}.outcome.json").read_text())
    assert expected["evidence_spans"], "every example carries evidence"
    for span in expected["evidence_spans"]:
        assert text[span["start"] : span["end"]] == span["text"] != ""


def test_disagreement_example_preserves_both_closed_results_and_selects_none():
    document = json.loads((EPISODES / "sealed" / "08-disagreement.json").read_text())
    closed = [
        r
        for r in document["replay_results"]
        if r["replay_disposition"] == "contract_and_proof_closed"
    ]
    assert len(closed) == 2
    assert closed[0]["candidate_digest"] != closed[1]["candidate_digest"]
    outcome = json.loads((EPISODES / "expected" / "08-disagreement.outcome.json").read_text())
    assert outcome["replay_result_ids"] == [
        r["replay_result_id"] for r in document["replay_results"]
    ]
    assert not set(outcome) & set(ind.FORBIDDEN_OUTPUT_FIELDS)


class _Ns:
    """Attribute view of a decoded JSON object, arrays as tuples (how the sealer reads it)."""

    def __init__(self, mapping: dict) -> None:
        for key, value in mapping.items():
            setattr(self, key, _wrap(value, key))


def _wrap(value: object, key: str = "") -> object:
    if isinstance(value, dict) and key != "facts":
        return _Ns(value)
    if isinstance(value, list):
        return tuple(_wrap(v) for v in value)
    return value


def _attrs(document: dict) -> object:
    ns = _Ns(document)
    for key in ("geometric_search_run", "search_run_refusal"):
        if not hasattr(ns, key):
            setattr(ns, key, None)
    return ns
