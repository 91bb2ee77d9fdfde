"""Issue 18, item 3: the rough edges a new user met in `show`, `explain`, `seal` and `verify`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sealed_trace import cli
from sealed_trace.episode_json import DocumentError, decode_outcome, encode_outcome
from sealed_trace.reasons import DISPOSITION_MEANINGS
from sealed_trace.trace import PracticeDisposition, SealedPracticeTrace
from sealed_trace.trace._outcome import chain_of

ROOT = Path(__file__).resolve().parents[1]
EPISODES = ROOT / "examples" / "episodes"
OUTCOMES = sorted((EPISODES / "expected").glob("*.outcome.json"))
DISAGREEMENT = (
    EPISODES / "expected" / "08-disagreement.outcome.json",
    EPISODES / "sealed" / "08-disagreement.json",
)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _tree(out: str) -> list[str]:
    lines = out.split("Upstream identity chain", 1)[1].splitlines()[1:]
    return lines[: lines.index("")]


def test_show_runs_without_the_lint_package() -> None:
    code = (
        "import sys\n"
        "from sealed_trace.cli import main\n"
        f"status = main(['show', {str(DISAGREEMENT[0])!r}, {str(DISAGREEMENT[1])!r}])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('sealed_trace.lint'))\n"
        "print('LOADED', loaded, status)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("LOADED [] 0")


def test_every_residual_has_its_connector_and_code_and_the_gate_binds_all(capsys) -> None:
    status, out, _ = _run(capsys, "show", *map(str, DISAGREEMENT))
    assert status == 0
    tree = _tree(out)
    residuals = [line for line in tree if "residual " in line and "gate" not in line]
    assert len(residuals) == 2
    assert all(line.lstrip().startswith("├─ residual") for line in residuals)
    assert "direction_unbound" in residuals[0]
    assert "changed_object_unbound" in residuals[1]
    gate = next(line for line in tree if "search gate decision" in line)
    assert gate.lstrip().startswith("└─ search gate decision")
    assert "binds all 2 residuals above" in gate
    # The gate sits at the residuals' depth, below the last of them.
    assert gate.index("└─") == residuals[0].index("├─")
    assert tree.index(gate) == tree.index(residuals[-1]) + 1


def test_a_null_run_is_labelled_a_run_refusal(tmp_path: Path, capsys) -> None:
    episode = json.loads((EPISODES / "sealed" / "01-original-refusal.json").read_text("utf-8"))
    episode["geometric_search_run"] = None
    episode_path = tmp_path / "episode.json"
    episode_path.write_text(json.dumps(episode), encoding="utf-8")
    status, sealed, _ = _run(capsys, "seal", str(episode_path))
    assert status == 0
    outcome_path = tmp_path / "outcome.json"
    outcome_path.write_text(sealed, encoding="utf-8")
    status, out, _ = _run(capsys, "show", str(outcome_path), str(episode_path))
    assert status == 0
    run = [line for line in _tree(out) if "search run" in line]
    assert len(run) == 1
    assert "search run refusal" in run[0]
    assert "(blocked_by_gate)" in run[0]


def test_the_span_list_names_the_record_of_each_span(capsys) -> None:
    _, out, _ = _run(capsys, "show", *map(str, DISAGREEMENT))
    listed = out.split("Evidence spans", 1)[1].split("Upstream identity chain")[0]
    assert "  #  from  " in listed
    for source in (
        "contract assessment",
        "residual #0",
        "residual #1",
        "candidate attempt #0",
        "candidate attempt #1",
        "replay result #0",
        "replay result #1",
    ):
        assert source in listed
    _, alone, _ = _run(capsys, "show", str(DISAGREEMENT[0]))
    assert "contract assessment" not in alone.split("Evidence spans", 1)[1].split("Upstream")[0]


@pytest.mark.parametrize("disposition", [d.value for d in PracticeDisposition])
def test_explain_gives_a_disposition_the_meaning_show_gives(capsys, disposition: str) -> None:
    means, does_not = DISPOSITION_MEANINGS[disposition]
    status, out, _ = _run(capsys, "explain", disposition)
    assert status == 0
    assert f"means:         {means}\n" in out
    assert f"does not mean: {does_not}\n" in out


def test_show_prints_the_same_meaning_as_explain(capsys) -> None:
    _, out, _ = _run(capsys, "show", *map(str, DISAGREEMENT))
    means, does_not = DISPOSITION_MEANINGS["sealed_candidate_replay_closed"]
    assert f"means:         {means}" in out
    assert f"does not mean: {does_not}" in out


def test_show_format_pdf_names_the_allowed_formats(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["show", "--format", "pdf", str(DISAGREEMENT[0])])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert "'pdf'" in err
    assert "text" in err
    assert "html" in err
    assert "sealed-trace --help" not in err


def test_sealing_an_empty_object_says_the_format_key_is_missing(tmp_path: Path, capsys) -> None:
    path = tmp_path / "empty.json"
    path.write_text("{}", encoding="utf-8")
    status, out, _ = _run(capsys, "seal", str(path))
    assert status == 1
    explanation = json.loads(out)["explanation"]
    assert "format is None" not in explanation
    assert 'has no format key: an episode document names its format, "format": ' in explanation


def test_verify_and_show_word_binary_input_alike(tmp_path: Path, capsys) -> None:
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{}")
    outcome, episode = map(str, DISAGREEMENT)
    words = {}
    for name, argv in {
        "verify-outcome": ("verify", str(binary), episode),
        "show-outcome": ("show", str(binary), episode),
        "verify-episode": ("verify", outcome, str(binary)),
        "show-episode": ("show", outcome, str(binary)),
    }.items():
        status, _, err = _run(capsys, *argv)
        assert status == 2
        words[name] = err
    assert words["verify-outcome"] == words["show-outcome"]
    assert "not an outcome document (not UTF-8, byte 0)" in words["show-outcome"]
    assert words["verify-episode"] == words["show-episode"]
    assert "not an episode document (not UTF-8" in words["show-episode"]


@pytest.mark.parametrize("path", OUTCOMES, ids=lambda p: p.name.removesuffix(".outcome.json"))
def test_the_outcome_decoder_inverts_the_encoder(path: Path) -> None:
    data = path.read_bytes()
    outcome = decode_outcome(data)
    assert encode_outcome(outcome) == data
    if isinstance(outcome, SealedPracticeTrace):  # the chain order, written once
        assert chain_of(outcome, outcome.identity_layout) == outcome.upstream_identity_chain


def test_the_outcome_decoder_refuses_a_reordered_chain() -> None:
    document = json.loads(DISAGREEMENT[0].read_bytes())
    document["upstream_identity_chain"].reverse()
    with pytest.raises(DocumentError, match="not its record ids in pipeline order"):
        decode_outcome(json.dumps(document).encode())
