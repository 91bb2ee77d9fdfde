"""Suppression comments: ``# sealed-trace: ignore[ST201] -- <reason>`` (issue 3 §3).

Grammar (inside one comment, on the line of the finding)::

    sealed-trace: ignore[CODE(, CODE)*] -- REASON

``CODE`` is a rule code (``ST201``) or kebab name (``banned-call``); REASON is any non-empty
text. Comments are found with :mod:`tokenize`, so text inside strings and docstrings is never
mistaken for a suppression. A suppression without a reason (ST003), a malformed one (ST005)
and one that suppresses nothing (ST004) are findings; the first two suppress nothing.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sealed_trace.lint.catalog import lookup_rule
from sealed_trace.lint.facts import SuppressionFact
from sealed_trace.lint.findings import Finding

__all__ = [
    "MARKER",
    "apply_suppressions",
    "parse_suppression",
    "recording_suppressed",
    "scan_suppressions",
]

MARKER = "sealed-trace:"
_GRAMMAR = re.compile(r"sealed-trace:\s*ignore\[(?P<codes>[^\]]*)\]\s*(?:--\s*(?P<reason>.*))?$")


def parse_suppression(comment: str, line: int, column: int) -> SuppressionFact | None:
    """Parse one comment token; None when it holds no ``sealed-trace:`` marker."""
    start = comment.find(MARKER)
    if start < 0:
        return None
    col = column + start
    text = comment[start:].rstrip()
    match = _GRAMMAR.match(text)
    if match is None:
        expected = f"expected 'ignore[CODE] -- reason' in {text!r}"
        return SuppressionFact(line, col, (), None, expected)
    codes, error = _rule_codes(match.group("codes"))
    if error is not None:
        return SuppressionFact(line, col, (), None, error)
    reason = (match.group("reason") or "").strip() or None
    return SuppressionFact(line, col, codes, reason)


def _rule_codes(between_brackets: str) -> tuple[tuple[str, ...], str | None]:
    """``(the rule codes named between the brackets, None)``, or ``((), what is wrong)``."""
    codes: list[str] = []
    for raw in between_brackets.split(","):
        item = raw.strip()
        if not item:
            continue
        info = lookup_rule(item)
        if info is None:
            return (), f"unknown rule {item!r}"
        if not info.suppressible:
            return (), f"engine rule {info.code} cannot be suppressed"
        codes.append(info.code)
    if not codes:
        return (), "no rule code between the brackets"
    return tuple(codes), None


def scan_suppressions(text: str) -> tuple[SuppressionFact, ...]:
    """Return every ``# sealed-trace:`` comment of decoded source ``text``.

    Tokenization errors end the scan early; the caller reports unparsable files separately.
    """
    if MARKER not in text:
        return ()
    found: list[SuppressionFact] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                fact = parse_suppression(token.string, token.start[0], token.start[1] + 1)
                if fact is not None:
                    found.append(fact)
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass
    return tuple(found)


#: Where :func:`apply_suppressions` records what it silences, while a caller asks for it.
_RECORDED: ContextVar[list[tuple[Finding, str]] | None] = ContextVar(
    "sealed_trace_suppressed", default=None
)


@contextmanager
def recording_suppressed() -> Iterator[list[tuple[Finding, str]]]:
    """Within the block, every finding a suppression comment silences is added to the list
    yielded, with the comment's reason (SARIF reports them as suppressed, not as absent)."""
    found: list[tuple[Finding, str]] = []
    token = _RECORDED.set(found)
    try:
        yield found
    finally:
        _RECORDED.reset(token)


def apply_suppressions(
    path: str, findings: Iterable[Finding], suppressions: Iterable[SuppressionFact]
) -> list[Finding]:
    """Drop findings silenced by a valid suppression on their line; add ST003/ST004/ST005.

    Shape: findings of one file in, findings of that file out.
    """
    by_line: dict[int, list[SuppressionFact]] = {}
    out: list[Finding] = []
    for fact in suppressions:
        invalid = _invalid_suppression(path, fact)
        if invalid is None:
            by_line.setdefault(fact.line, []).append(fact)
        else:
            out.append(invalid)
    used: set[tuple[int, str]] = set()
    recorded = _RECORDED.get()
    for finding in findings:
        reason = _silencing_reason(finding, by_line.get(finding.line, ()), used)
        if reason is None:
            out.append(finding)
        elif recorded is not None:
            recorded.append((finding, reason))
    out.extend(_unused_suppressions(path, by_line, used))
    return out


def _invalid_suppression(path: str, fact: SuppressionFact) -> Finding | None:
    """ST005 for a malformed suppression, ST003 for one without a reason, else None."""
    if fact.error is not None:
        return Finding(
            path,
            fact.line,
            fact.column,
            "ST005",
            f"malformed suppression: {fact.error}",
            anchor=fact.error,
        )
    if fact.reason is None:
        return Finding(
            path,
            fact.line,
            fact.column,
            "ST003",
            "suppression has no reason; write '-- <reason>' after the codes",
            anchor=",".join(fact.codes),
        )
    return None


def _silencing_reason(
    finding: Finding, facts: Iterable[SuppressionFact], used: set[tuple[int, str]]
) -> str | None:
    """The reason of the first of ``facts`` (valid suppressions on the finding's line) that
    names its code, or None; each that names it is recorded in ``used``."""
    reason: str | None = None
    for fact in facts:
        if finding.code in fact.codes:
            used.add((fact.line, finding.code))
            reason = reason or fact.reason
    return reason


def _unused_suppressions(
    path: str, by_line: dict[int, list[SuppressionFact]], used: set[tuple[int, str]]
) -> list[Finding]:
    """ST004 for each code of a valid suppression that silenced nothing."""
    return [
        Finding(
            path,
            line,
            fact.column,
            "ST004",
            f"unused suppression of {code}: no such finding on this line",
            anchor=code,
        )
        for line, facts in by_line.items()
        for fact in facts
        for code in fact.codes
        if (line, code) not in used
    ]
