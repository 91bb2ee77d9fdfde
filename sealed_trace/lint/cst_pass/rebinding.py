"""Module-scope bindings that change what a name means everywhere, read before the walk:
a binding of ``TYPE_CHECKING`` other than its import (no block is then type-checking-only),
and bindings of builtin names that may not hide the builtin (loads of the name are then
reported as the builtin too)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    Assignment,
    BuiltinAssignment,
    CodePosition,
    CodeRange,
    GlobalScope,
    Scope,
)

from sealed_trace.lint.cst_pass.names import BUILTIN_NAMES
from sealed_trace.lint.cst_pass.syntax import string_literal, target_names
from sealed_trace.lint.facts import DynamicFact

__all__ = ["ModuleBindings", "type_checking_write"]


def type_checking_write(position: tuple[int, int]) -> DynamicFact:
    """A write to ``typing.TYPE_CHECKING`` at ``position``."""
    return DynamicFact(*position, "type-checking-write", "typing.TYPE_CHECKING")


class _Unbinds(cst.CSTVisitor):
    """Names a module could unbind or rebind out of order: ``del n``, ``del x.n``,
    ``global n``, ``delattr(x, "n")``."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def _target(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, cst.Attribute):
            self.names.add(node.attr.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._target(element.value)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        self.names.update(item.name.value for item in node.names)

    def visit_Call(self, node: cst.Call) -> None:
        func = get_full_name_for_node(node.func) or ""
        if func.rpartition(".")[2] in ("delattr", "__delattr__"):
            for a in node.args:
                text = string_literal(a.value)
                if text is not None:
                    self.names.add(text)


def _top_level(module: cst.Module) -> dict[int, cst.CSTNode]:
    """The unconditional top-level statement of each module-level definition, import and
    assignment target (keyed by the id of the node libcst records as the binding)."""
    top: dict[int, cst.CSTNode] = {}
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            top[id(statement)] = statement
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                for bound in _bound_by(small):
                    top[id(bound)] = statement
    return top


def _bound_by(small: cst.BaseSmallStatement) -> list[cst.CSTNode]:
    """The binding nodes of a small statement: the import itself, or the target names."""
    if isinstance(small, (cst.Import, cst.ImportFrom)):
        return [small]
    if isinstance(small, cst.Assign):
        return [name for target in small.targets for name in target_names(target.target)]
    if isinstance(small, cst.AnnAssign) and small.value is not None:
        return list(target_names(small.target))
    return []


class ModuleBindings:
    """The module-scope bindings of one file (see the module docstring): ``facts`` (writes to
    ``TYPE_CHECKING``, then rebinding of builtins, in the order the lint reports them) and
    ``rebound`` (the builtin names a binding may not hide)."""

    def __init__(
        self,
        module: cst.Module,
        scopes: Mapping[cst.CSTNode, Scope | None],
        positions: Mapping[cst.CSTNode, CodeRange],
    ) -> None:
        self.module = module
        self.scopes = scopes
        self.positions = positions
        self.facts: list[DynamicFact] = []
        self.rebound: set[str] = set()
        scope = scopes.get(module)
        if isinstance(scope, GlobalScope):
            self._survey(scope)

    def _position(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self.positions[node].start
        return start.line, start.column + 1

    def _survey(self, scope: GlobalScope) -> None:
        by_name: dict[str, list[Assignment]] = {}
        for a in scope.assignments:
            if not isinstance(a, Assignment):
                continue
            if a.name in BUILTIN_NAMES:
                by_name.setdefault(a.name, []).append(a)
            if a.name == "TYPE_CHECKING" and not isinstance(a.node, (cst.Import, cst.ImportFrom)):
                self.facts.append(type_checking_write(self._position(a.node)))
        if by_name:
            self._rebinding(by_name)

    def _rebinding(self, by_name: dict[str, list[Assignment]]) -> None:
        """Report each builtin name bound at module scope in a way that may not hide the
        builtin everywhere."""
        unbinds = _Unbinds()
        self.module.visit(unbinds)
        top = _top_level(self.module)
        scopes = list({id(v): v for v in self.scopes.values() if isinstance(v, Scope)}.values())
        for builtin, assignments in sorted(by_name.items()):
            if builtin not in unbinds.names and self._hides_builtin(assignments, top, scopes):
                continue
            self.rebound.add(builtin)
            for a in assignments:
                bound: cst.CSTNode = a.node
                if isinstance(bound, (cst.FunctionDef, cst.ClassDef)):
                    bound = bound.name
                self.facts.append(
                    DynamicFact(*self._position(bound), "rebind", f"builtins.{builtin}")
                )

    def _hides_builtin(
        self, assignments: list[Assignment], top: dict[int, cst.CSTNode], scopes: Iterable[Scope]
    ) -> bool:
        """A module-scope binding of a builtin name hides the builtin everywhere only when it
        is the name's single binding, an unconditional top-level statement, never undone
        (``del``, ``global``, ``delattr``: checked by the caller), and every load of the name
        comes after it."""
        statement = top.get(id(assignments[0].node)) if len(assignments) == 1 else None
        if statement is None:
            return False
        end = self.positions[statement].end
        return not any(
            (start.line, start.column) <= (end.line, end.column)
            for start in self._loads(assignments[0], scopes)
        )

    def _loads(self, binding: Assignment, scopes: Iterable[Scope]) -> Iterator[CodePosition]:
        """Where the loads of ``binding``'s name that may reach it (or the builtin) start;
        not the loads of a nearer binding (a parameter, a local)."""
        for scope in scopes:
            for access in scope.accesses[binding.name]:
                if any(r is binding or isinstance(r, BuiltinAssignment) for r in access.referents):
                    yield self.positions[access.node].start
