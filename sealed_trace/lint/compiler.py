"""CPython's parser and compiler on a file's text, without the compiler's warnings.

Both passes ask CPython whether a file is valid Python: :func:`ast.parse`, then
:func:`compile` for the compiler's own checks ('return' outside a function, a misplaced
``__future__`` import). The compiler also warns about the scanned code (``"is" with a
literal``, invalid escape sequences): those are the scanned project's business, not the
lint's, and a run under ``-W error`` (pytest's ``filterwarnings = error``) would turn them
into syntax errors; so they are ignored while the lint parses.
"""

from __future__ import annotations

import ast
import warnings

__all__ = ["parse", "parse_and_compile"]

#: The file name the lint compiles under.
_FILENAME = "<sealed-trace-scan>"


def parse_and_compile(text: str, feature_version: tuple[int, int] | None) -> ast.Module:
    """The syntax tree of ``text`` once CPython (as ``feature_version``, a ``(3, minor)``
    pair; None: this interpreter) has parsed and compiled it.

    Raises :class:`SyntaxError` for invalid Python, and :class:`RecursionError`,
    :class:`MemoryError` or :class:`ValueError` (NUL bytes) where the parser gives up.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.parse(text, _FILENAME, feature_version=feature_version)
        compile(tree, _FILENAME, "exec", dont_inherit=True)
    return tree


def parse(source: str | bytes) -> ast.Module:
    """The syntax tree of ``source`` (text, or bytes decoded as Python does), parsed by this
    interpreter; same errors as :func:`parse_and_compile`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(source, _FILENAME)
