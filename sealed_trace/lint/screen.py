"""Reading one source file and the byte-level facts the engine decides with (issue 3 §5, 8 §2).

:func:`load` reads, checks and decodes a file as CPython would (PEP 263 coding cookies found
on the first two lines as CPython's tokenizer splits them, a NUL byte refused) and gives the
text the lint searches: NFKC-normalised, as Python normalises identifiers. Every search here
is *sound* for what the engine asks of it: when it answers "no", no spelling of what it looks
for can occur in the file; a "yes" only costs a parse.

Nothing here imports libcst or grimp, or executes scanned code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sealed_trace.lint.discover import SourceFile, read_bytes
from sealed_trace.lint.facts import DYNAMIC_WORDS

__all__ = [
    "Loaded",
    "Screened",
    "deep_relative",
    "has_word",
    "load",
    "may_import_dynamically",
    "screen",
    "star_import",
    "tokens",
    "type_checking_spoofed",
]

#: Module names and callables whose mere mention makes a file a candidate for the dynamic
#: pass: their attributes are import functions a string can name
#: (``getattr(importlib, "import_\x6dodule")``), they import the module a string names, or
#: they load what their data names (a test holds this list to the parser's tables).
ROOT_WORDS = (
    b"importlib",
    b"builtins",
    b"pkgutil",
    b"runpy",
    b"zipimport",
    b"resolve_name",
    b"find_spec",
    b"pydoc",
    b"locate",
    b"get_data",
    b"resources",
    b"loadTestsFromName",
    b"patch",
    b"_gcd_import",
    b"_find_and_load",
    b"pickle",
    b"marshal",
    b"dictConfig",
    b"fileConfig",
    b"listen",
    b"EntryPoint",
    b"make_parser",
    b"TestProgram",
    b"unittest",
    b"mock",
    b"Pickle",
    b"dill",
    b"__path__",
    b"__package__",
    b"__spec__",
)
#: ``__name__`` is in almost every file; only a write to it makes relative imports computed.
_NAME_WRITE = re.compile(rb"__name__[ \t]*(?:=(?!=)|:=)")
_DYNAMIC = (*DYNAMIC_WORDS, *ROOT_WORDS)
#: Bytes an identifier may hold (every byte of a UTF-8 multibyte character among them).
_IDENT_BYTES = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_" + bytes(range(0x80, 0x100))
)
#: Names through which a string literal reaches an attribute of an unnamed object
#: (``getattr(getattr(getattr, "__self__"), "__import__")``, ``x.__dict__["..."]``).
_LOOKUP_WORDS = (b"getattr", b"__dict__", b"__globals__", b"vars", b"attrgetter", b"methodcaller")
#: A string literal spelling a name through an escape that yields letters, digits or dots, or a
#: backslash-newline inside it, or two adjacent literals (implicit concatenation, also across
#: lines and comments inside brackets). Each pattern starts with a literal character, so ``re``
#: skips to its occurrences quickly.
_SPELLED_ESCAPE = re.compile(rb"\\(?:[xuUN0-7]|\r\n|\r|\n)")
_SPELLED_GAP = tuple(
    re.compile(quote + rb"(?:[ \t\f\r\n]|\\(?:\r\n|\r|\n)|#[^\r\n]*)+[rRuUbBfF]{0,2}[\"']")
    for quote in (b'"', b"'")
)
_SPELLED_TIGHT = tuple(
    re.compile(quote + rb"[\"']*[rRuUbBfF]{0,2}[\"'](?=[A-Za-z0-9_.])") for quote in (b'"', b"'")
)
_WORDISH = re.compile(rb"[A-Za-z0-9_.]")
#: A star import (``from P import *``) may import every submodule named in P's ``__all__``.
_STAR = re.compile(rb"import[ \t\f\\\r\n(]*\*")
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
_TOKEN_TABLE = bytes(c if c in _IDENT_BYTES else 32 for c in range(256))


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
    token_set: frozenset[bytes] | None = None
    #: the encoding the text was decoded with (``utf-8`` for ASCII files too)
    encoding: str = "utf-8"

    def decoded(self) -> str:
        """The decoded text."""
        if self.text is None:
            self.text = self.scan.decode("ascii")
        return self.text

    def tokens(self) -> frozenset[bytes]:
        """The file's tokens (see :func:`tokens`), computed once."""
        if self.token_set is None:
            self.token_set = tokens(self.scan)
        return self.token_set


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
    import unicodedata

    # Most files: no coding cookie in their first two lines (the word does not occur there)
    # and no BOM. Then they are UTF-8, as Python reads them.
    head = _head_lines(data)
    if b"coding" not in b"".join(head) and not data.startswith(b"\xef\xbb\xbf"):
        if data.isascii():
            item.scan = data
            return item
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line, col = _line_of(data, exc.start)
            item.error = ("ST001", line, col, f"cannot decode as utf-8: {exc.reason}")
            return item
        item.text = text
        item.scan = (
            data
            if unicodedata.is_normalized("NFKC", text)
            else unicodedata.normalize("NFKC", text).encode("utf-8", "surrogatepass")
        )
        return item
    cookies = [match for line in head if (match := _COOKIE.search(line))]
    if data.isascii() and all(c.group(1).decode().lower() in _UTF8 for c in cookies):
        item.scan = data
        return item
    import tokenize

    try:
        # CPython finds the coding cookie on the first two lines as its tokenizer reads
        # them, with universal newlines: a lone CR ends a line too.
        encoding, _ = tokenize.detect_encoding(iter([*head, b"", b""]).__next__)
        text = data.decode(encoding)
        item.encoding = encoding
    except (SyntaxError, LookupError) as exc:
        item.error = ("ST001", 1, 1, f"cannot decode: {exc}")
        return item
    except UnicodeDecodeError as exc:
        line, col = _line_of(data, exc.start)
        item.error = ("ST001", line, col, f"cannot decode as {exc.encoding}: {exc.reason}")
        return item
    item.text = text
    if encoding == "utf-8" and unicodedata.is_normalized("NFKC", text):
        item.scan = data  # already what Python reads its identifiers as
    else:
        item.scan = unicodedata.normalize("NFKC", text).encode("utf-8", "surrogatepass")
    return item


@dataclass(frozen=True, slots=True)
class Screened:
    """What the engine keeps of a file it does not parse: ``error`` (as :class:`Loaded`'s),
    whether it holds a suppression ``marker``, names ``TYPE_CHECKING``, and ``exact_only``:
    read in another encoding than UTF-8 (a BOM included), or with a relative import above its
    top package, so that the compiled scanner must not judge it alone."""

    error: tuple[str, int, int, str] | None
    marker: bool
    type_checking: bool
    exact_only: bool


_MARKER = b"sealed-trace:"


def screen(file: SourceFile, limit: int, module: str | None) -> Screened:
    """Read ``file`` once and keep :class:`Screened`'s flags; the text itself is decoded only
    as far as telling whether Python can read it requires (never raises)."""
    try:
        data = read_bytes(file.abspath, limit) if file.problem is None else None
    except (OSError, ValueError):
        data = None
    head = _head_lines(data) if data is not None else []
    if (
        data is None
        or b"\x00" in data
        or b"coding" in b"".join(head)
        or data.startswith(b"\xef\xbb\xbf")
    ):
        item = load(file, limit)  # the rare files: read exactly as Python reads them
        if item.error is not None:
            return Screened(item.error, False, False, False)
        data, exact = item.scan, item.encoding != "utf-8"
    else:
        exact = False
        if not data.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                line, col = _line_of(data, exc.start)
                return Screened(
                    ("ST001", line, col, f"cannot decode as utf-8: {exc.reason}"),
                    False,
                    False,
                    False,
                )
    if module is not None and not exact:
        exact = deep_relative(data, module, file.is_package)
    return Screened(None, _MARKER in data, b"TYPE_CHECKING" in data, exact)


def has_word(scan: bytes, word: bytes) -> bool:
    """Whether ``word`` (identifier bytes) occurs in ``scan`` as a whole identifier."""
    # Occurrences are found with bytes.find (fast) and their edges checked one by one: a
    # regex with a look-behind first would be tried at every position of the file.
    size = len(word)
    start = scan.find(word)
    while start >= 0:
        end = start + size
        if (start == 0 or scan[start - 1] not in _IDENT_BYTES) and (
            end == len(scan) or scan[end] not in _IDENT_BYTES
        ):
            return True
        start = scan.find(word, start + 1)
    return False


def tokens(scan: bytes) -> frozenset[bytes]:
    """Maximal runs of identifier bytes: a word of identifier bytes occurs in ``scan`` as a
    whole identifier exactly when it is one of them."""
    return frozenset(scan.translate(_TOKEN_TABLE).split())


def star_import(scan: bytes) -> bool:
    """Whether the file may hold a star import (``import *`` after a non-identifier byte)."""
    if b"*" not in scan:
        return False
    for match in _STAR.finditer(scan):
        start = match.start()
        if start == 0 or scan[start - 1] not in _IDENT_BYTES:
            return True
    return False


def _spelled(scan: bytes) -> bool:
    if _SPELLED_ESCAPE.search(scan) or any(rx.search(scan) for rx in _SPELLED_GAP):
        return True
    for rx in _SPELLED_TIGHT:  # ``"ab""cd"``: quotes between word characters
        for match in rx.finditer(scan):  # the word character after is in the pattern
            start = match.start()
            if start and _WORDISH.match(scan, start - 1):
                return True
    return False


def may_import_dynamically(scan: bytes) -> bool:
    """Whether the file may call an import function: it names one (as part of any identifier:
    an alias such as ``my_import_module`` still spells it), a module that holds some or a
    callable that imports what a string names, or it looks a name up with a string literal
    spelled through escapes or implicit concatenation (which the parser folds into a name the
    bytes do not show)."""
    if any(word in scan for word in _DYNAMIC) or has_word(scan, b"imp"):
        return True
    if b"__name__" in scan and _NAME_WRITE.search(scan):
        return True
    return any(word in scan for word in _LOOKUP_WORDS) and _spelled(scan)


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
        if start and scan[start - 1] in _IDENT_BYTES:
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
        import unicodedata

        text = unicodedata.normalize("NFKC", text)
    return _TC_SPOOF.search(text) is not None
