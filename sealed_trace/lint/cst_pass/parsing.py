"""Parsing a file for the libcst pass: CPython's parser first (its syntax errors, its nesting
limits), then libcst's, on a thread with a deep stack."""

from __future__ import annotations

import io
import sys
import threading
import tokenize
import unicodedata
from collections.abc import Callable

import libcst as cst

from sealed_trace.lint.compiler import parse_and_compile

__all__ = ["ParseError", "check_syntax", "normalize_identifiers", "on_deep_stack", "parse"]

#: ``(code, line, column, message)`` of a file that cannot be analysed (ST001).
ParseError = tuple[str, int, int, str]


def normalize_identifiers(text: str) -> str:
    """NFKC-normalise non-ASCII identifiers, as the Python compiler does (PEP 3131).

    Without this, ``open`` spelled with a fullwidth ``o`` (U+FF4F) would read to libcst as an
    unknown name while Python runs the builtin ``open``. Text that cannot be tokenized is
    returned unchanged (the parse reports it).
    """
    edits = {} if text.isascii() else _identifier_edits(text)
    if not edits:
        return text
    lines = text.splitlines(keepends=True)
    for row, changes in edits.items():
        line = lines[row - 1]
        for start, end, normal in sorted(changes, reverse=True):
            line = line[:start] + normal + line[end:]
        lines[row - 1] = line
    return "".join(lines)


def _identifier_edits(text: str) -> dict[int, list[tuple[int, int, str]]]:
    """``{line: [(start, end, normalised name)]}`` for each identifier NFKC changes (none
    when the text cannot be tokenized)."""
    edits: dict[int, list[tuple[int, int, str]]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            normal = _normalised_name(token)
            if normal is not None:
                edits.setdefault(token.start[0], []).append((token.start[1], token.end[1], normal))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return {}
    return edits


def _normalised_name(token: tokenize.TokenInfo) -> str | None:
    """The NFKC form of a non-ASCII identifier token, when it differs."""
    if token.type != tokenize.NAME or token.string.isascii():
        return None
    normal = unicodedata.normalize("NFKC", token.string)
    return normal if normal != token.string else None


#: Stack and recursion limit of the libcst pass: flat but long code (an expression of hundreds
#: of terms, a long attribute chain) recurses once per term in libcst and its visitors,
#: although CPython compiles it. The memory is reserved, not touched, unless it is used.
_STACK_BYTES = 512 * 1024 * 1024
_RECURSION_LIMIT = 200_000
_deep_lock = threading.Lock()


def on_deep_stack(work: Callable[[], None]) -> None:
    """Run ``work`` in a thread with a large stack and a raised recursion limit (both
    restored afterwards)."""
    with _deep_lock:
        old_size = threading.stack_size()
        old_limit = sys.getrecursionlimit()
        try:
            threading.stack_size(_STACK_BYTES)
            thread = threading.Thread(target=work, name="sealed-trace-libcst")
        finally:
            threading.stack_size(old_size)
        sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
        try:
            thread.start()
            thread.join()
        finally:
            sys.setrecursionlimit(old_limit)


def check_syntax(
    text: str, target: tuple[int, int] | None
) -> tuple[ParseError | None, tuple[int, int] | None]:
    """CPython's parser and compiler on ``text``: ``(error, newer)``. ``error`` is an ST001
    error when the project's Python (``target``; None: this interpreter's) rejects the text;
    ``newer`` is ``target`` when it is newer than this interpreter, which rejected the text
    (libcst then judges its syntax)."""
    older, newer = _against_running(target)
    try:
        parse_and_compile(text, older)  # the compiler's checks too
    except SyntaxError as exc:
        if newer is not None:
            return None, newer  # syntax newer than this interpreter's: libcst judges it
        line, column = exc.lineno or 1, exc.offset or 1
        return ("ST001", line, max(1, column), f"not valid Python: {exc.msg}"), None
    except (RecursionError, MemoryError, ValueError) as exc:
        return ("ST001", 1, 1, f"cannot parse: {type(exc).__name__} (nesting too deep)"), None
    return None, None


def _against_running(
    target: tuple[int, int] | None,
) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """``(target, None)`` when the project's Python is older than this interpreter,
    ``(None, target)`` when it is newer, ``(None, None)`` otherwise."""
    running = sys.version_info[:2]
    if target is None or target == running:
        return None, None
    return (target, None) if target < running else (None, target)


def _parser_config(target: tuple[int, int] | None) -> cst.PartialParserConfig:
    """libcst's parser for the project's Python (the newest libcst knows, if it is newer)."""
    if target is None:
        return cst.PartialParserConfig()
    try:
        return cst.PartialParserConfig(python_version=f"{target[0]}.{target[1]}")
    except ValueError:
        return cst.PartialParserConfig()


def parse(text: str, newer: tuple[int, int] | None) -> cst.Module | ParseError:
    """libcst's tree of ``text``, or an ST001 error. Unless ``newer`` (the project's Python,
    newer than this interpreter, whose parser refused the text) is given, CPython already
    accepted the text, so libcst's refusals are never called invalid Python."""
    try:
        return cst.parse_module(normalize_identifiers(text), _parser_config(newer))
    except cst.ParserSyntaxError as exc:
        message = str(exc).splitlines()[0] if str(exc) else "syntax error"
        if newer is not None:
            message = f"not valid Python {newer[0]}.{newer[1]}: {message}"
        else:
            message = f"cannot parse: libcst rejects what CPython accepts: {message}"
        return ("ST001", exc.raw_line, exc.raw_column + 1, message)
    except (RecursionError, MemoryError, ValueError, TypeError) as exc:
        return ("ST001", 1, 1, f"cannot parse: {type(exc).__name__}")
