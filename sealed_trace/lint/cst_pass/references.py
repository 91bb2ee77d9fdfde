"""References: every maximal name or attribute chain that resolves to a qualified name, local
aliases of them, and writes to ``TYPE_CHECKING``.

:class:`ReferenceVisitor` records a :class:`RefFact` per resolved chain (through imports,
builtins, ``getattr`` with a literal name, builtins a binding may not hide, star imports), an
``<object>.<attr>`` reference for escape attributes (``__globals__``, frames) on anything,
binds local aliases as the walk reaches them (``clk = time.time``: loads of ``clk`` are
resolved when the walk ends) and reports writes to ``typing.TYPE_CHECKING``. It also gives
the walk's other visitors the roles of expressions (chain parts, binding targets, callees).
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from sealed_trace.lint.cst_pass.context import FileContext
from sealed_trace.lint.cst_pass.imports import TYPE_CHECKING_NAMES
from sealed_trace.lint.cst_pass.names import IMPLICIT_GLOBALS
from sealed_trace.lint.cst_pass.rebinding import type_checking_write
from sealed_trace.lint.cst_pass.syntax import argument, assigned_attributes, string_literal
from sealed_trace.lint.cst_pass.visitor import FactVisitor
from sealed_trace.lint.facts import DynamicFact, RefFact

__all__ = ["FRAME_ATTRIBUTES", "SETATTR", "ReferenceVisitor", "escape_attribute"]

#: Attributes that reach interpreter internals from any object (frames, code, globals).
FRAME_ATTRIBUTES = frozenset(
    {
        "gi_frame",
        "gi_code",
        "cr_frame",
        "cr_code",
        "ag_frame",
        "ag_code",
        "f_globals",
        "f_builtins",
        "f_locals",
        "f_back",
        "f_code",
        "tb_frame",
        "tb_next",
        # private evaluation of string forward references (``ForwardRef._evaluate``)
        "_evaluate",
        "_eval_type",
    }
)
SETATTR = frozenset({"builtins.setattr", "builtins.object.__setattr__"})


def escape_attribute(name: str) -> bool:
    """True for a dunder attribute or a frame/code attribute (reported on any object)."""
    return (len(name) > 4 and name.startswith("__") and name.endswith("__")) or (
        name in FRAME_ATTRIBUTES
    )


@dataclasses.dataclass(frozen=True, slots=True)
class _PendingAlias:
    """A load of a local name, resolved through its aliases when the walk ends."""

    line: int
    column: int
    call: bool
    type_checking: bool
    assignments: frozenset[int]
    name: str


class ReferenceVisitor(FactVisitor):
    """Qualified-name references, aliases and ``TYPE_CHECKING`` writes (see the module
    docstring)."""

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        #: import statements the walk is in: their names are not references
        self._import_depth = 0
        #: references through an imported name: (index in the refs, the root name)
        self._import_refs: list[tuple[int, str]] = []
        self._pending: list[_PendingAlias] = []
        #: where each alias's value is (by the alias target's id): a reference there that
        #: flows into an alias used later is reported at the use, not twice
        self._alias_values: dict[int, list[tuple[int, int]]] = {}

    # -- import statements are not references ------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        """The names of an import statement are not references."""
        self._import_depth += 1

    def leave_Import(self, original_node: cst.Import) -> None:
        """Leave an import statement."""
        self._import_depth -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        """The names of an import statement are not references."""
        self._import_depth += 1

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        """Leave an import statement."""
        self._import_depth -= 1

    # -- names and chains --------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        """The chain ending here (unless it is part of a longer one), and an escape
        attribute on any object."""
        if self._import_depth:
            return
        inner = self.context.roles.inner
        inner.add(id(node.value))
        part = id(node) in inner
        if not part:
            self._reference(node)
        if escape_attribute(node.attr.value):
            self._escape(node, part)

    def _escape(self, node: cst.Attribute, part: bool) -> None:
        """An escape attribute: what it resolves to when it is part of a longer chain (which
        is reported for the chain only), ``<object>.<attr>`` when it resolves to nothing."""
        names = self.context.names.resolve(node)
        if part or not names:
            self.context.add_refs(node, sorted(names or {f"<object>.{node.attr.value}"}))

    def visit_Name(self, node: cst.Name) -> None:
        """A name that is not part of a longer chain."""
        if not self._import_depth and id(node) not in self.context.roles.inner:
            self._reference(node)

    def _reference(self, node: cst.Name | cst.Attribute) -> None:
        names = self.context.names.dotted(node)
        if names:
            self._resolved(node, names)
        elif isinstance(node, cst.Name):
            self._unresolved_name(node)
        else:
            self.context.add_refs(node, sorted(self.context.names.resolve(node)), "getattr")

    def _resolved(self, node: cst.Name | cst.Attribute, names: set[str]) -> None:
        """A chain libcst resolves: one reference per qualified name (and ``getattr`` used as
        a value hides what it fetches)."""
        facts = self.context.facts
        if isinstance(node, cst.Name) and "builtins.getattr" in names:
            self._getattr_value(node)
        root: cst.BaseExpression = node
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name):
            first = len(facts.refs)
            self._import_refs.extend((first + i, root.value) for i in range(len(names)))
        self.context.add_refs(node, sorted(names))

    def _getattr_value(self, node: cst.Name) -> None:
        """``getattr`` used as a value (``f = getattr``): what it fetches is out of sight."""
        if id(node) not in self.context.roles.callees:
            line, col = self.context.position(node)
            fact = DynamicFact(line, col, "getattr-value", "builtins.getattr")
            self.context.facts.dynamics.append(fact)

    def _unresolved_name(self, node: cst.Name) -> None:
        """A name libcst does not resolve: a builtin it may still reach, a name a star import
        may bind, and (when the walk ends) what its local aliases refer to."""
        names = self.context.names
        for q in sorted(names.fallback(node)):
            self.context.add_refs(node, (q,), "" if q[9:] in IMPLICIT_GLOBALS else "rebound")
        self.context.add_refs(node, names.from_star(node), "star import")
        ids = names.assignment_ids(node)
        if ids:
            line, col = self.context.position(node)
            call = id(node) in self.context.roles.callees
            tc = self.context.walk.type_checking
            self._pending.append(_PendingAlias(line, col, call, tc, ids, node.value))

    # -- bindings ------------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        """Aliases bound by each target, and writes to ``TYPE_CHECKING`` among them."""
        for target in node.targets:
            self._bind(target.target, node.value)
            self._written(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        """An alias when a value is assigned; a write to ``TYPE_CHECKING``."""
        if node.value is not None:
            self._bind(node.target, node.value)
        self._written(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        """A write to ``TYPE_CHECKING``."""
        self._written(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        """``(name := value)``: an alias."""
        self._bind(node.target, node.value)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """``name = value`` (also element by element of equal-length tuples): an alias of what
        ``value`` resolves to; the target names are not references."""
        if isinstance(target, cst.Name):
            self.context.roles.inner.add(id(target))
            names = self.context.names.resolve(value)
            if names:
                self.context.names.aliases.setdefault(id(target), set()).update(names)
                where = self.context.position(value)
                self._alias_values.setdefault(id(target), []).append(where)
        elif isinstance(target, (cst.Tuple, cst.List)):
            self._bind_elements(target, value)

    def _bind_elements(self, target: cst.Tuple | cst.List, value: cst.BaseExpression) -> None:
        """``a, b = x, y``: element by element when the lengths match; the target's names
        are not references either way."""
        if isinstance(value, (cst.Tuple, cst.List)) and len(target.elements) == len(value.elements):
            for t, v in zip(target.elements, value.elements, strict=True):
                self._bind(t.value, v.value)
        for element in target.elements:
            if isinstance(element.value, cst.Name):
                self.context.roles.inner.add(id(element.value))

    def _written(self, target: cst.BaseExpression) -> None:
        """A write to ``typing.TYPE_CHECKING`` among an assignment's targets."""
        for attribute in assigned_attributes(target):
            if self.context.names.resolve(attribute) & TYPE_CHECKING_NAMES:
                self._type_checking_written(attribute)

    def _type_checking_written(self, node: cst.CSTNode) -> None:
        self.context.facts.dynamics.append(type_checking_write(self.context.position(node)))

    # -- calls ---------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        """Mark the callee; ``setattr(m, "TYPE_CHECKING", v)`` writes the constant."""
        self.context.roles.callees.add(id(node.func))
        if not self.context.callee(node) & SETATTR:
            return
        obj, attr = argument(node, 0, "obj"), argument(node, 1, "name")
        if obj is not None and attr is not None and string_literal(attr) == "TYPE_CHECKING":
            self._type_checking_written(node)

    # -- the end of the walk -------------------------------------------------------------------
    def finish(self, type_checking_only: set[str], type_checking_written: bool) -> None:
        """Mark references through names imported only under ``TYPE_CHECKING``, then add the
        loads of local names bound to imported facilities (``clk = time.time; clk()``)."""
        refs = self.context.facts.refs
        for index, root in self._import_refs:
            if root in type_checking_only:
                refs[index] = dataclasses.replace(refs[index], type_checking=True)
        aliases = self.context.names.aliases
        flowed: set[tuple[int, int, str]] = set()
        for load in self._pending:
            names: set[str] = set()
            for ident in load.assignments:
                names |= aliases.get(ident, set())
            if len(load.assignments) == 1:  # one assignment: the value surely flows here
                (ident,) = load.assignments
                flowed.update(
                    (*where, q) for where in self._alias_values.get(ident, ()) for q in names
                )
            tc = load.type_checking and not type_checking_written
            for q in sorted(names):
                refs.append(RefFact(load.line, load.column, q, load.call, f"alias {load.name}", tc))
        # one chain of aliases, one finding: at its use (``o = open; o2 = o; o2()``)
        refs[:] = [r for r in refs if r.call or (r.line, r.column, r.qname) not in flowed]
