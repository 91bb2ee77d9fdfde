"""The kernel's recorded episodes (``tests/data/kernel_vectors.json``) rebuilt into the
reference types, for the tests that hold the project's ids to the kernel's.

The file holds facts: field values and ids the customer's own code produced for one ADR-0233
bound episode and one ADR-0230 chain. Rebuilding reads every recorded field (none missing,
none extra), so a record type that drifts from the kernel's fails here first.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, TypeVar

from sealed_trace.upstream.run import BudgetCharge, CandidateAttempt, CandidateReplayStatus
from sealed_trace.upstream.spans import SourceSpan

VECTORS: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "kernel_vectors.json").read_text(encoding="utf-8")
)
BOUND: dict[str, Any] = VECTORS["bound_episode"]
CHAIN: dict[str, Any] = VECTORS["adr0230_chain"]

T = TypeVar("T")


def tuples(value: Any) -> Any:
    """JSON arrays back to tuples (nested arrays too: version and payload pairs)."""
    if isinstance(value, list):
        return tuple(tuples(item) for item in value)
    return value


def rebuild(cls: type[T], data: dict[str, Any], **converted: Any) -> T:
    """``cls`` from a recorded object: every field (none missing, none extra), spans as
    spans, arrays as tuples, ``converted`` given as is."""
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    assert sorted(names) == sorted(data), f"{cls.__name__}: fields differ from the record"
    values: dict[str, Any] = {}
    for name in names:
        if name in converted:
            values[name] = converted[name]
        elif name == "evidence_spans":
            values[name] = tuple(SourceSpan(**s) for s in data[name])
        else:
            values[name] = tuples(data[name])
    return cls(**values)


def rebuild_attempt(data: dict[str, Any]) -> CandidateAttempt:
    """A recorded CandidateAttempt."""
    return rebuild(
        CandidateAttempt,
        data,
        budget_charge=BudgetCharge(**data["budget_charge"]),
        replay_status=CandidateReplayStatus(data["replay_status"]),
    )
