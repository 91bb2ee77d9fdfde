"""sealed_trace.identity: ADR-0230 §12 canonical JSON + SHA-256, and what it refuses.

Accepted payloads are compared with the tests' own canonical JSON (``independent``); refused
payloads must raise the typed IdentityError with its stable code, never another exception.
"""

from __future__ import annotations

import enum
import math
from collections import OrderedDict
from decimal import Decimal
from fractions import Fraction

import independent as ind
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealed_trace.identity import (
    MAX_ABS_INT,
    MAX_DEPTH,
    IdentityError,
    canonical_json,
    canonical_json_with,
    digest_of_canonical,
    identity_digest,
    is_identity,
    with_leading_key,
)


def test_module_exports_are_exact():
    import sealed_trace.identity as identity

    assert sorted(identity.__all__) == sorted(
        [
            "MAX_ABS_INT",
            "MAX_DEPTH",
            "IdentityError",
            "canonical_json",
            "canonical_json_with",
            "digest_of_canonical",
            "identity_digest",
            "is_identity",
            "with_leading_key",
        ]
    )


def test_identity_error_is_a_value_error_with_code_and_path():
    with pytest.raises(IdentityError) as info:
        canonical_json({"a": [1, 2.5]})
    assert isinstance(info.value, ValueError)
    assert info.value.code == "float_in_payload"
    assert info.value.path == "$.a[1]"


def test_canonical_form_is_sorted_compact_and_raw_utf8():
    payload = {"b": [1, True, None], "a": {"é": "ü", "z": "数"}, "A": ""}
    text = canonical_json(payload)
    assert text == '{"A":"","a":{"z":"数","é":"ü"},"b":[1,true,null]}'
    assert text == ind.canonical(payload)
    assert identity_digest(payload) == ind.sha(payload)


def test_tuples_are_arrays_in_stored_order_with_duplicates():
    assert canonical_json({"x": ("b", "a", "a")}) == '{"x":["b","a","a"]}'
    assert identity_digest({"x": ("b", "a")}) == ind.sha({"x": ["b", "a"]})
    assert identity_digest({"x": ("b", "a")}) != ind.sha({"x": ["a", "b"]})


def test_digest_is_64_lowercase_hex():
    digest = identity_digest({})
    assert digest == ind.sha({})
    assert len(digest) == 64
    assert set(digest) <= set("0123456789abcdef")


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.text(st.characters(exclude_categories=("Cs",))),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_accepted_payloads_match_the_independent_encoding(payload):
    assert canonical_json(payload) == ind.canonical(payload)
    assert identity_digest(payload) == ind.sha(payload)


# --- splicing pre-encoded parts: the same bytes as encoding the whole payload ------------

_keys = st.text(max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(_keys, json_values, max_size=5),
    st.dictionaries(_keys, json_values, min_size=1, max_size=3),
)
def test_spliced_fragments_give_the_canonical_text_of_the_whole_payload(payload, parts):
    whole = {**payload, **parts}
    fragments = {key: ind.canonical(value) for key, value in parts.items()}
    try:
        text = canonical_json_with(payload, fragments)
    except ValueError:
        # Refused only when a key cannot be placed unambiguously: some nested object of the
        # payload holds the same key with the placeholder's value.
        placeholders = ind.canonical({**payload, **dict.fromkeys(parts, 0)})
        assert any(placeholders.count(ind.canonical(key) + ":0") > 1 for key in parts)
        return
    assert text == ind.canonical(whole)
    assert digest_of_canonical(text) == ind.sha(whole)


def test_a_nested_key_like_a_fragment_key_is_left_alone_or_refused():
    assert canonical_json_with({"a": {"k": 0}, "b": 1}, {"z": "[1]"}) == ind.canonical(
        {"a": {"k": 0}, "b": 1, "z": [1]}
    )
    # The nested "k":0 comes first: placing the fragment there would be wrong, so it refuses.
    with pytest.raises(ValueError, match="'k'"):
        canonical_json_with({"a": {"k": 0}}, {"k": "[1]"})
    # A string value that merely contains the placeholder text is not a key.
    tricky = {"a": '"k":0,', "b": 'k":0'}
    assert canonical_json_with(tricky, {"k": '"x"'}) == ind.canonical({**tricky, "k": "x"})


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_keys, json_values, min_size=1, max_size=5), st.text(max_size=70))
def test_the_leading_blanked_key_takes_its_value_without_a_second_encoding(payload, value):
    key = min(payload)
    blanked = ind.canonical({**payload, key: ""})
    assert with_leading_key(blanked, key, value) == ind.canonical({**payload, key: value})


def test_a_text_not_starting_with_the_blanked_key_is_refused():
    with pytest.raises(ValueError, match="attempt_id"):
        with_leading_key(ind.canonical({"a": 1, "attempt_id": ""}), "attempt_id", "x")
    with pytest.raises(ValueError, match="attempt_id"):
        with_leading_key(ind.canonical({"attempt_id": "set"}), "attempt_id", "x")


@pytest.mark.parametrize("bound", [MAX_ABS_INT - 1, -MAX_ABS_INT], ids=["max", "min"])
def test_integer_limits_are_inclusive_of_the_signed_64_bit_range(bound):
    assert MAX_ABS_INT == 2**63
    assert canonical_json({"n": bound}) == ind.canonical({"n": bound})


def _nested(levels: int) -> object:
    value: object = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_nesting_up_to_max_depth_is_accepted():
    assert canonical_json(_nested(MAX_DEPTH)) == ind.canonical(_nested(MAX_DEPTH))


class StrSub(str):
    pass


class IntSub(int):
    pass


class DictSub(dict):
    pass


class ListSub(list):
    pass


class Color(str, enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    ONE = 1


def _cyclic_dict() -> dict:
    d: dict = {}
    d["self"] = d
    return d


def _cyclic_list() -> list:
    x: list = []
    x.append([x])
    return x


REFUSED = [
    ("float", {"x": 1.5}, "float_in_payload"),
    ("float-integral", {"x": 1.0}, "float_in_payload"),
    ("nan", {"x": math.nan}, "float_in_payload"),
    ("inf", {"x": math.inf}, "float_in_payload"),
    ("minus-inf", {"x": -math.inf}, "float_in_payload"),
    ("float-root", 0.0, "float_in_payload"),
    ("int-key", {1: "a"}, "non_string_key"),
    ("none-key", {None: "a"}, "non_string_key"),
    ("tuple-key", {("a",): 1}, "non_string_key"),
    ("str-subclass-key", {StrSub("a"): 1}, "non_string_key"),
    ("surrogate-value", {"x": "a\ud800"}, "lone_surrogate"),
    ("surrogate-key", {"\udfff": 1}, "lone_surrogate"),
    ("surrogate-nested", [["\ud83d"]], "lone_surrogate"),
    ("cycle-dict", _cyclic_dict(), "cycle_in_payload"),
    ("cycle-list", _cyclic_list(), "cycle_in_payload"),
    ("too-deep", _nested(MAX_DEPTH + 1), "payload_too_deep"),
    ("very-deep", _nested(20_000), "payload_too_deep"),
    ("int-over", {"n": 2**63}, "integer_out_of_range"),
    ("int-under", {"n": -(2**63) - 1}, "integer_out_of_range"),
    ("int-huge", {"n": 10**400}, "integer_out_of_range"),
    ("set", {"x": {1}}, "unsupported_type"),
    ("frozenset", {"x": frozenset()}, "unsupported_type"),
    ("bytes", {"x": b"a"}, "unsupported_type"),
    ("bytearray", {"x": bytearray(b"a")}, "unsupported_type"),
    ("object", {"x": object()}, "unsupported_type"),
    ("decimal", {"x": Decimal("1")}, "unsupported_type"),
    ("fraction", {"x": Fraction(1, 2)}, "unsupported_type"),
    ("complex", {"x": 1j}, "unsupported_type"),
    ("str-subclass", {"x": StrSub("a")}, "unsupported_type"),
    ("int-subclass", {"x": IntSub(1)}, "unsupported_type"),
    ("dict-subclass", {"x": DictSub()}, "unsupported_type"),
    ("ordered-dict", {"x": OrderedDict()}, "unsupported_type"),
    ("list-subclass", {"x": ListSub()}, "unsupported_type"),
    ("str-enum", {"x": Color.RED}, "unsupported_type"),
    ("int-enum", {"x": Level.ONE}, "unsupported_type"),
    ("range", {"x": range(2)}, "unsupported_type"),
    ("generator", {"x": (i for i in range(2))}, "unsupported_type"),
]


@pytest.mark.parametrize(
    ("payload", "code"), [(p, c) for _, p, c in REFUSED], ids=[name for name, _, _ in REFUSED]
)
def test_refused_payloads_raise_typed_identity_error(payload, code):
    with pytest.raises(IdentityError) as info:
        canonical_json(payload)
    assert info.value.code == code
    with pytest.raises(IdentityError) as again:
        identity_digest(payload)
    assert again.value.code == code


def test_shared_non_cyclic_references_are_not_cycles():
    shared = ["a"]
    payload = {"x": shared, "y": [shared, shared]}
    assert canonical_json(payload) == ind.canonical(payload)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0" * 64, True),
        ("0123456789abcdef" * 4, True),
        ("0123456789ABCDEF" * 4, False),
        ("0" * 63, False),
        ("0" * 65, False),
        ("g" * 64, False),
        ("", False),
        ("attempt-a", False),
        (StrSub("0" * 64), False),
        (b"0" * 64, False),
        (None, False),
        (0, False),
        (" " + "0" * 63, False),
        ("\u0660" * 64, False),
    ],
)
def test_is_identity(value, expected):
    assert is_identity(value) is expected
