"""What a file's bytes say it may hide from the import scan (the plan's question, :mod:`.plan`).

The compiled scanner (:mod:`.grimp_scan`) sees import statements. A file's text can hold an
edge it does not see only through an import function or a callable that imports what a
string names (``importlib.import_module("pkg.sealed")``, ``mock.patch("pkg.sealed.x")``), a
star import (``from pkg import *`` takes what ``pkg.__all__`` names), or an attribute chain to
a module no import of the file names (``import pkg`` then ``pkg.sealed.seal()``).
:func:`hiding` tells, from the bytes alone, whether a file may hold each: soundly (when it
answers "no", no spelling of it can occur in the file; a "yes" only costs a parse).

Nothing here imports libcst or grimp, or executes scanned code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sealed_trace.lint.facts import DYNAMIC_WORDS
from sealed_trace.lint.screen import IDENT_BYTES

__all__ = [
    "ROOT_WORDS",
    "WHOLE_ROOT_WORDS",
    "Hiding",
    "attribute_words",
    "has_word",
    "hiding",
    "may_import_dynamically",
    "star_import",
    "tokens",
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
    b"get_data",
    b"resources",
    b"loadTestsFromName",
    b"_gcd_import",
    b"_find_and_load",
    b"pickle",
    b"marshal",
    b"dictConfig",
    b"fileConfig",
    b"EntryPoint",
    b"make_parser",
    b"TestProgram",
    b"unittest",
    b"Pickle",
    b"dill",
    b"__path__",
    b"__package__",
    b"__spec__",
)
#: Of those, the ones looked for as whole identifiers only: every spelling of them (an import,
#: an attribute, a string naming them) holds the whole word, and as parts of words they are
#: common (``dispatch``, ``allocate``, ``listener``, ``mocked``).
WHOLE_ROOT_WORDS = (b"patch", b"locate", b"listen", b"mock", b"exec", b"eval", b"partial")
_WHOLE_WORDS = frozenset((b"imp", *WHOLE_ROOT_WORDS))
#: ``__name__`` is in almost every file; only a write to it makes relative imports computed.
_NAME_WRITE = re.compile(rb"__name__[ \t]*(?:=(?!=)|:=)")
_DYNAMIC = (*DYNAMIC_WORDS, *ROOT_WORDS)
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
_TOKEN_TABLE = bytes(c if c in IDENT_BYTES else 32 for c in range(256))


@dataclass(frozen=True, slots=True)
class Hiding:
    """What one file may hide from the scan: ``dynamic``, an import of what a string names
    (:func:`may_import_dynamically`); ``star``, a star import; ``words``, the names it spells
    as an attribute or a whole string literal that are the last part of a first-party module
    name (what an attribute chain to a module must spell)."""

    dynamic: bool
    star: bool
    words: frozenset[bytes]


def hiding(scan: bytes, module_words: frozenset[bytes]) -> Hiding:
    """:class:`Hiding` of the NFKC-normalised text ``scan`` (see :func:`.screen.load`);
    ``module_words`` are the last parts of every first-party module name."""
    found = tokens(scan)
    known = found & module_words
    return Hiding(
        _imports_dynamically(scan, found),
        star_import(scan),
        attribute_words(scan) & known if known else frozenset(),
    )


#: A name after a dot (what an attribute chain spells: ``pkg.sealed``; blanks, line breaks,
#: continuations and comments may stand between them inside brackets) or alone in a string
#: literal (``getattr(pkg, "sealed")``). An import statement's dotted name counts too: the
#: scan resolves ``import pkg.sealed.missing`` to ``pkg`` when ``pkg.sealed.missing`` is no
#: module, though importing it runs ``pkg.sealed``.
_ATTRIBUTE_WORD = re.compile(
    rb"\.(?:[ \t\f\r\n\\]|#[^\r\n]*)*([A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*)"
    rb"|[\"']([A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*)[\"']"
)


def attribute_words(scan: bytes) -> frozenset[bytes]:
    """The names ``scan`` spells as an attribute or as a whole string literal: the only ways
    an attribute chain, or an import of a module that does not exist below one that does, can
    name a module no edge of the scan names (see :class:`Hiding`)."""
    return frozenset(a or b for a, b in _ATTRIBUTE_WORD.findall(scan))


def has_word(scan: bytes, word: bytes) -> bool:
    """Whether ``word`` (identifier bytes) occurs in ``scan`` as a whole identifier."""
    # Occurrences are found with bytes.find (fast) and their edges checked one by one: a
    # regex with a look-behind first would be tried at every position of the file.
    size = len(word)
    start = scan.find(word)
    while start >= 0:
        end = start + size
        if (start == 0 or scan[start - 1] not in IDENT_BYTES) and (
            end == len(scan) or scan[end] not in IDENT_BYTES
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
        if start == 0 or scan[start - 1] not in IDENT_BYTES:
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
    return _imports_dynamically(scan, tokens(scan))


def _imports_dynamically(scan: bytes, found: frozenset[bytes]) -> bool:
    """:func:`may_import_dynamically` of ``scan``, whose identifiers are ``found``. Every word
    looked for is made of identifier bytes, so it occurs in ``scan`` exactly when it occurs in
    one of its identifiers: the searches run on the identifiers, each once."""
    words = b" ".join(found)
    if any(word in words for word in _DYNAMIC):
        return True
    if not found.isdisjoint(_WHOLE_WORDS):
        return True
    if b"__name__" in found and _NAME_WRITE.search(scan):
        return True
    return any(word in words for word in _LOOKUP_WORDS) and _spelled(scan)
