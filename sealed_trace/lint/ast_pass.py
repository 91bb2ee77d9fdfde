"""The import-graph pass for modules outside the boundary: CPython's ``ast``, no libcst.

Reverse-dependency rules (ST3xx in upstream modules, ST4xx) need only a module's imports,
its dynamic-import calls and dotted references through imported names. For those the
standard-library parser is exact about syntax and about fifty times cheaper than a libcst parse
with scope metadata, so the engine keeps libcst for the sealed module, where banned-name rules
need scope-exact resolution (shadowing parameters, local rebinding), and uses this pass for
every other file it must parse.

Resolution here over-approximates, which is the safe direction for reverse dependencies: every
name bound by any import statement in the file is resolved through that import wherever it is
used (shadowing is ignored), so an edge is never missed. Python normalises identifiers (NFKC)
while parsing, so look-alike Unicode spellings resolve too.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

from sealed_trace.lint.compiler import parse_and_compile
from sealed_trace.lint.dynamic_rules import (
    ATTRIBUTE_MAKERS,
    BINDERS,
    GRAPH_PASS,
    LIST_MUTATORS,
    RELATIVE_BASES,
    CallArgs,
    Importer,
    Plain,
    Site,
    attribute_name_arguments,
    code_runner,
    computed_import_root,
    escaped_import_function,
    from_import_binding,
    from_import_fact,
    hidden_import,
    import_binding,
    import_function,
    import_statement_fact,
    is_main_guard,
    judge_import_call,
    loader_facts,
    member_names,
    module_name_argument,
    names_import_function,
    star_imported_functions,
    string_import,
    string_import_facts,
)
from sealed_trace.lint.facts import DynamicFact, FileFacts, ImportFact, RefFact
from sealed_trace.lint.file_names import PATH_ARGUMENTS, file_names
from sealed_trace.lint.literals import Literals
from sealed_trace.lint.screen import type_checking_spoofed
from sealed_trace.lint.suppressions import scan_suppressions

__all__ = ["extract_graph_facts"]

_TYPING = ("typing", "typing_extensions")
#: Components of the longest qualified name an alias is bound to: deeper than any module path
#: and attribute the rules judge (a name bound through its own attribute in a loop would
#: otherwise grow for ever).
_MAX_PARTS = 24
#: Most names the composition of aliases binds a name to. Scopes are ignored, so ``x = x.a``
#: in one function and ``x = x.b`` in another compose without end (``x.a.b.a...``): without a
#: bound the names grow exponentially in the number of such lines. Imports and direct
#: aliases (``x = pkg.mod``) are always bound; compositions only below this bound.
_MAX_ALIAS_NAMES = 64
_BUILTINS = frozenset({"__import__", "getattr", "vars", "exec", "eval", "compile"})
_Guard = tuple[ast.expr, ...]
#: A node of the walk, whether it is under ``TYPE_CHECKING``, and where it runs.
_Item = tuple[ast.AST, bool, str]


def _literal(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and all(
        isinstance(v, ast.Constant) and isinstance(v.value, str) for v in node.values
    ):
        return "".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
    return None


def _arg(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    return positional[index] if index < len(positional) else None


def _root_name(node: ast.expr | None) -> str | None:
    """The name an attribute, subscript or call chain starts from (``a`` of ``a.b[0]()``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _plain(node: ast.expr) -> Plain:
    """What the shared rules read of an expression (see :class:`Plain`)."""
    if isinstance(node, ast.Name):
        return Plain(name=node.id)
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        return Plain(integer=node.value)
    if isinstance(node, (ast.List, ast.Tuple)):
        return Plain(items=tuple(_literal(e) for e in node.elts))
    if _is_own_globals(node):
        return Plain(own_globals=True)
    return Plain(text=_literal(node))


def _is_own_globals(node: ast.expr) -> bool:
    """``globals()``: the calling module's own globals."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "globals"
        and not (node.args or node.keywords)
    )


def _plain_arguments(call: ast.Call) -> CallArgs:
    """A call's arguments as plain values."""
    keywords: dict[str, Plain] = {}
    for kw in call.keywords:
        if kw.arg is not None:
            keywords.setdefault(kw.arg, _plain(kw.value))
    positional = tuple(_plain(a) for a in call.args if not isinstance(a, ast.Starred))
    return CallArgs(positional, keywords)


class _TypeChecking:
    """Which ``if`` tests are ``typing.TYPE_CHECKING`` (false at run time, so what they guard
    may be ignored by policy). Only the constant imported from ``typing`` or
    ``typing_extensions`` counts, and only in a module that never binds that name otherwise nor
    assigns any ``.TYPE_CHECKING`` attribute: a spoofed guard runs at import time."""

    def __init__(self, tree: ast.Module, text: str) -> None:
        self.names: set[str] = set()
        self.modules: set[str] = set()
        if "TYPE_CHECKING" not in text or type_checking_spoofed(text):
            return
        stored: set[str] = set()
        spoofed = False
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                stored.update(self._import(node))
            else:
                stored.update(_bound_names(node))
                spoofed = spoofed or _spoofs_type_checking(node)
        if spoofed:
            self.names.clear()
            self.modules.clear()
        self.names -= stored
        self.modules -= stored

    def _import(self, node: ast.Import | ast.ImportFrom) -> list[str]:
        """Record ``from typing import TYPE_CHECKING`` (any alias) and ``import typing``;
        return the other names the statement binds."""
        other: list[str] = []
        for alias in node.names:
            if isinstance(node, ast.ImportFrom):
                bound = alias.asname or alias.name
                if node.module in _TYPING and not node.level and alias.name == "TYPE_CHECKING":
                    self.names.add(bound)
                else:
                    other.append(bound)
            elif alias.name in _TYPING:
                self.modules.add(alias.asname or alias.name)
            else:
                other.append(alias.asname or alias.name.partition(".")[0])
        return other

    def test(self, test: ast.expr) -> bool:
        if isinstance(test, ast.Name):
            return test.id in self.names
        return (
            isinstance(test, ast.Attribute)
            and test.attr == "TYPE_CHECKING"
            and isinstance(test.value, ast.Name)
            and test.value.id in self.modules
        )


def _bound_names(node: ast.AST) -> tuple[str, ...]:
    """The names a node binds other than by import: assignment and ``del`` targets,
    definitions, parameters, ``except ... as``, ``global``/``nonlocal``."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return (node.id,)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (node.name,)
    if isinstance(node, ast.arg):
        return (node.arg,)
    if isinstance(node, ast.ExceptHandler) and node.name:
        return (node.name,)
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return tuple(node.names)
    return ()


def _spoofs_type_checking(node: ast.AST) -> bool:
    """A write to any ``.TYPE_CHECKING`` attribute, or a call naming it
    (``setattr(typing, "TYPE_CHECKING", True)`` and the like)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "TYPE_CHECKING" and not isinstance(node.ctx, ast.Load)
    return isinstance(node, ast.Call) and any(
        isinstance(a, ast.Constant) and a.value == "TYPE_CHECKING" for a in node.args
    )


_AST = ast.AST
#: Nodes without anything the walk looks at (contexts and operators have no fields).
_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


class _Visitor:
    def __init__(self, text: str, module: str, is_package: bool) -> None:
        self.lines = text.splitlines()
        self.importer = Importer(module, is_package)
        self.bindings: dict[str, set[str]] = {}
        self.tc_bound: set[str] = set()
        self.rt_bound: set[str] = set()
        self.imports: list[ImportFact] = []
        self.refs: list[RefFact] = []
        self.dynamics: list[DynamicFact] = []
        #: simple aliases ``name = expr`` (assignments, walrus, parameter defaults), resolved
        #: after the walk, at any depth (scopes are ignored: over-approximation)
        self.aliases: list[tuple[str, ast.expr]] = []
        #: ``id`` of every expression bound to a name (assignment, default): followed as an
        #: alias, so a function it names is not taken as escaping.
        self.alias_values: set[int] = set()
        #: ``__all__``: names of its literal assignments, and how many uses are not those
        self.all_names: list[str] = []
        self.all_literal = 0
        self.all_uses = 0
        #: where the call being judged runs ("", "function" or "main", as in :meth:`run`)
        self.where = ""
        self.tree: ast.Module | None = None
        #: ``id`` of each expression called where it stands (a call's callee, a decorator)
        self.called_at_once: set[int] = set()

    # -- helpers -------------------------------------------------------------------------------
    def pos(self, node: ast.AST) -> tuple[int, int]:
        line = getattr(node, "lineno", 1)
        offset = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if not text.isascii():
            offset = len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))
        return line, offset + 1

    def site(self, node: ast.AST, tc: bool, where: str) -> Site:
        """``node``'s position; ``where`` it runs: ``""`` at module level, ``"function"``
        inside a function body, ``"main"`` under the main guard."""
        line, col = self.pos(node)
        return Site(line, col, tc, where == "function", where == "main")

    def resolve(self, node: ast.expr, depth: int = 0) -> set[str]:
        """Qualified names ``node`` may refer to through the file's imports and aliases."""
        if depth > 50:
            return set()
        if isinstance(node, ast.Name):
            return self._resolve_name(node.id)
        if isinstance(node, ast.Attribute):
            if node.attr == "__dict__":
                return self.resolve(node.value, depth + 1)
            return {f"{b}.{node.attr}" for b in self.resolve(node.value, depth + 1)}
        if isinstance(node, ast.Subscript):  # __builtins__["__import__"], vars(m)["name"]
            return self._member(node.value, _literal(node.slice), depth)
        if isinstance(node, ast.Call):
            return self._call_result(node, depth)
        return set()

    def _resolve_name(self, name: str) -> set[str]:
        """What an import or alias binds ``name`` to, else the builtin of that name."""
        bound = self.bindings.get(name)
        if bound:
            return set(bound)
        if name == "__builtins__":
            return {"builtins"}
        return {f"builtins.{name}"} if name in _BUILTINS else set()

    def _member(self, owner: ast.expr, text: str | None, depth: int) -> set[str]:
        """``owner[text]`` or ``getattr(owner, text)``: a member of what ``owner`` is, and the
        import function of that name whatever ``owner`` is (over-approximating)."""
        if text is None:
            return set()
        return member_names(self.resolve(owner, depth + 1), text)

    def _call_result(self, node: ast.Call, depth: int) -> set[str]:
        """``vars(m)`` is ``m``; ``getattr(m, "name")`` is ``m.name``."""
        callee = self.resolve(node.func, depth + 1)
        obj = _arg(node, 0, "o")
        if obj is None:
            return set()
        if "builtins.vars" in callee:
            return self.resolve(obj, depth + 1)
        if "builtins.getattr" in callee:
            return self._member(obj, _literal(_arg(node, 1, "name")), depth)
        return set()

    # -- one pass over the tree, resolution deferred until every import is bound ----------
    def run(self, tree: ast.Module) -> None:
        """Walk ``tree`` once (iteratively: no recursion limit), then resolve references."""
        self.tree = tree
        refs, calls = self._walk(tree, _TypeChecking(tree, "\n".join(self.lines)))
        _bind_aliases(self)
        # each callee resolved once, for every judgment below
        callees = [self.resolve(call.func) for call, _, _ in calls]
        bound = [
            self._bound_import(call, callee)
            for (call, _, _), callee in zip(calls, callees, strict=True)
        ]
        direct = {id(call.func) for call, _, _ in calls}
        direct.update(
            id(call.args[0]) for (call, _, _), b in zip(calls, bound, strict=True) if b is not None
        )
        self._references(refs, direct)
        self._literal_getattrs(calls, callees)
        dynamic = _DynamicImports(self)
        for (call, tc, where), callee, bound_func in zip(calls, callees, bound, strict=True):
            self.where = where
            dynamic.call(call, tc, callee, bound_func)
        self.where = ""

    def _bound_import(self, call: ast.Call, callee: set[str]) -> str | None:
        """``functools.partial(import_module, name, ...)`` (``callee``: what ``call`` calls):
        the import function whose module argument it binds (judged as that call, see
        :class:`_DynamicImports`), else None."""
        if len(call.args) < 2 or not BINDERS & callee:
            return None
        return import_function(self.resolve(call.args[0]), GRAPH_PASS)

    def _literal_getattrs(
        self, calls: list[tuple[ast.Call, bool, str]], callees: list[set[str]]
    ) -> None:
        """``getattr(pkg, "name")`` names ``pkg.name`` as the attribute ``pkg.name`` does: a
        reference (via ``getattr``)."""
        for (call, tc, where), callee in zip(calls, callees, strict=True):
            if "builtins.getattr" not in callee:
                continue
            resolved = self.resolve(call)
            line, col = self.pos(call)
            for q in sorted(resolved):
                self.refs.append(RefFact(line, col, q, False, "getattr", tc, where == "function"))

    def _walk(
        self, tree: ast.Module, guard: _TypeChecking
    ) -> tuple[list[tuple[ast.expr, bool, str]], list[tuple[ast.Call, bool, str]]]:
        """Record imports and assignments; return the references and the calls (each with
        whether it is under ``TYPE_CHECKING`` and where it runs), judged once every import
        is bound."""
        refs: list[tuple[ast.expr, bool, str]] = []
        calls: list[tuple[ast.Call, bool, str]] = []
        # (node, under TYPE_CHECKING, where: "" at module level, "function" inside a function
        # body, "main" under ``if __name__ == "__main__":``)
        stack: list[_Item] = [(tree, False, "")]
        while stack:
            node, tc, where = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                self._function(node, tc, where, stack)
            elif isinstance(node, ast.If):
                _guarded(node, tc, where, guard, stack)
            elif isinstance(node, ast.Import):
                self._import(node, tc, where)
            elif isinstance(node, ast.ImportFrom):
                self._import_from(node, tc, where)
            elif isinstance(node, (ast.Attribute, ast.Name)):
                self._name_chain(node, tc, where, stack, refs)
            else:
                self._other(node, tc, where, calls)
                stack.extend((child, tc, where) for child in _children(node))
        return refs, calls

    def _function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
        tc: bool,
        where: str,
        stack: list[_Item],
    ) -> None:
        """A function's body runs when it is called; its defaults, decorators and
        annotations where it is defined."""
        self._add_aliases(_default_aliases(node.args))
        body = node.body if isinstance(node.body, list) else [node.body]
        # a lambda called where it stands (a decorator, ``(lambda: ...)()``) runs there
        runs = where if id(node) in self.called_at_once else "function"
        stack.extend((child, tc, runs) for child in body)
        outer: list[ast.expr | None] = [*node.args.defaults, *node.args.kw_defaults]
        if not isinstance(node, ast.Lambda):
            outer += [*node.decorator_list, node.returns]
            self.called_at_once.update(id(d) for d in node.decorator_list)
        args = node.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                outer.append(arg.annotation)
        stack.extend((child, tc, where) for child in outer if child is not None)

    def _name_chain(
        self,
        node: ast.Attribute | ast.Name,
        tc: bool,
        where: str,
        stack: list[_Item],
        refs: list[tuple[ast.expr, bool, str]],
    ) -> None:
        """A name or attribute chain: a reference when it is loaded from a name, and a use of
        ``__all__`` when it names it."""
        inner: ast.expr = node
        all_attr = False  # ``sys.modules[__name__].__all__ = ...``: computed
        while isinstance(inner, ast.Attribute):
            all_attr = all_attr or inner.attr == "__all__"
            inner = inner.value
        if all_attr or (isinstance(inner, ast.Name) and inner.id == "__all__"):
            self.all_uses += 1
        if not isinstance(inner, ast.Name):
            stack.append((inner, tc, where))
        elif isinstance(node.ctx, ast.Load):
            refs.append((node, tc, where))

    def _other(
        self, node: ast.AST, tc: bool, where: str, calls: list[tuple[ast.Call, bool, str]]
    ) -> None:
        """Assignments (aliases, ``__all__``), calls, and the other ways of naming
        ``__all__``."""
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            self._assignment(node)
        elif isinstance(node, ast.Constant) and node.value == "__all__":
            # ``globals()["__all__"] = ...``, ``setattr(m, "__all__", ...)``: computed
            self.all_uses += 1
        elif isinstance(node, ast.Call):
            calls.append((node, tc, where))
            self.called_at_once.add(id(node.func))
            if any(kw.arg == "__all__" for kw in node.keywords):
                self.all_uses += 1  # ``globals().update(__all__=...)``

    def _references(self, refs: list[tuple[ast.expr, bool, str]], called: set[int]) -> None:
        """Resolve each reference through the imports and aliases of the file."""
        tc_only = self.tc_bound - self.rt_bound
        for expr, tc, where in refs:
            root = expr
            while isinstance(root, ast.Attribute):
                root = root.value
            # a name imported only under TYPE_CHECKING is only used in annotations
            tc_ref = tc or (isinstance(root, ast.Name) and root.id in tc_only)
            resolved = self.resolve(expr)
            line, col = self.pos(expr) if resolved else (0, 0)
            for q in sorted(resolved):
                self.refs.append(RefFact(line, col, q, False, "", tc_ref, where == "function"))
            # an import function used as a value (``map(importlib.import_module, names)``,
            # ``import_module.__call__(...)``) hides what it imports; a direct call, or an
            # alias the walk follows, does not
            direct = id(expr) in called or id(expr) in self.alias_values
            escaped = escaped_import_function(resolved, direct)
            if escaped is not None:
                self.dynamics.append(DynamicFact(line, col, "escaped-import", escaped))

    def _assignment(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        for target in targets:
            if isinstance(target, ast.Name) and target.id in RELATIVE_BASES:
                # Relative imports resolve against this module's package: reassigned, they may
                # name any module (``__package__ = "pkg"``, then ``from . import sealed``).
                line, col = self.pos(target)
                self.dynamics.append(DynamicFact(line, col, "relative-base", target.id))
        if value is None:
            return
        for target in targets:
            if isinstance(target, ast.Name) and target.id == "__all__":
                self._all_assigned(value)
            if not isinstance(node, ast.AugAssign):
                self._add_aliases(_assigned_aliases(target, value))

    def _all_assigned(self, value: ast.expr) -> None:
        """``__all__ = [...]``: the names of a literal list or tuple."""
        items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else None
        names = [_literal(e) for e in items] if items is not None else [None]
        if all(n is not None for n in names):
            self.all_literal += 1  # the target itself, counted as a use by the walk
            self.all_names.extend(n for n in names if n is not None)

    def _add_aliases(self, pairs: list[tuple[str, ast.expr]]) -> None:
        """``(name, value)`` aliases the walk follows (their values are not taken for an
        import function escaping)."""
        for name, value in pairs:
            self.aliases.append((name, value))
            self.alias_values.add(id(value))

    def _bind(self, name: str, target: str, tc: bool) -> None:
        """``name`` is bound by an import (under ``TYPE_CHECKING`` or not) to ``target``."""
        self.bindings.setdefault(name, set()).add(target)
        (self.tc_bound if tc else self.rt_bound).add(name)

    def _import(self, node: ast.Import, tc: bool, where: str) -> None:
        for alias in node.names:
            self._bind(*import_binding(alias.name, alias.asname), tc)
            site = self.site(alias, tc, where)
            self.imports.append(import_statement_fact(site, node.lineno, alias.name))

    def _import_from(self, node: ast.ImportFrom, tc: bool, where: str) -> None:
        module = self.importer.absolute(node.level, node.module or "")
        spelled = "." * node.level + (node.module or "")
        for alias in node.names:
            if (alias.asname or alias.name) == "__all__":
                self.all_uses += 1
            if module:
                for name, target in _from_bindings(module, alias):
                    self._bind(name, target, tc)
            site = self.site(alias if alias.name != "*" else node, tc, where)
            self.imports.append(from_import_fact(site, node.lineno, module, spelled, alias.name))


def _bind_aliases(visitor: _Visitor) -> None:
    """Bind each alias of ``visitor`` (after its walk) to what its value resolves to,
    propagating along chains of aliases (see :func:`_propagate` for why this ends)."""
    dependents: dict[str, list[tuple[str, ast.expr]]] = {}
    work: list[tuple[str, ast.expr]] = []
    for name, value in visitor.aliases:
        root = _root_name(value)
        if root is not None:
            dependents.setdefault(root, []).append((name, value))
            work.append((name, value))
    # getattr(x, ...) / vars(x): the value depends on the first argument's root too
    for name, value in visitor.aliases:
        obj = _root_name(_arg(value, 0, "o")) if isinstance(value, ast.Call) else None
        if obj is not None:
            dependents.setdefault(obj, []).append((name, value))
    _propagate(visitor, work, dependents)


def _propagate(
    visitor: _Visitor,
    work: list[tuple[str, ast.expr]],
    dependents: dict[str, list[tuple[str, ast.expr]]],
) -> None:
    """Bind each ``(name, value)`` of ``work``, in rounds: each round resolves its aliases
    with the bindings of the round before, then binds again the aliases whose values
    depend on a name that grew. The first round binds every direct alias; later rounds
    (compositions through other aliases) add to a name only while it has fewer than
    :data:`_MAX_ALIAS_NAMES` names, so the rounds end and memory stays linear."""
    first = True
    while work:
        grown: dict[str, set[str]] = {}
        for name, value in work:
            resolved = {q for q in visitor.resolve(value) if q.count(".") < _MAX_PARTS}
            grown.setdefault(name, set()).update(resolved)
        again: dict[int, tuple[str, ast.expr]] = {}
        for name, names in grown.items():
            if _grow(visitor, name, names, first):
                again.update((id(v), (n, v)) for n, v in dependents.get(name, ()))
        work = list(again.values())
        first = False


def _grow(visitor: _Visitor, name: str, names: set[str], unbounded: bool) -> bool:
    """Add ``names`` to ``name``'s binding (all of them if ``unbounded``, else the
    shortest while it holds fewer than :data:`_MAX_ALIAS_NAMES`); whether it grew."""
    bound = visitor.bindings.setdefault(name, set())
    new = names - bound
    if not unbounded:
        room = max(0, _MAX_ALIAS_NAMES - len(bound))
        new = set(sorted(new, key=lambda q: (q.count("."), q))[:room])
    if not new:
        return False
    bound |= new
    visitor.rt_bound.add(name)
    return True


def _from_bindings(module: str, alias: ast.alias) -> list[tuple[str, str]]:
    """What one alias of ``from module import ...`` binds: the name (``from importlib import
    *`` binds ``import_module``)."""
    if alias.name == "*":
        return star_imported_functions(module)
    return [from_import_binding(module, alias.name, alias.asname)]


def _assigned_aliases(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """``name = value`` (also element by element of equal-length tuples): the aliases the
    walk follows."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if (
        isinstance(target, (ast.Tuple, ast.List))
        and isinstance(value, (ast.Tuple, ast.List))
        and len(target.elts) == len(value.elts)
    ):
        pairs = zip(target.elts, value.elts, strict=True)
        return [(t.id, v) for t, v in pairs if isinstance(t, ast.Name)]
    return []


def _default_aliases(args: ast.arguments) -> list[tuple[str, ast.expr]]:
    """A parameter with a default is an alias of its default (over-approximating)."""
    positional = [*args.posonlyargs, *args.args]
    with_default = positional[len(positional) - len(args.defaults) :]
    pairs = [(arg.arg, default) for arg, default in zip(with_default, args.defaults, strict=True)]
    keyword_pairs = zip(args.kwonlyargs, args.kw_defaults, strict=True)
    return pairs + [(arg.arg, default) for arg, default in keyword_pairs if default is not None]


def _guarded(node: ast.If, tc: bool, where: str, guard: _TypeChecking, stack: list[_Item]) -> None:
    """An ``if``: its body is under ``TYPE_CHECKING`` or the main guard when its test says
    so; its test and ``else`` run where the ``if`` does."""
    inside = tc or guard.test(node.test)
    body_where = "main" if not where and _is_main_guard(node.test) else where
    stack.extend((child, tc, where) for child in node.orelse)
    stack.extend((child, inside, body_where) for child in node.body)
    stack.append((node.test, tc, where))


class _DynamicImports:
    """The dynamic-import rules of this pass, judged on each call once the walk has bound
    every import and alias: import functions with literal (or literal-resolvable) names,
    string-importing calls, computed names (ST301), path loaders and plugin discovery (the
    judgments are :mod:`.dynamic_rules`', in its :data:`GRAPH_PASS` dialect)."""

    def __init__(self, visitor: _Visitor) -> None:
        self.visitor = visitor
        self._literals: Literals | None = None

    def call(self, node: ast.Call, tc: bool, callee: set[str], bound_func: str | None) -> None:
        """Judge one call, whose callee resolves to ``callee`` and which binds the import
        function ``bound_func`` (``partial``; see the class docstring)."""
        visitor = self.visitor
        line, col = visitor.pos(node)
        if _mutates_path(node.func):
            visitor.dynamics.append(DynamicFact(line, col, "relative-base", "__path__"))
        computed = self._computed_root(node, callee)
        if computed is not None:
            visitor.dynamics.append(DynamicFact(line, col, "computed-import", computed))
        self._string_import(node, callee, tc)
        self._attribute_maker(node, callee)
        func = import_function(callee, GRAPH_PASS)
        if func is not None:
            self._dynamic_import(node, func, tc)
        elif bound_func is not None:  # partial(import_module, name): that call
            bound = ast.copy_location(ast.Call(node.args[0], node.args[1:], node.keywords), node)
            self._dynamic_import(bound, bound_func, tc)
        runner = code_runner(callee)
        if runner is not None:
            self._executed_code(node, runner, tc)
        for fact in loader_facts(callee, line, col):
            if fact.kind != "path-import" or not self._file_load(node, fact.callee, tc):
                visitor.dynamics.append(fact)

    def _file_load(self, node: ast.Call, loader: str, tc: bool) -> bool:
        """A path loader's call whose file name is a literal (:mod:`.file_names`): an import
        of the first-party files of that name; whether it was one."""
        where = PATH_ARGUMENTS.get(loader)
        path = _arg(node, *where) if where is not None else None
        model = self._model()
        names = file_names(path, model) if path is not None and model is not None else None
        if names is None:
            return False
        visitor = self.visitor
        site = visitor.site(node, tc, visitor.where)
        for name in sorted(names):
            text = f"{loader}(..., {name!r})"
            visitor.imports.append(
                ImportFact(
                    site.line,
                    site.column,
                    name,
                    None,
                    "file",
                    site.type_checking,
                    text,
                    site.lazy,
                    site.line,
                    site.main,
                )
            )
        return True

    def _executed_code(self, node: ast.Call, runner: str, tc: bool) -> None:
        """``exec("import pkg.x")`` (also of ``compile("...")``): the imports of each
        literal the code can be are the call's own; code computed at run time may import
        anything (ST301, as ``pickle.loads`` is)."""
        visitor = self.visitor
        code = _arg(node, 0, "source")
        if isinstance(code, ast.Call) and "builtins.compile" in visitor.resolve(code.func):
            code = _arg(code, 0, "source")  # exec(compile("...", name, "exec"))
        texts = self.literals(code, node)
        site = visitor.site(node, tc, visitor.where)
        if texts is None:  # code computed at run time may import anything
            visitor.dynamics.append(DynamicFact(site.line, site.column, "hidden-import", runner))
            return
        importer = visitor.importer
        for text in sorted(texts):
            facts = extract_graph_facts(text, importer.module, importer.is_package)
            shown = f"{runner.rpartition('.')[2]}({text!r})"
            for fact in facts.imports:
                visitor.imports.append(_relocated(fact, site, shown))
            visitor.dynamics.extend(
                DynamicFact(site.line, site.column, d.kind, d.callee) for d in facts.dynamics
            )

    def _string_import(self, node: ast.Call, callee: set[str], tc: bool) -> None:
        """Calls that import a module named by a string (:data:`STRING_IMPORTS`) and calls
        that may import modules named in their data (:data:`HIDDEN_IMPORTS`)."""
        line, col = self.visitor.pos(node)
        hidden = hidden_import(callee)
        if hidden is not None:
            self.visitor.dynamics.append(DynamicFact(line, col, "hidden-import", hidden))
        method = node.func.attr if isinstance(node.func, ast.Attribute) else None
        spec = string_import(callee, method)
        if spec is None:
            return
        arg = next((a for k in spec.keywords if (a := _arg(node, spec.index, k)) is not None), None)
        if arg is None:
            return  # ``files()``: the calling module itself
        items = [arg]
        if spec.listed and isinstance(arg, (ast.List, ast.Tuple)):
            items = list(arg.elts)
        self._string_import_items(node, spec.func, items, tc)

    def _string_import_items(
        self, node: ast.Call, func: str, items: list[ast.expr], tc: bool
    ) -> None:
        """Each module name a string-importing call takes: the literals it can be, or one
        computed import (ST301) for the first that is none."""
        site = self.visitor.site(node, tc, self.visitor.where)
        for item in items:
            texts = self.literals(item, node)
            if texts is not None:
                self.visitor.imports.extend(string_import_facts(func, texts, site))
            elif not self._names_a_module(item):
                fact = DynamicFact(site.line, site.column, "computed-import", func)
                self.visitor.dynamics.append(fact)
                return

    def _names_a_module(self, item: ast.expr) -> bool:
        """A computed string-import argument that names a module all the same: the module
        itself or its package (already imported), or a module object (an edge of its own)."""
        if isinstance(item, ast.Name) and item.id in ("__name__", "__package__"):
            return True
        return isinstance(item, (ast.Name, ast.Attribute)) and bool(self.visitor.resolve(item))

    def _attribute_maker(self, node: ast.Call, callee: set[str]) -> None:
        """``operator.attrgetter("__import__")(builtins_module)(...)``: an attribute getter or
        method caller for an import function's name may fetch it from a module the lint cannot
        see (``len.__self__`` is ``builtins``). A computed name is treated as ``getattr`` with
        a computed name on an unknown object is (see docs/lint.md, Limits)."""
        makers = sorted(callee & ATTRIBUTE_MAKERS)
        if not makers:
            return
        maker = makers[0]
        for arg in node.args[: attribute_name_arguments(maker, len(node.args))]:
            text = _literal(arg)
            if text is not None and names_import_function(text):
                line, col = self.visitor.pos(node)
                self.visitor.dynamics.append(DynamicFact(line, col, "computed-import", maker))
                return

    def _computed_root(self, node: ast.Call, callee: set[str]) -> str | None:
        """``getattr(importlib, name)`` / ``__builtins__[name](...)``: an attribute of an
        import-capable module fetched under a computed name may be an import function."""
        if "builtins.getattr" in callee:
            root = self._computed_member_of(_arg(node, 0, "o"), _arg(node, 1, "name"))
            if root is not None:
                return f"getattr({root}, ...)"
        func = node.func
        if isinstance(func, ast.Subscript):
            root = self._computed_member_of(func.value, func.slice)
            if root is not None:
                return f"{root}[...]"
        return None

    def _computed_member_of(self, owner: ast.expr | None, name: ast.expr | None) -> str | None:
        """The import-capable module ``owner`` is, when a member of it is fetched under a
        computed ``name``."""
        if owner is None or name is None or _literal(name) is not None:
            return None
        return computed_import_root(self.visitor.resolve(owner))

    def literals(self, expr: ast.expr | None, at: ast.AST) -> frozenset[str] | None:
        """Every string ``expr`` can be at ``at`` (see :mod:`.literals`); None when one is
        not a literal."""
        if expr is None:
            return None
        text = _literal(expr)
        if text is not None:
            return frozenset({text})
        model = self._model()
        return model.values(expr, at) if model is not None else None

    def _model(self) -> Literals | None:
        """The module's literal bindings (built once, when first asked)."""
        if self._literals is None and self.visitor.tree is not None:
            self._literals = Literals(self.visitor.tree)
        return self._literals

    def _dynamic_import(self, node: ast.Call, func: str, tc: bool) -> None:
        """An import function's call: every literal its module argument can be, judged by
        the shared rule."""
        visitor = self.visitor
        names = self.literals(_arg(node, *module_name_argument(func)), node)
        site = visitor.site(node, tc, visitor.where)
        args = _plain_arguments(node)
        imports, dynamics = judge_import_call(func, names, args, site, visitor.importer, GRAPH_PASS)
        visitor.imports.extend(imports)
        top = self._spec_package(node, func) if names is None else None
        if top is not None:  # find_spec("numpy." + name): only numpy's parents are imported
            dynamics = [DynamicFact(site.line, site.column, "computed-spec", top)]
        visitor.dynamics.extend(dynamics)

    def _spec_package(self, node: ast.Call, func: str) -> str | None:
        """For ``find_spec`` of a computed name that starts with a literal dotted package
        (``"numpy." + name``, ``f"numpy.{name}"``): that package's top-level name."""
        if func != "importlib.util.find_spec":
            return None
        prefix = self._literal_prefix(_arg(node, *module_name_argument(func)), node)
        if prefix is None or "." not in prefix or prefix.startswith("."):
            return None
        return prefix.partition(".")[0] or None

    def _literal_prefix(self, expr: ast.expr | None, at: ast.AST) -> str | None:
        """The literal start every value of ``expr`` shares (``"a." + x``, ``f"a.{x}"``)."""
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            return self._literal_prefix(expr.left, at)
        if isinstance(expr, ast.JoinedStr) and expr.values:
            return self._literal_prefix(expr.values[0], at)
        texts = self.literals(expr, at)
        return next(iter(texts)) if texts is not None and len(texts) == 1 else None


def _relocated(fact: ImportFact, site: Site, shown: str) -> ImportFact:
    """An import of code run from a string, placed at the call that runs it."""
    return dataclasses.replace(
        fact,
        line=site.line,
        column=site.column,
        statement=site.line,
        text=shown if len(shown) <= 80 else shown[:77] + "...",
        type_checking=fact.type_checking or site.type_checking,
        lazy=fact.lazy or site.lazy,
        main=fact.main or site.main,
    )


def _mutates_path(func: ast.expr) -> bool:
    """``__path__.insert(0, elsewhere)`` and the like: the package's submodules are looked
    for elsewhere."""
    return (
        isinstance(func, ast.Attribute)
        and func.attr in LIST_MUTATORS
        and isinstance(func.value, ast.Name)
        and func.value.id == "__path__"
    )


#: ``try`` statements (``try``/``except*`` from Python 3.11 on).
_TRY: tuple[type[ast.stmt], ...] = tuple({ast.Try, getattr(ast, "TryStar", ast.Try)})


def _children(node: ast.AST) -> list[ast.AST]:
    """The child nodes the walk follows (not the leaves: contexts and operators)."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            out.extend(c for c in value if isinstance(c, _AST) and not isinstance(c, _LEAVES))
        elif isinstance(value, _AST) and not isinstance(value, _LEAVES):
            out.append(value)
    return out


def _is_main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round): true only when the file runs as a
    script, never when it is imported."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    return is_main_guard(
        isinstance(test.ops[0], ast.Eq), _plain(test.left), _plain(test.comparators[0])
    )


def _dotted_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted_name(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def _value_kind(value: ast.expr | None) -> str:
    if isinstance(value, ast.Lambda):
        return "function"
    if value is not None and (dotted := _dotted_name(value)) is not None:
        return f"alias:{dotted}"
    return "value"


def _definitions(tree: ast.Module, visitor: _Visitor) -> dict[str, list[str]]:
    """What each module-level name is bound to (for ADR §15.1's value-types-only rule):
    ``function``, ``class``, ``value``, ``import:<module>.<name>`` (a from-import),
    ``module:<module>`` (an ``import``) or ``alias:<dotted name>`` (``f = other.g``, also
    ``f, n = g, 3``); ``"*"`` lists ``star:<module>`` for each star import. Bindings inside
    module-level ``if``/``try``/``with`` blocks count; every binding of a name is kept."""
    out: dict[str, list[str]] = {}
    work: list[ast.stmt] = list(tree.body)
    while work:
        stmt = work.pop()
        for name, binding in _statement_bindings(stmt, visitor):
            out.setdefault(name, []).append(binding)
        work.extend(_nested_statements(stmt))
    return out


def _statement_bindings(stmt: ast.stmt, visitor: _Visitor) -> list[tuple[str, str]]:
    """``(name, binding)`` of one module-level statement (see :func:`_definitions`)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [(stmt.name, "function")]
    if isinstance(stmt, ast.ClassDef):
        return [(stmt.name, "class")]
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return _assigned_bindings(stmt)
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return _imported_bindings(stmt, visitor)
    return []


def _assigned_bindings(stmt: ast.Assign | ast.AnnAssign) -> list[tuple[str, str]]:
    """``name = value`` (also element by element of equal-length tuples)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    out: list[tuple[str, str]] = []
    for target in targets:
        pairs: list[tuple[ast.expr, ast.expr | None]] = [(target, stmt.value)]
        if (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(stmt.value, (ast.Tuple, ast.List))
            and len(target.elts) == len(stmt.value.elts)
        ):
            pairs = list(zip(target.elts, stmt.value.elts, strict=True))
        out.extend((n.id, _value_kind(v)) for n, v in pairs if isinstance(n, ast.Name))
    return out


def _imported_bindings(
    stmt: ast.Import | ast.ImportFrom, visitor: _Visitor
) -> list[tuple[str, str]]:
    """``module:<module>`` per ``import``, ``import:<module>.<name>`` per from-import and
    ``star:<module>`` (under ``"*"``) per star import."""
    if isinstance(stmt, ast.Import):
        bound = (import_binding(a.name, a.asname) for a in stmt.names)
        return [(name, f"module:{target}") for name, target in bound]
    base = visitor.importer.absolute(stmt.level, stmt.module or "")
    if not base:
        return []
    out: list[tuple[str, str]] = []
    for a in stmt.names:
        if a.name == "*":
            out.append(("*", f"star:{base}"))
        else:
            name, target = from_import_binding(base, a.name, a.asname)
            out.append((name, f"import:{target}"))
    return out


def _nested_statements(stmt: ast.stmt) -> list[ast.stmt]:
    """The statements of a module-level ``if``/``with``/``for``/``while``/``try`` block."""
    if isinstance(stmt, (ast.If, ast.With, ast.AsyncWith, ast.For, ast.While)):
        return [*stmt.body, *getattr(stmt, "orelse", ())]
    if isinstance(stmt, _TRY):
        out: list[ast.stmt] = []
        for part in ("body", "orelse", "finalbody"):
            out.extend(getattr(stmt, part))
        for handler in getattr(stmt, "handlers", ()):
            out.extend(handler.body)
        return out
    return []


def extract_graph_facts(
    text: str,
    module: str | None,
    is_package: bool,
    feature_version: tuple[int, int] | None = None,
) -> FileFacts:
    """Imports, dynamic imports and import-resolved references of ``text``.

    ``feature_version`` is the project's Python (``target_version``) when it is not newer than
    the running interpreter: syntax that Python rejects is ST001. A syntax error (or nesting
    too deep for the parser) becomes an ST001 error fact.
    """
    suppressions = scan_suppressions(text)
    try:
        # the compiler's own checks too ('return' outside function, duplicate arguments, a
        # misplaced __future__ import): such a file cannot be imported either
        tree = parse_and_compile(text, feature_version)
    except SyntaxError as exc:
        return FileFacts(
            error=(
                "ST001",
                exc.lineno or 1,
                max(1, exc.offset or 1),
                f"not valid Python: {exc.msg}",
            ),
            suppressions=suppressions,
        )
    except (RecursionError, MemoryError, ValueError) as exc:
        return FileFacts(
            error=("ST001", 1, 1, f"cannot parse: {type(exc).__name__} (nesting too deep)"),
            suppressions=suppressions,
        )
    visitor = _Visitor(text, module or "", is_package)
    try:
        visitor.run(tree)
    except RecursionError:
        return FileFacts(
            error=("ST001", 1, 1, "cannot analyse: nesting too deep"), suppressions=suppressions
        )
    extra: dict[str, Any] = {"defs": _definitions(tree, visitor)}
    if visitor.all_uses:
        # literal: the names it lists; otherwise None (a star import takes every submodule)
        extra["all"] = (
            sorted(set(visitor.all_names)) if visitor.all_uses == visitor.all_literal else None
        )
    return FileFacts(
        imports=tuple(visitor.imports),
        refs=tuple(dict.fromkeys(visitor.refs)),
        dynamics=tuple(visitor.dynamics),
        suppressions=suppressions,
        extra=extra,
    )
