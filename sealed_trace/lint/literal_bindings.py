"""Where each name of a module is bound, and the expressions a name or collection holds: the
reading :class:`.literals.Literals` resolves strings over (by name, not by scope).

Each binding of a name anywhere in the file is kept: an assignment (its value), a loop target
(an element of what it iterates, or one element of each unpacked row), a module-private
function's parameter (what its calls pass), or something never known (a parameter of any other
function, ``with``/``except`` targets, imports, ``global``, ``del``, function and class
names). The structural lookups (the rows of a literal collection, the values of a literal
dict, the constructor calls a name or lookup holds) read those bindings without evaluating
anything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from sealed_trace.lint.literal_calls import ModuleUses
from sealed_trace.lint.literal_writes import HiddenWrites, escapes, hidden_writes, is_mutable

__all__ = ["MAX_DEPTH", "SAME_ELEMENTS", "Binding", "Bindings", "method_of"]

MAX_DEPTH = 20
#: Calls that give the elements of their argument (``sorted(NAMES)``).
SAME_ELEMENTS = frozenset({"sorted", "list", "tuple", "set", "frozenset", "reversed"})


class Binding:
    """What one binding of a name gives: ``value`` (it is that expression), ``elements``
    (it is an element of that iterable), ``keys``/``items`` parts of a dict's ``items()``,
    or nothing known (``value`` and ``elements`` both None)."""

    __slots__ = ("elements", "parameter", "part", "unpack", "value")

    def __init__(
        self,
        value: ast.expr | None = None,
        elements: ast.expr | None = None,
        part: int = -1,
        unpack: tuple[int, int] | None = None,
        parameter: tuple[ast.FunctionDef | ast.AsyncFunctionDef, str] | None = None,
    ) -> None:
        self.value = value
        self.elements = elements
        #: for ``for k, v in D.items()``: 0 for the key, 1 for the value
        self.part = part
        #: for ``for a, b in ROWS``: ``(index, width)`` of the name in each row of ``elements``
        self.unpack = unpack
        #: ``(function, parameter name)``: a parameter of a module-private function, which
        #: takes what its calls in the module pass (:mod:`.literal_calls`)
        self.parameter = parameter


class Bindings:
    """Every binding of every name of one module's tree (see the module docstring)."""

    def __init__(self, tree: ast.Module) -> None:
        self.bindings: dict[str, list[Binding]] = {}
        self.parents: dict[int, ast.AST] = {}
        self.uses = ModuleUses()
        #: a write the lint cannot see the target of (``globals()[k] = v``, ``exec(code)``):
        #: no name or attribute of the module is read as a literal
        self.opaque = False
        escaped: set[str] = set()
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
            self._collect(node)
            parent = self.parents.get(id(node))
            self.uses.note(node, parent)
            self._hidden(hidden_writes(node, parent))
            if isinstance(node, ast.Name) and escapes(node, parent):
                escaped.add(node.id)
        self._escaped(escaped)

    def _unknown(self, name: str) -> None:
        """``name`` takes a value not known (once: a thousand writes cost one binding)."""
        bindings = self.bindings.setdefault(name, [])
        if not any(
            b.value is None and b.elements is None and b.parameter is None for b in bindings[-1:]
        ):
            bindings.append(Binding())

    def _escaped(self, names: set[str]) -> None:
        """A list, dict or set handed to code that may change it (``add(L)``, ``L2 = L``)
        holds what that code puts in it: its name is unknown."""
        for name in sorted(names):
            bindings = self.bindings.get(name, [])
            if any(b.value is not None and is_mutable(b.value) for b in bindings):
                self._unknown(name)

    def _hidden(self, writes: HiddenWrites) -> None:
        """Names and attributes a write changes out of an assignment's sight: unknown."""
        for name in writes.names:
            self._unknown(name)
        for attribute in writes.attributes:
            self.uses.attributes.setdefault(attribute, []).append(None)
            self.uses.stored.add(attribute)
        self.opaque = self.opaque or writes.anything

    # -- bindings --------------------------------------------------------------------------
    def _bind(self, target: ast.expr, binding: Binding) -> None:
        if isinstance(target, ast.Name):
            self.bindings.setdefault(target.id, []).append(binding)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:  # an unpacked element: not known
                self._bind(
                    element if not isinstance(element, ast.Starred) else element.value, Binding()
                )
        elif isinstance(target, ast.Starred):
            self._bind(target.value, Binding())

    def _collect(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._assign(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            self._assign(node.target, node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            self._loop(node.target, node.iter)
        elif isinstance(node, ast.AugAssign):
            self._bind(node.target, Binding())
        elif isinstance(node, ast.arguments):
            self._parameters(node)
        else:
            self._other(node)

    def _parameters(self, node: ast.arguments) -> None:
        """A function's parameters: bound to whatever a caller passes (for a module-private
        function, what its calls in this module pass: :meth:`_parameter`)."""
        function = self.parents.get(id(node))
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not (
            function.name.startswith("_") and not function.name.endswith("__")
        ):
            function = None  # not module-private: any caller, anywhere
        named = (*node.posonlyargs, *node.args, *node.kwonlyargs)
        for arg in (*named, node.vararg, node.kwarg):
            if arg is None:
                continue
            known = function is not None and any(arg is a for a in named)
            binding = Binding(parameter=(function, arg.arg)) if known and function else Binding()
            self.bindings.setdefault(arg.arg, []).append(binding)

    def _other(self, node: ast.AST) -> None:
        """Bindings whose value is never known: ``with ... as``, ``except ... as``, imports,
        ``global``/``nonlocal`` (another scope may assign anything), ``del``, ``match``
        captures, function and class names (a method's name binds a class attribute, never
        a name a function can read: it binds nothing here)."""
        if isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._bind(node.optional_vars, Binding())
            return
        method = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(
            self.parents.get(id(node)), ast.ClassDef
        )
        if method:
            return
        for name in _names_bound_unknown(node):
            self.bindings.setdefault(name, []).append(Binding())

    def _assign(self, target: ast.expr, value: ast.expr) -> None:
        if (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))
        ):
            for t, v in zip(target.elts, value.elts, strict=True):
                self._assign(t, v)
        elif isinstance(target, ast.Name):
            self._bind(target, Binding(value=value))
        else:
            self._bind(target, Binding())

    def _loop(self, target: ast.expr, iterable: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self._bind(target, Binding(elements=iterable))
            return
        if _plain_names(target) and method_of(iterable, "items") is None:
            assert isinstance(target, (ast.Tuple, ast.List))
            width = len(target.elts)
            for index, element in enumerate(target.elts):
                self._bind(element, Binding(elements=iterable, unpack=(index, width)))
            return
        items = method_of(iterable, "items")
        if (
            items is not None
            and isinstance(target, (ast.Tuple, ast.List))
            and len(target.elts) == 2
        ):
            for part, element in enumerate(target.elts):
                if isinstance(element, ast.Name):
                    self._bind(element, Binding(elements=items, part=part))
                else:
                    self._bind(element, Binding())
            return
        self._bind(target, Binding())

    # -- what expressions hold ------------------------------------------------------------------
    def instances(self, expr: ast.expr, depth: int, seen: frozenset[str]) -> list[ast.Call]:
        """The constructor calls ``expr`` can be: itself, an element or value of a literal
        collection it indexes or ``.get``s from, or what every binding of its name is (empty:
        something else)."""
        if depth > MAX_DEPTH:
            return []
        if isinstance(expr, ast.Call) and _called_name(expr) in self.uses.classes:
            return [expr]
        owner = expr.value if isinstance(expr, ast.Subscript) else method_of(expr, "get", (1,))
        if owner is not None:
            rows = self.collection_values(owner, depth + 1, seen)
            return self._all_instances(rows or [], depth + 1, seen)
        if isinstance(expr, ast.Name) and expr.id not in seen and not self.opaque:
            values = [b.value for b in self.bindings.get(expr.id) or []]
            if any(v is None for v in values):
                return []
            known = [v for v in values if v is not None]
            return self._all_instances(known, depth + 1, seen | {expr.id})
        return []

    def _all_instances(
        self, exprs: list[ast.expr], depth: int, seen: frozenset[str]
    ) -> list[ast.Call]:
        """The constructor calls of each of ``exprs``; empty unless each is some."""
        found = [self.instances(e, depth, seen) for e in exprs]
        return [c for f in found for c in f] if found and all(found) else []

    def collection_values(
        self, expr: ast.expr, depth: int, seen: frozenset[str]
    ) -> list[ast.expr] | None:
        """The value expressions of a literal dict, or the elements of a literal tuple,
        list or set (through a name bound only to such)."""
        if isinstance(expr, ast.Dict):
            return None if any(k is None for k in expr.keys) else list(expr.values)
        if isinstance(expr, ast.Name) and expr.id not in seen and not self.opaque:
            bindings = self.bindings.get(expr.id) or []
            out: list[ast.expr] = []
            for binding in bindings:
                values = (
                    self.collection_values(binding.value, depth + 1, seen | {expr.id})
                    if binding.value is not None
                    else None
                )
                if values is None:
                    return None
                out.extend(values)
            return out or None
        return self.rows(expr, depth, seen)

    def rows(self, expr: ast.expr, depth: int, seen: frozenset[str]) -> list[ast.expr] | None:
        """The element expressions of a literal tuple, list or set (through names bound only
        to such, and ``sorted``/``list``/...); None otherwise."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            return list(expr.elts)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
            if expr.func.id in SAME_ELEMENTS and len(expr.args) == 1 and not expr.keywords:
                return self.rows(expr.args[0], depth + 1, seen)
            return None
        if not isinstance(expr, ast.Name) or expr.id in seen or self.opaque:
            return None
        bindings = self.bindings.get(expr.id)
        if not bindings or any(b.value is None for b in bindings):
            return None
        out: list[ast.expr] = []
        for binding in bindings:
            assert binding.value is not None
            rows = self.rows(binding.value, depth + 1, seen | {expr.id})
            if rows is None:
                return None
            out.extend(rows)
        return out


def _called_name(call: ast.Call) -> str | None:
    """The plain name ``call`` calls (``Spec`` of ``Spec(...)``), else None."""
    return call.func.id if isinstance(call.func, ast.Name) else None


def _plain_names(target: ast.expr) -> bool:
    """Whether ``target`` unpacks into plain names (``a, b``; no star, no nesting)."""
    return isinstance(target, (ast.Tuple, ast.List)) and all(
        isinstance(e, ast.Name) for e in target.elts
    )


def _names_bound_unknown(node: ast.AST) -> Iterable[str]:
    """The names ``node`` binds to a value never known (see :meth:`Literals._other`)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return ((a.asname or a.name).partition(".")[0] for a in node.names)
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return node.names
    name = _own_name(node)
    return (name,) if name else ()


def _own_name(node: ast.AST) -> str | None:
    """The one name an ``except ... as``, a ``match`` capture, a function or class
    definition or a ``del`` binds, or None."""
    if isinstance(
        node,
        (
            ast.ExceptHandler,
            ast.MatchAs,
            ast.MatchStar,
            ast.FunctionDef,
            ast.AsyncFunctionDef,
            ast.ClassDef,
        ),
    ):
        return node.name
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
        return node.id
    return None


def method_of(expr: ast.expr, method: str, arity: tuple[int, ...] = (0,)) -> ast.expr | None:
    """``X`` of a call ``X.method(...)`` with ``arity`` positional arguments."""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == method
        and len(expr.args) in arity
        and not expr.keywords
    ):
        return expr.func.value
    return None
