"""The sealed-trace command line: exit statuses, one-line errors, byte-stable outcomes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import independent as ind
import pytest

from sealed_trace.builder import build_episode
from sealed_trace.cli import main
from sealed_trace.episode_json import encode_episode
from sealed_trace.reasons import REASON_CODES, markdown_table

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def episode_file(tmp_path: Path) -> Path:
    path = tmp_path / "episode.json"
    path.write_bytes(encode_episode(build_episode()))
    return path


def test_seal_prints_the_outcome_and_exits_0(episode_file, capsysbinary):
    assert main(["seal", str(episode_file)]) == 0
    out = capsysbinary.readouterr().out
    document = json.loads(out)
    assert document["trace_id"] == ind.trace_id(build_episode())
    assert out == (ind.canonical(document) + "\n").encode()


def test_seal_of_a_refused_episode_exits_1(tmp_path, capsysbinary):
    document = json.loads(encode_episode(build_episode()))
    document["geometric_search_run"]["run_id"] = "0" * 64
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(document))
    assert main(["seal", str(path)]) == 1
    outcome = json.loads(capsysbinary.readouterr().out)
    assert outcome["practice_disposition"] == "trace_identity_mismatch"
    assert "run_id_mismatch" in outcome["reason_codes"]


def test_seal_reads_stdin(episode_file):
    result = subprocess.run(
        [sys.executable, "-m", "sealed_trace", "seal", "-"],
        input=episode_file.read_bytes(),
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["practice_disposition"] == "sealed_candidate_replay_closed"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [(b"\xff\xfe", "not UTF-8"), (b"{", "not JSON"), (b"", "not JSON")],
)
def test_seal_of_a_non_json_file_is_a_one_line_usage_error(tmp_path, capsys, content, fragment):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    assert main(["seal", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert fragment in err
    assert str(path) in err
    assert "Traceback" not in err


@pytest.mark.parametrize("target", ["missing.json", "."])
def test_seal_of_an_unreadable_path_is_a_usage_error(tmp_path, capsys, target):
    assert main(["seal", str(tmp_path / target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sealed-trace: error: cannot read")
    assert err.count("\n") == 1


def test_verify_same_and_different(episode_file, tmp_path, capsysbinary):
    assert main(["seal", str(episode_file)]) == 0
    outcome = tmp_path / "outcome.json"
    outcome.write_bytes(capsysbinary.readouterr().out)
    assert main(["verify", str(outcome), str(episode_file)]) == 0
    capsysbinary.readouterr()
    original = outcome.read_bytes()
    outcome.write_bytes(original.replace(b"Sealed as", b"Sealed  as"))
    assert main(["verify", str(outcome), str(episode_file)]) == 1
    err = capsysbinary.readouterr().err.decode()
    assert err.count("\n") == 1
    assert err.rstrip().endswith("in explanation")
    outcome.write_bytes(original.rstrip(b"\n") + b" \n")  # same values, other bytes
    assert main(["verify", str(outcome), str(episode_file)]) == 1
    assert "in its bytes only" in capsysbinary.readouterr().err.decode()


def test_verify_with_an_unreadable_outcome_is_a_usage_error(episode_file, tmp_path, capsys):
    assert main(["verify", str(tmp_path / "none.json"), str(episode_file)]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("code", sorted(REASON_CODES))
def test_explain_knows_every_reason_code(code, capsys):
    assert main(["explain", code]) == 0
    out = capsys.readouterr().out
    assert out.startswith(code)
    assert REASON_CODES[code][0] in out


def test_explain_knows_dispositions(capsys):
    assert main(["explain", "trace_identity_mismatch"]) == 0
    assert "run_id_mismatch" in capsys.readouterr().out


def test_explain_unknown_is_exit_2(capsys):
    assert main(["explain", "no_such_code"]) == 2
    assert "unknown" in capsys.readouterr().err


def test_reason_code_document_is_the_generated_table(capsys):
    assert main(["explain", "--all"]) == 0
    generated = capsys.readouterr().out
    assert generated.startswith(markdown_table())
    assert (ROOT / "docs" / "reason-codes.md").read_text() == generated


def test_explain_all_lists_every_builtin_lint_rule(capsys):
    from sealed_trace.lint.catalog import BUILTIN_RULES

    assert main(["explain", "--all"]) == 0
    out = capsys.readouterr().out
    rows = [
        line for line in out.split("## Lint rules", 1)[1].splitlines() if line.startswith("| [`ST")
    ]
    assert [row.split("`")[1] for row in rows] == [info.code for info in BUILTIN_RULES]
    assert len(rows) >= 22


def test_every_reason_code_belongs_to_a_refusal_family():
    assert {family for family, _ in REASON_CODES.values()} == set(ind.REFUSAL_DISPOSITIONS)


def test_bad_usage_is_exit_2_without_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "sealed_trace", "seal"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "error:" in result.stderr


def test_rules_lists_every_lint_rule(capsys) -> None:  # type: ignore[no-untyped-def]
    from sealed_trace.cli import main
    from sealed_trace.lint.catalog import RULES

    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    codes = [line.split()[0] for line in lines]
    assert codes == sorted(RULES)
    assert {"ST104", "ST403", "ST404"} <= set(codes)
    assert any(line.split()[:2] == ["ST201", "banned-call"] for line in lines)


@pytest.mark.parametrize("command", ["seal", "verify", "explain", "rules", "lint", "init", "show"])
def test_every_subcommand_help_says_what_it_does_and_its_exit_codes(command, capsys):
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Exit 0" in out, out
    assert "2 " in out.split("Exit 0", 1)[1] or command == "rules"
