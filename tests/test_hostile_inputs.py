"""Regression tests for hostile inputs: unstable objects, self-mutating reads, odd documents."""

from __future__ import annotations

import dataclasses as dc
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import independent as ind
import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import build_episode, refresh_ids, tampered_episode, version_lists
from sealed_trace.episode_json import encode_episode, seal_document
from sealed_trace.identity import IdentityError
from sealed_trace.upstream import SourceSpan
from sealed_trace.upstream.replay import ReplayDisposition
from sealed_trace.upstream.run import (
    SearchRunDisposition,
    SearchRunRefusal,
    run_refusal_outcome_id,
)

EXAMPLE = (
    Path(__file__).resolve().parent.parent
    / "examples"
    / "episodes"
    / "sealed"
    / "06-candidate-replay-closed.json"
)


def _refusal_for(ep):
    ref = SearchRunRefusal(
        "",
        "geometric_search_run.v1",
        None,
        ep.search_gate_decision.decision_id,
        ep.compute_budget_decision.budget_id,
        SearchRunDisposition.BLOCKED_BY_GATE,
        ("gate_not_eligible",),
    )
    return dc.replace(ref, outcome_id=run_refusal_outcome_id(ref))


class _AlwaysEqual:
    """A record copy whose __eq__ claims equality with anything (even None)."""

    def __init__(self, record):
        self.__dict__.update({f.name: getattr(record, f.name) for f in dc.fields(record)})

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def test_a_permissive_eq_cannot_hide_a_second_run_kind():
    ep = build_episode("sealed_exhausted_no_candidate")
    outcome = seal(dc.replace(ep, search_run_refusal=_AlwaysEqual(_refusal_for(ep))))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes[0] == "both_run_kinds_present"


def test_a_permissive_eq_on_the_only_run_still_seals_as_that_run():
    ep = build_episode("sealed_exhausted_no_candidate")
    outcome = seal(dc.replace(ep, geometric_search_run=_AlwaysEqual(ep.geometric_search_run)))
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.practice_disposition.value == "sealed_exhausted_no_candidate"


def test_each_episode_attribute_is_read_once():
    ep = build_episode("sealed_exhausted_no_candidate")
    ref = _refusal_for(ep)
    reads: dict[str, int] = {}

    class Flaky:
        def __getattr__(self, name):
            reads[name] = reads.get(name, 0) + 1
            if name == "search_run_refusal":
                return ref if reads[name] == 1 else None
            return getattr(ep, name)

    outcome = seal(Flaky())
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "both_run_kinds_present" in outcome.reason_codes
    assert all(count == 1 for count in reads.values()), reads


def test_an_attempt_id_that_changes_on_a_second_read_cannot_reach_the_trace():
    closed = build_episode("sealed_candidate_replay_closed")
    run = closed.geometric_search_run

    class Unstable:
        def __init__(self, real):
            self._real, self._calls = real, 0

        def __getattr__(self, name):
            return getattr(self._real, name)

        @property
        def attempt_id(self):
            self._calls += 1
            return self._real.attempt_id if self._calls == 1 else "00" * 32

    episode = dc.replace(
        closed,
        geometric_search_run=dc.replace(
            run, candidate_attempts=tuple(Unstable(a) for a in run.candidate_attempts)
        ),
    )
    outcome = seal(episode)
    if isinstance(outcome, SealedPracticeTrace):
        assert outcome.candidate_attempt_ids == tuple(a.attempt_id for a in run.candidate_attempts)
        assert outcome.trace_id == ind.trace_id(closed)


def test_changing_accepted_records_during_the_read_cannot_make_them_seal():
    # Every id is valid, but the copied spans are not exact: the episode must refuse.
    base = build_episode("sealed_exhausted_no_candidate")
    bad = SourceSpan("xyzxyz", 25, 31, 1)
    assessment = dc.replace(base.contract_assessment, evidence_spans=(bad,))
    episode = refresh_ids(
        dc.replace(
            base,
            contract_assessment=assessment,
            residuals=tuple(dc.replace(r, evidence_spans=(bad,)) for r in base.residuals),
        )
    )
    ordered = tuple(sorted(episode.residuals, key=lambda r: r.residual_id))
    ids = tuple(r.residual_id for r in ordered)
    episode = refresh_ids(
        dc.replace(
            episode,
            residuals=ordered,
            search_gate_decision=dc.replace(episode.search_gate_decision, residual_ids=ids),
            geometric_search_run=dc.replace(episode.geometric_search_run, residual_ids=ids),
        )
    )
    assert seal(episode).reason_codes == ("inexact_evidence_span",)

    class Evil(str):
        def __eq__(self, other):
            return True

        def __ne__(self, other):
            return False

        __hash__ = str.__hash__

    spans = [
        *episode.contract_assessment.evidence_spans,
        *(s for r in episode.residuals for s in r.evidence_spans),
    ]

    run = episode.geometric_search_run

    class MutatingRun:
        """The run: reading its explanation tampers with spans the sealer already accepted."""

        def __getattr__(self, name):
            if name == "explanation":
                for span in spans:
                    object.__setattr__(span, "text", Evil(span.text))
            return getattr(run, name)

    outcome = seal(dc.replace(episode, geometric_search_run=MutatingRun()))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "inexact_evidence_span" in outcome.reason_codes


def test_a_str_subclass_claiming_equality_with_everything_is_still_read_as_its_text():
    ep = build_episode("sealed_exhausted_no_candidate")

    class Liar(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    span = ep.contract_assessment.evidence_spans[0]
    weird = dc.replace(span, text=Liar(span.text))
    episode = dc.replace(
        ep, contract_assessment=dc.replace(ep.contract_assessment, evidence_spans=(weird,))
    )
    outcome = seal(episode)
    assert isinstance(outcome, SealedPracticeTrace)
    assert type(outcome.evidence_spans[0].text) is str


def _nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth - 1):
        value = {"x": value}
    return value


@pytest.mark.parametrize("depth", [62, 63, 64])
def test_api_and_documents_agree_on_the_depth_limit(depth):
    base = build_episode("sealed_exhausted_no_candidate")
    frame = dc.replace(base.problem_frame, facts=_nested(depth))
    episode = (
        refresh_ids(dc.replace(base, problem_frame=frame))
        if depth < 64
        else dc.replace(base, problem_frame=frame)
    )
    api = seal(episode)
    try:
        document = seal_document(encode_episode(episode))
    except IdentityError:
        assert isinstance(api, PracticeTraceRefusal)
        return
    assert type(api) is type(document)
    assert api.practice_disposition == document.practice_disposition


def _cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sealed_trace", *args],
        capture_output=True,
        text=True,
        check=False,
        **kwargs,
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_failed_write_is_a_usage_error_not_a_traceback():
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "sealed_trace", "seal", str(EXAMPLE)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1


def test_no_standard_input_is_a_usage_error():
    result = _cli("seal", "-", stdin=subprocess.DEVNULL)
    assert result.returncode == 2  # empty input is not JSON
    closed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.stdin.close(); sys.stdin = None; "
            "from sealed_trace.cli import main; raise SystemExit(main(['seal', '-']))",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert closed.returncode == 2
    assert "no standard input" in closed.stderr


def test_unterminated_escaped_quotes_are_rejected_as_not_json(tmp_path):
    path = tmp_path / "quotes.json"
    path.write_text('\\"' * 40_000)
    result = _cli("seal", str(path), timeout=120)
    assert result.returncode == 2
    assert "not JSON" in result.stderr


def test_deep_but_invalid_json_is_a_usage_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 70)
    result = _cli("seal", str(path))
    assert result.returncode == 2
    assert "not JSON" in result.stderr


def test_deep_valid_json_is_a_refusal_that_names_only_the_document_problem(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 70 + "]" * 70)
    result = _cli("seal", str(path))
    assert result.returncode == 1
    assert '"reason_codes":["malformed_episode_document"]' in result.stdout


def test_version_lists_helper_matches_the_manifest_order():
    schema, policy = version_lists(run=True, replay=True)
    assert [n for n, _ in schema] == sorted(n for n, _ in schema)
    assert [n for n, _ in policy] == sorted(n for n, _ in policy)


# --- types whose metaclass lies: exact-type checks compare types by identity only ----------


def _lying_meta(target):
    """A metaclass whose classes claim to equal any class and hash like ``target``."""

    class LyingMeta(type):
        def __eq__(cls, other):
            return True

        def __hash__(cls):
            return hash(target)

    return LyingMeta


class _LyingStr(str, metaclass=_lying_meta(str)):
    def __eq__(self, other):
        return True if isinstance(other, str) else NotImplemented

    def __ne__(self, other):
        return False if isinstance(other, str) else NotImplemented

    __hash__ = str.__hash__


class _LyingInt(int, metaclass=_lying_meta(int)):
    def __eq__(self, other):
        return True if isinstance(other, int) else NotImplemented

    def __ne__(self, other):
        return False if isinstance(other, int) else NotImplemented

    __hash__ = int.__hash__


class _LyingDisposition(metaclass=_lying_meta(ReplayDisposition)):
    """Neither a str nor an enum member, yet its class claims to be every class."""

    value = "contract_refused"


@pytest.mark.parametrize("attempts", [3, 7, 8, 12])
def test_a_forged_id_of_a_lying_str_class_refuses_at_every_array_size(attempts):
    ep = build_episode("sealed_candidate_replay_closed", attempts=attempts)
    results = [
        dc.replace(x, replay_result_id=_LyingStr(x.replay_result_id)) for x in ep.replay_results
    ]
    results[0] = dc.replace(results[0], replay_result_id=_LyingStr(ind.sha({"forged": 1})))
    outcome = seal(dc.replace(ep, replay_results=tuple(results)))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == ("replay_result_id_mismatch",)


@pytest.mark.parametrize("attempts", [3, 7, 8, 12])
def test_a_lying_int_cannot_hide_attempts_out_of_order(attempts):
    # Two attempts swapped, every id recomputed: only the order betrays them.
    ep = tampered_episode(
        "attempts_out_of_order", build_episode("sealed_candidate_replay_closed", attempts=attempts)
    )
    run = ep.geometric_search_run
    lying = tuple(
        dc.replace(a, attempt_index=_LyingInt(a.attempt_index)) for a in run.candidate_attempts
    )
    episode = dc.replace(ep, geometric_search_run=dc.replace(run, candidate_attempts=lying))
    outcome = seal(episode)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == ("attempt_order_violation",)


@pytest.mark.parametrize("attempts", [3, 7, 8, 12])
def test_an_object_whose_class_claims_to_be_the_enum_is_not_a_member(attempts):
    ep = build_episode("sealed_all_candidates_refused", attempts=attempts)
    results = tuple(
        dc.replace(x, replay_disposition=_LyingDisposition()) for x in ep.replay_results
    )
    outcome = seal(dc.replace(ep, replay_results=results))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == ("malformed_replay_result",)


class _NamelessMeta(type):
    @property
    def __name__(cls):
        raise RuntimeError("a class name that cannot be read")


class _NamelessError(Exception, metaclass=_NamelessMeta):
    pass


class _Nameless(metaclass=_NamelessMeta):
    """An episode-like object of a class without a readable name."""


def test_an_input_whose_exception_and_class_names_raise_still_gets_a_refusal():
    class Facts(Mapping):
        """A host mapping (not a dict: a dict's own items are read, not an override's)."""

        def __init__(self, **data):
            self.data = data

        def __getitem__(self, key):
            return self.data[key]

        def __len__(self):
            return len(self.data)

        def __iter__(self):
            return iter(self.data)

        def items(self):
            raise _NamelessError()

    base = build_episode("sealed_exhausted_no_candidate")
    outcome = seal(dc.replace(base, problem_frame=dc.replace(base.problem_frame, facts=Facts(a=1))))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == ("malformed_problem_frame",)
    outcome = seal(_Nameless())
    assert isinstance(outcome, PracticeTraceRefusal)
    assert outcome.reason_codes == ("invalid_trace_input_type",)
    assert "_Nameless has none of the practice episode fields" in outcome.explanation


class _EnumByMro(type):
    """A metaclass whose classes put Enum in their MRO without being enums."""

    def mro(cls):
        import enum

        return [cls, enum.Enum, object]


class _NotAnEnum(metaclass=_EnumByMro):
    """``issubclass(_NotAnEnum, Enum)`` holds, but an instance has no value at all."""


@pytest.mark.parametrize(
    ("path", "code"),
    [
        (("problem_frame", "problem_text"), "malformed_problem_frame"),
        (("residuals", 0, "residual_kind"), "malformed_residual"),
        (("residuals", 0, "explanation"), "malformed_residual"),
        (("search_gate_decision", "reason_code"), "malformed_search_gate_decision"),
    ],
)
def test_a_value_that_only_claims_to_be_an_enum_is_malformed_not_a_fault(path, code):
    from test_properties import set_path

    fake = object.__new__(_NotAnEnum)
    outcome = seal(set_path(build_episode("sealed_original_refusal"), path, fake))
    assert isinstance(outcome, PracticeTraceRefusal)
    assert code in outcome.reason_codes
    assert "sealer_internal_fault" not in outcome.reason_codes
