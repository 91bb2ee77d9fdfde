"""The two identity layouts, chosen explicitly everywhere (sealing-policy §10): in the API,
the episode document, the command line; outcomes say which made them, so verify and show
need no flag.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from sealed_trace import IdentityLayout, SealedPracticeTrace, seal
from sealed_trace.builder import build_episode
from sealed_trace.cli import main
from sealed_trace.episode_json import encode_episode, seal_document

EPISODE = build_episode("sealed_contract_closed_proof_refused", attempts=2)


def _sha(payload: object) -> str:
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _input_payload(trace: SealedPracticeTrace, binding_ids: bool) -> dict[str, object]:
    payload: dict[str, object] = {
        "trace_policy_version": trace.trace_policy_version,
        "problem_frame_digest": trace.problem_frame_digest,
        "original_contract_assessment_id": trace.original_contract_assessment_id,
        "residual_ids": list(trace.residual_ids),
        "search_gate_decision_id": trace.search_gate_decision_id,
        "compute_budget_id": trace.compute_budget_id,
        "geometric_search_run_id": trace.geometric_search_run_id,
        "candidate_attempt_ids": list(trace.candidate_attempt_ids),
        "replay_result_ids": list(trace.replay_result_ids),
        "replay_refusal_ids": list(trace.replay_refusal_ids),
        "schema_versions": [list(pair) for pair in EPISODE.schema_versions],
        "policy_versions": [list(pair) for pair in EPISODE.policy_versions],
    }
    if binding_ids:
        payload["candidate_attempt_binding_ids"] = []
    return payload


@pytest.mark.parametrize("layout", ["adr-0230", "adr-0233", *IdentityLayout])
def test_the_layout_is_chosen_and_named_in_the_outcome(layout: object) -> None:
    outcome = seal(EPISODE, layout=layout)  # type: ignore[arg-type]
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.identity_layout.value == str(getattr(layout, "value", layout))
    with_bindings = outcome.identity_layout is IdentityLayout.ADR_0233
    assert outcome.input_digest == _sha(_input_payload(outcome, with_bindings))


def test_the_default_layout_is_adr_0230_and_the_layouts_differ_only_in_ids() -> None:
    default, old, new = (
        seal(EPISODE),
        seal(EPISODE, layout="adr-0230"),
        seal(EPISODE, layout="adr-0233"),
    )
    assert default == old
    assert isinstance(new, SealedPracticeTrace)
    assert isinstance(old, SealedPracticeTrace)
    assert new.trace_id != old.trace_id
    assert new.input_digest != old.input_digest
    assert new.practice_disposition == old.practice_disposition
    assert new.upstream_identity_chain == old.upstream_identity_chain  # no bindings here


@pytest.mark.parametrize("layout", ["adr-0231", "", None, 233, "ADR-0233"])
def test_an_unknown_layout_is_a_typed_error(layout: object) -> None:
    with pytest.raises(ValueError, match="identity layout must be one of adr-0230, adr-0233"):
        seal(EPISODE, layout=layout)  # type: ignore[arg-type]


def _document(layout: str | None) -> bytes:
    document = json.loads(encode_episode(EPISODE))
    if layout is not None:
        document["identity_layout"] = layout
    return json.dumps(document).encode()


def test_a_document_names_its_layout_and_the_caller_may_not_contradict_it() -> None:
    named = seal_document(_document("adr-0233"))
    assert named == seal(EPISODE, layout="adr-0233")
    assert seal_document(_document("adr-0233"), layout="adr-0233") == named
    assert seal_document(_document(None), layout="adr-0233") == named
    from sealed_trace.episode_json import DocumentError

    with pytest.raises(DocumentError, match="names identity layout adr-0233, not adr-0230"):
        seal_document(_document("adr-0233"), layout="adr-0230")


@pytest.mark.parametrize("value", ["adr-0231", 7, None, ["adr-0233"]])
def test_a_document_naming_no_layout_refuses(value: object) -> None:
    document = json.loads(encode_episode(EPISODE))
    document["identity_layout"] = value
    outcome = seal_document(json.dumps(document).encode())
    assert "malformed_episode_document" in outcome.reason_codes  # type: ignore[union-attr]


def test_the_command_line_seals_under_a_layout_and_verifies_without_a_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    episode = tmp_path / "episode.json"
    episode.write_bytes(_document(None))
    assert main(["seal", "--layout", "adr-0233", str(episode)]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["identity_layout"] == "adr-0233"
    outcome = tmp_path / "outcome.json"
    outcome.write_text(out, encoding="utf-8")
    assert main(["verify", str(outcome), str(episode)]) == 0
    capsys.readouterr()
    assert main(["seal", str(episode)]) == 0
    assert json.loads(capsys.readouterr().out)["identity_layout"] == "adr-0230"
    named = tmp_path / "named.json"
    named.write_bytes(_document("adr-0233"))
    assert main(["seal", "--layout", "adr-0230", str(named)]) == 2
    assert "names identity layout adr-0233" in capsys.readouterr().err


ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "episodes"


@pytest.mark.parametrize("command", ["verify", "show"])
def test_an_episode_of_another_layout_than_the_outcome_is_a_difference(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The outcome names its layout; an episode document naming another one cannot seal to
    it: exit 1 (different), saying both layouts, not a usage error."""
    outcome = EXAMPLES / "expected" / "06-candidate-replay-closed.outcome.json"
    episode = EXAMPLES / "sealed" / "09-bound-candidate-replay-closed.json"
    assert main([command, str(outcome), str(episode)]) == 1
    err = capsys.readouterr().err
    assert "adr-0233" in err
    assert "adr-0230" in err
    assert "not an episode document" not in err


@pytest.mark.parametrize(
    ("name", "layout"),
    [("06-candidate-replay-closed", "adr-0230"), ("09-bound-candidate-replay-closed", "adr-0233")],
)
def test_show_names_the_layout_that_made_the_outcome(
    name: str, layout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = EXAMPLES / "expected" / f"{name}.outcome.json"
    assert main(["show", str(outcome)]) == 0
    assert re.search(rf"identity layout: +{layout} ", capsys.readouterr().out)
