"""Readings of libcst nodes that need no scope: literals, call arguments, assignment targets,
and the plain values (:mod:`sealed_trace.lint.dynamic_rules`) the shared rules judge."""

from __future__ import annotations

from typing import Final

import libcst as cst

from sealed_trace.lint.dynamic_rules import CallArgs, Plain, is_main_guard

__all__ = [
    "BLOCKS",
    "argument",
    "assigned_attributes",
    "is_dotted",
    "main_guard",
    "plain",
    "plain_arguments",
    "string_literal",
    "target_names",
]

#: Nodes whose children are statements (blocks and the clauses of compound statements).
BLOCKS: Final = (
    cst.BaseSuite,
    cst.BaseCompoundStatement,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


def string_literal(node: cst.BaseExpression) -> str | None:
    """The value of a string literal without placeholders, else None."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString) and all(
        isinstance(p, cst.FormattedStringText) for p in node.parts
    ):
        return "".join(p.value for p in node.parts if isinstance(p, cst.FormattedStringText))
    return None


def target_names(node: cst.BaseExpression) -> list[cst.Name]:
    """The plain names an assignment target binds (through tuples, lists and starred)."""
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for e in node.elements for n in target_names(e.value)]
    if isinstance(node, cst.StarredElement):
        return target_names(node.value)
    return []


def assigned_attributes(target: cst.BaseExpression) -> list[cst.Attribute]:
    """The attributes an assignment target writes (through tuples, lists and starred)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [a for e in target.elements for a in assigned_attributes(e.value)]
    if isinstance(target, cst.StarredElement):
        return assigned_attributes(target.value)
    return [target] if isinstance(target, cst.Attribute) else []


def is_dotted(node: cst.BaseExpression) -> bool:
    """True for a pure ``a.b.c`` chain of names (no calls or subscripts inside)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def argument(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    """The argument passed as ``keyword``, else the ``index``-th positional one (starred
    arguments are neither)."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if index < len(positional):
        return positional[index].value
    return None


def plain(node: cst.BaseExpression) -> Plain:
    """What the shared rules read of an expression (see :class:`Plain`)."""
    if isinstance(node, cst.Name):
        return Plain(name=node.value)
    if isinstance(node, cst.Integer):
        return Plain(integer=int(node.evaluated_value))
    if isinstance(node, (cst.List, cst.Tuple)):
        return Plain(items=tuple(string_literal(e.value) for e in node.elements))
    if _is_own_globals(node):
        return Plain(own_globals=True)
    return Plain(text=string_literal(node))


def _is_own_globals(node: cst.BaseExpression) -> bool:
    """``globals()``: the calling module's own globals."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "globals"
        and not node.args
    )


def plain_arguments(call: cst.Call) -> CallArgs:
    """A call's arguments as plain values."""
    positional: list[Plain] = []
    keywords: dict[str, Plain] = {}
    for a in call.args:
        if a.keyword is not None:
            keywords.setdefault(a.keyword.value, plain(a.value))
        elif not a.star:
            positional.append(plain(a.value))
    return CallArgs(tuple(positional), keywords)


def main_guard(test: cst.BaseExpression) -> bool:
    """``if __name__ == "__main__":`` (either way round)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    return is_main_guard(
        isinstance(target.operator, cst.Equal), plain(test.left), plain(target.comparator)
    )
