"""Reading one source file, and what the engine keeps of every file (issue 3 §5, 8 §2).

:func:`load` reads, checks and decodes a file as CPython would (PEP 263 coding cookies found
on the first two lines as CPython's tokenizer splits them, a NUL byte refused) and gives the
text the lint searches: NFKC-normalised, as Python normalises identifiers. :func:`screen`
keeps a few flags of every file (:class:`Screened`); what a file's text may hide from the
scan is :mod:`.hiding`'s. Every search here is *sound* for what the engine asks of it: when
it answers "no", no spelling of what it looks for can occur in the file; a "yes" only costs a
parse.

Nothing here imports libcst or grimp, or executes scanned code.
"""

from __future__ import annotations

import re
import tokenize
import unicodedata
from dataclasses import dataclass

from sealed_trace.lint.discover import SourceFile, read_bytes

__all__ = [
    "IDENT_BYTES",
    "Loaded",
    "Screened",
    "deep_relative",
    "load",
    "screen",
    "screened",
    "type_checking_spoofed",
    "unknown_import_lines",
]

#: Bytes an identifier may hold (every byte of a UTF-8 multibyte character among them).
IDENT_BYTES = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_" + bytes(range(0x80, 0x100))
)
#: A relative ``from`` import: its dots (``from . . x import`` is legal Python too), a dotted
#: name, ``import``; only blanks and line continuations may stand between them.
_GAP = rb"(?:[ \t\f]|\\(?:\r\n|\r|\n))"
_RELATIVE_DOTS = re.compile(
    rb"from((?:[ \t\f.]|\\(?:\r\n|\r|\n))*\.)"
    + _GAP
    + rb"*[A-Za-z0-9_.\x80-\xff]*"
    + _GAP
    + rb"*import"
)
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_UTF8 = frozenset({"utf-8", "utf_8", "utf8", "utf-8-sig", "ascii", "us-ascii"})
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)?")


@dataclass(slots=True)
class Loaded:
    """One file as read: ``scan`` (the NFKC-normalised text as UTF-8, what every search reads),
    ``text`` (the decoded text, None until needed for an ASCII file), ``raw`` (the bytes on
    disk), ``error`` (``(code, line, column, message)``: ST001/ST002) and
    the ``encoding`` read."""

    file: SourceFile
    scan: bytes = b""
    text: str | None = None
    raw: bytes = b""
    error: tuple[str, int, int, str] | None = None
    #: the encoding the text was decoded with (``utf-8`` for ASCII files too)
    encoding: str = "utf-8"

    def decoded(self) -> str:
        """The decoded text."""
        if self.text is None:
            self.text = self.scan.decode("ascii")
        return self.text


def _line_of(data: bytes, index: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, index) + 1
    return line, index - (data.rfind(b"\n", 0, index) + 1) + 1


def _head_lines(data: bytes) -> list[bytes]:
    """The first two lines of ``data`` with their ends, split as CPython's tokenizer splits
    them (``\\r\\n``, ``\\r`` or ``\\n``), where a coding cookie may stand."""
    lines: list[bytes] = []
    position = 0
    while len(lines) < 2:
        match = _LINE.match(data, position)
        if match is None or not match.group():
            break
        lines.append(match.group())
        position = match.end()
    return lines


def load(file: SourceFile, limit: int) -> Loaded:
    """Read, check and decode one file (at most ``limit`` bytes): never raises; a file that
    cannot be read is ST002, one that cannot be decoded or holds a NUL byte ST001."""
    item = Loaded(file)
    if file.problem is not None:
        item.error = ("ST002", 1, 1, f"cannot read: {file.problem}")
        return item
    try:
        data = read_bytes(file.abspath, limit)
    except OSError as exc:
        item.error = ("ST002", 1, 1, f"cannot read: {exc.strerror or exc}")
        return item
    except ValueError as exc:
        item.error = ("ST002", 1, 1, f"cannot read: {exc}")
        return item
    item.raw = data
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _line_of(data, nul)
        item.error = ("ST001", line, col, "source contains a NUL byte")
        return item
    # Most files: no coding cookie in their first two lines (the word does not occur there)
    # and no BOM. Then they are UTF-8, as Python reads them.
    head = _head_lines(data)
    if b"coding" not in b"".join(head) and not data.startswith(b"\xef\xbb\xbf"):
        _decode_utf8(item, data)
        return item
    cookies = [match for line in head if (match := _COOKIE.search(line))]
    if data.isascii() and all(c.group(1).decode().lower() in _UTF8 for c in cookies):
        item.scan = data
        return item
    _decode_declared(item, data, head)
    return item


def _decode_utf8(item: Loaded, data: bytes) -> None:
    """A file without a coding cookie or BOM: UTF-8 (ASCII is kept as it is)."""
    if data.isascii():
        item.scan = data
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_of(data, exc.start)
        item.error = ("ST001", line, col, f"cannot decode as utf-8: {exc.reason}")
        return
    item.text = text
    item.scan = (
        data
        if unicodedata.is_normalized("NFKC", text)
        else unicodedata.normalize("NFKC", text).encode("utf-8", "surrogatepass")
    )


def _decode_declared(item: Loaded, data: bytes, head: list[bytes]) -> None:
    """A file with a coding cookie or a BOM, decoded as CPython decodes it."""
    try:
        # CPython finds the coding cookie on the first two lines as its tokenizer reads
        # them, with universal newlines: a lone CR ends a line too.
        encoding, _ = tokenize.detect_encoding(iter([*head, b"", b""]).__next__)
        text = data.decode(encoding)
        item.encoding = encoding
    except (SyntaxError, LookupError) as exc:
        item.error = ("ST001", 1, 1, f"cannot decode: {exc}")
        return
    except UnicodeDecodeError as exc:
        line, col = _line_of(data, exc.start)
        item.error = ("ST001", line, col, f"cannot decode as {exc.encoding}: {exc.reason}")
        return
    item.text = text
    if encoding == "utf-8" and unicodedata.is_normalized("NFKC", text):
        item.scan = data  # already what Python reads its identifiers as
    else:
        item.scan = unicodedata.normalize("NFKC", text).encode("utf-8", "surrogatepass")


@dataclass(frozen=True, slots=True)
class Screened:
    """What the engine keeps of every file from its one read (never its text).

    ``error``: as :class:`Loaded`'s; ``marker``: it holds a suppression comment;
    ``exact_only``: read in another encoding than UTF-8 (a BOM included), or with a relative
    import above its top package, so that the compiled scanner must not judge it alone;
    ``unknown_lines``: the 1-based lines where an import statement may stand that does not
    run at module level (indented, or after ``:`` or ``;`` or a line continuation), None when
    every line may (lone carriage returns): an import the scanner finds on any other line is
    a module-level one, so the scan's edge has its kind without a parse."""

    error: tuple[str, int, int, str] | None
    marker: bool = False
    exact_only: bool = False
    unknown_lines: frozenset[int] | None = None


_MARKER = b"sealed-trace:"
_BLANK = b" \t\f"


def unknown_import_lines(scan: bytes) -> frozenset[int] | None:
    """The lines of ``scan`` where an import statement may begin that does not run at module
    level (see :class:`Screened`): ``import`` or ``from`` indented, after a compound
    statement's ``:`` or a ``;``, or first on a line continued from the one before. None when
    lines cannot be told apart by line feeds (lone carriage returns). A word in a string or
    comment only costs a parse."""
    if b"\r" in scan and scan.count(b"\r") != scan.count(b"\r\n"):
        return None
    lines: set[int] = set()
    line, position = 1, 0
    for start in sorted(_word_starts(scan, b"import") + _word_starts(scan, b"from")):
        line += scan.count(b"\n", position, start)
        position = start
        head = scan[scan.rfind(b"\n", 0, start) + 1 : start]
        stripped = head.rstrip(_BLANK)
        indented = bool(head) and not stripped
        if indented or stripped.endswith((b":", b";")) or (not head and _continued(scan, start)):
            lines.add(line)
    return frozenset(lines)


def _word_starts(scan: bytes, word: bytes) -> list[int]:
    """Where ``word`` occurs in ``scan`` as a whole identifier (found with ``bytes.find``:
    fast, where a pattern with look-arounds is tried at every position)."""
    out: list[int] = []
    size, length = len(word), len(scan)
    start = scan.find(word)
    while start >= 0:
        end = start + size
        if (start == 0 or scan[start - 1] not in IDENT_BYTES) and (
            end == length or scan[end] not in IDENT_BYTES
        ):
            out.append(start)
        start = scan.find(word, end)
    return out


def _continued(scan: bytes, start: int) -> bool:
    """Whether the line starting at ``start`` continues the one before (a backslash)."""
    end = start - 1  # the line feed ending the line before
    if end > 0 and scan[end - 1 : end] == b"\r":
        end -= 1
    return end > 0 and scan[end - 1 : end] == b"\\"


def screen(file: SourceFile, limit: int, module: str | None) -> Screened:
    """Read ``file`` (as :func:`load` does) and keep :class:`Screened`'s flags; ``module`` is
    its module name when it is the file Python imports under that name. Never raises."""
    return screened(load(file, limit), module)


def screened(item: Loaded, module: str | None) -> Screened:
    """:class:`Screened`'s flags of a file read (see :func:`screen`)."""
    if item.error is not None:
        return Screened(item.error)
    data = item.scan
    exact = item.encoding != "utf-8" or (
        module is not None and deep_relative(data, module, item.file.is_package)
    )
    return Screened(None, _MARKER in data, exact, unknown_import_lines(data))


def deep_relative(scan: bytes, module: str, is_package: bool) -> bool:
    """Whether the file may hold a relative import with so many leading dots that the compiled
    scanner cannot resolve it (Python refuses it at run time too)."""
    if b"from" not in scan:
        return False
    # A package ``a.b`` may go up two levels, a module ``a.b`` one; the scanner fails one
    # level beyond that, and Python refuses either.
    parts = module.count(".") + 1
    limit = parts + 1 if is_package else parts
    for match in _RELATIVE_DOTS.finditer(scan):
        start = match.start()
        if start and scan[start - 1] in IDENT_BYTES:
            continue
        if match.group(1).count(b".") > limit:
            return True
    return False


#: Spellings that may bind or write ``TYPE_CHECKING`` other than importing it from ``typing``:
#: a string naming it (``globals()["TYPE_CHECKING"]``, ``setattr(m, "TYPE_CHECKING", 1)``), an
#: assignment or keyword (``TYPE_CHECKING = 1``, ``update(TYPE_CHECKING=1)``, ``:=``), an
#: ``as`` target (``import typing as TYPE_CHECKING``), a statement binding it (``for``, ``def``,
#: ``class``, ``global``, ``del``, ``lambda``) or a ``case`` pattern that may capture it.
_TC_SPOOF = re.compile(
    r"""["']TYPE_CHECKING["']"""
    r"|\bTYPE_CHECKING\s*(?::=|=(?!=)|\+=|\|=)"
    r"|\bas\s+TYPE_CHECKING\b"
    r"|\b(?:for|def|class|global|nonlocal|del|lambda)\b[^\n:]*\bTYPE_CHECKING\b"
    r"|^\s*case\b[^\n]*\bTYPE_CHECKING\b",
    re.MULTILINE,
)


def type_checking_spoofed(text: str) -> bool:
    """Whether ``TYPE_CHECKING`` may be bound or written in ``text`` otherwise than by importing
    it from ``typing``: then no ``if TYPE_CHECKING:`` block of the file is type-checking-only
    (a spoofed guard runs). Over-approximates (a docstring showing such code counts too), the
    safe direction: the imports it guards count."""
    if "TYPE_CHECKING" not in text and text.isascii():
        return False
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return _TC_SPOOF.search(text) is not None
