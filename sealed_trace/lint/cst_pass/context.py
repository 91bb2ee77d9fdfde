"""What the visitors of one file share: where the walk is, the facts found so far, and the
roles the walk has given expressions.

The visitors run in one batched walk (:func:`libcst.MetadataWrapper.visit_batched`); each
owns its own bookkeeping, and only what another visitor must see is here, written by one
visitor (or by the walk's hooks) and read by the others:

- :class:`Walk`, moved by the walk's ``before_visit``/``after_leave`` hooks: whether the node
  is under ``if TYPE_CHECKING:`` or ``if __name__ == "__main__":`` (the import visitor marks
  those blocks) and inside a function body;
- :class:`FactSink`, the fact lists, appended in walk order (which is the facts' order);
- :class:`ExpressionRoles`, written by the reference visitor: the expressions that are inner
  parts of a longer chain or binding targets, and the callees of calls.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange

from sealed_trace.lint.cst_pass.names import NameResolver
from sealed_trace.lint.dynamic_rules import Importer, Site
from sealed_trace.lint.facts import DynamicFact, FieldFact, ImportFact, RefFact

__all__ = ["ExpressionRoles", "FactSink", "FileContext", "Walk"]


@dataclass(slots=True)
class Walk:
    """Where the batched walk is: how many ``TYPE_CHECKING`` blocks, main-guard blocks and
    function bodies enclose the node being visited. A function's decorators, defaults and
    annotations are not in its body: they run where the function is defined."""

    type_checking_blocks: set[int] = field(default_factory=set)
    main_blocks: set[int] = field(default_factory=set)
    function_bodies: set[int] = field(default_factory=set)
    type_checking_depth: int = 0
    main_depth: int = 0
    function_depth: int = 0

    def enter(self, node: cst.CSTNode) -> None:
        """The walk's ``before_visit`` hook (before any visitor's ``visit_`` method)."""
        if isinstance(node, cst.FunctionDef):
            self.function_bodies.add(id(node.body))
        key = id(node)
        if key in self.type_checking_blocks:
            self.type_checking_depth += 1
        if key in self.main_blocks:
            self.main_depth += 1
        if key in self.function_bodies:
            self.function_depth += 1

    def leave(self, node: cst.CSTNode) -> None:
        """The walk's ``after_leave`` hook (after every visitor's ``leave_`` method)."""
        key = id(node)
        if key in self.function_bodies:
            self.function_depth -= 1
        if key in self.type_checking_blocks:
            self.type_checking_depth -= 1
        if key in self.main_blocks:
            self.main_depth -= 1

    @property
    def type_checking(self) -> bool:
        """Under ``if TYPE_CHECKING:``."""
        return self.type_checking_depth > 0

    @property
    def lazy(self) -> bool:
        """Inside a function (it runs when the function is called, not on import)."""
        return self.function_depth > 0

    @property
    def main(self) -> bool:
        """Under ``if __name__ == "__main__":`` (outside any function)."""
        return self.main_depth > 0 and self.function_depth == 0


@dataclass(slots=True)
class FactSink:
    """The facts of one file, in the order the walk finds them."""

    imports: list[ImportFact] = field(default_factory=list)
    refs: list[RefFact] = field(default_factory=list)
    dynamics: list[DynamicFact] = field(default_factory=list)
    fields: list[FieldFact] = field(default_factory=list)

    def type_checking_written(self) -> bool:
        """Whether the module writes ``TYPE_CHECKING``: then no block is type-checking-only."""
        return any(d.kind == "type-checking-write" for d in self.dynamics)

    def nothing_type_checking_only(self) -> None:
        """Mark every import and reference as running (``TYPE_CHECKING`` was written)."""
        self.imports = [dataclasses.replace(i, type_checking=False) for i in self.imports]
        self.refs = [dataclasses.replace(r, type_checking=False) for r in self.refs]


@dataclass(slots=True)
class ExpressionRoles:
    """Roles the reference visitor gives expressions before the walk reaches them: ``inner``
    (part of a longer chain, or a binding target: not a reference of its own) and
    ``callees`` (the function of a call)."""

    inner: set[int] = field(default_factory=set)
    callees: set[int] = field(default_factory=set)


@dataclass(slots=True)
class FileContext:
    """One file's shared state (see the module docstring)."""

    importer: Importer
    positions: Mapping[cst.CSTNode, CodeRange]
    names: NameResolver
    walk: Walk = field(default_factory=Walk)
    facts: FactSink = field(default_factory=FactSink)
    roles: ExpressionRoles = field(default_factory=ExpressionRoles)
    #: the call whose callee was resolved last, and its names (every visitor of a call asks)
    _callee: tuple[cst.Call | None, frozenset[str]] = field(
        default=(None, frozenset()), init=False, repr=False
    )

    def add_refs(
        self, node: cst.CSTNode, qnames: Iterable[str], via: str = "", call: bool | None = None
    ) -> None:
        """A reference at ``node`` per qualified name, in that order; ``call``: whether it is
        called (by default, whether ``node`` is a callee)."""
        line, col = self.position(node)
        if call is None:
            call = id(node) in self.roles.callees
        tc = self.walk.type_checking
        self.facts.refs.extend(RefFact(line, col, q, call, via, tc) for q in qnames)

    def callee(self, call: cst.Call) -> frozenset[str]:
        """Qualified names of ``call``'s function, resolved once for all the visitors of the
        call (no alias is bound between them)."""
        if self._callee[0] is not call:
            self._callee = (call, frozenset(self.names.resolve(call.func)))
        return self._callee[1]

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        """1-based line and column of ``node``."""
        start = self.positions[node].start
        return start.line, start.column + 1

    def site(self, node: cst.CSTNode) -> Site:
        """``node``'s position and how the walk says it runs."""
        line, column = self.position(node)
        walk = self.walk
        return Site(line, column, walk.type_checking, walk.lazy, walk.main)
