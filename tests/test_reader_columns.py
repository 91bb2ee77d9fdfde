"""The reader's fast paths agree with its general paths.

Large tuples of records (eight or more) are read field by field across all records at once;
every column check must accept exactly the values the value-by-value checks accept, and give
the same normalised values. The oracle is the record-by-record read of the same objects.
Likewise, frame facts made only of exact JSON types are copied in one pass; the oracle is the
general thaw-then-check path.
"""

from __future__ import annotations

import dataclasses as dc
from types import MappingProxyType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sealed_trace import _reader as r
from sealed_trace.builder import build_episode
from sealed_trace.upstream import SourceSpan
from sealed_trace.upstream.replay import ProofReplayRef
from sealed_trace.upstream.run import BudgetCharge


class StrSub(str):
    """A str subclass: read as its text, never kept as itself."""


class IntSub(int):
    """An int subclass: read as its number."""


class TupleSub(tuple):  # type: ignore[type-arg]
    """A tuple subclass: its items are copied into an exact tuple."""


def _shape(value: object) -> object:
    """A comparable picture of ``value`` that keeps every exact type."""
    if dc.is_dataclass(value) and not isinstance(value, type):
        fields = tuple(_shape(getattr(value, f.name)) for f in dc.fields(value))
        return (type(value).__name__, fields)
    if isinstance(value, tuple):
        return (type(value).__name__, tuple(_shape(item) for item in value))
    return (type(value).__name__, value)


def _span(text: Any = "ab", start: Any = 0, end: Any = 2, index: Any = 0) -> SourceSpan:
    return SourceSpan(text, start, end, index)


SPAN_VALUES = [
    (),
    (_span(),),
    (_span(), _span(index=None)),
    (_span("é", 0, 1),),
    (_span(""),),
    (_span(start=2, end=1),),
    (_span(start=-1),),
    (_span(end=2**63),),
    (_span(end=2**63 - 1),),
    (_span(index=True),),
    (_span(start=True),),
    (_span(start=IntSub(0)),),
    (_span(StrSub("ab")),),
    (_span("\ud800"),),
    (_span(index=2**63),),
    (_span(index=-(2**63)),),
    (_span(index=-(2**63) - 1),),
    (_span(index=1.0),),
    [_span()],
    TupleSub((_span(),)),
    (SimpleNamespace(text="ab", start=0, end=2, sentence_index=None),),
    (None,),
]
TEXTS_VALUES = [
    (),
    ("a",),
    ("a", "b"),
    ("",),
    (" ",),
    ("é",),
    (StrSub("x"),),
    ("\ud800",),
    (1,),
    ["a"],
    TupleSub(("a",)),
]
CHARGE_VALUES = [
    BudgetCharge(1, 1),
    BudgetCharge(0, 0),
    BudgetCharge(-1, 1),
    BudgetCharge(True, 1),
    BudgetCharge(IntSub(1), 1),
    BudgetCharge(1, 2**63),
    SimpleNamespace(candidates=1, steps=1),
    SimpleNamespace(candidates=1),
    None,
]
_REF = ProofReplayRef("obligation", "v1", "replay", True, "closed")
REF_VALUES = [
    (),
    (_REF,),
    (_REF, dc.replace(_REF, closed=False)),
    (dc.replace(_REF, closed=1),),
    (dc.replace(_REF, reason_code=""),),
    (dc.replace(_REF, proof_replay_id=StrSub("replay")),),
    (SimpleNamespace(**{f.name: getattr(_REF, f.name) for f in dc.fields(_REF)}),),
    [_REF],
    TupleSub((_REF,)),
    ("not a ref",),
]

_HEX = "0123456789abcdef" * 4
ID_VALUES = [
    _HEX,
    _HEX.upper(),
    _HEX[:-1],
    _HEX + "0",
    _HEX[:-1] + "g",
    _HEX[:-1] + "\u0663",  # an Arabic-Indic digit three: a digit, not a hex digit
    _HEX[:32] + "\n" + _HEX[33:],
    StrSub(_HEX),
    "",
    None,
    64,
]
ATTEMPT_FIELDS = {
    "attempt_id": ID_VALUES,
    "candidate_digest": ID_VALUES,
    "parent_attempt_id": ID_VALUES,
    "evidence_spans": SPAN_VALUES,
    "replay_blockers": TEXTS_VALUES,
    "budget_charge": CHARGE_VALUES,
}
RESULT_FIELDS = {
    "replay_result_id": ID_VALUES,
    "run_id": ID_VALUES,
    "evidence_spans": SPAN_VALUES,
    "proof_obligation_refs": TEXTS_VALUES,
    "reason_codes": TEXTS_VALUES,
    "proof_replay_refs": REF_VALUES,
}


def _records(kind: str, count: int) -> tuple[object, ...]:
    episode = build_episode("sealed_candidate_replay_closed", attempts=count)
    if kind == "attempts":
        return episode.geometric_search_run.candidate_attempts
    return episode.replay_results


def _both_paths(items: tuple[object, ...], schema: r.RecordSchema) -> tuple[object, object]:
    column = r.read_many_fast(items, schema)
    rows = [r.read_record(item, schema, r.Problems(), "x")[0] for item in items]
    by_record = None if None in rows else rows
    return (
        None if column is None else [_shape(x) for x in column],
        None if by_record is None else [_shape(x) for x in by_record],
    )


@pytest.mark.parametrize("kind", ["attempts", "results"])
def test_well_formed_records_read_alike_and_as_fresh_copies(kind):
    items = _records(kind, 9)
    schema = r.ATTEMPT if kind == "attempts" else r.REPLAY_RESULT
    column, by_record = _both_paths(items, schema)
    assert column is not None
    assert column == by_record
    read = r.read_many_fast(items, schema)
    assert read is not None
    assert all(new is not old for new, old in zip(read, items, strict=True))
    spans_in = [s for x in items for s in x.evidence_spans]  # type: ignore[attr-defined]
    spans_out = [s for x in read for s in x.evidence_spans]  # type: ignore[attr-defined]
    assert spans_out == spans_in
    assert all(new is not old for new, old in zip(spans_out, spans_in, strict=True))


def test_equal_scalar_records_share_one_fresh_copy():
    # Spans and budget charges repeat across attempts: each distinct one is copied once.
    items = _records("attempts", 12)
    read = r.read_many_fast(items, r.ATTEMPT)
    assert read is not None
    spans_in = [s for x in items for s in x.evidence_spans]  # type: ignore[attr-defined]
    spans_out = [s for x in read for s in x.evidence_spans]  # type: ignore[attr-defined]
    charges = [x.budget_charge for x in read]  # type: ignore[attr-defined]
    assert len({id(s) for s in spans_out}) == len(set(spans_in)) < len(spans_in)
    assert len({id(c) for c in charges}) == len(set(charges))
    assert not {id(s) for s in spans_out} & {id(s) for s in spans_in}


@st.composite
def _perturbed(draw: st.DrawFn) -> tuple[tuple[object, ...], r.RecordSchema]:
    kind = draw(st.sampled_from(["attempts", "results"]))
    fields = ATTEMPT_FIELDS if kind == "attempts" else RESULT_FIELDS
    items = list(_records(kind, draw(st.integers(min_value=8, max_value=11))))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        index = draw(st.integers(min_value=0, max_value=len(items) - 1))
        name = draw(st.sampled_from(sorted(fields)))
        value = draw(st.sampled_from(fields[name]))
        items[index] = dc.replace(items[index], **{name: value})  # type: ignore[type-var]
    return tuple(items), r.ATTEMPT if kind == "attempts" else r.REPLAY_RESULT


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_perturbed())
def test_column_reads_accept_and_normalise_exactly_as_record_reads(case):
    items, schema = case
    column, by_record = _both_paths(items, schema)
    assert column == by_record


class DictSub(dict):  # type: ignore[type-arg]
    """A dict subclass: facts of it take the general path."""


_fact_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=True),
    st.text(max_size=4),
    st.sampled_from(["\ud800", "é", StrSub("s"), IntSub(3), b"bytes"]),
)
_fact_keys = st.one_of(st.text(max_size=3), st.sampled_from([1, None, "é", StrSub("k"), "\udc00"]))
_fact_values = st.recursive(
    _fact_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_fact_keys, inner, max_size=3),
        st.dictionaries(st.text(max_size=3), inner, max_size=3).map(DictSub),
    ),
    max_leaves=12,
)


def _json_shape(value: object) -> object:
    if isinstance(value, r.Bad):
        return "BAD"
    if isinstance(value, (dict, MappingProxyType)):
        return (type(value).__name__, [(_json_shape(k), _json_shape(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_json_shape(item) for item in value])
    return (type(value).__name__, repr(value))


def _deep(levels: int) -> object:
    value: object = {"leaf": 1}
    for _ in range(levels):
        value = {"k": [value]}
    return value


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_fact_keys, _fact_values, max_size=4))
def test_plain_facts_are_copied_exactly_as_the_general_path_copies_them(facts):
    assert _json_shape(r._facts(facts)) == _json_shape(r._facts_general(facts))


@pytest.mark.parametrize("levels", [5, 6, 7, 8, 15, 16, 31, 32, 33, 40])
def test_deep_facts_take_the_same_decision_on_both_paths(levels):
    facts = _deep(levels)
    assert _json_shape(r._facts(facts)) == _json_shape(r._facts_general(facts))
