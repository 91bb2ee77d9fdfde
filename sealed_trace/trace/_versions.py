"""ADR-0230 §6.1 items 10 and 11: every version is supported explicitly, and the version
lists name each entry once, in ascending order (sealing-policy §4, §8, §9, §10, §11).

A version value outside the manifest is ``trace_policy_unsupported`` wherever it sits (on a
record, in a list, under a name the manifest does not know, as a lone surrogate); a list's
own form faults are ``trace_invalid_input``; an entry that differs from the value its
records carry is ``trace_identity_mismatch``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from sealed_trace._reader import READ, Problems, VersionList
from sealed_trace.trace._copies import Copies
from sealed_trace.trace.model import (
    POLICY_MANIFEST,
    SCHEMA_MANIFEST,
    SEALED_PRACTICE_TRACE_POLICY_VERSION,
)
from sealed_trace.upstream.binding import CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION
from sealed_trace.upstream.budget import COMPUTE_BUDGET_POLICY_VERSION
from sealed_trace.upstream.frame import PROBLEM_FRAME_IDENTITY_VERSION
from sealed_trace.upstream.gate import SEARCH_GATE_POLICY_VERSION
from sealed_trace.upstream.operator import CANDIDATE_OPERATOR_POLICY_VERSION
from sealed_trace.upstream.replay import CONTRACT_PROOF_REPLAY_POLICY_VERSION
from sealed_trace.upstream.run import (
    GEOMETRIC_SEARCH_RUN_POLICY_VERSION,
    GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION,
)

__all__ = [
    "claimed_entries_are_supported",
    "expected_entries",
    "list_faults",
    "record_versions_are_supported",
    "trace_policy_is_supported",
    "version_lists_are_exact",
]

#: Version values records carry (sealing-policy §8, §10): where -> (field, supported value,
#: the (list, entry name) it must equal).
_RECORD_VERSIONS: Final = (
    ("problem_frame", "frame_schema_version", PROBLEM_FRAME_IDENTITY_VERSION),
    ("search_gate_decision", "policy_version", SEARCH_GATE_POLICY_VERSION),
    ("compute_budget_decision", "policy_version", COMPUTE_BUDGET_POLICY_VERSION),
    ("geometric_search_run", "run_policy_version", GEOMETRIC_SEARCH_RUN_POLICY_VERSION),
    ("search_run_refusal", "run_policy_version", GEOMETRIC_SEARCH_RUN_POLICY_VERSION),
    ("geometric_search_run", "schema_version", GEOMETRIC_SEARCH_RUN_SCHEMA_VERSION),
)
_ARRAY_VERSIONS: Final = (
    ("replay_results", "replay_policy_version", CONTRACT_PROOF_REPLAY_POLICY_VERSION),
    ("replay_refusals", "replay_policy_version", CONTRACT_PROOF_REPLAY_POLICY_VERSION),
    (
        "candidate_attempt_bindings",
        "binding_policy_version",
        CANDIDATE_ATTEMPT_RUN_BINDING_POLICY_VERSION,
    ),
    ("candidate_operator_results", "operator_policy_version", CANDIDATE_OPERATOR_POLICY_VERSION),
)
#: Which record values each list entry must equal: (list kind, entry) -> carriers.
_CARRIERS: Final = {
    ("policy", "compute_budget"): (("compute_budget_decision", "policy_version"),),
    ("policy", "geometric_search_run"): (
        ("geometric_search_run", "run_policy_version"),
        ("search_run_refusal", "run_policy_version"),
    ),
    ("policy", "search_gate"): (("search_gate_decision", "policy_version"),),
    ("schema", "geometric_search_run"): (("geometric_search_run", "schema_version"),),
    ("schema", "problem_frame_identity"): (("problem_frame", "frame_schema_version"),),
}
_ARRAY_CARRIERS: Final = {
    ("policy", "contract_proof_replay"): ("replay_results", "replay_refusals"),
    ("policy", "candidate_attempt_run_binding"): ("candidate_attempt_bindings",),
    ("policy", "candidate_operator"): ("candidate_operator_results",),
}
_ARRAY_FIELD: Final = {name: field for name, field, _ in _ARRAY_VERSIONS}
_VERSION_FAILURES: Final = frozenset(
    {"unsupported_record_version", "unsupported_trace_policy_version"}
)


def trace_policy_is_supported(c: Copies, p: Problems) -> None:
    """Item 10: the episode's ``trace_policy_version`` is ``sealed_practice_trace.v1``."""
    text = c.read.trace_policy_text
    if text is not None and text != SEALED_PRACTICE_TRACE_POLICY_VERSION:
        p.add(
            "unsupported_trace_policy_version",
            f"trace_policy_version {text!r} is not {SEALED_PRACTICE_TRACE_POLICY_VERSION!r}",
        )


def _unsupported(p: Problems, value: object, supported: str, where: str) -> None:
    if isinstance(value, str) and value != supported:
        p.add("unsupported_record_version", f"{where} is {value!r}, not {supported!r}")


def record_versions_are_supported(c: Copies, p: Problems) -> None:
    """Item 10: every version value a record carries is the supported one (sealing-policy
    §8; §10 for the bindings' and operator results' versions)."""
    records, arrays = c.read.records, c.read.arrays
    for name, field, supported in _RECORD_VERSIONS:
        _unsupported(p, records[name].get(field), supported, f"{name}.{field}")
    for name, field, supported in _ARRAY_VERSIONS:
        array = arrays.get(name)
        values = array.values(field) if array is not None else []
        if set(values) <= {supported}:
            continue  # every record carries the supported version: nothing to report
        for index, value in enumerate(values):
            _unsupported(p, value, supported, f"{name}[{index}].{field}")


def expected_entries(c: Copies) -> tuple[set[str], set[str], set[str]]:
    """The entries this episode's lists must hold (sealing-policy §4, §10):
    ``(policy names, schema names, schema names that may be there or not)``."""
    arrays, records = c.read.arrays, c.read.records
    policy = {"compute_budget", "geometric_search_run", "sealed_practice_trace", "search_gate"}
    if any(arrays.get(name) for name in ("replay_results", "replay_refusals")):
        policy.add("contract_proof_replay")
    if c.bound:
        policy |= {"candidate_attempt_run_binding", "candidate_operator"}
    schema = {"contract_assessment_identity", "problem_frame_identity"}
    run, refusal = records["geometric_search_run"].present, records["search_run_refusal"].present
    if run and not refusal:
        schema.add("geometric_search_run")
    # With neither run kind supplied, whether the run schema entry belongs is unknown: the
    # missing run is the finding (sealing-policy §8), so the entry is optional.
    optional = {"geometric_search_run"} if not run and not refusal else set()
    return policy, schema, optional


def list_faults(
    versions: VersionList, where: str, expected: set[str], optional: set[str]
) -> list[tuple[str, str]]:
    """Item 11: the form faults of one list, as ``(code, detail)``, every entry judged."""
    faults = list(versions.findings)
    if versions.state != READ:
        return faults
    names = [name for name, _ in versions.entries]
    if len(set(names)) != len(names):
        faults.append(("duplicate_version_entry", f"{where} repeats a name"))
    if names != sorted(names):
        faults.append(("unordered_version_entries", f"{where} is not in name order"))
    for name in sorted(expected - set(names)) if not versions.bad_entries else ():
        faults.append(("missing_version_entry", f"{where} lacks {name!r}"))
    for name in names:
        if name not in expected and name not in optional:
            detail = f"{where} holds {name!r}, which this episode does not use"
            faults.append(("unexpected_version_entry", detail))
    return faults


def _unsupported_entry(name: str, version: str, where: str, manifest: Mapping[str, str]) -> str:
    """Item 10 (sealing-policy §9): why ``version`` is outside the manifest, or ""."""
    if version == manifest.get(name):
        return ""
    known = f"not {manifest[name]!r}" if name in manifest else "an entry not in the manifest"
    return f"{where} gives {name} {version!r}, {known}"


def claimed_entries_are_supported(versions: VersionList, where: str, p: Problems) -> None:
    """Item 10 for a claimed trace input's list: every entry judged, malformed or not."""
    manifest = SCHEMA_MANIFEST if where.endswith("schema_versions") else POLICY_MANIFEST
    for name, version in versions.judged:
        detail = _unsupported_entry(name, version, where, manifest)
        if detail:
            p.add("unsupported_version_entry", detail)


def _carried(c: Copies, kind: str, name: str) -> list[object]:
    """The version values the records carry for one list entry, in record order."""
    records, arrays = c.read.records, c.read.arrays
    if (kind, name) == ("policy", "sealed_practice_trace"):
        return [c.read.trace_policy_text]
    values = [records[rec].get(field) for rec, field in _CARRIERS.get((kind, name), ())]
    for array_name in _ARRAY_CARRIERS.get((kind, name), ()):
        array = arrays.get(array_name)
        if array is not None:
            values += array.values(_ARRAY_FIELD[array_name])
    return values


def version_lists_are_exact(c: Copies, p: Problems) -> None:
    """Items 10, 11: each list holds exactly the entries this episode uses, once each, in
    ascending order, each at the supported version and equal to what its records carry."""
    policy, schema, optional = expected_entries(c)
    # A record can carry another entry's supported version only where a version check
    # already failed: without such a failure there is nothing to compare.
    compare = bool(_VERSION_FAILURES.intersection(p.codes))
    for kind, versions, manifest, expected, maybe in (
        ("schema", c.read.schema_versions, SCHEMA_MANIFEST, schema, optional),
        ("policy", c.read.policy_versions, POLICY_MANIFEST, policy, set()),
    ):
        where = f"episode.{kind}_versions"
        for code, detail in list_faults(versions, where, expected, maybe):
            p.add(code, detail)
        well_formed = set(versions.entries)
        for name, version in versions.judged:
            detail = _unsupported_entry(name, version, where, manifest)
            if detail:
                p.add("unsupported_version_entry", detail)
            elif compare and (name, version) in well_formed and name in expected | maybe:
                for value in dict.fromkeys(_carried(c, kind, name)):
                    if value in manifest.values() and value != version:
                        p.add(
                            "version_entry_mismatch",
                            f"{where} gives {name} {version!r}, records carry {value!r}",
                        )
