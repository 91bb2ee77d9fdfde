"""Writes that change a name or attribute without assigning it: what literal resolution must
not read past.

``L.append("pkg.sealed")``, ``D["a"] = "pkg.sealed"``, ``globals()["M"] = ...``,
``setattr(C, "X", ...)``, ``object.__setattr__(self, "X", ...)``, ``x.__dict__["X"] = ...``,
``sys.modules[__name__].M = ...`` and ``exec("M = ...")`` all change what a name or attribute
holds. :func:`hidden_writes` tells, for one node, which names and attributes it makes unknown,
or that it may change any of them (a computed key, a computed ``exec``): then no name or
attribute of the module is read as a literal.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = ["HiddenWrites", "escapes", "hidden_writes", "is_mutable"]

#: Methods that add to the collection they are called on.
_ADDING = frozenset(
    {"append", "extend", "insert", "update", "setdefault", "add", "__setitem__", "__iadd__"}
)
#: Calls that only read the collection passed to them.
_READING_CALLS = frozenset(
    {
        "sorted",
        "list",
        "tuple",
        "set",
        "frozenset",
        "reversed",
        "len",
        "enumerate",
        "iter",
        "any",
        "all",
        "min",
        "max",
        "sum",
        "print",
        "repr",
        "str",
        "isinstance",
        "zip",
        "dict",
    }
)
#: Methods that only read the collection they are called on.
_READING_METHODS = frozenset(
    {"get", "keys", "values", "items", "copy", "index", "count", "__contains__", "__getitem__"}
)
#: Calls whose first argument is the object and second the attribute name they set.
_SETTERS = frozenset({"setattr", "__setattr__"})
#: Methods that only read a namespace.
_NAMESPACE_READS = frozenset({"keys", "__contains__", "copy"})
#: Calls that return a module's namespace.
_NAMESPACES = frozenset({"globals", "vars", "locals"})


@dataclass(frozen=True)
class HiddenWrites:
    """What one node changes out of an assignment's sight: ``names`` and ``attributes`` it
    makes unknown, or ``anything`` (a computed name)."""

    names: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()
    anything: bool = False


_NONE = HiddenWrites()


def hidden_writes(node: ast.AST, parent: ast.AST | None = None) -> HiddenWrites:
    """What ``node`` (whose parent node is ``parent``) changes without assigning a name (see
    the module docstring)."""
    if _namespace_escapes(node, parent):
        return HiddenWrites(anything=True)
    if isinstance(node, ast.Subscript) and _is_namespace(node.value):
        # globals()["D"] hands out D's object (stored or changed through it): D is unknown
        key = _text(node.slice)
        return HiddenWrites((key,), (key,)) if key is not None else HiddenWrites(anything=True)
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(
        node.ctx, (ast.Store, ast.Del)
    ):
        return _stored(node)
    return _NONE


def _call(call: ast.Call) -> HiddenWrites:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name in _SETTERS:
        key = _text(call.args[1]) if len(call.args) > 1 else None
        return HiddenWrites((key,), (key,)) if key is not None else HiddenWrites(anything=True)
    if name in ("exec", "eval"):
        return _executed(call)
    if isinstance(func, ast.Attribute) and name in _ADDING:
        owner = func.value
        if _is_namespace(owner):
            return HiddenWrites(anything=True)
        root = _root_name(owner)
        return HiddenWrites((root,)) if root is not None else _NONE
    return _NONE


def _stored(target: ast.Subscript | ast.Attribute) -> HiddenWrites:
    """``X[k] = v`` / ``del X[k]`` (X changes), ``globals()[k] = v`` (name ``k``),
    ``x.__dict__[k] = v`` and ``sys.modules[...].k = v`` (``k`` as a name and attribute)."""
    if isinstance(target, ast.Attribute):
        if isinstance(target.value, ast.Subscript) and _names_modules(target.value.value):
            return HiddenWrites((target.attr,), (target.attr,))
        return _NONE
    owner = target.value
    if _is_namespace(owner) or (isinstance(owner, ast.Attribute) and owner.attr == "__dict__"):
        key = _text(target.slice)
        return HiddenWrites((key,), (key,)) if key is not None else HiddenWrites(anything=True)
    root = _root_name(owner)
    return HiddenWrites((root,)) if root is not None else _NONE


def _executed(call: ast.Call) -> HiddenWrites:
    """``exec``/``eval`` of literal code: every name it mentions (it may store or change
    any); of computed code: anything; with fresh namespaces of its own only (``exec(code,
    {})``): nothing of the module."""
    spaces = call.args[1:]
    if spaces and all(isinstance(a, ast.Dict) for a in spaces):
        return _NONE
    code = call.args[0] if call.args else None
    if isinstance(code, ast.Call) and getattr(code.func, "id", "") == "compile" and code.args:
        code = code.args[0]
    text = _text(code) if code is not None else None
    if text is None:
        return HiddenWrites(anything=True)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _NONE  # code that does not compile stores nothing
    named = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
    return HiddenWrites(tuple(named), tuple(named))


def _is_namespace(node: ast.expr) -> bool:
    """``globals()``, ``vars()``, ``locals()``: the module's (or a frame's) names."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _NAMESPACES
        and not node.args
    )


def _names_modules(node: ast.expr) -> bool:
    """``sys.modules`` (any spelling ending in ``.modules``)."""
    return isinstance(node, ast.Attribute) and node.attr == "modules"


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def is_mutable(value: ast.expr) -> bool:
    """Whether ``value`` makes a list, dict or set (which code elsewhere may change)."""
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    return isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("list", "dict", "set")


def escapes(name: ast.Name, parent: ast.AST | None) -> bool:
    """Whether a load of ``name`` hands its object to code that may change it: anything but
    iterating, indexing, ``in``, reading methods and calls that only read it (``sorted``);
    a store or ``del`` of the name is no load."""
    if not isinstance(name.ctx, ast.Load):
        return False
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
        return parent.iter is not name
    if isinstance(parent, ast.Subscript):
        return parent.value is not name
    if isinstance(parent, (ast.Compare, ast.FormattedValue, ast.Starred, ast.Expr)):
        return False
    if isinstance(parent, ast.Attribute):
        return parent.attr not in _READING_METHODS
    if isinstance(parent, ast.Call):
        return parent.func is not name and getattr(parent.func, "id", "") not in _READING_CALLS
    return True


def _namespace_escapes(node: ast.AST, parent: ast.AST | None) -> bool:
    """The module's namespace handed on (``g = globals()``, ``vars(sys.modules[...])``,
    ``sys.modules[__name__]`` other than to store a named attribute): whatever receives it may
    change any name."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") in _NAMESPACES:
        if node.args:  # vars(obj): obj's namespace, a module's included
            return True
        return not _reads_namespace(node, parent)
    if isinstance(node, ast.Subscript) and _names_modules(node.value):
        stored = isinstance(parent, ast.Attribute) and isinstance(parent.ctx, ast.Store)
        return not stored
    return False


def _reads_namespace(call: ast.Call, parent: ast.AST | None) -> bool:
    """Whether ``globals()`` (``call``) is only read where it stands: indexed (a key's object
    is judged by :func:`hidden_writes`), asked ``in``, its keys listed, copied, or passed to a
    call that only reads it (``set(globals())``)."""
    if isinstance(parent, ast.Subscript):
        return parent.value is call
    if isinstance(parent, ast.Attribute):
        return parent.attr in _NAMESPACE_READS
    if isinstance(parent, ast.Compare):
        return True
    return isinstance(parent, ast.Call) and getattr(parent.func, "id", "") in _READING_CALLS
