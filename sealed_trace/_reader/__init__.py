"""The sealer's reader: whatever the caller passes, copied once into reference values
(sealing-policy §1, §9, §11).

- :mod:`._values` normalises one attribute value (strings, ints, ids, enums, version pairs);
- :mod:`._facts` copies a frame's facts, bounded, with an explicit stack;
- :mod:`._records` reads one record by attribute into a fresh reference instance;
- :mod:`._schemas` says how each record type is read;
- :mod:`._episode` reads a whole episode into an :class:`EpisodeCopy`.

Reading never raises for a bad value: problems become reason codes in :class:`Problems`.
Host code's ``Exception`` (any subclass) makes the value malformed there; control flow
(``KeyboardInterrupt``, ``SystemExit``, ...) propagates.
"""

from __future__ import annotations

from sealed_trace._reader._episode import (
    ABSENT,
    READ,
    ArrayCopy,
    Claim,
    EpisodeCopy,
    RecordCopy,
    VersionList,
    read_episode,
)
from sealed_trace._reader._records import (
    Kind,
    RecordSchema,
    all_spans,
    read_attribute,
    read_record,
    spans_exact_in,
)
from sealed_trace._reader._schemas import ID, IDS, PAIRS, SCHEMAS, TEXT, VERSION
from sealed_trace._reader._values import BAD, MISSING, UNREADABLE, Bad, Problems

__all__ = [
    "ABSENT",
    "BAD",
    "ID",
    "IDS",
    "MISSING",
    "PAIRS",
    "READ",
    "SCHEMAS",
    "TEXT",
    "UNREADABLE",
    "VERSION",
    "ArrayCopy",
    "Bad",
    "Claim",
    "EpisodeCopy",
    "Kind",
    "Problems",
    "RecordCopy",
    "RecordSchema",
    "VersionList",
    "all_spans",
    "read_attribute",
    "read_episode",
    "read_record",
    "spans_exact_in",
]
