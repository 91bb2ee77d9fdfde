"""The file names a path loader's argument can end in, when every value is a literal.

``importlib.util.spec_from_file_location(name, lane.root / "runner.py")`` loads a file
named ``runner.py`` from a computed folder: if the tree's own files of that name neither are
sealed nor reach the sealed module, the load cannot make the importer reach it, and the lint
judges it as an import of those first-party files (an edge to each) instead of an unknown
load (ST301). The file name is read through ``/`` and ``joinpath``/``os.path.join`` (the last
part), ``Path(...)``, ``with_name``, a name bound only to such values, and a property of a
class of the module that returns one (``lane.runner_path``). Anything else leaves the load
unknown.
"""

from __future__ import annotations

import ast
import posixpath

from sealed_trace.lint.literals import Literals

__all__ = ["PATH_ARGUMENTS", "file_names"]

#: Where each path loader takes the file's path: ``(index, keyword)``.
PATH_ARGUMENTS = {
    "importlib.util.spec_from_file_location": (1, "location"),
    "importlib.machinery.SourceFileLoader": (1, "path"),
    "importlib.machinery.SourcelessFileLoader": (1, "path"),
    "runpy.run_path": (0, "path_name"),
    "imp.load_source": (1, "pathname"),
}
_MAX_DEPTH = 12
#: Calls whose last argument is the path's last part.
_JOINS = frozenset({"join", "joinpath", "Path", "PurePath", "PosixPath", "with_name"})


def file_names(expr: ast.expr, literals: Literals, depth: int = 0) -> frozenset[str] | None:
    """The names (``runner.py``) of the files ``expr`` can be the path of; None when one is
    not known."""
    if depth > _MAX_DEPTH:
        return None
    last = _last_part(expr, literals)
    if last is not None:
        return file_names(last, literals, depth + 1)
    if isinstance(expr, ast.Name):
        return _name_file_names(expr.id, literals, depth + 1)
    texts = literals.values(expr)
    if texts is None:
        return None
    names = frozenset(posixpath.basename(t.replace("\\", "/")) for t in texts)
    return None if "" in names else names


def _last_part(expr: ast.expr, literals: Literals) -> ast.expr | None:
    """The expression holding the last part of the path ``expr`` builds: the right side of
    ``/``, the last argument of a join, what a property returns (None: none of those)."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        return expr.right
    if isinstance(expr, ast.Call) and _callee_name(expr) in _JOINS and expr.args:
        return expr.args[-1]
    if isinstance(expr, ast.Attribute):
        return _property_return(expr.attr, literals)
    return None


def _name_file_names(name: str, literals: Literals, depth: int) -> frozenset[str] | None:
    """The file names of every value ``name`` is bound to (None: a binding is not known)."""
    values = [b.value for b in literals.bindings.get(name) or []]
    if not values or any(v is None for v in values):
        return None
    found = [file_names(v, literals, depth) for v in values if v is not None]
    if any(f is None for f in found):
        return None
    return frozenset(n for f in found if f is not None for n in f)


def _callee_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _property_return(attr: str, literals: Literals) -> ast.expr | None:
    """What a property named ``attr`` of a class of the module returns, when one class
    defines it and its body is one ``return``."""
    found = [
        _single_return(statement)
        for record in literals.uses.classes.values()
        for statement in (record.body if record is not None else ())
        if isinstance(statement, ast.FunctionDef)
        and statement.name == attr
        and any(_is_property(d) for d in statement.decorator_list)
    ]
    return found[0] if len(found) == 1 else None


def _single_return(function: ast.FunctionDef) -> ast.expr | None:
    """The value of ``function``'s body when it is one ``return`` (a docstring aside)."""
    body = [s for s in function.body if not _is_docstring(s)]
    return body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None


def _is_property(decorator: ast.expr) -> bool:
    name = decorator.attr if isinstance(decorator, ast.Attribute) else getattr(decorator, "id", "")
    return name in ("property", "cached_property")


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
