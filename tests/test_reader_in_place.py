"""Episodes of the reference types, every value already in normal form, are checked in place.

Such an episode is read without copying its records: only slots of reference instances are
read and types compared by identity, so nothing of the input's runs and nothing can change it
while it is sealed. The oracle is the copying read: the same episode sealed with the in-place
read switched off must give the very same outcome, for valid episodes and for every spelling
of a value that the copying read normalises (a str subclass, an enum's string value, a tuple
subclass, ...) or refuses.
"""

from __future__ import annotations

import contextlib
import dataclasses as dc
import enum
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import HOSTILE, all_paths, set_path

from sealed_trace import (
    PracticeTraceRefusal,
    SealedPracticeTrace,
    build_practice_trace_input,
    seal,
    seal_practice_trace,
)
from sealed_trace import _reader as r
from sealed_trace import trace as trace_module
from sealed_trace.builder import build_episode, refresh_ids
from sealed_trace.identity import IdentityError, canonical_json
from sealed_trace.upstream import BudgetCharge, SourceSpan
from sealed_trace.upstream.replay import ReplayDisposition
from sealed_trace.upstream.residuals import ResidualSourceAxis


class StrSub(str):
    """A str subclass: read as its text."""


class IntSub(int):
    """An int subclass: read as its number."""


class TupleSub(tuple):  # type: ignore[type-arg]
    """A tuple subclass: its items are read into an exact tuple."""


class DictSub(dict):  # type: ignore[type-arg]
    """A dict subclass: facts of it take the general path."""


EPISODES = {
    "mixed": build_episode(
        "sealed_candidate_replay_closed",
        outcomes=["contract_and_proof_closed", "contract_replay_unavailable"],
    ),
    "refusal": build_episode("sealed_original_refusal"),
    # Nine attempts and results: the arrays are checked a column at a time.
    "columns": build_episode("sealed_contract_closed_proof_refused", attempts=9),
}


def _respellings(value: Any) -> list[Any]:
    """Spellings of ``value`` that the copying read normalises, and near misses it refuses."""
    out: list[Any] = []
    if type(value) is str:
        out += [StrSub(value), value + "\ud800", value.upper(), "", " "]
    elif isinstance(value, enum.Enum):
        out += [value.value, StrSub(value.value), "not-a-member"]
    elif type(value) is bool:
        out += [int(value)]
    elif type(value) is int:
        out += [IntSub(value), True, -1, 2**63, float(value)]
    elif type(value) is tuple:
        out += [TupleSub(value), list(value)]
        if value:
            out += [(*value, value[0]), value[:-1]]
    elif type(value) is dict:
        out += [DictSub(value), {**value, "x": 1.5}, {**value, "t": (1, "a")}, {1: "a"}]
    elif type(value) is SourceSpan:
        out += [
            SimpleNamespace(**{f.name: getattr(value, f.name) for f in dc.fields(value)}),
            dc.replace(value, sentence_index=None),
            dc.replace(value, text="é"),
            dc.replace(value, start=True),
            dc.replace(value, start=-1),
            dc.replace(value, start=value.end + 1),
            dc.replace(value, end=2**63),
            dc.replace(value, sentence_index=2**63),
            dc.replace(value, sentence_index=-(2**63) - 1),
            dc.replace(value, sentence_index=IntSub(0)),
        ]
    elif dc.is_dataclass(value) and not isinstance(value, type):
        out += [SimpleNamespace(**{f.name: getattr(value, f.name) for f in dc.fields(value)})]
    elif value is None:
        out += ["", "0" * 64]
    return out


def _get_path(obj: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        obj = obj[step] if isinstance(step, int) else getattr(obj, step)
    return obj


CASES = [(kind, path) for kind, episode in EPISODES.items() for path in all_paths(episode) if path]


def _copying(episode: object) -> object:
    """The outcome with the in-place read switched off."""
    original = trace_module._Checker._all_in_place
    trace_module._Checker._all_in_place = lambda self: False  # type: ignore[method-assign]
    try:
        return seal(episode)
    finally:
        trace_module._Checker._all_in_place = original  # type: ignore[method-assign]


def _in_place(episode: object) -> bool:
    return trace_module._Checker(episode, r.Problems()).in_place


@pytest.mark.parametrize("kind", sorted(EPISODES))
def test_valid_episodes_are_read_in_place_and_seal_alike(kind):
    episode = EPISODES[kind]
    assert _in_place(episode)
    outcome = seal(episode)
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome == _copying(episode)
    assert repr(outcome) == repr(_copying(episode))


def test_the_trace_never_holds_the_inputs_own_spans():
    episode = EPISODES["columns"]
    outcome = seal(episode)
    assert isinstance(outcome, SealedPracticeTrace)
    inputs = {
        id(span)
        for record in (
            episode.contract_assessment,
            *episode.residuals,
            *episode.geometric_search_run.candidate_attempts,
            *episode.replay_results,
        )
        for span in record.evidence_spans
    }
    assert outcome.evidence_spans
    assert not inputs & {id(span) for span in outcome.evidence_spans}
    assert all(type(span) is SourceSpan for span in outcome.evidence_spans)


#: Lying subclasses: kept as they are, they would answer comparisons falsely.
LIARS = [HOSTILE[name] for name in ("lying-str", "lying-int", "lying-tuple", "spoofs-str")]


@pytest.mark.parametrize(
    ("kind", "path"), CASES, ids=[f"{k}:{'.'.join(map(str, p))}" for k, p in CASES]
)
def test_every_respelling_of_every_field_gives_the_copying_reads_outcome(kind, path):
    episode = EPISODES[kind]
    for value in [*_respellings(_get_path(episode, path)), *LIARS]:
        tampered = set_path(episode, path, value)
        outcome = seal(tampered)
        assert outcome == _copying(tampered), value
        assert repr(outcome) == repr(_copying(tampered)), value


def test_a_respelled_value_anywhere_turns_the_in_place_read_off():
    episode = EPISODES["mixed"]
    for path in (
        ("search_gate_decision",),
        ("geometric_search_run", "budget_consumed"),
        ("contract_assessment", "evidence_spans", 0),
        ("problem_frame", "facts"),
        ("problem_frame", "problem_text"),
        ("residuals", 0, "residual_kind"),
        ("geometric_search_run", "candidate_attempts", 0, "budget_charge", "steps"),
        ("replay_results", 0, "proof_replay_refs"),
    ):
        value = _respellings(_get_path(episode, path))[0]
        assert not _in_place(set_path(episode, path, value)), path
    # A host record with the very same values is a host object: it is copied, never used.
    gate = episode.search_gate_decision
    host = SimpleNamespace(**{f.name: getattr(gate, f.name) for f in dc.fields(gate)})
    assert not r.valid_in_place(host, r.GATE)
    assert r.valid_in_place(gate, r.GATE)


_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.text(max_size=3),
    st.sampled_from(["\ud800", "é", StrSub("a"), IntSub(2), (), ("a",), [], {}, 1.5]),
)


@st.composite
def _tampered(draw: st.DrawFn) -> object:
    kind = draw(st.sampled_from(sorted(EPISODES)))
    episode: Any = EPISODES[kind]
    paths = [path for path in all_paths(episode) if path]
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(paths))
        try:
            respelled = _respellings(_get_path(episode, path))
        except (TypeError, AttributeError, IndexError, KeyError):
            continue  # the path no longer exists under an earlier change
        value = draw(st.sampled_from(respelled) if respelled else _values)
        if draw(st.booleans()):
            value = draw(_values)
        try:
            episode = set_path(episode, path, value)
        except (TypeError, AttributeError, IndexError, KeyError):
            continue  # an earlier change put a non-record on the path
    return episode


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_tampered())
def test_several_changes_at_once_give_the_copying_reads_outcome(episode):
    outcome = seal(episode)
    assert outcome == _copying(episode)
    assert repr(outcome) == repr(_copying(episode))


def test_a_record_with_a_slot_never_set_is_refused_as_the_copying_read_refuses_it():
    episode = EPISODES["mixed"]
    gate = object.__new__(type(episode.search_gate_decision))  # no field set at all
    span = object.__new__(SourceSpan)
    attempt = ("geometric_search_run", "candidate_attempts", 0)
    columns = EPISODES["columns"]  # nine attempts: their spans are read a column at a time
    for tampered, code in (
        (dc.replace(episode, search_gate_decision=gate), "malformed_search_gate_decision"),
        (
            set_path(episode, ("contract_assessment", "evidence_spans"), (span,)),
            "malformed_evidence_span",
        ),
        (set_path(columns, (*attempt, "evidence_spans"), (span,)), "malformed_evidence_span"),
        (set_path(columns, (*attempt, "budget_charge"), object.__new__(BudgetCharge)), None),
    ):
        assert not _in_place(tampered)
        outcome = seal(tampered)
        assert outcome == _copying(tampered)
        assert isinstance(outcome, PracticeTraceRefusal)
        assert "sealer_internal_fault" not in outcome.reason_codes
        assert code is None or code in outcome.reason_codes


# --- forged enum members, mutable facts, lying metaclasses ------------------------------


def _forged(cls: type[enum.Enum], text: str, value: object) -> Any:
    """An object of an enum class that is none of its members: str ``text``, ``_value_``."""
    fake = str.__new__(cls, text)
    fake._value_ = value
    fake._name_ = "FORGED"
    return fake


def test_a_forged_member_of_an_enum_class_is_refused_on_both_reads():
    episode = build_episode("sealed_all_candidates_refused", attempts=1)
    result = episode.replay_results[0]
    fake = _forged(ReplayDisposition, "contract_and_proof_closed", "contract_refused")
    tampered = dc.replace(episode, replay_results=(dc.replace(result, replay_disposition=fake),))
    assert not _in_place(tampered)
    outcome = seal(tampered)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_replay_result" in outcome.reason_codes
    assert outcome == _copying(tampered)


def test_a_forged_member_even_with_recomputed_ids_is_refused():
    episode = EPISODES["mixed"]
    fake = _forged(ResidualSourceAxis, "not_an_axis", "not_an_axis")
    residual = dc.replace(episode.residuals[0], source_axis=fake)
    tampered = dc.replace(episode, residuals=(residual, *episode.residuals[1:]))
    with contextlib.suppress(Exception):
        tampered = refresh_ids(tampered)
    outcome = seal(tampered)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_residual" in outcome.reason_codes


def test_no_code_of_a_forged_members_value_runs():
    ran = []

    class Hook(dict):  # type: ignore[type-arg]
        def items(self):  # type: ignore[override]
            ran.append("items")
            return super().items()

    episode = EPISODES["mixed"]
    fake = _forged(ResidualSourceAxis, episode.residuals[0].source_axis.value, Hook(note=1))
    residual = dc.replace(episode.residuals[0], source_axis=fake)
    tampered = dc.replace(episode, residuals=(residual, *episode.residuals[1:]))
    outcome = seal(tampered)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert ran == []


def test_the_frame_and_its_facts_are_copied_even_in_place():
    episode = EPISODES["mixed"]
    checker = trace_module._Checker(episode, r.Problems())
    assert checker.in_place
    checker.read()
    frame = checker.e.frame
    assert frame is not None
    assert frame is not episode.problem_frame
    assert frame.facts == episode.problem_frame.facts
    assert frame.facts is not episode.problem_frame.facts
    lists = [v for v in episode.problem_frame.facts.values() if isinstance(v, list)]
    assert lists, "the example facts hold lists"
    copied = [v for v in frame.facts.values() if isinstance(v, list)]
    assert not {id(v) for v in lists} & {id(v) for v in copied}
    # Other records are used as they are.
    assert checker.e.gate is episode.search_gate_decision


class _LyingMeta(type):
    """A metaclass whose classes claim to be ``list``."""

    def __eq__(cls, other: object) -> bool:
        return other is list

    __hash__ = type.__hash__


class _FloatClaimingList(float, metaclass=_LyingMeta):
    def __iter__(self) -> Any:
        return iter(())


class _BigIntClaimingList(int, metaclass=_LyingMeta):
    def __iter__(self) -> Any:
        return iter(())


@pytest.mark.parametrize("value", [_FloatClaimingList(1.5), _BigIntClaimingList(2**100)])
def test_a_value_whose_class_claims_to_be_a_list_is_not_json(value):
    with pytest.raises(IdentityError) as caught:
        canonical_json({"x": value})
    assert caught.value.code == "unsupported_type"
    episode = EPISODES["mixed"]
    facts = {**episode.problem_frame.facts, "note": value}
    tampered = dc.replace(episode, problem_frame=dc.replace(episode.problem_frame, facts=facts))
    outcome = seal(tampered)
    assert isinstance(outcome, PracticeTraceRefusal)
    assert "malformed_problem_frame" in outcome.reason_codes


# --- fields read after the records ------------------------------------------------------


def _copying_claim(claimed: object, episode: object) -> object:
    original = trace_module._Checker._all_in_place
    trace_module._Checker._all_in_place = lambda self: False  # type: ignore[method-assign]
    try:
        return seal_practice_trace(claimed, episode)
    finally:
        trace_module._Checker._all_in_place = original  # type: ignore[method-assign]


def _tamperer(episode: Any) -> Any:
    """A callback that rewrites, by force, a span text the in-place check already passed."""
    span = episode.contract_assessment.evidence_spans[0]

    class Liar(str):
        def __eq__(self, other: object) -> bool:
            return True

        def __ne__(self, other: object) -> bool:
            return False

        __hash__ = str.__hash__

    def tamper() -> None:
        object.__setattr__(span, "text", Liar("not the text"))

    return tamper


def _fresh_mixed() -> Any:
    # Built anew: the tampering below changes the episode's own spans.
    return build_episode(
        "sealed_candidate_replay_closed",
        outcomes=["contract_and_proof_closed", "contract_replay_unavailable"],
    )


def _with_tampering_version(field: str) -> Any:
    episode = _fresh_mixed()
    tamper = _tamperer(episode)

    class Version(enum.Enum):
        V1 = "sealed_practice_trace.v1"

        @property
        def value(self) -> str:  # type: ignore[override]
            tamper()
            return "sealed_practice_trace.v1"

    if field == "trace_policy_version":
        return dc.replace(episode, trace_policy_version=Version.V1)
    pairs = episode.policy_versions
    index = [name for name, _ in pairs].index("sealed_practice_trace")
    entry = (pairs[index][0], Version.V1)
    return dc.replace(episode, policy_versions=(*pairs[:index], entry, *pairs[index + 1 :]))


@pytest.mark.parametrize("field", ["trace_policy_version", "policy_versions"])
def test_a_version_field_whose_code_runs_turns_the_in_place_read_off(field):
    tampered = _with_tampering_version(field)
    assert not _in_place(tampered)
    in_place_allowed = repr(seal(tampered))
    assert in_place_allowed == repr(_copying(_with_tampering_version(field)))


def _with_tampering_claim() -> tuple[Any, Any]:
    episode = _fresh_mixed()
    tamper = _tamperer(episode)
    built = build_practice_trace_input(episode)
    fields = {f.name: getattr(built, f.name) for f in dc.fields(built)}

    class Claim:
        def __getattr__(self, name: str) -> object:
            tamper()
            return fields[name]

    return Claim(), episode


def test_a_claimed_trace_input_whose_code_runs_turns_the_in_place_read_off():
    claim, episode = _with_tampering_claim()
    assert not trace_module._Checker(episode, r.Problems(), claim).in_place
    in_place_allowed = repr(seal_practice_trace(claim, episode))
    assert in_place_allowed == repr(_copying_claim(*_with_tampering_claim()))
    assert "not the text" not in in_place_allowed


def test_an_exact_claimed_trace_input_keeps_the_in_place_read():
    episode = EPISODES["mixed"]
    built = build_practice_trace_input(episode)
    assert trace_module._Checker(episode, r.Problems(), built).in_place
    assert seal_practice_trace(built, episode) == seal(episode)
