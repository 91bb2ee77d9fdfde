"""The strings a computed module name can be, when every value it can take is a literal.

A dynamic import over literal constants names modules as surely as a literal argument does:
a module-level string constant (``import_module(_BACKEND)``), a loop over a literal tuple or
list (``for name in ("a", "b"): import_module(name)``), a lookup in a literal dict
(``import_module(_LAZY[name])``, ``_LAZY.get(name)``), a PEP 562 ``__getattr__`` whose name
is checked against a literal collection first (``if name in _SUBMODULES:`` ...
``import_module(f".{name}", __name__)``), and concatenations and f-strings of those.
:class:`Literals` answers, for an expression, every string it can evaluate to, or None when
one of them is not a literal: the caller then reports the import as computed.

Resolution is by name, not by scope or control flow: every binding of a name anywhere in the
file counts, and one binding that is not a literal (a parameter, an augmented assignment, a
call's result) makes the name unknown, so a literal found here is never a guess.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable, Iterator

from sealed_trace.lint.literal_bindings import (
    MAX_DEPTH,
    SAME_ELEMENTS,
    Binding,
    Bindings,
    method_of,
)

__all__ = ["MAX_VALUES", "Literals"]

#: More strings than this from one expression: taken as computed (a bound on the work).
MAX_VALUES = 64
_Values = frozenset[str] | None


class Literals(Bindings):
    """Every binding of every name of one module's tree, and the literal values they give."""

    # -- values ----------------------------------------------------------------------------
    def values(self, expr: ast.expr, at: ast.AST | None = None) -> _Values:
        """Every string ``expr`` can be (None: one of them is not a literal). ``at`` is the
        node it is evaluated at: a parameter checked against a literal collection by an
        enclosing ``if name in ...:`` (or an earlier ``if name not in ...: raise``) there
        takes that collection's elements."""
        guards = self._guards(at) if at is not None else {}
        return self._values(expr, guards, 0, frozenset())

    def _values(
        self, expr: ast.expr, guards: dict[str, ast.expr], depth: int, seen: frozenset[str]
    ) -> _Values:
        if depth > MAX_DEPTH:
            return None
        step = depth + 1
        if isinstance(expr, ast.Constant):
            return frozenset({expr.value}) if isinstance(expr.value, str) else None
        if isinstance(expr, ast.Name):
            return self._name(expr.id, guards, step, seen)
        if isinstance(expr, (ast.BinOp, ast.JoinedStr)):
            return self._concatenation(expr, guards, step, seen)
        if isinstance(expr, ast.Subscript):
            return self._elements(expr.value, guards, step, seen, lookup=True)
        if isinstance(expr, ast.Call):
            return self._get(expr, guards, step, seen)
        if isinstance(expr, ast.IfExp):  # either branch may be taken
            body = self._values(expr.body, guards, step, seen)
            return _union([body, self._values(expr.orelse, guards, step, seen)])
        if isinstance(expr, ast.Attribute):
            return self._attribute(expr, guards, step, seen)
        return None

    def _attribute(
        self, expr: ast.Attribute, guards: dict[str, ast.expr], depth: int, seen: frozenset[str]
    ) -> _Values:
        """A class constant (``self.PYTEST``, ``cls.PYTEST``, ``Runner.PYTEST``): every
        value an attribute of that name is assigned in the module."""
        key = "." + expr.attr
        if key in seen or self.opaque:
            return None
        found = self.uses.attribute_values(expr.value, expr.attr)
        if found is None:
            return self._field(expr, guards, depth, seen | {key})
        return _union(self._values(v, guards, depth, seen | {key}) for v in found)

    def _field(
        self, expr: ast.Attribute, guards: dict[str, ast.expr], depth: int, seen: frozenset[str]
    ) -> _Values:
        """A field of a record constructed with literals (``SPECS[k].probe`` where ``SPECS``
        is a literal dict of ``Spec(...)`` calls of a dataclass of the module): what each
        construction passes for it."""
        made = self.instances(expr.value, depth, seen)
        if not made:
            return None
        parts: list[_Values] = []
        for call in made:
            passed = self.uses.field_argument(call, expr.attr)
            if passed is None:
                return None
            parts.append(self._values(passed, guards, depth + 1, seen))
        return _union(parts)

    def _parameter(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        name: str,
        guards: dict[str, ast.expr],
        depth: int,
        seen: frozenset[str],
    ) -> _Values:
        """A parameter of a module-private function: what each of its calls passes (its
        value at the call, with the call's own guards)."""
        if len(self.bindings.get(function.name, ())) != 1:
            return None  # the function's name is rebound: another function may be called
        passed = self.uses.arguments(function, name)
        if passed is None:
            return None
        calls = self.uses.calls[function.name]
        return _union(
            self._values(arg, self._guards(call), depth, seen)
            for arg, call in zip(passed, calls, strict=True)
        )

    def _unpacked(
        self,
        rows: ast.expr,
        index: int,
        width: int,
        guards: dict[str, ast.expr],
        depth: int,
        seen: frozenset[str],
    ) -> _Values:
        """``a`` or ``b`` of ``for a, b in ROWS``: the ``index``-th element of each row of
        a literal collection of rows of ``width`` elements."""
        found = self.rows(rows, depth, seen)
        if found is None:
            return None
        parts: list[_Values] = []
        for row in found:
            if not isinstance(row, (ast.Tuple, ast.List)) or len(row.elts) != width:
                return None
            if any(isinstance(e, ast.Starred) for e in row.elts):
                return None
            parts.append(self._values(row.elts[index], guards, depth + 1, seen))
        return _union(parts)

    def _concatenation(
        self,
        expr: ast.BinOp | ast.JoinedStr,
        guards: dict[str, ast.expr],
        depth: int,
        seen: frozenset[str],
    ) -> _Values:
        """The strings of an f-string or of a ``+`` of two strings: each combination."""
        if isinstance(expr, ast.JoinedStr):
            return _joined([self._part(v, guards, depth, seen) for v in expr.values])
        if not isinstance(expr.op, ast.Add):
            return None
        return _joined(
            [
                self._values(expr.left, guards, depth, seen),
                self._values(expr.right, guards, depth, seen),
            ]
        )

    def _part(
        self, value: ast.expr, guards: dict[str, ast.expr], depth: int, seen: frozenset[str]
    ) -> _Values:
        if isinstance(value, ast.FormattedValue):
            if value.conversion != -1 or value.format_spec is not None:
                return None
            return self._values(value.value, guards, depth, seen)
        return self._values(value, guards, depth, seen)

    def _name(
        self, name: str, guards: dict[str, ast.expr], depth: int, seen: frozenset[str]
    ) -> _Values:
        if name in guards:
            return self._elements(guards[name], guards, depth, seen | {name})
        if self.opaque:
            return None  # a write the lint cannot see may have changed it
        if name in seen:
            return None  # bound through itself (``x = x + "a"``): not a fixed set
        bindings = self.bindings.get(name)
        if not bindings:
            return None
        inner = seen | {name}
        return _union(self._binding(binding, guards, depth, inner) for binding in bindings)

    def _binding(
        self, binding: Binding, guards: dict[str, ast.expr], depth: int, seen: frozenset[str]
    ) -> _Values:
        """The strings one binding of a name gives (None: not only literals, or unknown)."""
        if binding.value is not None:
            return self._values(binding.value, guards, depth, seen)
        if binding.parameter is not None:
            return self._parameter(*binding.parameter, guards, depth, seen)
        if binding.elements is not None and binding.unpack is not None:
            return self._unpacked(binding.elements, *binding.unpack, guards, depth, seen)
        if binding.elements is not None and binding.part >= 0:
            return self._dict_part(binding.elements, binding.part, guards, depth, seen)
        if binding.elements is not None:
            return self._elements(binding.elements, guards, depth, seen)
        return None

    def _elements(
        self,
        expr: ast.expr,
        guards: dict[str, ast.expr],
        depth: int,
        seen: frozenset[str],
        lookup: bool = False,
    ) -> _Values:
        """The strings iterating ``expr`` gives (``lookup``: indexing it gives; for a dict,
        its values instead of its keys)."""
        if depth > MAX_DEPTH:
            return None
        step = depth + 1
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            return self._display(expr, guards, step, seen, lookup)
        if isinstance(expr, ast.Name) and expr.id not in guards and expr.id not in seen:
            return self._name_elements(expr.id, guards, step, seen, lookup)
        if isinstance(expr, ast.Call) and not lookup:
            return self._call_elements(expr, guards, step, seen)
        return None

    def _name_elements(
        self,
        name: str,
        guards: dict[str, ast.expr],
        depth: int,
        seen: frozenset[str],
        lookup: bool,
    ) -> _Values:
        """The elements of a name every binding of which is a value (a collection)."""
        bindings = self.bindings.get(name)
        if self.opaque or not bindings or any(b.value is None for b in bindings):
            return None
        inner = seen | {name}
        return _union(
            self._elements(b.value, guards, depth, inner, lookup)
            for b in bindings
            if b.value is not None
        )

    def _display(
        self,
        expr: ast.Tuple | ast.List | ast.Set | ast.Dict,
        guards: dict[str, ast.expr],
        depth: int,
        seen: frozenset[str],
        lookup: bool,
    ) -> _Values:
        """The elements of a literal tuple, list or set; a literal dict's keys (its values
        when ``lookup``)."""
        if not isinstance(expr, ast.Dict):
            return _union(self._values(e, guards, depth, seen) for e in expr.elts)
        if any(k is None for k in expr.keys):  # ``{**other}``
            return None
        part = expr.values if lookup else expr.keys
        return _union(self._values(e, guards, depth, seen) for e in part if e is not None)

    def _call_elements(
        self, call: ast.Call, guards: dict[str, ast.expr], depth: int, seen: frozenset[str]
    ) -> _Values:
        """``sorted(X)`` and the like give ``X``'s elements; ``D.keys()`` / ``D.values()`` a
        literal dict's keys / values."""
        func = call.func
        if isinstance(func, ast.Name) and func.id in SAME_ELEMENTS and len(call.args) == 1:
            return self._elements(call.args[0], guards, depth, seen)
        for method, which in (("keys", 0), ("values", 1)):
            owner = method_of(call, method)
            if owner is not None:
                return self._dict_part(owner, which, guards, depth, seen)
        return None

    def _dict_part(
        self,
        expr: ast.expr,
        part: int,
        guards: dict[str, ast.expr],
        depth: int,
        seen: frozenset[str],
    ) -> _Values:
        """Keys (``part`` 0) or values (1) of a literal dict."""
        return self._elements(expr, guards, depth, seen, lookup=part == 1)

    def _get(
        self, call: ast.Call, guards: dict[str, ast.expr], depth: int, seen: frozenset[str]
    ) -> _Values:
        """``D.get(key[, default])`` on a literal dict: any of its values, or the default."""
        owner = method_of(call, "get", arity=(1, 2))
        if owner is None:
            return None
        found = self._elements(owner, guards, depth, seen, lookup=True)
        if found is None or len(call.args) == 1:
            return found
        default = self._values(call.args[1], guards, depth, seen)
        return None if default is None else _bounded(found | default)

    # -- guards ----------------------------------------------------------------------------
    def _guards(self, at: ast.AST) -> dict[str, ast.expr]:
        """``{name: collection}`` for each ``if name in collection:`` enclosing ``at``, and
        each ``if name not in collection: raise/return`` before it in an enclosing block."""
        out: dict[str, ast.expr] = {}
        child: ast.AST = at
        parent = self.parents.get(id(child))
        while parent is not None:
            for name, collection in _guards_on(parent, child):
                out.setdefault(name, collection)
            child, parent = parent, self.parents.get(id(parent))
        return out


def _guards_on(parent: ast.AST, child: ast.AST) -> Iterator[tuple[str, ast.expr]]:
    """The ``(name, collection)`` guards ``parent`` puts on its ``child``: an ``if name in
    collection:`` whose body holds it, then each ``if name not in collection: raise/return``
    (no ``else``) before it in a block of ``parent``."""
    if isinstance(parent, ast.If) and any(child is s for s in parent.body):
        guard = _membership(parent.test, ast.In)
        if guard is not None:
            yield guard
    for block in _blocks(parent):
        for earlier in _before(block, child):
            guard = _exit_guard(earlier)
            if guard is not None:
                yield guard


def _before(block: list[ast.stmt], child: ast.AST) -> list[ast.stmt]:
    """The statements of ``block`` before ``child``; none when ``child`` is not in it."""
    index = next((i for i, s in enumerate(block) if s is child), None)
    return block[:index] if index is not None else []


def _exit_guard(statement: ast.stmt) -> tuple[str, ast.expr] | None:
    """``(name, collection)`` of ``if name not in collection: raise/return`` (no ``else``)."""
    if isinstance(statement, ast.If) and _exits(statement.body) and not statement.orelse:
        return _membership(statement.test, ast.NotIn)
    return None


def _membership(test: ast.expr, op: type[ast.cmpop]) -> tuple[str, ast.expr] | None:
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], op)
    ):
        return test.left.id, test.comparators[0]
    return None


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    return [
        block
        for name in ("body", "orelse", "finalbody")
        if isinstance(block := getattr(node, name, None), list)
    ]


def _exits(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Raise, ast.Return))


def _bounded(found: set[str] | frozenset[str]) -> _Values:
    return frozenset(found) if len(found) <= MAX_VALUES else None


def _union(parts: Iterable[_Values]) -> _Values:
    out: set[str] = set()
    for part in parts:
        if part is None:
            return None
        out |= part
    return _bounded(out)


def _joined(parts: list[_Values]) -> _Values:
    if any(p is None for p in parts):
        return None
    total = 1
    for part in parts:
        total *= len(part or ())
    if total > MAX_VALUES:
        return None
    return frozenset(
        "".join(combo) for combo in itertools.product(*(sorted(p or ()) for p in parts))
    )
