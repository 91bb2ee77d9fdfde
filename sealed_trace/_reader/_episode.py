"""Reading a whole practice episode into copies, once (sealing-policy §1, §9, §10, §11).

:func:`read_episode` is the sealer's front end: it reads every attribute of the episode and
of every record in it exactly once, in one descent, into an :class:`EpisodeCopy` of
reference values, reporting structural problems (wrong types, unknown or missing fields,
malformed ids, spans and version lists, absent records) as it goes. The checks that follow
see only the copy; nothing of the caller's objects is read again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Final, Generic, TypeVar, cast

from sealed_trace._reader._records import (
    RecordSchema,
    keep,
    read_attribute,
    read_before,
    read_record,
)
from sealed_trace._reader._schemas import SCHEMAS
from sealed_trace._reader._values import (
    MISSING,
    UNREADABLE,
    Bad,
    Problems,
    exact_tuple,
    loose_items,
    raw_pair,
    read_pair,
    read_text,
    version_text,
)
from sealed_trace.upstream.run import CandidateAttempt

__all__ = [
    "ABSENT",
    "MALFORMED",
    "READ",
    "UNREAD",
    "ArrayCopy",
    "EpisodeCopy",
    "RecordCopy",
    "VersionList",
    "read_episode",
]

R = TypeVar("R")

#: States of a copied record or list.
ABSENT: Final = "absent"
UNREAD = "unreadable"
MALFORMED: Final = "malformed"
READ: Final = "read"


@dataclass(frozen=True, slots=True)
class RecordCopy(Generic[R]):
    """One record as read: ``record`` when it read whole, else the ``fields`` that did.

    ``state`` is :data:`ABSENT` (no attribute, or None), :data:`UNREAD` (the attribute's
    read raised), :data:`MALFORMED` or :data:`READ`.
    """

    state: str
    record: R | None = None
    fields: Mapping[str, object] | None = None

    @property
    def present(self) -> bool:
        """Whether the episode supplied this record at all (even a malformed one)."""
        return self.state != ABSENT

    def get(self, name: str) -> object:
        """The normalised value of field ``name``, or None when it did not read."""
        if self.record is not None:
            return getattr(self.record, name)
        return None if self.fields is None else self.fields.get(name)


@dataclass(frozen=True, slots=True)
class ArrayCopy(Generic[R]):
    """A tuple of records as read: each item's record (None where it did not read) and,
    when any did not, each item's readable fields."""

    records: tuple[R | None, ...]
    fields: tuple[Mapping[str, object], ...] | None = None

    def __len__(self) -> int:
        return len(self.records)

    def complete(self) -> tuple[R, ...] | None:
        """Every record, or None when any did not read."""
        return cast(tuple[R, ...], self.records) if self.fields is None else None

    def values(self, name: str) -> list[object]:
        """Each item's normalised value of field ``name`` (None where it did not read)."""
        if self.fields is None:
            return [getattr(record, name) for record in self.records]
        return [
            RecordCopy(READ, record, fields).get(name)
            for record, fields in zip(self.records, self.fields, strict=True)
        ]

    def all_of(self, name: str) -> tuple[object, ...] | None:
        """Every item's value of field ``name``, or None when any did not read."""
        values = self.values(name)
        return None if None in values else tuple(values)  # normalised values: no host __eq__


@dataclass(frozen=True, slots=True)
class VersionList:
    """``schema_versions`` or ``policy_versions`` as read (sealing-policy §4, §9).

    ``state`` is :data:`ABSENT`, :data:`UNREAD`, :data:`MALFORMED` (not a tuple) or
    :data:`READ`. ``entries`` are the well-formed pairs in order; ``judged`` every pair of
    strings, malformed ones included, whose version is judged against the manifest;
    ``bad_entries`` tells whether any entry is not a well-formed pair; ``findings`` are the
    ``(code, detail)`` problems of its form, reported where versions are checked (ADR-0230
    §6.1 items 10-11).
    """

    state: str
    entries: tuple[tuple[str, str], ...] = ()
    judged: tuple[tuple[str, str], ...] = ()
    bad_entries: bool = False
    findings: tuple[tuple[str, str], ...] = ()

    @property
    def well_formed(self) -> bool:
        """Whether the list read and every entry is a well-formed pair."""
        return self.state == READ and not self.bad_entries


@dataclass(frozen=True, slots=True)
class Claim:
    """A claimed trace input as read: the record, its version lists read entry by entry,
    and the problems reading it found (reported at ADR-0230 §6.1 item 13)."""

    record: RecordCopy[object]
    schema_versions: VersionList
    policy_versions: VersionList
    trace_policy_version: str | None
    problems: Problems


@dataclass(frozen=True, slots=True)
class EpisodeCopy:
    """The whole episode as read (sealing-policy §1, §10): every record a copy.

    ``records`` maps each top-level record field to its copy, ``arrays`` each array field
    (None when absent or not a tuple of records: reported). ``trace_policy_text`` is the
    episode's trace policy version when it is a string at all; ``trace_policy_version`` when
    it is also well formed. ``run_attempt_ids`` are the run's attempt ids as read (another
    malformed field of an attempt does not hide its id), None when any did not read.
    ``bound`` tells whether the episode supplies bound records (a non-empty
    ``candidate_operator_results`` or ``candidate_attempt_bindings``, or one that is not a
    tuple): an episode whose bound arrays are empty or absent is not bound (§10).
    """

    is_episode: bool
    bound: bool
    trace_policy_text: str | None
    trace_policy_version: str | None
    records: Mapping[str, RecordCopy[object]]
    arrays: Mapping[str, ArrayCopy[object] | None]
    schema_versions: VersionList
    policy_versions: VersionList
    run_attempt_ids: tuple[str, ...] | None
    claim: Claim | None


#: Top-level records: episode field -> (schema label, reason code when absent or None).
RECORD_FIELDS: Final = {
    "problem_frame": ("ProblemFrame projection", "missing_problem_frame"),
    "contract_assessment": ("ContractAssessment projection", "missing_contract_assessment"),
    "search_gate_decision": ("SearchGateDecision", "missing_search_gate_decision"),
    "compute_budget_decision": ("ComputeBudgetDecision", "missing_compute_budget_decision"),
    "geometric_search_run": ("GeometricSearchRun", None),
    "search_run_refusal": ("SearchRunRefusal", None),
}
#: Required arrays of records: episode field -> schema label.
ARRAY_FIELDS: Final = {
    "residuals": "ContractResidual",
    "replay_results": "ReplayAdapterResult",
    "replay_refusals": "ReplayAdapterRefusal",
}
#: The order records are read in (and their problems reported).
READ_ORDER: Final = (
    "problem_frame",
    "contract_assessment",
    "residuals",
    "search_gate_decision",
    "compute_budget_decision",
    "geometric_search_run",
    "search_run_refusal",
    "replay_results",
    "replay_refusals",
)
#: Bound records (ADR-0233; sealing-policy §10): optional arrays, paired by position.
BOUND_FIELDS: Final = {
    "candidate_operator_results": "CandidateOperatorResult",
    "candidate_attempt_bindings": "CandidateAttemptRunBinding",
}
_OTHER_FIELDS: Final = ("schema_versions", "policy_versions", "trace_policy_version")
EPISODE_FIELDS: Final = (*RECORD_FIELDS, *ARRAY_FIELDS, *_OTHER_FIELDS, *BOUND_FIELDS)


def _record(raw: object, name: str, problems: Problems) -> RecordCopy[object]:
    label, missing_code = RECORD_FIELDS[name]
    schema = SCHEMAS[label]
    if raw is UNREADABLE:
        problems.add(schema.code, f"episode.{name} could not be read")
        return RecordCopy(UNREAD)
    if raw is None or raw is MISSING:
        if missing_code is not None:
            problems.add(missing_code, f"episode.{name} is absent")
        return RecordCopy(ABSENT)
    record, fields = read_record(raw, schema, problems, f"episode.{name}")
    return RecordCopy(READ, record) if record is not None else RecordCopy(MALFORMED, None, fields)


def read_array(
    raw: object, name: str, schema: RecordSchema, problems: Problems
) -> ArrayCopy[object] | None:
    """A required array of records (sealing-policy §8: absent is malformed input)."""
    if raw is MISSING:
        problems.add("missing_episode_field", f"episode.{name} is absent")
        return None
    if raw is UNREADABLE:
        problems.add(schema.code, f"episode.{name} could not be read")
        return None
    items = exact_tuple(raw)
    if isinstance(items, Bad):
        problems.add(schema.code, f"episode.{name} is not a tuple of {schema.label} records")
        return None
    where = f"episode.{name}"
    records: list[object | None] = []
    fields: list[Mapping[str, object]] = []
    failed = False
    for index, item in enumerate(items):
        record, read = read_record(item, schema, problems, where, index)
        records.append(record)
        fields.append(read)
        failed = failed or record is None
    return ArrayCopy(tuple(records), tuple(fields) if failed else None)


def read_versions(raw: object, where: str, seal: Problems) -> VersionList:
    """A version list, every entry judged (sealing-policy §9), even in a list that is not a
    tuple or beside a malformed entry; its form problems as findings, reported where versions
    are checked (``seal`` is the seal's memory, given for the string readers)."""
    message = f"{where} is not a tuple of (name, version) pairs of non-empty strings"
    if raw is MISSING:
        return VersionList(ABSENT, findings=(("missing_episode_field", f"{where} is absent"),))
    if raw is UNREADABLE:
        finding = ("malformed_version_list", f"{where} could not be read")
        return VersionList(UNREAD, findings=(finding,))
    scratch = seal  # strings only are read here: nothing is recorded in it
    items = exact_tuple(raw)
    if isinstance(items, Bad):
        loose = [raw_pair(item, scratch) for item in loose_items(raw)]
        found = tuple(pair for pair in loose if pair is not None)
        return VersionList(MALFORMED, (), found, True, (("malformed_version_list", message),))
    entries: list[tuple[str, str]] = []
    judged: list[tuple[str, str]] = []
    for item in items:
        pair = read_pair(item, scratch)
        if not isinstance(pair, Bad):
            entries.append(pair)
            judged.append(pair)
            continue
        pair_of_strings = raw_pair(item, scratch)
        if pair_of_strings is not None:
            judged.append(pair_of_strings)
    bad = len(entries) != len(items)
    findings = (("malformed_version_list", message),) if bad else ()
    return VersionList(READ, tuple(entries), tuple(judged), bad, findings)


def _trace_policy(raw: object, problems: Problems) -> tuple[str | None, str | None]:
    """The episode's trace policy version: (any string, well-formed string)."""
    if raw is MISSING:
        problems.add("missing_episode_field", "episode.trace_policy_version is absent")
        return None, None
    if raw is UNREADABLE:
        problems.add(
            "malformed_trace_policy_version", "episode.trace_policy_version could not be read"
        )
        return None, None
    text = version_text(raw, problems)
    valid = read_text(raw, problems)
    if isinstance(valid, Bad):
        problems.add(
            "malformed_trace_policy_version", "trace_policy_version is not a non-empty string"
        )
        return text, None
    return text, cast(str, valid)


def _run_attempt_ids(run: RecordCopy[object], problems: Problems) -> tuple[str, ...] | None:
    attempts = run.get("candidate_attempts")
    if attempts is not None:
        return tuple(a.attempt_id for a in cast(tuple[CandidateAttempt, ...], attempts))
    partial = problems.partial.get("episode.geometric_search_run.candidate_attempts")
    if partial is None:
        return None
    ids = [
        cast(CandidateAttempt, record).attempt_id
        if record is not None
        else fields.get("attempt_id")
        for record, fields in partial
    ]
    return None if any(i is None for i in ids) else cast(tuple[str, ...], tuple(ids))


def read_claim(claimed: object, schema: RecordSchema, seal: Problems) -> Claim:
    """A claimed trace input (ADR-0230 §6.1 item 13), each attribute read once; its problems
    kept apart (reported at item 13), its reads in the seal's memory."""
    problems = Problems(
        copies=seal.copies, held=seal.held, enum_values=seal.enum_values, partial=seal.partial
    )
    before = read_before(problems, claimed, schema.label)
    if before is not None:
        problems.add(
            "malformed_trace_input",
            f"trace_input is an object already read as a {before}: one object cannot be two"
            " kinds of record",
        )
        absent = VersionList(ABSENT)
        return Claim(RecordCopy(MALFORMED, None, {}), absent, absent, None, problems)
    raw = {name: read_attribute(claimed, name) for name in schema.names}
    keep(problems, claimed, schema.label)
    for name, default in schema.defaults:
        if raw[name] is MISSING:  # a field the layout does not ask for (sealing-policy §10)
            raw[name] = default
    # The record is read from what was read once; an attribute whose read raised stays a
    # value no kind accepts.
    snapshot = SimpleNamespace(**{k: v for k, v in raw.items() if v is not MISSING})
    record, fields = read_record(snapshot, schema, problems, "trace_input")
    copy: RecordCopy[object] = (
        RecordCopy(READ, record) if record is not None else RecordCopy(MALFORMED, None, fields)
    )
    lists = [
        read_versions(raw[name], f"trace_input.{name}", seal)
        for name in ("schema_versions", "policy_versions")
    ]
    policy = raw["trace_policy_version"]
    text = None if policy is MISSING or policy is UNREADABLE else version_text(policy, problems)
    return Claim(copy, lists[0], lists[1], text, problems)


def _claim(claimed: object, schema: RecordSchema, problems: Problems) -> Claim | None:
    return None if claimed is MISSING else read_claim(claimed, schema, problems)


def read_episode(
    episode: object, problems: Problems, *, claimed: object, claim_schema: RecordSchema
) -> EpisodeCopy:
    """Read ``episode`` (and a claimed trace input, unless ``claimed`` is MISSING) whole.

    Structural problems go to ``problems`` as they are found; the claim's own go to its
    :class:`Claim`. Never raises for any input; control flow propagates.
    """
    top = {name: read_attribute(episode, name) for name in EPISODE_FIELDS}
    keep(problems, episode, "PracticeEpisode")
    if all(value is MISSING for value in top.values()):
        problems.add(
            "invalid_trace_input_type",
            f"a {_class_name(episode)} has none of the practice episode fields",
        )
        return _not_an_episode(_claim(claimed, claim_schema, problems))
    text, version = _trace_policy(top["trace_policy_version"], problems)
    records: dict[str, RecordCopy[object]] = {}
    arrays: dict[str, ArrayCopy[object] | None] = {}
    for name in READ_ORDER:
        if name in RECORD_FIELDS:
            records[name] = _record(top[name], name, problems)
        else:
            arrays[name] = read_array(top[name], name, SCHEMAS[ARRAY_FIELDS[name]], problems)
    bound = any(_supplied(top[name]) for name in BOUND_FIELDS)
    for name, label in BOUND_FIELDS.items():
        if top[name] is not MISSING and top[name] is not None:
            arrays[name] = read_array(top[name], name, SCHEMAS[label], problems)
        elif bound:  # beside the other bound array, an absent one holds no records
            arrays[name] = ArrayCopy(())
    run, refusal = records["geometric_search_run"], records["search_run_refusal"]
    if run.present and refusal.present:
        problems.add("both_run_kinds_present", "the episode holds a run and a run refusal")
    elif not run.present and not refusal.present:
        problems.add("missing_search_run", "the episode has neither a run nor a run refusal")
    lists = [
        read_versions(top[name], f"episode.{name}", problems)
        for name in ("schema_versions", "policy_versions")
    ]
    claim = _claim(claimed, claim_schema, problems)
    return EpisodeCopy(
        is_episode=True,
        bound=bound,
        trace_policy_text=text,
        trace_policy_version=version,
        records=records,
        arrays=arrays,
        schema_versions=lists[0],
        policy_versions=lists[1],
        run_attempt_ids=_run_attempt_ids(run, problems),
        claim=claim,
    )


def _not_an_episode(claim: Claim | None) -> EpisodeCopy:
    absent = VersionList(ABSENT)
    return EpisodeCopy(
        is_episode=False,
        bound=False,
        trace_policy_text=None,
        trace_policy_version=None,
        records={name: RecordCopy(ABSENT) for name in RECORD_FIELDS},
        arrays=dict.fromkeys(ARRAY_FIELDS),
        schema_versions=absent,
        policy_versions=absent,
        run_attempt_ids=None,
        claim=claim,
    )


def _supplied(raw: object) -> bool:
    """Whether a bound-record attribute holds anything but nothing: a non-empty tuple, or a
    value that is not a tuple at all (malformed, reported when read)."""
    if raw is MISSING or raw is None:
        return False
    items = exact_tuple(raw) if raw is not UNREADABLE else Bad()
    return isinstance(items, Bad) or len(items) > 0


def _class_name(value: object) -> str:
    """The name of ``value``'s class, read from ``type`` itself (no metaclass code runs)."""
    try:
        name = type.__dict__["__name__"].__get__(type(value), type)
    except Exception:
        return "an object"
    return name if type(name) is str else "an object"
