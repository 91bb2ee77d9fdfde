"""What a policy lets through: rule selection, config-level ignores and the baseline (issue 9).

A team adopting the lint on a legacy codebase starts from what is there: it records today's
findings in a baseline (``sealed-trace lint --write-baseline FILE``, then ``baseline = "FILE"``
in the policy), ignores a few rules in a few places with a reason
(``[[tool.sealed_trace.ignore]]``) and, if it must, narrows the rules (``select``, ``deselect``,
``--select``, ``--ignore``). None of them can make the lint silently inert: a baseline entry or
an ignore entry that no longer matches anything is a finding itself (ST007, ST008), and a file
the lint could not read or a rule that crashed (ST001, ST002, ST006) is never hidden.

Baseline entries are matched by :func:`sealed_trace.lint.findings.occurrence_fingerprints`:
path, rule, boundary and what the finding is about, not its line, so moving code does not
revive a baselined finding, and a second finding of the same kind in a file is new.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sealed_trace.lint.catalog import matches_rule
from sealed_trace.lint.config import UNHIDEABLE, LintConfig
from sealed_trace.lint.config.lines import key_lines as _key_lines
from sealed_trace.lint.findings import Finding, occurrence_fingerprints, sort_findings

__all__ = [
    "BASELINE_SCHEMA",
    "BaselineError",
    "Selection",
    "apply_filters",
    "is_selected",
    "write_baseline",
]

BASELINE_SCHEMA = "sealed_trace.baseline.v1"


class BaselineError(Exception):
    """A baseline file that cannot be read or is not a baseline (a usage error, exit 2)."""


@dataclass(frozen=True, slots=True)
class Selection:
    """Rule selectors of the command line (``--select``, ``--ignore``), on top of the
    policy's ``select``/``deselect``."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


def _relpath(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def is_selected(code: str, config: LintConfig, selection: Selection) -> bool:
    """Whether findings of ``code`` are reported under the policy's and ``selection``'s rule
    selectors (the unhideable codes always are)."""
    if code in UNHIDEABLE:
        return True
    if not config.selects(code):
        return False
    if selection.select and not any(matches_rule(s, code) for s in selection.select):
        return False
    return not any(matches_rule(s, code) for s in selection.ignore)


def read_baseline(path: str) -> list[tuple[str, int, str]]:
    """The ``(fingerprint, line, code)`` of each entry of a baseline file (``code`` empty
    when the entry does not say).

    Raises :class:`BaselineError` when it cannot be read or is not a baseline document.
    """
    text = _baseline_text(path)
    data = _baseline_document(path, text)
    lines = text.splitlines()
    out: list[tuple[str, int, str]] = []
    for entry in data["findings"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise BaselineError(f"{path}: every baseline entry needs a fingerprint")
        fingerprint = entry["fingerprint"]
        line = next((n for n, text_line in enumerate(lines, 1) if fingerprint in text_line), 1)
        code = entry.get("code")
        out.append((fingerprint, line, code if isinstance(code, str) else ""))
    return out


def _baseline_text(path: str) -> str:
    """The text of the baseline file. Raises :class:`BaselineError`."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise BaselineError(f"{path}: the baseline is not UTF-8") from None


def _baseline_document(path: str, text: str) -> dict[str, Any]:
    """The baseline's JSON object, with its schema and a findings array checked. Raises
    :class:`BaselineError`."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BaselineError(f"{path}: the baseline is not JSON: {exc}") from None
    if (
        not isinstance(data, dict)
        or data.get("schema_version") != BASELINE_SCHEMA
        or not isinstance(data.get("findings"), list)
    ):
        raise BaselineError(
            f"{path}: not a sealed-trace baseline (schema_version "
            f"{BASELINE_SCHEMA!r} with a findings array)"
        )
    return data


def write_baseline(path: str, findings: Sequence[Finding]) -> int:
    """Write ``findings`` (except the unhideable ones and the filters' own) as a baseline,
    one entry per line, atomically; return how many entries it holds."""
    kept = [
        f
        for f in sort_findings(list(findings))
        if f.code not in UNHIDEABLE and f.code not in ("ST007", "ST008")
    ]
    prints = occurrence_fingerprints(kept)
    rows = [
        json.dumps(
            {"fingerprint": fp, "path": f.path, "code": f.code, "message": f.message},
            ensure_ascii=False,
        )
        for f, fp in zip(kept, prints, strict=True)
    ]
    body = ",\n".join(f"  {row}" for row in rows)
    text = (
        f'{{"schema_version": "{BASELINE_SCHEMA}", "findings": [\n'
        + (body + "\n" if rows else "")
        + "]}\n"
    )
    _replace_file(path, text)
    return len(rows)


def _replace_file(path: str, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then move it over ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError:
        os.unlink(tmp)
        raise


def apply_filters(
    findings: Sequence[Finding],
    config: LintConfig,
    selection: Selection = Selection(),
    *,
    use_baseline: bool = True,
    checked_paths: set[str] | None = None,
) -> list[Finding]:
    """``findings`` as the policy lets them through: selected rules only, minus what an ignore
    entry covers, minus what the baseline records; plus ST008 for each ignore entry that
    covered nothing and ST007 for each baseline entry that matched nothing (only when every
    file was checked: ``checked_paths`` None).

    Raises :class:`BaselineError` for a baseline file that cannot be read.
    """
    kept = [f for f in findings if is_selected(f.code, config, selection)]
    out, used = _without_ignored(kept, config)
    whole_run = checked_paths is None
    if whole_run:
        out.extend(_unused_ignores(config, selection, used))
    if use_baseline and config.baseline is not None:
        unmatched = (lambda code: is_selected(code, config, selection)) if whole_run else None
        out = _without_baselined(out, config.baseline, config.root, unmatched)
    return sort_findings(out)


def _without_ignored(findings: list[Finding], config: LintConfig) -> tuple[list[Finding], set[int]]:
    """``(the findings no ignore entry covers, the indexes of the entries that covered one)``;
    a finding is covered by the first entry that matches it."""
    used: set[int] = set()
    out: list[Finding] = []
    for finding in findings:
        entry = next(
            (e for e in config.ignores if e.ignores(finding.path, finding.code, finding.boundary)),
            None,
        )
        if entry is None:
            out.append(finding)
        else:
            used.add(entry.index)
    return out, used


def _unused_ignores(config: LintConfig, selection: Selection, used: set[int]) -> list[Finding]:
    """ST008 for each ignore entry that covered nothing, at its line of the policy file."""
    config_rel = _relpath(config.config_path, config.root)
    lines = _key_lines(_read_text(config.config_path))
    return [
        Finding(
            config_rel,
            lines.get(f"ignore[{entry.index}]", 1),
            1,
            "ST008",
            f"ignore[{entry.index}] ({', '.join(entry.codes)} in "
            f"{', '.join(entry.paths)}) ignores nothing: remove it",
            f"ignore[{entry.index}]",
        )
        for entry in config.ignores
        if entry.index not in used and is_selected("ST008", config, selection)
    ]


def _without_baselined(
    findings: list[Finding],
    baseline: str,
    root: str,
    report_unmatched: Callable[[str], bool] | None,
) -> list[Finding]:
    """``findings`` less those the baseline file records (never the unhideable ones); with
    ``report_unmatched`` (whether the run judges a code), plus ST007 for each baseline entry
    of a judged code that matched none of them (an entry of a rule ``--select`` or
    ``--ignore`` leaves out is not stale)."""
    entries = read_baseline(baseline)
    ordered = sort_findings(findings)
    prints = occurrence_fingerprints(ordered)
    recorded = {fp for fp, _, _ in entries}
    out = [
        f
        for f, fp in zip(ordered, prints, strict=True)
        if fp not in recorded or f.code in UNHIDEABLE
    ]
    if report_unmatched is not None:
        matched = recorded.intersection(prints)
        judged = [e for e in entries if not e[2] or report_unmatched(e[2])]
        out.extend(_unmatched_entries(judged, matched, _relpath(baseline, root)))
    return out


def _unmatched_entries(
    entries: list[tuple[str, int, str]], matched: set[str], baseline_rel: str
) -> list[Finding]:
    """ST007 for each baseline entry whose fingerprint is not in ``matched``."""
    return [
        Finding(
            baseline_rel,
            line,
            1,
            "ST007",
            f"baseline entry {fingerprint} matches no finding: remove it "
            "(sealed-trace lint --write-baseline rewrites the file)",
            fingerprint,
        )
        for fingerprint, line, _ in entries
        if fingerprint not in matched
    ]


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return ""
