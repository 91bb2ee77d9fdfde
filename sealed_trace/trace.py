"""SealedPracticeTrace: the ADR-0230 sealing boundary.

One practice episode in, one outcome out: a :class:`SealedPracticeTrace` when every upstream
identity reproduces and every binding holds (ADR-0230 §6.1 items 1-13, §9, §10), otherwise a
:class:`PracticeTraceRefusal` whose ``reason_codes`` say why (ADR §13, §16). Policy decisions the
ADR leaves open follow ``sealing-policy.md`` (``sealed_practice_trace.v1``).

This module is the boundary itself. It imports only immutable value, enum and identity
facilities, the upstream value types and local static manifests (ADR §15.1); it performs no I/O
and reads no clock, randomness, environment or process identity (ADR §15.2). It never raises
and never mutates its input: whatever object sits in any field, the outcome is a sealed trace
or a refusal. It emits no answer, score, rank or selection field (ADR §7.3).
"""

from __future__ import annotations

import dataclasses
import sys  # sealed-trace: ignore[ST102] -- only the stack headroom of _guarded reads it
import threading  # sealed-trace: ignore[ST102] -- one lock for that headroom
from dataclasses import dataclass
from enum import Enum
from typing import Final, TypeAlias, cast

from sealed_trace import _reader as r
from sealed_trace.identity import (
    canonical_json,
    canonical_json_with,
    digest_of_canonical,
    identity_digest,
    with_leading_key,
)
from sealed_trace.reasons import FAMILY_ORDER, INCOMPLETE, REASON_CODES
from sealed_trace.upstream.budget import (
    COMPUTE_BUDGET_POLICY_VERSION,
    ComputeBudgetDecision,
    ComputeBudgetStatus,
    budget_id,
)
from sealed_trace.upstream.frame import (
    CONTRACT_ASSESSMENT_IDENTITY_VERSION,
    PROBLEM_FRAME_IDENTITY_VERSION,
    ContractAssessmentProjection,
    ProblemFrameProjection,
    contract_assessment_id,
    problem_frame_digest,
)
from sealed_trace.upstream.gate import (
    SEARCH_GATE_POLICY_VERSION,
    SearchGateDecision,
    SearchGateStatus,
    gate_decision_id,
    gate_input_digest,
)
from sealed_trace.upstream.replay import (
    CONTRACT_PROOF_REPLAY_POLICY_VERSION,
    ReplayAdapterRefusal,
    ReplayAdapterResult,
    ReplayDisposition,
    replay_refusal_id,
    replay_result_id,
)
from sealed_trace.upstream.residuals import ContractResidual, residual_id
from sealed_trace.upstream.run import (
    GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
    GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
    CandidateAttempt,
    GeometricSearchRun,
    SearchRunDisposition,
    SearchRunRefusal,
    attempt_payload,
    run_input_digest_of,
    run_json,
    run_refusal_outcome_id,
)
from sealed_trace.upstream.spans import SourceSpan, spans_payload

__all__ = [
    "REFUSAL_DISPOSITIONS",
    "SEALED_DISPOSITIONS",
    "SEALED_PRACTICE_TRACE_POLICY_VERSION",
    "PracticeDisposition",
    "PracticeEpisode",
    "PracticeTraceInput",
    "PracticeTraceOutcome",
    "PracticeTraceRefusal",
    "SealedPracticeTrace",
    "build_practice_trace_input",
    "seal",
    "seal_practice_trace",
]

SEALED_PRACTICE_TRACE_POLICY_VERSION: Final = "sealed_practice_trace.v1"
_CREATED_BY_POLICY: Final = SEALED_PRACTICE_TRACE_POLICY_VERSION
#: Trace input keys whose lists grow with the attempts: the trace payload repeats them.
_LONG_ID_LISTS: Final = frozenset({"candidate_attempt_ids", "replay_result_ids"})
#: Lists at least this long are encoded once and spliced where a payload repeats them; a
#: shorter one costs less to encode again than to splice.
_SPLICE_MIN: Final = 32

#: Supported policy manifest: policy_versions name -> the one supported version (ADR §6.1 #10).
_POLICY_MANIFEST: Final = {
    "compute_budget": COMPUTE_BUDGET_POLICY_VERSION,
    "contract_proof_replay": CONTRACT_PROOF_REPLAY_POLICY_VERSION,
    "geometric_search_run": GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
    "sealed_practice_trace": SEALED_PRACTICE_TRACE_POLICY_VERSION,
    "search_gate": SEARCH_GATE_POLICY_VERSION,
}
#: Supported schema manifest: schema_versions name -> the one supported version.
_SCHEMA_MANIFEST: Final = {
    "contract_assessment_identity": CONTRACT_ASSESSMENT_IDENTITY_VERSION,
    "geometric_search_run": GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
    "problem_frame_identity": PROBLEM_FRAME_IDENTITY_VERSION,
}


class PracticeDisposition(str, Enum):
    """The closed practice disposition vocabulary (ADR-0230 §8).

    The first six are sealed-trace dispositions, the last four trace-refusal dispositions;
    each outcome type admits only its own family.
    """

    SEALED_ORIGINAL_REFUSAL = "sealed_original_refusal"
    SEALED_EXHAUSTED_NO_CANDIDATE = "sealed_exhausted_no_candidate"
    SEALED_ALL_CANDIDATES_REFUSED = "sealed_all_candidates_refused"
    SEALED_REPLAY_UNAVAILABLE = "sealed_replay_unavailable"
    SEALED_CONTRACT_CLOSED_PROOF_REFUSED = "sealed_contract_closed_proof_refused"
    SEALED_CANDIDATE_REPLAY_CLOSED = "sealed_candidate_replay_closed"
    TRACE_INVALID_INPUT = "trace_invalid_input"
    TRACE_IDENTITY_MISMATCH = "trace_identity_mismatch"
    TRACE_POLICY_UNSUPPORTED = "trace_policy_unsupported"
    TRACE_UPSTREAM_INCOMPLETE = "trace_upstream_incomplete"


_D = PracticeDisposition
#: Dispositions a SealedPracticeTrace may carry.
SEALED_DISPOSITIONS: Final = frozenset(
    {
        _D.SEALED_ORIGINAL_REFUSAL,
        _D.SEALED_EXHAUSTED_NO_CANDIDATE,
        _D.SEALED_ALL_CANDIDATES_REFUSED,
        _D.SEALED_REPLAY_UNAVAILABLE,
        _D.SEALED_CONTRACT_CLOSED_PROOF_REFUSED,
        _D.SEALED_CANDIDATE_REPLAY_CLOSED,
    }
)
#: Dispositions a PracticeTraceRefusal may carry.
REFUSAL_DISPOSITIONS: Final = frozenset(
    {
        _D.TRACE_INVALID_INPUT,
        _D.TRACE_IDENTITY_MISMATCH,
        _D.TRACE_POLICY_UNSUPPORTED,
        _D.TRACE_UPSTREAM_INCOMPLETE,
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PracticeEpisode:
    """One complete practice episode: the immutable upstream values (sealing-policy §1).

    Fields hold records, never ids alone; any object with the documented attribute names works
    in place of the reference types (structural typing). Exactly one of
    ``geometric_search_run`` and ``search_run_refusal`` is set. Versions are
    ``((name, version), ...)`` in ascending name order (sealing-policy §4).
    """

    problem_frame: ProblemFrameProjection | None
    contract_assessment: ContractAssessmentProjection | None
    residuals: tuple[ContractResidual, ...]
    search_gate_decision: SearchGateDecision | None
    compute_budget_decision: ComputeBudgetDecision | None
    geometric_search_run: GeometricSearchRun | None = None
    search_run_refusal: SearchRunRefusal | None = None
    replay_results: tuple[ReplayAdapterResult, ...] = ()
    replay_refusals: tuple[ReplayAdapterRefusal, ...] = ()
    schema_versions: tuple[tuple[str, str], ...] = ()
    policy_versions: tuple[tuple[str, str], ...] = ()
    trace_policy_version: str = SEALED_PRACTICE_TRACE_POLICY_VERSION


@dataclass(frozen=True, slots=True)
class PracticeTraceInput:
    """The structural trace input of ADR-0230 §6.1; ``input_digest`` hashes the rest (§12.1)."""

    input_digest: str
    trace_policy_version: str
    problem_frame_digest: str
    original_contract_assessment_id: str
    residual_ids: tuple[str, ...]
    search_gate_decision_id: str
    compute_budget_id: str
    geometric_search_run_id: str
    candidate_attempt_ids: tuple[str, ...]
    replay_result_ids: tuple[str, ...]
    replay_refusal_ids: tuple[str, ...]
    schema_versions: tuple[tuple[str, str], ...]
    policy_versions: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class SealedPracticeTrace:
    """Immutable diagnostic evidence for one complete practice episode (ADR-0230 §7.1).

    ``trace_id`` self-seals the §12.2 payload; ``explanation`` is prose, excluded from every
    identity. Construction raises ValueError for a refusal disposition (ADR §8 type table).
    """

    trace_id: str
    trace_policy_version: str
    input_digest: str
    problem_frame_digest: str
    original_contract_assessment_id: str
    residual_ids: tuple[str, ...]
    search_gate_decision_id: str
    compute_budget_id: str
    geometric_search_run_id: str
    candidate_attempt_ids: tuple[str, ...]
    replay_result_ids: tuple[str, ...]
    replay_refusal_ids: tuple[str, ...]
    upstream_identity_chain: tuple[str, ...]
    practice_disposition: PracticeDisposition
    trace_records: tuple[str, ...]
    evidence_spans: tuple[SourceSpan, ...]
    created_by_policy: str
    explanation: str

    def __post_init__(self) -> None:
        if self.practice_disposition not in SEALED_DISPOSITIONS:
            raise ValueError(f"{self.practice_disposition!r} is not a sealed disposition")


@dataclass(frozen=True, slots=True)
class PracticeTraceRefusal:
    """The typed refusal to seal an episode (ADR-0230 §7.2, §13).

    ``input_digest`` is the sealer's own recomputation when every field of the §12.1 payload
    was structurally valid, else None. Construction raises ValueError for a sealed disposition.
    """

    trace_refusal_id: str
    trace_policy_version: str
    input_digest: str | None
    practice_disposition: PracticeDisposition
    reason_codes: tuple[str, ...]
    explanation: str

    def __post_init__(self) -> None:
        if self.practice_disposition not in REFUSAL_DISPOSITIONS:
            raise ValueError(f"{self.practice_disposition!r} is not a refusal disposition")


#: The outcome union of ADR-0230 §4.
PracticeTraceOutcome: TypeAlias = SealedPracticeTrace | PracticeTraceRefusal

_MISSING: Final = r.MISSING
#: An episode attribute whose read raised: present, but malformed (sealing-policy §9).
_UNREADABLE: Final = r.UNREADABLE
_EPISODE_RECORDS: Final = (
    "problem_frame",
    "contract_assessment",
    "search_gate_decision",
    "compute_budget_decision",
    "geometric_search_run",
    "search_run_refusal",
)
_EPISODE_ARRAYS: Final = ("residuals", "replay_results", "replay_refusals")
_EPISODE_VERSIONS: Final = ("schema_versions", "policy_versions")
_EPISODE_FIELDS: Final = (
    *_EPISODE_RECORDS,
    *_EPISODE_ARRAYS,
    *_EPISODE_VERSIONS,
    "trace_policy_version",
)

#: The keys of the ADR §12.1 payload, the trace input's fields but its digest.
_TRACE_INPUT_KEYS: Final = (
    "trace_policy_version",
    "problem_frame_digest",
    "original_contract_assessment_id",
    "residual_ids",
    "search_gate_decision_id",
    "compute_budget_id",
    "geometric_search_run_id",
    "candidate_attempt_ids",
    "replay_result_ids",
    "replay_refusal_ids",
    "schema_versions",
    "policy_versions",
)
#: The reason codes of a version that a record or the episode carries and this sealer does
#: not support (``version_entry_mismatch`` can only follow one of them).
_VERSION_FAILURES: Final = frozenset(
    {"unsupported_record_version", "unsupported_trace_policy_version"}
)


_SCHEMAS_WITHOUT_RUN: Final = {"contract_assessment_identity", "problem_frame_identity"}
_POLICIES_WITHOUT_REPLAY: Final = {
    "compute_budget",
    "geometric_search_run",
    "sealed_practice_trace",
    "search_gate",
}

_TRACE_INPUT: Final = r.RecordSchema(
    "PracticeTraceInput",
    "malformed_trace_input",
    PracticeTraceInput,
    (
        ("input_digest", r.ID),
        ("trace_policy_version", r.TEXT),
        ("problem_frame_digest", r.ID),
        ("original_contract_assessment_id", r.ID),
        ("residual_ids", r.IDS),
        ("search_gate_decision_id", r.ID),
        ("compute_budget_id", r.ID),
        ("geometric_search_run_id", r.ID),
        ("candidate_attempt_ids", r.IDS),
        ("replay_result_ids", r.IDS),
        ("replay_refusal_ids", r.IDS),
        ("schema_versions", r.PAIRS),
        ("policy_versions", r.PAIRS),
    ),
)


#: An episode attribute, read once: ``_MISSING`` when absent, ``_UNREADABLE`` when reading
#: it raised anything but an interrupt (sealing-policy §9: malformed there, never absent).
_get: Final = r.read_attribute


@dataclass
class _Read:
    """One record as read: the reference instance, or None and its readable fields."""

    record: object | None
    fields: dict[str, object]

    def get(self, name: str) -> object:
        """The field's normalised value, or None when it could not be read."""
        if self.record is not None:
            # The schema names the field: a static set of names, not the episode's data.
            return getattr(self.record, name)  # sealed-trace: ignore[ST303] -- schema field
        return self.fields.get(name)


@dataclass
class _Reads:
    """A tuple of records as read: each item's record (None when it could not be read) and,
    when any could not, each item's readable fields (``fields`` is None when all were read)."""

    records: tuple[object | None, ...]
    fields: tuple[dict[str, object], ...] | None = None

    def __len__(self) -> int:
        return len(self.records)

    def complete(self) -> tuple[object, ...] | None:
        """Every record, or None when any could not be read."""
        return self.records if self.fields is None else None

    def values(self, name: str) -> list[object]:
        """Each item's normalised value of field ``name``, or None where it did not read."""
        if self.fields is None:
            # The schema names the field: a static set of names, not the episode's data.
            return [
                getattr(record, name)  # sealed-trace: ignore[ST303] -- schema field
                for record in self.records
            ]
        return [
            _Read(record, fields).get(name)
            for record, fields in zip(self.records, self.fields, strict=True)
        ]


@dataclass
class _Episode:
    """Everything the checks learned about one episode."""

    problems: r.Problems
    trace_policy_version: str | None = None
    frame: ProblemFrameProjection | None = None
    assessment: ContractAssessmentProjection | None = None
    residuals: tuple[ContractResidual, ...] | None = None
    gate: SearchGateDecision | None = None
    budget: ComputeBudgetDecision | None = None
    run: GeometricSearchRun | None = None
    run_refusal: SearchRunRefusal | None = None
    results: tuple[ReplayAdapterResult, ...] | None = None
    refusals: tuple[ReplayAdapterRefusal, ...] | None = None
    trace_input: PracticeTraceInput | None = None


class _Checker:
    """Runs every ADR-0230 §6.1 / sealing-policy §3-§5 check over one episode, in order."""

    def __init__(self, episode: object, problems: r.Problems, claimed: object = None) -> None:
        self.raw = episode
        # Each episode attribute is read exactly once: an input that answers differently on
        # a second read cannot make two checks see two different episodes.
        self.top = {name: _get(episode, name) for name in _EPISODE_FIELDS}
        r.keep(problems, episode, "PracticeEpisode")  # and no record besides
        self.e = _Episode(problems)
        self.p = problems
        # Ids usable in the §12.1 payload; a key is absent when its value did not read.
        self.ids: dict[str, object] = {}
        #: Canonical JSON of the trace input's long id lists, by payload key (ADR §12.1).
        self.fragments: dict[str, str] = {}
        self._trace_spans: tuple[SourceSpan, ...] | None = None
        self.versions_ok = True

    # -- reading ---------------------------------------------------------------------------

    def _record(self, name: str, schema: r.RecordSchema, missing_code: str | None) -> _Read:
        raw = self.top[name]
        if raw is _UNREADABLE:
            self.p.add(schema.code, f"episode.{name} could not be read")
            return _Read(None, {})
        if raw is None or raw is _MISSING:
            if missing_code is not None:
                self.p.add(missing_code, f"episode.{name} is absent")
            return _Read(None, {})
        record, fields = r.read_record(raw, schema, self.p, f"episode.{name}")
        return _Read(record, fields)

    def _array(self, name: str, schema: r.RecordSchema) -> _Reads | None:
        raw = self.top[name]
        if raw is _MISSING:
            self.p.add("missing_episode_field", f"episode.{name} is absent")
            return None
        if raw is _UNREADABLE:
            self.p.add(schema.code, f"episode.{name} could not be read")
            return None
        items = r.exact_tuple(raw)
        if isinstance(items, r.Bad):
            self.p.add(schema.code, f"episode.{name} is not a tuple of {schema.label} records")
            return None
        where = f"episode.{name}"
        reads = [r.read_record(item, schema, self.p, where, i) for i, item in enumerate(items)]
        each = tuple(record for record, _ in reads)
        if None not in each:
            return _Reads(each)
        return _Reads(each, tuple(fields for _, fields in reads))

    def _version(self, value: object, supported: str, where: str) -> None:
        if isinstance(value, str) and value != supported:
            self.p.add("unsupported_record_version", f"{where} is {value!r}, not {supported!r}")

    def read(self) -> None:
        top = self.top
        if all(value is _MISSING for value in top.values()):
            self.p.add(
                "invalid_trace_input_type",
                f"a {_class_name(self.raw)} has none of the practice episode fields",
            )
            return
        version = top["trace_policy_version"]
        if version is _MISSING:
            self.p.add("missing_episode_field", "episode.trace_policy_version is absent")
        elif version is _UNREADABLE:
            self.p.add(
                "malformed_trace_policy_version", "episode.trace_policy_version could not be read"
            )
        else:
            text = r.read_str(version)
            if isinstance(text, str) and text.strip():
                self.e.trace_policy_version = text
                if text != SEALED_PRACTICE_TRACE_POLICY_VERSION:
                    self.p.add(
                        "unsupported_trace_policy_version",
                        f"trace_policy_version {text!r} is not "
                        f"{SEALED_PRACTICE_TRACE_POLICY_VERSION!r}",
                    )
            else:
                self.p.add(
                    "malformed_trace_policy_version",
                    "trace_policy_version is not a non-empty string",
                )
        s = r.SCHEMAS
        frame = self._record("problem_frame", s["ProblemFrame projection"], "missing_problem_frame")
        assessment = self._record(
            "contract_assessment", s["ContractAssessment projection"], "missing_contract_assessment"
        )
        residuals = self._array("residuals", s["ContractResidual"])
        gate = self._record(
            "search_gate_decision", s["SearchGateDecision"], "missing_search_gate_decision"
        )
        budget = self._record(
            "compute_budget_decision", s["ComputeBudgetDecision"], "missing_compute_budget_decision"
        )
        run = self._record("geometric_search_run", s["GeometricSearchRun"], None)
        run_refusal = self._record("search_run_refusal", s["SearchRunRefusal"], None)
        results = self._array("replay_results", s["ReplayAdapterResult"])
        refusals = self._array("replay_refusals", s["ReplayAdapterRefusal"])
        run_raw, refusal_raw = top["geometric_search_run"], top["search_run_refusal"]
        run_present = run_raw is not None and run_raw is not _MISSING
        refusal_present = refusal_raw is not None and refusal_raw is not _MISSING
        if run_present and refusal_present:
            self.p.add("both_run_kinds_present", "the episode holds a run and a run refusal")
        elif not run_present and not refusal_present:
            self.p.add("missing_search_run", "the episode has neither a run nor a run refusal")

        # Version values the records carry (sealing-policy §4, §8).
        self._version(
            frame.get("frame_schema_version"),
            PROBLEM_FRAME_IDENTITY_VERSION,
            "problem_frame.frame_schema_version",
        )
        self._version(
            gate.get("policy_version"),
            SEARCH_GATE_POLICY_VERSION,
            "search_gate_decision.policy_version",
        )
        self._version(
            budget.get("policy_version"),
            COMPUTE_BUDGET_POLICY_VERSION,
            "compute_budget_decision.policy_version",
        )
        for read, where in ((run, "geometric_search_run"), (run_refusal, "search_run_refusal")):
            self._version(
                read.get("run_policy_version"),
                GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
                f"{where}.run_policy_version",
            )
        self._version(
            run.get("schema_version"),
            GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
            "geometric_search_run.schema_version",
        )
        for reads, where in ((results, "replay_results"), (refusals, "replay_refusals")):
            versions = reads.values("replay_policy_version") if reads is not None else []
            if set(versions) <= {CONTRACT_PROOF_REPLAY_POLICY_VERSION}:
                continue  # every record carries the supported version: nothing to report
            for index, value in enumerate(versions):
                self._version(
                    value,
                    CONTRACT_PROOF_REPLAY_POLICY_VERSION,
                    f"{where}[{index}].replay_policy_version",
                )

        e = self.e
        e.frame = frame.record  # type: ignore[assignment]
        e.assessment = assessment.record  # type: ignore[assignment]
        e.gate = gate.record  # type: ignore[assignment]
        e.budget = budget.record  # type: ignore[assignment]
        if not (run_present and refusal_present):
            e.run = run.record  # type: ignore[assignment]
            e.run_refusal = run_refusal.record  # type: ignore[assignment]
        if residuals is not None:
            e.residuals = residuals.complete()  # type: ignore[assignment]
        if results is not None:
            e.results = results.complete()  # type: ignore[assignment]
        if refusals is not None:
            e.refusals = refusals.complete()  # type: ignore[assignment]

        self._read_versions(
            run_present=run_present and not refusal_present,
            run_missing=not run_present and not refusal_present,
            any_replay=bool(results) or bool(refusals),
            # A record can carry another entry's supported version only where a version
            # check above already failed: without such a failure there is nothing to compare.
            carried=self._carried(frame, gate, budget, run, run_refusal, results, refusals)
            if _VERSION_FAILURES.intersection(self.p.codes)
            else {},
        )
        self._collect_ids(
            frame,
            assessment,
            residuals,
            gate,
            budget,
            run,
            run_refusal,
            results,
            refusals,
            run_present,
            refusal_present,
        )

    @staticmethod
    def _carried(
        frame: _Read,
        gate: _Read,
        budget: _Read,
        run: _Read,
        run_refusal: _Read,
        results: _Reads | None,
        refusals: _Reads | None,
    ) -> dict[tuple[str, str], list[object]]:
        replay = [
            value
            for reads in (results, refusals)
            if reads is not None
            for value in reads.values("replay_policy_version")
        ]
        run_policy = [run.get("run_policy_version"), run_refusal.get("run_policy_version")]
        return {
            ("policy", "compute_budget"): [budget.get("policy_version")],
            ("policy", "contract_proof_replay"): replay,
            ("policy", "geometric_search_run"): run_policy,
            ("policy", "search_gate"): [gate.get("policy_version")],
            ("schema", "geometric_search_run"): [run.get("schema_version")],
            ("schema", "problem_frame_identity"): [frame.get("frame_schema_version")],
        }

    def _read_versions(
        self,
        *,
        run_present: bool,
        run_missing: bool,
        any_replay: bool,
        carried: dict[tuple[str, str], list[object]],
    ) -> None:
        policy_expected = set(_POLICIES_WITHOUT_REPLAY)
        if any_replay:
            policy_expected.add("contract_proof_replay")
        schema_expected = set(_SCHEMAS_WITHOUT_RUN)
        if run_present:
            schema_expected.add("geometric_search_run")
        # With neither run kind supplied, whether the run schema entry belongs is unknown:
        # the missing run is the finding (sealing-policy §8), so the entry is optional.
        schema_optional = {"geometric_search_run"} if run_missing else set()
        if carried:
            carried[("policy", "sealed_practice_trace")] = [self.e.trace_policy_version]
        for kind, attr, manifest, expected, optional in (
            ("schema", "schema_versions", _SCHEMA_MANIFEST, schema_expected, schema_optional),
            ("policy", "policy_versions", _POLICY_MANIFEST, policy_expected, set()),
        ):
            raw = self.top[attr]
            if raw is _MISSING:
                self.p.add("missing_episode_field", f"episode.{attr} is absent")
                self.versions_ok = False
                continue
            items = r.exact_tuple(raw)
            if isinstance(items, r.Bad):
                self.p.add(
                    "malformed_version_list",
                    f"episode.{attr} could not be read"
                    if raw is _UNREADABLE
                    else f"episode.{attr} is not a tuple of (name, version) pairs"
                    " of non-empty strings",
                )
                self.versions_ok = False
                continue
            # sealing-policy §9: every entry is judged, even after a malformed one.
            read = [r.read_pair(item) for item in items]
            entries: tuple[tuple[str, str], ...] = tuple(
                pair for pair in read if not isinstance(pair, r.Bad)
            )
            malformed = len(entries) != len(read)
            if malformed:
                self.p.add(
                    "malformed_version_list",
                    f"episode.{attr} is not a tuple of (name, version) pairs of non-empty strings",
                )
                self.versions_ok = False
            else:
                self.ids[attr] = entries
            names = [name for name, _ in entries]
            if len(set(names)) != len(names):
                self.p.add("duplicate_version_entry", f"episode.{attr} repeats a name")
                self.versions_ok = False
            if names != sorted(names):
                self.p.add("unordered_version_entries", f"episode.{attr} is not in name order")
                self.versions_ok = False
            for name in sorted(expected - set(names)) if not malformed else ():
                self.p.add("missing_version_entry", f"episode.{attr} lacks {name!r}")
                self.versions_ok = False
            for name in names:
                if name not in expected and name not in optional:
                    self.p.add(
                        "unexpected_version_entry",
                        f"episode.{attr} holds {name!r}, which this episode does not use",
                    )
                    self.versions_ok = False
            for name, version in entries:
                # sealing-policy §9: a value outside the manifest is unsupported wherever it
                # sits: under an unknown name, or an entry this episode does not use.
                if version != manifest.get(name):
                    supported = (
                        f"not {manifest[name]!r}"
                        if name in manifest
                        else "an entry the manifest does not know"
                    )
                    self.p.add(
                        "unsupported_version_entry",
                        f"episode.{attr} gives {name} {version!r}, {supported}",
                    )
                    continue
                if name in expected or name in optional:
                    self._carried_mismatch(attr, kind, ((name, version),), manifest, carried)

    def _carried_mismatch(
        self,
        attr: str,
        kind: str,
        entries: tuple[tuple[str, str], ...],
        manifest: dict[str, str],
        carried: dict[tuple[str, str], list[object]],
    ) -> None:
        """Report each supported version a record carries for an entry that names another."""
        if not carried:
            return
        for name, version in entries:
            for value in dict.fromkeys(carried.get((kind, name), ())):
                if value in manifest.values() and value != version:
                    self.p.add(
                        "version_entry_mismatch",
                        f"episode.{attr} gives {name} {version!r}, records carry {value!r}",
                    )

    def _collect_ids(
        self,
        frame: _Read,
        assessment: _Read,
        residuals: _Reads | None,
        gate: _Read,
        budget: _Read,
        run: _Read,
        run_refusal: _Read,
        results: _Reads | None,
        refusals: _Reads | None,
        run_present: bool,
        refusal_present: bool,
    ) -> None:
        ids = self.ids
        ids["trace_policy_version"] = self.e.trace_policy_version
        ids["problem_frame_digest"] = frame.get("frame_digest")
        ids["original_contract_assessment_id"] = assessment.get("assessment_id")
        ids["search_gate_decision_id"] = gate.get("decision_id")
        ids["compute_budget_id"] = budget.get("budget_id")
        ids["residual_ids"] = _all_field(residuals, "residual_id")
        ids["replay_result_ids"] = _all_field(results, "replay_result_id")
        ids["replay_refusal_ids"] = _all_field(refusals, "replay_refusal_id")
        if run_present and not refusal_present:
            ids["geometric_search_run_id"] = run.get("run_id")
            ids["candidate_attempt_ids"] = self._attempt_ids(run)
        elif refusal_present and not run_present:
            ids["geometric_search_run_id"] = run_refusal.get("outcome_id")
            ids["candidate_attempt_ids"] = ()

    def _attempt_ids(self, run: _Read) -> tuple[str, ...] | None:
        """The run's attempt ids as read (another malformed field of an attempt does not hide
        its id); None when the attempts or any of their ids could not be read."""
        attempts = run.get("candidate_attempts")
        if attempts is not None:
            return tuple(a.attempt_id for a in attempts)  # type: ignore[attr-defined]
        partial = self.p.partial.get("episode.geometric_search_run.candidate_attempts")
        if partial is None:
            return None
        ids = [
            cast(CandidateAttempt, record).attempt_id
            if record is not None
            else fields.get("attempt_id")
            for record, fields in partial
        ]
        if any(i is None for i in ids):
            return None
        return tuple(ids)  # type: ignore[arg-type]

    # -- the trace input (ADR §12.1) -------------------------------------------------------

    def build_input(self) -> None:
        ids = self.ids
        # Every value read is an exact str, or a tuple of them (a JSON array), or None.
        if not self.versions_ok or None in map(ids.get, _TRACE_INPUT_KEYS):
            return
        values = {key: ids[key] for key in _TRACE_INPUT_KEYS}
        payload: dict[str, object] = dict(values)
        for key in _LONG_ID_LISTS:
            if len(values[key]) >= _SPLICE_MIN:  # type: ignore[arg-type]
                # Encoded once here and spliced into the sealed trace's payload too.
                self.fragments[key] = canonical_json(payload.pop(key), checked=False)
        digest = digest_of_canonical(canonical_json_with(payload, self.fragments))
        self.e.trace_input = PracticeTraceInput(input_digest=digest, **values)  # type: ignore[arg-type]

    # -- recomputation and binding (sealing-policy §3) -------------------------------------

    def _recompute(self, claimed: str, actual: str, code: str, where: str, *args: object) -> bool:
        """Compare a claimed id with its recomputation; ``where`` is formatted on mismatch."""
        if actual == claimed:
            return True
        self.p.add(code, f"{where.format(*args)} is {claimed}, recomputed {actual}")
        return False

    def check(self) -> None:
        """Every check of ADR-0230 §6.1 over the copies read, stage by stage, in the order
        the pipeline runs (sealing-policy §3-§5). Reason codes are kept in first-seen order,
        so this order is the order of a refusal's ``reason_codes``; which family decides the
        disposition is :data:`sealed_trace.reasons.FAMILY_ORDER` (sealing-policy §6)."""
        self._check_frame()  # item 1
        self._check_assessment()  # item 2
        self._check_residuals()  # item 3
        self._check_gate()  # item 4
        self._check_budget()  # item 5
        if self.e.run is not None:  # items 6, 7
            self._check_run(self.e.run)
        if self.e.run_refusal is not None:  # item 6, §6.2
            self._check_run_refusal(self.e.run_refusal)
        self._check_replay()  # items 8, 9
        self._check_spans()  # item 12

    def _check_frame(self) -> None:
        """§6.1 item 1: ``problem_frame_digest`` reproduces from the supplied frame."""
        frame = self.e.frame
        if frame is not None:
            self._recompute(
                frame.frame_digest,
                problem_frame_digest(frame, checked=False),
                "problem_frame_digest_mismatch",
                "problem_frame.frame_digest",
            )

    def _check_assessment(self) -> None:
        """§6.1 item 2: the assessment id reproduces, it is refused (not runnable), and it
        assesses the supplied frame."""
        frame, assessment = self.e.frame, self.e.assessment
        if assessment is None:
            return
        self._recompute(
            assessment.assessment_id,
            contract_assessment_id(assessment, checked=False),
            "contract_assessment_id_mismatch",
            "contract_assessment.assessment_id",
        )
        if assessment.runnable:
            self.p.add(
                "runnable_contract_assessment",
                "the original assessment is runnable, not refused",
            )
        if frame is not None and assessment.problem_frame_digest != frame.frame_digest:
            self.p.add(
                "assessment_frame_mismatch",
                "contract_assessment.problem_frame_digest is not the frame's digest",
            )

    def _check_gate(self) -> None:
        """§6.1 item 4: the gate decision id reproduces and binds to the residuals."""
        gate = self.e.gate
        if gate is None:
            return
        self._recompute(
            gate.decision_id,
            gate_decision_id(gate, checked=False),
            "gate_decision_id_mismatch",
            "search_gate_decision.decision_id",
        )
        self._check_gate_residuals(gate)

    def _check_budget(self) -> None:
        """§6.1 item 5: the budget id reproduces and binds to the gate decision (its id,
        policy version, input digest and evidence spans are the gate's)."""
        gate, budget = self.e.gate, self.e.budget
        if budget is None:
            return
        self._recompute(
            budget.budget_id,
            budget_id(budget, checked=False),
            "budget_id_mismatch",
            "compute_budget_decision.budget_id",
        )
        if gate is not None and (
            budget.gate_decision_id != gate.decision_id
            or budget.gate_policy_version != gate.policy_version
            or budget.gate_input_digest != gate.input_digest
            or budget.evidence_spans != gate.evidence_spans
        ):
            self.p.add("budget_gate_mismatch", "the budget's gate fields are not the gate's")

    def _check_residuals(self) -> None:
        """§6.1 items 3, 9: every residual id reproduces and binds to the refused assessment
        (same organ and spans, a code of the assessment, codes unique, every code covered,
        ascending ids)."""
        e = self.e
        if e.residuals is None:
            return
        codes_seen: set[str] = set()
        for index, res in enumerate(e.residuals):
            self._recompute(
                res.residual_id,
                residual_id(res, checked=False),
                "residual_id_mismatch",
                "residuals[{}].residual_id",
                index,
            )
            if res.residual_code in codes_seen:
                self.p.add(
                    "duplicate_residual_code", f"residuals[{index}] repeats {res.residual_code!r}"
                )
            codes_seen.add(res.residual_code)
            a = e.assessment
            if a is not None and (
                res.candidate_organ != a.candidate_organ
                or res.evidence_spans != a.evidence_spans
                or res.residual_code not in (*a.missing_bindings, *a.unresolved_hazards)
            ):
                self.p.add(
                    "residual_assessment_mismatch",
                    f"residuals[{index}] does not bind to the refused assessment",
                )
        ids = [res.residual_id for res in e.residuals]
        if any(ids[i] >= ids[i + 1] for i in range(len(ids) - 1)):
            self.p.add("residual_order_violation", "residuals are not in ascending id order")
        if e.assessment is not None:
            for code in dict.fromkeys(
                (*e.assessment.missing_bindings, *e.assessment.unresolved_hazards)
            ):
                if code not in codes_seen:
                    self.p.add("missing_residual", f"no residual for assessment code {code!r}")

    def _check_gate_residuals(self, gate: SearchGateDecision) -> None:
        """§6.1 items 4, 9: the gate names exactly the residuals, in order (a named id with no
        residual is a missing record; a residual the gate does not name is an orphan)."""
        residuals = self.e.residuals
        if residuals is None:
            return
        supplied = [res.residual_id for res in residuals]
        named = set(gate.residual_ids)
        for rid in gate.residual_ids:
            if rid not in supplied:
                self.p.add("missing_residual", f"the gate names residual {rid} that is absent")
        orphans = [rid for rid in supplied if rid not in named]
        for rid in orphans:
            self.p.add("orphan_residual", f"residual {rid} is not named by the gate")
        if set(supplied) != named:
            return
        if tuple(supplied) != gate.residual_ids:
            self.p.add("gate_residual_mismatch", "gate.residual_ids differ from the residuals")
        self._recompute(
            gate.input_digest,
            gate_input_digest(residuals, checked=False),
            "gate_residual_mismatch",
            "search_gate_decision.input_digest",
        )

    def _check_run(self, run: GeometricSearchRun) -> None:
        """§6.1 items 6, 7: the run id and input digest reproduce, the run binds to frame,
        assessment, residuals, gate and budget, needs an eligible gate and an allowed budget,
        and its attempts reproduce and stand in canonical order."""
        e, p = self.e, self.p
        gate, budget = e.gate, e.budget
        attempts = run.candidate_attempts
        # Each attempt is encoded once, blanked, for its attempt_id; the run_id payload embeds
        # the same text with the real id spliced in (the bytes hashed are unchanged, ADR §12).
        blanked = [
            canonical_json(attempt_payload(a, blank_id=True), checked=False) for a in attempts
        ]
        self._recompute(
            run.run_id,
            digest_of_canonical(
                run_json(
                    run,
                    [
                        with_leading_key(text, "attempt_id", a.attempt_id)
                        for text, a in zip(blanked, attempts, strict=True)
                    ],
                )
            ),
            "run_id_mismatch",
            "geometric_search_run.run_id",
        )
        if gate is not None and budget is not None:
            self._recompute(
                run.input_digest,
                run_input_digest_of(
                    run,
                    gate_policy_version=gate.policy_version,
                    gate_input_digest=gate.input_digest,
                    budget_policy_version=budget.policy_version,
                    checked=False,
                ),
                "run_input_digest_mismatch",
                "geometric_search_run.input_digest",
            )
            if gate.status is not SearchGateStatus.ELIGIBLE or (
                budget.status is not ComputeBudgetStatus.BUDGET_ALLOWED
            ):
                p.add(
                    "run_not_authorized",
                    "a run exists without an eligible gate and an allowed budget",
                )
        self._bind_run(
            run.problem_frame_digest,
            run.contract_assessment_id,
            run.residual_ids,
            run.gate_decision_id,
            run.budget_id,
            "run_binding_mismatch",
        )
        if not attempts and run.run_disposition is not SearchRunDisposition.EXHAUSTED_NO_CANDIDATE:
            p.add(
                "run_without_attempts_not_exhausted",
                f"a run with no attempts is {run.run_disposition.value}",
            )
        seen: set[str] = set()
        where = "geometric_search_run.candidate_attempts[{}]"
        for index, attempt in enumerate(attempts):
            self._recompute(
                attempt.attempt_id,
                digest_of_canonical(blanked[index]),
                "attempt_id_mismatch",
                where + ".attempt_id",
                index,
            )
            if attempt.attempt_index != index:
                p.add(
                    "attempt_order_violation",
                    f"{where.format(index)}.attempt_index is {attempt.attempt_index}",
                )
            if attempt.input_digest != run.input_digest:
                p.add(
                    "attempt_input_digest_mismatch",
                    f"{where.format(index)}.input_digest is not the run's",
                )
            if attempt.parent_attempt_id is not None and attempt.parent_attempt_id not in seen:
                p.add(
                    "orphan_parent_attempt",
                    f"{where.format(index)}.parent_attempt_id names no earlier attempt of this run",
                )
            if attempt.attempt_id in seen:
                p.add(
                    "duplicate_attempt_id",
                    f"{where.format(index)}.attempt_id repeats an earlier attempt",
                )
            seen.add(attempt.attempt_id)

    def _bind_run(
        self,
        frame_digest: object,
        assessment_id: object,
        residual_ids: object,
        gate_id: object,
        budget_ref: object,
        code: str,
    ) -> None:
        e = self.e
        expected_residuals = (
            e.gate.residual_ids
            if e.gate is not None
            else tuple(x.residual_id for x in e.residuals)
            if e.residuals is not None
            else None
        )
        pairs = (
            ("problem_frame_digest", frame_digest, e.frame and e.frame.frame_digest),
            ("contract_assessment_id", assessment_id, e.assessment and e.assessment.assessment_id),
            ("residual_ids", residual_ids, expected_residuals),
            ("gate_decision_id", gate_id, e.gate and e.gate.decision_id),
            ("budget_id", budget_ref, e.budget and e.budget.budget_id),
        )
        for name, have, want in pairs:
            if want is not None and have != want:
                self.p.add(code, f"the run's {name} is not the record's")

    def _check_run_refusal(self, refusal: SearchRunRefusal) -> None:
        """§6.1 item 6, §6.2: a lawful run refusal: its outcome id reproduces and it binds to
        the gate and budget."""
        e = self.e
        self._recompute(
            refusal.outcome_id,
            run_refusal_outcome_id(refusal, checked=False),
            "run_refusal_outcome_id_mismatch",
            "search_run_refusal.outcome_id",
        )
        if e.gate is not None and refusal.gate_decision_id != e.gate.decision_id:
            self.p.add(
                "run_refusal_binding_mismatch",
                "search_run_refusal.gate_decision_id is not the gate's id",
            )
        if e.budget is not None and refusal.budget_id != e.budget.budget_id:
            self.p.add(
                "run_refusal_binding_mismatch",
                "search_run_refusal.budget_id is not the budget's id",
            )

    def _check_replay(self) -> None:
        """§6.1 items 8, 9: every replay record id reproduces and binds to the run, one of its
        attempts and that attempt's candidate; every attempt has exactly one replay record."""
        e, p = self.e, self.p
        records: list[tuple[str, int, ReplayAdapterResult | ReplayAdapterRefusal]] = []
        for index, result in enumerate(e.results or ()):
            self._recompute(
                result.replay_result_id,
                replay_result_id(result, checked=False),
                "replay_result_id_mismatch",
                "replay_results[{}].replay_result_id",
                index,
            )
            records.append(("replay_results", index, result))
        for index, refusal in enumerate(e.refusals or ()):
            self._recompute(
                refusal.replay_refusal_id,
                replay_refusal_id(refusal, checked=False),
                "replay_refusal_id_mismatch",
                "replay_refusals[{}].replay_refusal_id",
                index,
            )
            records.append(("replay_refusals", index, refusal))
        run = e.run
        attempts: dict[str, CandidateAttempt] = (
            {a.attempt_id: a for a in run.candidate_attempts} if run is not None else {}
        )
        for array, index, record in records:
            orphan = (
                "orphan_replay_result"
                if isinstance(record, ReplayAdapterResult)
                else "orphan_replay_refusal"
            )
            if e.run_refusal is not None:
                p.add(orphan, f"{array}[{index}] sits next to a run refusal, which has no attempts")
            elif run is not None:
                attempt = attempts.get(record.attempt_id) if record.attempt_id else None
                if (
                    record.run_id != run.run_id
                    or attempt is None
                    or record.candidate_digest != attempt.candidate_digest
                ):
                    p.add(
                        orphan,
                        f"{array}[{index}] does not bind to the run, an attempt of "
                        "it and that attempt's candidate",
                    )
        if run is None or e.results is None or e.refusals is None:
            return
        named: dict[str, int] = {}
        for _, _, record in records:
            if record.attempt_id is not None:
                named[record.attempt_id] = named.get(record.attempt_id, 0) + 1
        for attempt in run.candidate_attempts:
            count = named.get(attempt.attempt_id, 0)
            if count == 0:
                p.add(
                    "missing_replay_record", f"attempt {attempt.attempt_index} has no replay record"
                )
            elif count > 1:
                p.add(
                    "duplicate_replay_record",
                    f"attempt {attempt.attempt_index} has {count} replay records",
                )

    def _check_spans(self) -> None:
        """§6.1 item 12, sealing-policy §5: every span copied into the trace is exact in the
        problem text."""
        e = self.e
        if e.frame is None:
            return
        text = e.frame.problem_text
        if r.spans_exact_in(text, self.trace_spans()):
            return
        length = len(text)
        for where, position, spans in self.copied_spans():
            for index, span in enumerate(spans):
                start, end = span.start, span.end
                if not 0 <= start < end <= length or text[start:end] != span.text:
                    self.p.add(
                        "inexact_evidence_span",
                        f"{where.format(position)}.evidence_spans[{index}] "
                        f"{span.text!r} at {start}:{end} is not exact in the problem text",
                    )

    def _span_sources(self) -> list[tuple[str, tuple[object, ...]]]:
        """The records whose spans the trace copies, in sealing-policy §5 order, each group
        with the name pattern of its records (``where.format(position)``)."""
        e = self.e
        return [
            ("contract_assessment", (e.assessment,) if e.assessment is not None else ()),
            ("residuals[{}]", e.residuals or ()),
            ("candidate_attempts[{}]", e.run.candidate_attempts if e.run else ()),
            ("replay_results[{}]", e.results or ()),
        ]

    def trace_spans(self) -> tuple[SourceSpan, ...]:
        """The spans the trace copies, in sealing-policy §5 order, as one tuple."""
        if self._trace_spans is None:
            self._trace_spans = r.all_spans(*(group for _, group in self._span_sources()))
        return self._trace_spans

    def copied_spans(self) -> list[tuple[str, int, tuple[SourceSpan, ...]]]:
        """The spans the trace copies, in sealing-policy §5 order, record by record.

        Each entry is ``(where, position, spans)``; ``where.format(position)`` names the
        record the spans come from.
        """
        return [
            (where, position, record.evidence_spans)  # type: ignore[attr-defined]
            for where, group in self._span_sources()
            for position, record in enumerate(group)
        ]

    # -- outcome ---------------------------------------------------------------------------

    def disposition(self) -> PracticeDisposition:
        e = self.e
        if e.run_refusal is not None or e.run is None:
            return _D.SEALED_ORIGINAL_REFUSAL
        if not e.run.candidate_attempts:
            return _D.SEALED_EXHAUSTED_NO_CANDIDATE
        outcomes = {result.replay_disposition for result in e.results or ()}
        if ReplayDisposition.CONTRACT_AND_PROOF_CLOSED in outcomes:
            return _D.SEALED_CANDIDATE_REPLAY_CLOSED
        if ReplayDisposition.CONTRACT_CLOSED_BUT_PROOF_REFUSED in outcomes:
            return _D.SEALED_CONTRACT_CLOSED_PROOF_REFUSED
        if outcomes:
            return _D.SEALED_ALL_CANDIDATES_REFUSED
        return _D.SEALED_REPLAY_UNAVAILABLE


def _all_field(reads: _Reads | None, name: str) -> tuple[object, ...] | None:
    if reads is None:
        return None
    values = reads.values(name)
    return None if None in values else tuple(values)


def _refusal(problems: r.Problems, input_digest: str | None) -> PracticeTraceRefusal:
    families = {REASON_CODES[code][0] for code in problems.codes}
    disposition = PracticeDisposition(next(f for f in FAMILY_ORDER if f in families))
    refusal = PracticeTraceRefusal(
        trace_refusal_id="",
        trace_policy_version=SEALED_PRACTICE_TRACE_POLICY_VERSION,
        input_digest=input_digest,
        practice_disposition=disposition,
        reason_codes=tuple(problems.codes),
        explanation="Refused: " + "; ".join(problems.details) + ".",
    )
    digest = identity_digest(_refusal_identity_payload(refusal), checked=False)
    return dataclasses.replace(refusal, trace_refusal_id=digest)


def _refusal_identity_payload(refusal: PracticeTraceRefusal) -> dict[str, object]:
    """The ADR §12 payload of ``trace_refusal_id``: its self key blanked, prose left out."""
    return {
        "trace_refusal_id": "",
        "trace_policy_version": refusal.trace_policy_version,
        "input_digest": refusal.input_digest,
        "practice_disposition": refusal.practice_disposition.value,
        "reason_codes": list(refusal.reason_codes),
    }


def _trace_identity_payload(trace: SealedPracticeTrace) -> dict[str, object]:
    """The ADR §12 payload of ``trace_id``: every structural field, the self key blanked,
    the explanation (prose) left out."""
    return {
        "trace_id": "",
        "trace_policy_version": trace.trace_policy_version,
        "input_digest": trace.input_digest,
        "problem_frame_digest": trace.problem_frame_digest,
        "original_contract_assessment_id": trace.original_contract_assessment_id,
        "residual_ids": trace.residual_ids,
        "search_gate_decision_id": trace.search_gate_decision_id,
        "compute_budget_id": trace.compute_budget_id,
        "geometric_search_run_id": trace.geometric_search_run_id,
        "candidate_attempt_ids": trace.candidate_attempt_ids,
        "replay_result_ids": trace.replay_result_ids,
        "replay_refusal_ids": trace.replay_refusal_ids,
        "upstream_identity_chain": trace.upstream_identity_chain,
        "practice_disposition": trace.practice_disposition.value,
        "trace_records": trace.trace_records,
        "evidence_spans": spans_payload(trace.evidence_spans),
        "created_by_policy": trace.created_by_policy,
    }


def _sealed(
    checker: _Checker, trace_input: PracticeTraceInput, explanation: str
) -> SealedPracticeTrace:
    e = checker.e
    disposition = checker.disposition()
    chain = (
        trace_input.problem_frame_digest,
        trace_input.original_contract_assessment_id,
        *trace_input.residual_ids,
        trace_input.search_gate_decision_id,
        trace_input.compute_budget_id,
        trace_input.geometric_search_run_id,
        *trace_input.candidate_attempt_ids,
        *trace_input.replay_result_ids,
        *trace_input.replay_refusal_ids,
    )
    spans = checker.trace_spans()
    if not explanation:
        attempts = len(trace_input.candidate_attempt_ids)
        explanation = (
            f"Sealed as {disposition.value}: {attempts} candidate attempt(s), "
            f"{len(e.results or ())} replay result(s), {len(e.refusals or ())} replay "
            "refusal(s). Evidence only: nothing is selected, answered or served."
        )
    trace = SealedPracticeTrace(
        trace_id="",
        trace_policy_version=trace_input.trace_policy_version,
        input_digest=trace_input.input_digest,
        problem_frame_digest=trace_input.problem_frame_digest,
        original_contract_assessment_id=trace_input.original_contract_assessment_id,
        residual_ids=trace_input.residual_ids,
        search_gate_decision_id=trace_input.search_gate_decision_id,
        compute_budget_id=trace_input.compute_budget_id,
        geometric_search_run_id=trace_input.geometric_search_run_id,
        candidate_attempt_ids=trace_input.candidate_attempt_ids,
        replay_result_ids=trace_input.replay_result_ids,
        replay_refusal_ids=trace_input.replay_refusal_ids,
        upstream_identity_chain=chain,
        practice_disposition=disposition,
        trace_records=chain,
        evidence_spans=spans,
        created_by_policy=_CREATED_BY_POLICY,
        explanation=explanation,
    )
    payload = _trace_identity_payload(trace)
    # The long id lists the trace input already encoded, and a long chain (written under two
    # keys), are spliced in as text rather than encoded again (ADR §12: the same bytes are
    # hashed).
    fragments = dict(checker.fragments)
    if len(chain) >= _SPLICE_MIN:
        fragments["upstream_identity_chain"] = fragments["trace_records"] = canonical_json(
            chain, checked=False
        )
    for key in fragments:
        del payload[key]
    digest = digest_of_canonical(canonical_json_with(payload, fragments))
    return dataclasses.replace(trace, trace_id=digest)


_NO_CLAIM: Final = object()


def _outcome(
    episode: object,
    claimed: object,
    explanation: object,
    prior: r.Problems | None,
    *,
    want_input: bool,
) -> PracticeTraceOutcome | PracticeTraceInput:
    problems = prior if prior is not None else r.Problems()
    if not issubclass(type(explanation), str):
        problems.add("malformed_explanation", "explanation is not a string")
        explanation = ""
    checker = _Checker(episode, problems, None if claimed is _NO_CLAIM else claimed)
    checker.read()
    if "invalid_trace_input_type" not in problems.codes:
        checker.build_input()
        checker.check()
    built = checker.e.trace_input
    if claimed is not _NO_CLAIM:
        record, fields = r.read_record(claimed, _TRACE_INPUT, problems, "trace_input")
        if record is not None:
            fields = {name: getattr(record, name) for name in _CLAIMED_VERSIONS}
        _claimed_versions(fields, problems)
        # sealing-policy §9: next to a missing record the comparison cannot be judged.
        incomplete = any(REASON_CODES[code][0] == INCOMPLETE for code in problems.codes)
        if record is not None and built is not None and not incomplete and record != built:
            differing = [
                name
                for name, _ in _TRACE_INPUT.fields
                # The schema names the fields: a static set of names, not the episode's data.
                if getattr(record, name)  # sealed-trace: ignore[ST303] -- schema field
                != getattr(built, name)  # sealed-trace: ignore[ST303] -- schema field
            ]
            problems.add(
                "trace_input_mismatch", "the claimed trace input differs in " + ", ".join(differing)
            )
    digest = built.input_digest if built is not None else None
    if problems.codes or built is None:
        if not problems.codes:  # unreachable by construction; refuse rather than guess
            problems.add("sealer_internal_fault", "the trace input could not be built")
        return _refusal(problems, digest)
    if want_input:
        return built
    return _sealed(checker, built, str.__str__(cast(str, explanation)))


_CLAIMED_VERSIONS: Final = ("trace_policy_version", "schema_versions", "policy_versions")


def _claimed_versions(fields: dict[str, object], problems: r.Problems) -> None:
    """Version values of a claimed trace input outside the manifest (sealing-policy §9)."""
    policy = fields.get("trace_policy_version")
    if isinstance(policy, str) and policy != SEALED_PRACTICE_TRACE_POLICY_VERSION:
        problems.add(
            "unsupported_trace_policy_version",
            f"trace_input.trace_policy_version is {policy!r}, not "
            f"{SEALED_PRACTICE_TRACE_POLICY_VERSION!r}",
        )
    for attr, manifest in (
        ("schema_versions", _SCHEMA_MANIFEST),
        ("policy_versions", _POLICY_MANIFEST),
    ):
        entries = fields.get(attr)
        for name, version in entries if isinstance(entries, tuple) else ():
            if version != manifest.get(name):
                problems.add(
                    "unsupported_version_entry",
                    f"trace_input.{attr} gives {name} {version!r}, outside the manifest",
                )


def _guarded(
    episode: object,
    claimed: object,
    explanation: object,
    prior: r.Problems | None,
    *,
    want_input: bool,
) -> PracticeTraceOutcome | PracticeTraceInput:
    entered = False
    reading = r.begin_seal()
    try:
        _headroom()
        entered = True
        return _outcome(episode, claimed, explanation, prior, want_input=want_input)
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        problems = r.Problems()
        problems.add("sealer_internal_fault", f"reading the input raised {_class_name(error)}")
        return _refusal(problems, None)
    finally:
        r.end_seal(reading)
        if entered:
            _restore()


#: Frames a seal may use below its caller: the deepest episode that seals (facts nested to
#: the ADR §12 depth limit) needs about 140 on Python 3.10 and 3.11, and 72 on 3.12 and
#: later, where C code keeps a count of its own; an input nested deeper is refused by its
#: depth count, well before this.
_HEADROOM: Final = 400

# The outcome must not depend on how deep in the stack the caller sits (sealing-policy §9,
# resource limits): a valid episode sealed near the recursion limit would otherwise refuse
# as an internal fault, or raise. The two helpers below are the sealer's only reads and
# writes of interpreter state, and they change nothing the outcome is computed from. The
# limit is one per process, so seals running at once (threads) share one record of it: it is
# raised as far as the deepest of them needs, and put back only when the last one ends.
# Re-entrant: a signal handler that seals runs on the thread that may hold it.
_LIMIT_LOCK: Final = threading.RLock()  # sealed-trace: ignore[ST201] -- headroom lock


@dataclass
class _Limit:
    """The seals running now, the recursion limit before they raised it, and the limit they
    set (0 when the limit is not theirs)."""

    running: int = 0
    before: int = 0
    ours: int = 0


_LIMIT: Final = _Limit()


def _headroom() -> None:
    """Make :data:`_HEADROOM` frames of room below the caller for this seal."""
    frame = sys._getframe()  # sealed-trace: ignore[ST201] -- stack headroom: counts frames
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back  # type: ignore[assignment]  # sealed-trace: ignore[ST202] -- stack headroom
    with _LIMIT_LOCK:
        state = _LIMIT
        current = sys.getrecursionlimit()  # sealed-trace: ignore[ST201] -- stack headroom
        if state.ours != current:  # never raised, put back, or changed by someone else:
            state.ours = 0  # the limit in force now is the one to come back to
            state.before = current
        state.running += 1
        # Never more than _HEADROOM above the limit the seals found: a seal nested in a seal
        # (a host read that seals) gets no new room, so unbounded nesting ends in a refusal,
        # not in a stack overflow of the interpreter itself.
        needed = min(depth + _HEADROOM, state.before + _HEADROOM)
        if needed > current:
            sys.setrecursionlimit(needed)  # sealed-trace: ignore[ST201] -- stack headroom
            state.ours = needed
        elif state.running == 1 and state.ours and needed <= state.before:
            # left raised by an earlier seal that could not put it back: now it can be
            sys.setrecursionlimit(state.before)  # sealed-trace: ignore[ST201] -- stack headroom
            state.ours = 0


def _restore() -> None:
    """This seal is done: when it was the last one running, put the limit back, unless
    someone else changed it meanwhile."""
    with _LIMIT_LOCK:
        state = _LIMIT
        state.running -= 1
        if state.running or not state.ours:
            return
        current = sys.getrecursionlimit()  # sealed-trace: ignore[ST201] -- stack headroom
        try:
            if current == state.ours:
                sys.setrecursionlimit(state.before)  # sealed-trace: ignore[ST201] -- stack headroom
            state.ours = 0
        except RecursionError:  # the caller sits at the old limit: the next seal puts it back
            pass


def _class_name(value: object) -> str:
    """The name of ``value``'s class, read from the type itself (a hostile metaclass cannot
    answer for it), or ``"an exception"`` when even that cannot be read."""
    try:
        # type's own name descriptor, so no metaclass code runs
        name = type.__dict__["__name__"].__get__(  # sealed-trace: ignore[ST202] -- see above
            type(value), type
        )
        return name if type(name) is str else "an exception"
    except Exception:
        return "an exception"


def build_practice_trace_input(episode: object) -> PracticeTraceInput | PracticeTraceRefusal:
    """Validate ``episode`` and build its :class:`PracticeTraceInput` (ADR-0230 §6.1, §12.1).

    Args:
        episode: a :class:`PracticeEpisode` or any object with its attribute names.

    Returns:
        The trace input, whose ``input_digest`` hashes the §12.1 payload, when the whole
        episode validates; otherwise the :class:`PracticeTraceRefusal` that :func:`seal`
        would return. Never raises (a ``KeyboardInterrupt`` is passed on, so Ctrl-C still
        stops the caller).
    """
    return _guarded(episode, _NO_CLAIM, "", None, want_input=True)  # type: ignore[return-value]


def seal_practice_trace(
    trace_input: object, episode: object, *, explanation: object = ""
) -> PracticeTraceOutcome:
    """Seal ``episode`` against a claimed ``trace_input`` (ADR-0230 §6.1 item 13, §7).

    The claimed input is compared field by field with the one built from the records: a
    malformed claim refuses as ``trace_invalid_input`` (``malformed_trace_input``), a differing
    one as ``trace_identity_mismatch`` (``trace_input_mismatch``).

    Args:
        trace_input: a :class:`PracticeTraceInput` or any object with its attribute names.
        episode: a :class:`PracticeEpisode` or any object with its attribute names.
        explanation: prose for the sealed trace, excluded from every identity; empty means a
            generated summary.

    Returns:
        A :class:`SealedPracticeTrace` or a :class:`PracticeTraceRefusal`. Never raises (a
        ``KeyboardInterrupt`` is passed on, so Ctrl-C still stops the caller).
    """
    return _guarded(episode, trace_input, explanation, None, want_input=False)  # type: ignore[return-value]


def seal(episode: object, *, explanation: object = "") -> PracticeTraceOutcome:
    """Build the trace input from ``episode`` and seal it (ADR-0230 §4, §6-§13).

    Returns:
        A :class:`SealedPracticeTrace` when every upstream identity reproduces and every
        binding holds, else a :class:`PracticeTraceRefusal` with ``reason_codes`` from
        :data:`sealed_trace.reasons.REASON_CODES`. Never raises (a ``KeyboardInterrupt`` is
        passed on, so Ctrl-C still stops the caller), never mutates ``episode``.
    """
    return _guarded(episode, _NO_CLAIM, explanation, None, want_input=False)  # type: ignore[return-value]


def _seal_with_problems(
    episode: object, claimed: object | None, prior: r.Problems
) -> PracticeTraceOutcome:
    """Seal with problems already found while decoding a document (episode_json only).

    ``claimed`` is the document's claimed trace input, or None when it has none.
    """
    claim = _NO_CLAIM if claimed is None else claimed
    return _guarded(episode, claim, "", prior, want_input=False)  # type: ignore[return-value]


def _refuse_document(prior: r.Problems) -> PracticeTraceRefusal:
    """The refusal of a document that holds no episode to read (episode_json only)."""
    return _refusal(prior, None)
