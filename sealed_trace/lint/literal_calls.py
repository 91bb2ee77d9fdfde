"""Where a module's values come from besides plain assignments: the arguments its calls pass
to a module-private function, and the assignments of a class attribute.

:class:`.literals.Literals` asks these when a computed module name is a parameter of a
module-private function (``def _load(name): import_module(name)`` called only as
``_load("json")``) or a class constant (``self.PYTEST`` where the class body says
``PYTEST = "pytest"``). Each answer is the list of every expression that can flow there, or
None when something else can (the function escapes as a value, a call unpacks ``*args``, the
attribute is assigned a computed value somewhere): the caller then keeps the name computed.
"""

from __future__ import annotations

import ast

__all__ = ["ModuleUses"]

_Function = ast.FunctionDef | ast.AsyncFunctionDef


class ModuleUses:
    """What one module's tree does with its names and attributes (see the module
    docstring); fed one node at a time by :meth:`note`."""

    def __init__(self) -> None:
        #: direct calls ``name(...)`` of each plain name
        self.calls: dict[str, list[ast.Call]] = {}
        #: how many times each plain name is loaded (a direct call's callee included)
        self.loads: dict[str, int] = {}
        #: every value assigned to an attribute of each name (None: one not known)
        self.attributes: dict[str, list[ast.expr | None]] = {}
        #: attribute names a class body assigns (class constants)
        self.constants: set[str] = set()
        #: attribute names stored outside a class body (``x.name = v``, ``setattr``, ...)
        self.stored: set[str] = set()
        #: the classes the module defines (None: a name defined more than once)
        self.classes: dict[str, ast.ClassDef | None] = {}

    def note(self, node: ast.AST, parent: ast.AST | None) -> None:
        """Record ``node`` (whose parent node is ``parent``)."""
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self.loads[node.id] = self.loads.get(node.id, 0) + 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            self.calls.setdefault(node.func.id, []).append(node)
        elif isinstance(node, ast.ClassDef):
            self.classes[node.name] = None if node.name in self.classes else node
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self._assignment(node, isinstance(parent, ast.ClassDef))
        elif isinstance(node, ast.Attribute) and not _loaded_or_assigned(node, parent):
            self._unknown_attribute(node)

    def _assignment(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, in_class: bool) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value if not isinstance(node, ast.AugAssign) else None
        for target in targets:
            if isinstance(target, ast.Attribute):
                self.attributes.setdefault(target.attr, []).append(value)
                self.stored.add(target.attr)
            elif isinstance(target, ast.Name) and in_class:
                self.constants.add(target.id)
                self.attributes.setdefault(target.id, []).append(value)

    def _unknown_attribute(self, node: ast.Attribute) -> None:
        """An attribute stored or deleted other than by a plain assignment (unpacking,
        ``for x.a in``, ``with ... as x.a``, ``del x.a``): its value is not known. A plain
        assignment's target is recorded with its value by :meth:`_assignment` instead."""
        self.attributes.setdefault(node.attr, []).append(None)
        self.stored.add(node.attr)

    def attribute_values(self, owner: ast.expr, attr: str) -> list[ast.expr] | None:
        """Every value ``owner.attr`` can be when ``owner`` is ``self``, ``cls`` or a class of
        the module and a class body assigns ``attr`` (None: not such a constant, or one
        assignment of an attribute of that name is not a plain value)."""
        if not isinstance(owner, ast.Name) or attr not in self.constants:
            return None
        if owner.id not in ("self", "cls") and owner.id not in self.classes:
            return None
        found = self.attributes.get(attr, [])
        if any(value is None for value in found):
            return None
        return [value for value in found if value is not None]

    def field_argument(self, call: ast.Call, field: str) -> ast.expr | None:
        """What ``call`` passes for ``field`` when it constructs a record class of the module
        (a dataclass or ``NamedTuple`` whose fields are set only by its generated
        ``__init__``): the argument, or the field's default; None otherwise."""
        if not isinstance(call.func, ast.Name):
            return None
        record = self.classes.get(call.func.id)
        fields = _record_fields(record) if record is not None else None
        if fields is None or field not in fields or field in self.stored:
            return None  # not a record field, or one assigned after construction
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            return None
        index = list(fields).index(field)
        if index < len(call.args):
            return call.args[index]
        passed = next((k.value for k in call.keywords if k.arg == field), None)
        return passed if passed is not None else fields[field]

    def arguments(self, function: _Function, parameter: str) -> list[ast.expr] | None:
        """Every expression the module's calls of ``function`` pass for ``parameter`` (its
        default where a call passes none), or None when one is not known: the function is
        a method, decorated, used other than by direct calls, never called here, or a call
        unpacks ``*args`` / ``**kwargs``."""
        name = function.name
        calls = self.calls.get(name, [])
        if function.decorator_list or not calls or self.loads.get(name, 0) != len(calls):
            return None
        out: list[ast.expr] = []
        for call in calls:
            passed = _passed(function.args, parameter, call)
            if passed is None:
                return None
            out.append(passed)
        return out


def _loaded_or_assigned(node: ast.Attribute, parent: ast.AST | None) -> bool:
    """Whether ``node`` is loaded, or a whole target of an assignment (recorded with its
    value)."""
    if isinstance(node.ctx, ast.Load):
        return True
    if isinstance(parent, ast.Assign):
        return any(node is target for target in parent.targets)
    return isinstance(parent, (ast.AnnAssign, ast.AugAssign)) and parent.target is node


def _passed(args: ast.arguments, parameter: str, call: ast.Call) -> ast.expr | None:
    """The expression ``call`` passes for ``parameter`` of a function with ``args`` (its
    default when it passes none; None when unknown)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    positional = [*args.posonlyargs, *args.args]
    names = [a.arg for a in positional]
    keyword = next((k.value for k in call.keywords if k.arg == parameter), None)
    if parameter in names:
        index = names.index(parameter)
        if index < len(call.args):
            return call.args[index]
        defaults = dict(zip(names[len(names) - len(args.defaults) :], args.defaults, strict=True))
        return keyword if keyword is not None else defaults.get(parameter)
    kw_defaults = dict(zip((a.arg for a in args.kwonlyargs), args.kw_defaults, strict=True))
    return keyword if keyword is not None else kw_defaults.get(parameter)


def _record_fields(record: ast.ClassDef) -> dict[str, ast.expr | None] | None:
    """``{field: default}`` in order for a dataclass or ``NamedTuple`` that defines no
    ``__init__``, ``__new__``, ``__post_init__`` or ``__setattr__`` of its own (so each
    field holds what its constructor was passed); None for any other class."""
    names = {_last_name(d.func if isinstance(d, ast.Call) else d) for d in record.decorator_list}
    bases = {_last_name(b) for b in record.bases}
    if "dataclass" not in names and "NamedTuple" not in bases:
        return None
    fields: dict[str, ast.expr | None] = {}
    for statement in record.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            statement.name in ("__init__", "__new__", "__post_init__", "__setattr__")
        ):
            return None
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and _last_name(statement.annotation) != "ClassVar"
        ):
            fields[statement.target.id] = statement.value
    return fields


def _last_name(node: ast.expr) -> str:
    """``dataclass`` of ``dataclass``, ``dataclasses.dataclass`` and ``ClassVar[int]``."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
