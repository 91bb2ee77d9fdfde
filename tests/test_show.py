"""`sealed-trace show`: a reviewer's view of an outcome document (sealed trace or refusal).

Expected values are computed here from the documents themselves (span offsets, ids, the ADR's
wording, REASON_CODES), never through the renderer's own helpers.
"""

from __future__ import annotations

import html
import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sealed_trace import show
from sealed_trace.builder import EpisodeSpec, build_episode
from sealed_trace.cli import main
from sealed_trace.episode_json import encode_episode, encode_outcome, seal_document
from sealed_trace.reasons import REASON_CODES
from sealed_trace.trace import PracticeDisposition

ROOT = Path(__file__).resolve().parent.parent
EPISODES = ROOT / "examples" / "episodes"
OUTCOMES = sorted((EPISODES / "expected").glob("*.outcome.json"))
FORBIDDEN = re.compile(r"answer|score|rank|best|selected|winner", re.IGNORECASE)
ESC = "\x1b"


def _episode_of(outcome: Path) -> Path:
    name = outcome.name.removesuffix(".outcome.json") + ".json"
    (found,) = [p for p in (EPISODES / "sealed" / name, EPISODES / "refused" / name) if p.exists()]
    return found


def _doc(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _short(identity: str) -> str:
    return identity[:12]


def _bracketed(text: str, spans: list[dict]) -> str:
    """The text with each maximal run of characters covered by some span in brackets."""
    covered = [False] * len(text)
    for span in spans:
        for i in range(span["start"], span["end"]):
            covered[i] = True
    out, inside = [], False
    for char, cov in zip(text, covered, strict=True):
        if cov and not inside:
            out.append("[")
        if inside and not cov:
            out.append("]")
        out.append(char)
        inside = cov
    if inside:
        out.append("]")
    return "".join(out)


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No colour settings from the environment running the tests."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def _show(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["show", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _args(outcome: Path, with_episode: bool, fmt: str) -> list[str]:
    args = [str(outcome)] + ([str(_episode_of(outcome))] if with_episode else [])
    return [*args, "--format", fmt]


# -- every example ------------------------------------------------------------------------

#: A phrase of ADR-0230's own wording of each disposition (§8.1; §4 for refusals).
ADR_PHRASE = {
    "sealed_original_refusal": "never advanced beyond the original refused assessment",
    "sealed_exhausted_no_candidate": "Budget or operator exhaustion is not correctness",
    "sealed_all_candidates_refused": "every lawful replay result reported contract_refused",
    "sealed_replay_unavailable": "every supplied replay record is an adapter refusal",
    "sealed_contract_closed_proof_refused": "reported contract_closed_but_proof_refused and none "
    "reported contract_and_proof_closed",
    "sealed_candidate_replay_closed": "replay evidence only",
    "trace_invalid_input": "A refusal is not a partial sealed trace",
    "trace_identity_mismatch": "A refusal is not a partial sealed trace",
    "trace_policy_unsupported": "A refusal is not a partial sealed trace",
    "trace_upstream_incomplete": "A refusal is not a partial sealed trace",
}


def test_every_disposition_has_a_means_and_does_not_mean_sentence() -> None:
    assert set(show.DISPOSITION_MEANINGS) == set(PracticeDisposition)
    for means, not_means in show.DISPOSITION_MEANINGS.values():
        assert means.endswith(".")
        assert not_means.endswith(".")
        assert means != not_means
    assert set(ADR_PHRASE) == {d.value for d in PracticeDisposition}


@pytest.mark.parametrize("fmt", ["text", "html"])
@pytest.mark.parametrize("with_episode", [True, False], ids=["with-episode", "outcome-only"])
@pytest.mark.parametrize("outcome", OUTCOMES, ids=lambda p: p.name.removesuffix(".outcome.json"))
def test_every_example_renders(capsys, outcome, with_episode, fmt):
    status, out, err = _show(capsys, *_args(outcome, with_episode, fmt))
    assert (status, err) == (0, "")
    document = _doc(outcome)
    disposition = document["practice_disposition"]
    assert disposition in out
    means, not_means = show.DISPOSITION_MEANINGS[PracticeDisposition(disposition)]
    escape = html.escape if fmt == "html" else str
    assert escape(means) in out
    assert escape(not_means) in out
    assert escape(ADR_PHRASE[disposition]) in out
    assert document.get("trace_id", document.get("trace_refusal_id")) in out
    problem_text = _doc(_episode_of(outcome))["problem_frame"]["problem_text"]
    if with_episode:
        assert escape(str(_episode_of(outcome))) in out
        stripped = out.replace("<mark>", "").replace("</mark>", "")
        stripped = stripped.replace("[", "").replace("]", "") if fmt == "text" else stripped
        assert escape(problem_text) in stripped
    else:
        assert "does not hold the problem text" in out
        assert problem_text not in out
    if fmt == "html":
        assert out.startswith("<!DOCTYPE html>")
        assert out.count("<html") == 1
        assert out.rstrip().endswith("</html>")
    else:
        assert re.search(r"</?[a-z]+[ >]", out) is None  # no markup in the text view


@pytest.mark.parametrize("fmt", ["text", "html"])
@pytest.mark.parametrize("with_episode", [True, False], ids=["with-episode", "outcome-only"])
@pytest.mark.parametrize("outcome", OUTCOMES, ids=lambda p: p.name.removesuffix(".outcome.json"))
def test_no_example_output_has_selection_wording(capsys, monkeypatch, outcome, with_episode, fmt):
    for colour in ("", "1"):
        if colour:
            monkeypatch.setenv("FORCE_COLOR", colour)
        status, out, _ = _show(capsys, *_args(outcome, with_episode, fmt))
        assert status == 0
        found = FORBIDDEN.search(out)
        assert found is None, (
            f"{found.group()!r} in: ...{out[found.start() - 80 : found.end() + 80]}"
        )


def test_the_selection_wording_check_can_fail():
    assert FORBIDDEN.search("Nothing is selected.")
    assert FORBIDDEN.search("<td>Best</td>")
    assert FORBIDDEN.search(json.dumps({"final_answer": 1}))


def test_help_has_no_selection_wording(capsys):
    with pytest.raises(SystemExit):
        main(["show", "--help"])
    assert FORBIDDEN.search(capsys.readouterr().out) is None


# -- evidence spans -------------------------------------------------------------------------

SEALED = [p for p in OUTCOMES if _doc(p)["outcome"] == "sealed_practice_trace"]


@pytest.mark.parametrize("outcome", SEALED, ids=lambda p: p.name.removesuffix(".outcome.json"))
def test_spans_are_bracketed_in_place_when_piped(capsys, outcome):
    spans = _doc(outcome)["evidence_spans"]
    text = _doc(_episode_of(outcome))["problem_frame"]["problem_text"]
    assert all(text[s["start"] : s["end"]] == s["text"] for s in spans)
    status, out, _ = _show(capsys, str(outcome), str(_episode_of(outcome)))
    assert status == 0
    assert ESC not in out
    expected = _bracketed(text, spans)
    assert f"    {expected}\n" in out
    assert expected.count("[") >= 1
    # Every span is listed, in trace order, duplicates kept.
    rows = [re.match(r"  \d+ +(\S.*?) +(\d+:\d+) ", line) for line in out.splitlines()]
    listed = [row.groups() for row in rows if row]
    assert [offsets for _, offsets in listed] == [f"{s['start']}:{s['end']}" for s in spans]
    # ... each with the record it was copied from (sealing-policy §5 order).
    assert listed[0][0] == "contract assessment"
    assert all(source != "-" for source, _ in listed)


def test_outcome_alone_lists_spans_as_offsets(capsys):
    outcome = EPISODES / "expected" / "06-candidate-replay-closed.outcome.json"
    status, out, _ = _show(capsys, str(outcome))
    assert status == 0
    assert "does not hold the problem text" in out
    for span in _doc(outcome)["evidence_spans"]:
        assert re.search(
            rf"\b{span['start']}:{span['end']} +\S+ +{re.escape(json.dumps(span['text']))}", out
        )
    assert "[" not in out.split("Evidence spans", 1)[0]  # nothing is bracketed


def _write_case(
    tmp_path: Path,
    name: str,
    spec: EpisodeSpec,
    disposition: str = "sealed_candidate_replay_closed",
    **kwargs,
) -> tuple[Path, Path]:
    episode = tmp_path / f"{name}.json"
    episode.write_bytes(encode_episode(build_episode(disposition, spec=spec, **kwargs)))
    outcome = tmp_path / f"{name}.outcome.json"
    outcome.write_bytes(encode_outcome(seal_document(episode.read_bytes())))
    assert _doc(outcome)["outcome"] == "sealed_practice_trace"
    return outcome, episode


OVERLAPPING = EpisodeSpec(
    problem_text="Maya had 12 marbles. She gained 5 more marbles at recess. "
    "How many marbles does Maya have now?",
    assessment_spans=("gained 5", "gained 5"),
    attempt_spans=("5 more marbles", "marbles at", "12 marbles", ".", "Maya"),
)


def test_overlapping_touching_and_duplicate_spans_merge_without_losing_text(tmp_path, capsys):
    outcome, episode = _write_case(tmp_path, "overlap", OVERLAPPING, attempts=5)
    spans = _doc(outcome)["evidence_spans"]
    text = OVERLAPPING.problem_text
    status, out, _ = _show(capsys, str(outcome), str(episode))
    assert status == 0
    expected = _bracketed(text, spans)
    assert expected == (
        "[Maya] had [12 marbles.] She [gained 5 more marbles at] recess. "
        "How many marbles does Maya have now?"
    )
    (line,) = [line for line in out.splitlines() if line.startswith("    [Maya]")]
    assert line == f"    {expected}"
    assert line.strip().replace("[", "").replace("]", "") == text
    status, page, _ = _show(capsys, str(outcome), str(episode), "--format", "html")
    (problem,) = re.findall(r'<p class="problem">(.*?)</p>', page, re.S)
    assert problem.replace("<mark>", "[").replace("</mark>", "]") == expected


# -- colour -------------------------------------------------------------------------------

CLOSED = EPISODES / "expected" / "06-candidate-replay-closed.outcome.json"


def test_force_colour_highlights_with_ansi_instead_of_brackets(capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    status, out, _ = _show(capsys, str(CLOSED), str(_episode_of(CLOSED)))
    assert status == 0
    assert "\x1b[7mgained\x1b[0m" in out
    assert "[gained]" not in out


def test_no_colour_wins_over_force_colour(capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    status, out, _ = _show(capsys, str(CLOSED), str(_episode_of(CLOSED)))
    assert status == 0
    assert ESC not in out
    assert "[gained]" in out


def test_output_file_has_no_colour(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("FORCE_COLOR", "1")
    target = tmp_path / "view.txt"
    status, out, _ = _show(
        capsys, str(CLOSED), str(_episode_of(CLOSED)), "--output-file", str(target)
    )
    assert (status, out) == (0, "")
    assert ESC not in target.read_text(encoding="utf-8")
    assert "[gained]" in target.read_text(encoding="utf-8")


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_colour_follows_the_terminal_and_the_lint_rules(monkeypatch):
    monkeypatch.setenv("TERM", "xterm")
    assert show.wants_colour(_Stream(True)) is True
    assert show.wants_colour(_Stream(False)) is False
    assert show.wants_colour(object()) is False  # no isatty at all
    monkeypatch.setenv("NO_COLOR", "1")
    assert show.wants_colour(_Stream(True)) is False
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert show.wants_colour(_Stream(False)) is True


def _script() -> str:
    found = Path(sys.executable).with_name("sealed-trace")
    return str(found) if found.exists() else (shutil.which("sealed-trace") or "sealed-trace")


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return {**env, **extra}


def test_installed_script_colours_a_terminal_and_brackets_a_pipe():
    args = [_script(), "show", str(CLOSED), str(_episode_of(CLOSED))]
    piped = subprocess.run(
        args, capture_output=True, text=True, check=False, env=_clean_env(TERM="xterm")
    )
    assert piped.returncode == 0, piped.stderr
    assert ESC not in piped.stdout
    assert "[gained]" in piped.stdout
    master, slave = pty.openpty()
    try:
        process = subprocess.run(
            args, stdout=slave, stderr=subprocess.PIPE, check=False, env=_clean_env(TERM="xterm")
        )
        os.close(slave)
        slave = -1
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other side is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
        if slave != -1:
            os.close(slave)
    assert process.returncode == 0, process.stderr
    on_terminal = b"".join(chunks).decode("utf-8")
    assert "\x1b[7mgained\x1b[0m" in on_terminal
    assert "[gained]" not in on_terminal


def test_installed_script_gives_the_same_page_as_main(capsys):
    outcome = EPISODES / "expected" / "08-disagreement.outcome.json"
    args = [str(outcome), str(_episode_of(outcome)), "--format", "html"]
    result = subprocess.run(
        [_script(), "show", *args], capture_output=True, check=False, env=_clean_env()
    )
    assert result.returncode == 0, result.stderr
    status, out, _ = _show(capsys, *args)
    assert status == 0
    assert result.stdout.decode("utf-8") == out


# -- identity chain -----------------------------------------------------------------------


def _section(out: str, title: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start + 1 : end]


@pytest.mark.parametrize("with_episode", [True, False], ids=["with-episode", "outcome-only"])
@pytest.mark.parametrize("outcome", SEALED, ids=lambda p: p.name.removesuffix(".outcome.json"))
def test_the_chain_is_a_tree_of_short_ids_in_pipeline_order(capsys, outcome, with_episode):
    document = _doc(outcome)
    status, out, _ = _show(capsys, *_args(outcome, with_episode, "text"))
    assert status == 0
    tree = _section(out, "Upstream identity chain")
    assert len(tree) == len(document["upstream_identity_chain"])
    kinds = (
        ["problem frame", "contract assessment"]
        + ["residual"] * len(document["residual_ids"])
        + ["search gate decision", "compute budget decision"]
        + [
            "search run refusal"
            if document["practice_disposition"] == "sealed_original_refusal"
            else "search run"
        ]
    )
    for line, kind, identity in zip(tree, kinds, document["upstream_identity_chain"], strict=False):
        assert re.search(rf"(^|\s){kind} {_short(identity)}\b", line), (kind, line)
        assert identity not in line  # shortened
    shown = [re.findall(r"\b[0-9a-f]{12}\b", line)[0] for line in tree]
    bound = bool(document.get("candidate_attempt_binding_ids"))
    if not with_episode and not bound:  # the outcome's own order: records, replay records
        assert shown == [_short(i) for i in document["upstream_identity_chain"]]
    else:
        assert sorted(shown) == sorted(_short(i) for i in document["upstream_identity_chain"])
        assert shown[: len(kinds)] == [
            _short(i) for i in document["upstream_identity_chain"][: len(kinds)]
        ]


def test_each_replay_record_sits_under_the_attempt_it_binds_to(capsys):
    outcome = EPISODES / "expected" / "07-multi-attempt.outcome.json"
    episode = _doc(_episode_of(outcome))
    status, out, _ = _show(capsys, str(outcome), str(_episode_of(outcome)))
    assert status == 0
    tree = _section(out, "Upstream identity chain")
    records = [
        (r["attempt_id"], "replay result", r["replay_result_id"], r["replay_disposition"])
        for r in episode["replay_results"]
    ]
    records += [
        (r["attempt_id"], "replay refusal", r["replay_refusal_id"], r["replay_disposition"])
        for r in episode["replay_refusals"]
    ]
    assert len(records) == 5
    for attempt_id, kind, record_id, disposition in records:
        (at,) = [
            i
            for i, line in enumerate(tree)
            if "candidate attempt #" in line and _short(attempt_id) in line
        ]
        assert f"{kind} {_short(record_id)}" in tree[at + 1]
        assert disposition in tree[at + 1]


# -- candidates ---------------------------------------------------------------------------

DISAGREEMENT = EPISODES / "expected" / "08-disagreement.outcome.json"


def test_disagreeing_closed_candidates_are_shown_side_by_side_as_equals(capsys):
    episode = _doc(_episode_of(DISAGREEMENT))
    attempts = episode["geometric_search_run"]["candidate_attempts"]
    closed = [
        r
        for r in episode["replay_results"]
        if r["replay_disposition"] == "contract_and_proof_closed"
    ]
    assert len({r["candidate_digest"] for r in closed}) == 2  # the example does disagree
    status, out, _ = _show(capsys, str(DISAGREEMENT), str(_episode_of(DISAGREEMENT)))
    assert status == 0
    assert "does not resolve the disagreement" in out
    rows = {
        line.split("  ")[1].strip(): line
        for line in _section(out, "Candidate attempts")[2:]
        if line.startswith("  ")
    }
    columns = re.split(r"\s{2,}", rows["replay outcome"].strip())
    assert columns == ["replay outcome", "contract_and_proof_closed", "contract_and_proof_closed"]
    ids = re.split(r"\s{2,}", rows["attempt id"].strip())[1:]
    assert ids == [_short(a["attempt_id"]) for a in attempts]  # run order, all present
    status, page, _ = _show(
        capsys, str(DISAGREEMENT), str(_episode_of(DISAGREEMENT)), "--format", "html"
    )
    cards = re.findall(r'<article class="candidate">.*?</article>', page, re.S)
    assert len(cards) == len(attempts) == 2
    for card, attempt in zip(cards, attempts, strict=True):
        assert _short(attempt["attempt_id"]) in card
        assert _short(attempt["candidate_digest"]) in card
        assert "contract_and_proof_closed" in card

    def shape(card: str) -> str:  # the card with its own values taken out
        for attempt in attempts:
            for value in (
                _short(attempt["attempt_id"]),
                _short(attempt["candidate_digest"]),
                attempt["operator_id"],
                attempt["evidence_spans"][0]["text"],
            ):
                card = card.replace(value, "V")
        card = re.sub(r"\b[0-9a-f]{12}\b", "V", card)
        return re.sub(r"#\d+", "#N", card)

    assert shape(cards[0]) == shape(cards[1])  # no card singled out in any way


def test_outcome_alone_names_attempts_and_replay_records_without_binding_them(capsys):
    outcome = EPISODES / "expected" / "07-multi-attempt.outcome.json"
    document = _doc(outcome)
    status, out, _ = _show(capsys, str(outcome))
    assert status == 0
    attempts = out.split("Candidate attempts and replay outcomes", 1)[1]
    for identity in document["candidate_attempt_ids"]:
        assert _short(identity) in attempts.split("Replay records", 1)[0]
    unbound = attempts.split("Replay records", 1)[1].splitlines()[1:]
    expected = [f"    replay result {_short(i)}" for i in document["replay_result_ids"]]
    expected += [f"    replay refusal {_short(i)}" for i in document["replay_refusal_ids"]]
    assert unbound == expected
    assert "give EPISODE to see which attempt each binds to" in out
    assert "contract_refused" not in attempts  # no outcome is claimed without the episode


# -- refusals -----------------------------------------------------------------------------

REFUSED = [p for p in OUTCOMES if _doc(p)["outcome"] == "practice_trace_refusal"]


@pytest.mark.parametrize("fmt", ["text", "html"])
@pytest.mark.parametrize("outcome", REFUSED, ids=lambda p: p.name.removesuffix(".outcome.json"))
def test_refusal_lists_each_reason_code_with_its_explanation_in_order(capsys, outcome, fmt):
    codes = _doc(outcome)["reason_codes"]
    status, out, _ = _show(capsys, *_args(outcome, True, fmt))
    assert status == 0
    escape = html.escape if fmt == "html" else str
    body = out.split("Reason codes", 1)[1]
    positions = []
    for code in codes:
        family, meaning = REASON_CODES[code]
        at = body.index(code)
        positions.append(at)
        assert escape(meaning) in body[at:]
        assert family in body[at:]
    assert positions == sorted(positions)
    assert "binds no upstream identity chain" in out


def test_refusal_with_several_codes_keeps_the_outcome_order(capsys):
    document = _doc(EPISODES / "expected" / "forged-run-id.outcome.json")
    assert document["reason_codes"] == ["run_id_mismatch", "orphan_replay_result"]
    status, out, _ = _show(capsys, str(EPISODES / "expected" / "forged-run-id.outcome.json"))
    assert status == 0
    assert out.index("run_id_mismatch (") < out.index("orphan_replay_result (")


# -- HTML ---------------------------------------------------------------------------------

EXTERNAL = (
    "<script",
    "http:",
    "https:",
    "//",
    "@import",
    "src=",
    "url(",
    "<link",
    "<img",
    "<iframe",
    "<object",
    "<embed",
    "srcset",
    "href=",
)


@pytest.mark.parametrize("outcome", OUTCOMES, ids=lambda p: p.name.removesuffix(".outcome.json"))
def test_html_is_self_contained(capsys, outcome):
    status, page, _ = _show(capsys, *_args(outcome, True, "html"))
    assert status == 0
    lowered = page.lower()
    for needle in EXTERNAL:
        assert needle not in lowered, needle
    assert lowered.count("<style>") == 1
    assert " style=" not in lowered  # inline CSS in the one <style> element only


HOSTILE = EpisodeSpec(
    problem_text='Ana had 7 <script>alert("x")</script> stamps & 2 <b>pens</b>. '
    "She lost 2 stamps. How many stamps are left?",
    assessment_spans=("lost",),
    attempt_spans=("7 <script>", "& 2 <b>"),
)


def test_hostile_problem_text_is_escaped_in_html(tmp_path, capsys):
    outcome, episode = _write_case(tmp_path, "hostile", HOSTILE)
    status, page, _ = _show(capsys, str(outcome), str(episode), "--format", "html")
    assert status == 0
    assert "<script" not in page.lower()
    assert "<b>" not in page
    unmarked = page.replace("<mark>", "").replace("</mark>", "")
    assert html.escape(HOSTILE.problem_text, quote=True) in unmarked
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in unmarked
    assert " &amp; 2 " in unmarked
    assert "<mark>7 &lt;script&gt;</mark>" in page
    assert "<mark>&amp; 2 &lt;b&gt;</mark>" in page


def test_control_characters_of_the_problem_text_are_shown_as_escapes(tmp_path, capsys):
    spec = EpisodeSpec(
        problem_text="Maya had 12 marbles.\x1b[2J She gained 5 more marbles\u202e at recess. "
        "How many marbles\u061c does Maya have now?",
    )
    outcome, episode = _write_case(tmp_path, "control", spec)
    status, out, _ = _show(capsys, str(outcome), str(episode))
    assert status == 0
    assert ESC not in out
    assert "\u202e" not in out
    assert "\u061c" not in out  # ARABIC LETTER MARK, a bidi mark of category Cf
    assert "marbles\\u061c does" in out
    assert "marbles.\\x1b[2J She [gained]" in out
    status, page, _ = _show(capsys, str(outcome), str(episode), "--format", "html")
    assert ESC not in page
    assert "\\x1b[2J" in page


def test_a_refused_episode_with_a_lone_surrogate_still_renders(tmp_path, capsys):
    text = (EPISODES / "sealed" / "06-candidate-replay-closed.json").read_text(encoding="utf-8")
    episode = tmp_path / "surrogate.json"
    episode.write_text(text.replace("Maya had", "Maya\\ud800 had", 1), encoding="utf-8")
    outcome = tmp_path / "surrogate.outcome.json"
    outcome.write_bytes(encode_outcome(seal_document(episode.read_bytes())))
    assert _doc(outcome)["outcome"] == "practice_trace_refusal"
    for fmt in ("text", "html"):
        status, out, err = _show(capsys, str(outcome), str(episode), "--format", fmt)
        assert (status, err) == (0, "")
        assert "Maya\\ud800 had" in out


# -- output file --------------------------------------------------------------------------


def test_output_file_is_the_page_written_atomically(tmp_path, capsys, monkeypatch):
    args = [str(DISAGREEMENT), str(_episode_of(DISAGREEMENT)), "--format", "html"]
    status, page, _ = _show(capsys, *args)
    target = tmp_path / "view.html"
    target.write_text("old", encoding="utf-8")
    status, out, err = _show(capsys, *args, "--output-file", str(target))
    assert (status, out, err) == (0, "", "")
    assert target.read_text(encoding="utf-8") == page
    assert [p.name for p in tmp_path.iterdir()] == ["view.html"]  # no temporary file left

    target.write_text("old", encoding="utf-8")

    def failing_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(show.os, "replace", failing_replace)
    status, out, err = _show(capsys, *args, "--output-file", str(target))
    assert status == 2
    assert target.read_text(encoding="utf-8") == "old"  # never half written
    assert [p.name for p in tmp_path.iterdir()] == ["view.html"]
    assert err == f"sealed-trace: error: cannot write {target}: No space left on device\n"


def test_output_file_in_a_missing_directory_is_an_error(tmp_path, capsys):
    target = tmp_path / "no" / "such" / "view.html"
    status, out, err = _show(capsys, str(CLOSED), "--output-file", str(target))
    assert status == 2
    assert out == ""
    assert err.startswith(f"sealed-trace: error: cannot write {target}: ")
    assert err.count("\n") == 1


# -- errors -------------------------------------------------------------------------------


def _one_line_error(err: str, path: Path | str) -> None:
    assert err.startswith("sealed-trace: error: ")
    assert err.count("\n") == 1
    assert str(path) in err
    assert "Traceback" not in err


def _mutated(tmp_path: Path, source: Path, change) -> Path:
    document = _doc(source)
    change(document)
    path = tmp_path / "changed.outcome.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


NOT_OUTCOMES = {
    "not-json": (b"{", "not an outcome document (not JSON"),
    "empty": (b"", "not an outcome document (not JSON"),
    "not-utf8": (b"\xff\xfe{}", "not an outcome document (not UTF-8"),
    "bom": ("\ufeff{}".encode(), "byte order mark"),
    "array": (b"[]", "not a JSON object"),
    "episode": (
        (EPISODES / "sealed" / "06-candidate-replay-closed.json").read_bytes(),
        "format is not sealed_trace.outcome.v1",
    ),
    "duplicate-key": (
        b'{"format": "sealed_trace.outcome.v1", "format": "x"}',
        "duplicate key 'format'",
    ),
    "float": (b'{"format": 1.5}', "a float 1.5"),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "not an outcome document"),
}


@pytest.mark.parametrize(("content", "fragment"), NOT_OUTCOMES.values(), ids=NOT_OUTCOMES)
def test_a_file_that_is_not_an_outcome_document_is_exit_2(tmp_path, capsys, content, fragment):
    path = tmp_path / "bad.outcome.json"
    path.write_bytes(content)
    status, out, err = _show(capsys, str(path))
    assert (status, out) == (2, "")
    _one_line_error(err, path)
    assert fragment in err


def _set(key, value):
    return lambda d: d.__setitem__(key, value)


MALFORMED = {
    "kind": (CLOSED, _set("outcome", "sealed_answer"), "outcome is neither"),
    "missing-key": (CLOSED, lambda d: d.pop("trace_records"), "missing trace_records"),
    "unknown-key": (CLOSED, _set("note", 1), "unknown key note"),
    "short-id": (CLOSED, _set("trace_id", "abc"), "trace_id is not a 64-character"),
    "upper-id": (
        CLOSED,
        lambda d: d.__setitem__("trace_id", d["trace_id"].upper()),
        "trace_id is not",
    ),
    "id-list": (CLOSED, _set("residual_ids", "x"), "residual_ids is not a list"),
    "wrong-family": (
        CLOSED,
        _set("practice_disposition", "trace_invalid_input"),
        "practice_disposition 'trace_invalid_input'",
    ),
    "span-bool": (
        CLOSED,
        lambda d: d["evidence_spans"][0].__setitem__("start", True),
        "evidence_spans[0] is not a span",
    ),
    "span-key": (
        CLOSED,
        lambda d: d["evidence_spans"][1].__setitem__("role", "x"),
        "evidence_spans[1] is not a span",
    ),
    "chain-order": (
        CLOSED,
        lambda d: d["upstream_identity_chain"].reverse(),
        "upstream_identity_chain is not its record ids",
    ),
    "refusal-codes": (
        EPISODES / "expected" / "forged-run-id.outcome.json",
        _set("reason_codes", [1]),
        "reason_codes is not a list of strings",
    ),
    "refusal-digest": (
        EPISODES / "expected" / "forged-run-id.outcome.json",
        _set("input_digest", 5),
        "input_digest is neither null",
    ),
}


@pytest.mark.parametrize(("source", "change", "fragment"), MALFORMED.values(), ids=MALFORMED)
def test_a_malformed_outcome_document_is_exit_2(tmp_path, capsys, source, change, fragment):
    path = _mutated(tmp_path, source, change)
    status, out, err = _show(capsys, str(path))
    assert (status, out) == (2, "")
    _one_line_error(err, path)
    assert "not an outcome document" in err
    assert fragment in err


def test_the_same_values_in_another_layout_are_accepted(tmp_path, capsys):
    path = tmp_path / "pretty.outcome.json"
    path.write_text(json.dumps(_doc(CLOSED), indent=4), encoding="utf-8")
    status, out, _ = _show(capsys, str(path), str(_episode_of(CLOSED)))
    assert status == 0
    assert "[gained]" in out


@pytest.mark.parametrize("target", ["missing.outcome.json", "."])
def test_an_unreadable_outcome_is_exit_2(tmp_path, capsys, target):
    path = tmp_path / target
    status, out, err = _show(capsys, str(path))
    assert (status, out) == (2, "")
    _one_line_error(err, path)
    assert err.startswith(f"sealed-trace: error: cannot read {path}: ")


def test_an_unreadable_episode_is_exit_2(tmp_path, capsys):
    path = tmp_path / "missing.json"
    status, out, err = _show(capsys, str(CLOSED), str(path))
    assert (status, out) == (2, "")
    _one_line_error(err, path)
    assert "cannot read" in err


@pytest.mark.parametrize(("content", "fragment"), [(b"{", "not JSON"), (b"\xff", "not UTF-8")])
def test_an_episode_that_is_not_json_is_exit_2(tmp_path, capsys, content, fragment):
    path = tmp_path / "episode.json"
    path.write_bytes(content)
    status, out, err = _show(capsys, str(CLOSED), str(path))
    assert (status, out) == (2, "")
    _one_line_error(err, path)
    assert f"not an episode document ({fragment}" in err


@pytest.mark.parametrize(
    ("outcome", "episode", "differs"),
    [
        ("08-disagreement", "sealed/06-candidate-replay-closed", "trace_id"),
        ("06-candidate-replay-closed", "refused/forged-run-id", "outcome"),
        ("forged-run-id", "refused/orphan-replay-result", "reason_codes"),
    ],
)
def test_an_episode_that_does_not_seal_to_the_outcome_is_exit_1(capsys, outcome, episode, differs):
    outcome_path = EPISODES / "expected" / f"{outcome}.outcome.json"
    episode_path = EPISODES / f"{episode}.json"
    status, out, err = _show(capsys, str(outcome_path), str(episode_path))
    assert (status, out) == (1, "")
    _one_line_error(err, episode_path)
    assert f"sealing it does not give {outcome_path}" in err
    assert differs in err.split("differs in", 1)[1]


def test_an_episode_that_refuses_differently_is_a_mismatch(tmp_path, capsys):
    episode = tmp_path / "episode.json"
    episode.write_text('{"format": "sealed_trace.episode.v1"}', encoding="utf-8")
    status, _, err = _show(capsys, str(CLOSED), str(episode))
    assert status == 1
    _one_line_error(err, episode)


@pytest.mark.parametrize("args", [[], ["--format", "pdf", str(CLOSED)], [str(CLOSED), "a", "b"]])
def test_bad_usage_is_exit_2(capsys, args):
    with pytest.raises(SystemExit) as exited:
        main(["show", *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err
    assert "Traceback" not in err


def test_help_says_what_it_does_and_its_exit_codes(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["show", "--help"])
    assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "OUTCOME" in out
    assert "EPISODE" in out
    assert "--format {text,html}" in out
    assert "--output-file PATH" in out
    assert "Exit 0 shown, 1 OUTCOME's own id does not reproduce" in out
    assert "or EPISODE does not seal to OUTCOME" in out
    assert "2 usage or input error" in out
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "show" in capsys.readouterr().out


# -- placement ----------------------------------------------------------------------------


def test_the_sealing_modules_do_not_load_the_view_and_the_view_loads_no_libcst():
    code = (
        "import sys\n"
        "import sealed_trace.trace, sealed_trace._reader, sealed_trace.episode_json\n"
        "assert 'sealed_trace.show' not in sys.modules, 'sealing loaded show'\n"
        "from sealed_trace import show\n"
        "show.wants_colour(sys.stdout)\n"
        "assert 'libcst' not in sys.modules, 'show loaded libcst'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    sealing = [*(ROOT / "sealed_trace" / "trace").glob("*.py")]
    sealing += (ROOT / "sealed_trace" / "_reader").glob("*.py")
    assert len(sealing) > 4
    for module in sealing:
        source = module.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+[\w.]*\bshow\b", source, re.M), module


def _altered(tmp_path: Path, source: Path, change) -> Path:
    document = json.loads(source.read_text(encoding="utf-8"))
    change(document)
    path = tmp_path / "altered.outcome.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("source", "change"),
    [
        ("08-disagreement", lambda d: d.update(trace_id="0" * 64)),
        ("08-disagreement", lambda d: d.update(input_digest="f" * 64)),
        ("08-disagreement", lambda d: d["evidence_spans"][0].update(end=26, text="g")),
        ("08-disagreement", lambda d: d.update(practice_disposition="sealed_replay_unavailable")),
        ("forged-run-id", lambda d: d.update(trace_refusal_id="0" * 64)),
        ("forged-run-id", lambda d: d["reason_codes"].reverse()),
    ],
)
def test_an_outcome_altered_after_sealing_is_exit_1_even_without_its_episode(
    tmp_path, capsys, source, change
):
    """The outcome's own id is recomputed from its fields (ADR-0230 §12): an altered outcome
    is not shown as if it were sealed."""
    path = _altered(tmp_path, EPISODES / "expected" / f"{source}.outcome.json", change)
    status, out, err = _show(capsys, str(path))
    assert (status, out) == (1, ""), err
    _one_line_error(err, path)
    assert "does not reproduce from its own fields" in err


def test_the_explanation_is_prose_outside_the_id(tmp_path, capsys):
    path = _altered(
        tmp_path,
        EPISODES / "expected" / "08-disagreement.outcome.json",
        lambda d: d.update(explanation="Another sentence."),
    )
    status, out, _ = _show(capsys, str(path))
    assert status == 0
    assert "sealed_candidate_replay_closed" in out


def test_an_outcome_given_as_the_episode_is_named_as_such(capsys):
    status, out, err = _show(capsys, str(CLOSED), str(CLOSED))
    assert (status, out) == (2, "")
    _one_line_error(err, CLOSED)
    assert "an outcome document, not an episode document" in err


def test_a_newline_in_a_one_line_field_cannot_fake_a_heading(tmp_path, capsys):
    """A hand-made outcome, consistent with its own id, whose reason code holds a newline: the
    newline is shown as an escape, so no line of the view starts with the forged text."""
    import independent

    document = _doc(EPISODES / "expected" / "forged-run-id.outcome.json")
    document["reason_codes"][0] += "\nReason codes (0, in order)"
    document["trace_refusal_id"] = independent.sha(
        {
            "trace_refusal_id": "",
            "trace_policy_version": document["trace_policy_version"],
            "input_digest": document["input_digest"],
            "practice_disposition": document["practice_disposition"],
            "reason_codes": document["reason_codes"],
        }
    )
    path = tmp_path / "forged.outcome.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    status, out, err = _show(capsys, str(path))
    assert (status, err) == (0, "")
    assert "run_id_mismatch\\x0aReason codes (0, in order)" in out
    assert not any(line.startswith("Reason codes (0") for line in out.splitlines())
