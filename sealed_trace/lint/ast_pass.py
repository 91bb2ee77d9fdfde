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
from typing import Any

from sealed_trace.lint.facts import (
    IMPORT_FUNCS,
    PATH_LOADERS,
    PLUGIN_FUNCS,
    DynamicFact,
    FileFacts,
    ImportFact,
    RefFact,
    dynamic_import_target,
    relative_module,
)
from sealed_trace.lint.literals import Literals
from sealed_trace.lint.screen import type_checking_spoofed
from sealed_trace.lint.suppressions import scan_suppressions

__all__ = ["extract_graph_facts"]

#: Import functions of this pass: the shared ones plus the resolvers that import their
#: argument's parents (``find_spec``) or the whole dotted path (``resolve_name``).
_IMPORT_FUNCS = IMPORT_FUNCS | {"pkgutil.resolve_name", "importlib.util.find_spec"}
_PLUGIN_FUNCS = PLUGIN_FUNCS
_ALL_FUNCS = _IMPORT_FUNCS | _PLUGIN_FUNCS | PATH_LOADERS
#: ``__import__(name, globals, locals, fromlist, level)``, under either name.
_DUNDER_IMPORTS = frozenset({"builtins.__import__", "importlib.__import__"})
#: Import functions whose use as a value (not a call) hides what they import, in the order
#: findings name them.
_ESCAPING_FUNCS = tuple(sorted(_IMPORT_FUNCS | PATH_LOADERS))
#: Module globals that relative imports resolve against, and a package's ``__path__``, where
#: its submodules are looked for.
_RELATIVE_BASES = frozenset({"__package__", "__spec__", "__name__", "__path__"})
#: Methods that change a list in place (``__path__.insert(0, elsewhere)``).
_LIST_MUTATORS = frozenset(
    {
        "insert",
        "append",
        "extend",
        "__iadd__",
        "__setitem__",
        "remove",
        "clear",
        "pop",
        "reverse",
        "sort",
    }
)
#: ``getattr(anything, "import_module")`` and ``x["__import__"]`` are taken for the import
#: function of that name whatever ``anything`` is (``getattr(getattr, "__self__")`` is the
#: builtins module): over-approximating, the safe direction.
_FUNC_BY_NAME = {
    "__import__": "builtins.__import__",
    "import_module": "importlib.import_module",
    "run_module": "runpy.run_module",
    "resolve_name": "pkgutil.resolve_name",
    "find_spec": "importlib.util.find_spec",
}
#: Modules whose attributes, fetched under a computed name, may be an import function.
_IMPORT_ROOTS = frozenset(
    {
        "builtins",
        "importlib",
        "importlib.util",
        "importlib.machinery",
        "importlib.metadata",
        "pkgutil",
        "runpy",
        "imp",
        "zipimport",
        "pydoc",
        "importlib.resources",
        "importlib._bootstrap",
        "unittest.mock",
        "pickle",
        "marshal",
    }
)
#: Callables that import a module named by a string argument although they are not import
#: functions: ``name -> (position, keywords)`` of that argument. A literal is an import of the
#: longest known module it names (``patch("pkg.mod.attr")`` imports ``pkg.mod``); anything else
#: that is not a module object or the module's own ``__name__``/``__package__`` is ST301.
_STRING_IMPORTS: dict[str, tuple[int, tuple[str, ...]]] = {
    "pydoc.locate": (0, ("path",)),
    "pkgutil.get_data": (0, ("package",)),
    "importlib._bootstrap._gcd_import": (0, ("name",)),
    "importlib._bootstrap._find_and_load": (0, ("name",)),
    **{
        f"{owner}.{func}": (0, ("anchor", "package"))
        for owner in ("importlib.resources", "importlib_resources")
        for func in (
            "files",
            "read_text",
            "read_binary",
            "open_text",
            "open_binary",
            "path",
            "contents",
            "is_resource",
        )
    },
    **{
        owner + suffix: (0, ("target", "in_dict"))
        for owner in ("unittest.mock.patch", "mock.patch")
        for suffix in ("", ".dict", ".multiple")
    },
    "unittest.main": (0, ("module",)),
    "unittest.TestProgram": (0, ("module",)),
    "xml.sax.make_parser": (0, ("parser_list",)),
}
#: Of :data:`_STRING_IMPORTS`, the callables whose argument is a list of module names.
_STRING_LIST_IMPORTS = frozenset({"xml.sax.make_parser"})
#: Method names that import their string argument whatever object they are called on
#: (``unittest.TestLoader().loadTestsFromName("pkg.mod")``); the ``...Names`` ones take a list.
_STRING_IMPORT_METHODS = {
    "loadTestsFromName": (0, ("name",)),
    "loadTestsFromNames": (0, ("names",)),
    "_gcd_import": (0, ("name",)),
}
#: Callables that may import any module named inside their data (``pickle.loads`` imports the
#: module of every global it restores): ST301 wherever they occur.
_HIDDEN_IMPORTS = frozenset(
    {
        *(
            f"{owner}.{func}"
            for owner in ("pickle", "_pickle", "marshal", "cPickle", "dill", "cloudpickle")
            for func in ("load", "loads", "Unpickler")
        ),
        # logging configuration imports the classes and factories its data names ("class", "()")
        "logging.config.dictConfig",
        "logging.config.fileConfig",
        "logging.config.listen",
        # an entry point built by hand loads whatever its value names
        "importlib.metadata.EntryPoint",
        "importlib_metadata.EntryPoint",
    }
)
#: Callables that make a function fetching an attribute named by a string: given an import
#: function's name, what they make may be that function, whatever object it is applied to.
_ATTRIBUTE_MAKERS = frozenset({"operator.attrgetter", "operator.methodcaller"})
_TYPING = ("typing", "typing_extensions")
#: Components of the longest qualified name an alias is bound to: deeper than any module path
#: and attribute the rules judge (a name bound through its own attribute in a loop would
#: otherwise grow for ever).
_MAX_PARTS = 24
_BUILTINS = frozenset({"__import__", "getattr", "vars"})
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
        self.module = module
        self.is_package = is_package
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

    # -- helpers -------------------------------------------------------------------------------
    def pos(self, node: ast.AST) -> tuple[int, int]:
        line = getattr(node, "lineno", 1)
        offset = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if not text.isascii():
            offset = len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))
        return line, offset + 1

    @property
    def package(self) -> str:
        """The package relative imports of this module resolve against."""
        return self.module if self.is_package else self.module.rpartition(".")[0]

    def absolute(self, level: int, name: str) -> str:
        """The absolute name of ``from <level dots><name> import ...`` here."""
        return relative_module(self.package, level, name) if level else name

    def resolve(self, node: ast.expr, depth: int = 0) -> set[str]:
        if depth > 50:
            return set()
        if isinstance(node, ast.Name):
            bound = self.bindings.get(node.id)
            if bound:
                return set(bound)
            if node.id == "__builtins__":
                return {"builtins"}
            return {f"builtins.{node.id}"} if node.id in _BUILTINS else set()
        if isinstance(node, ast.Attribute):
            if node.attr == "__dict__":
                return self.resolve(node.value, depth + 1)
            return {f"{b}.{node.attr}" for b in self.resolve(node.value, depth + 1)}
        if isinstance(node, ast.Subscript):  # __builtins__["__import__"], vars(m)["name"]
            return self._member(node.value, _literal(node.slice), depth)
        if isinstance(node, ast.Call):
            return self._call_result(node, depth)
        return set()

    def _member(self, owner: ast.expr, text: str | None, depth: int) -> set[str]:
        """``owner[text]`` or ``getattr(owner, text)``: a member of what ``owner`` is, and the
        import function of that name whatever ``owner`` is (over-approximating)."""
        if text is None:
            return set()
        out = {f"{b}.{text}" for b in self.resolve(owner, depth + 1)}
        if text in _FUNC_BY_NAME:
            out.add(_FUNC_BY_NAME[text])
        return out

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
        self._bind_aliases()
        self._references(refs, {id(call.func) for call, _, _ in calls})
        dynamic = _DynamicImports(self)
        for call, tc, where in calls:
            self.where = where
            dynamic.call(call, tc)
        self.where = ""

    def _walk(
        self, tree: ast.Module, guard: _TypeChecking
    ) -> tuple[list[tuple[ast.expr, bool]], list[tuple[ast.Call, bool, str]]]:
        """Record imports and assignments; return the references (with whether they are
        under ``TYPE_CHECKING``) and the calls (and where they run), judged once every
        import is bound."""
        refs: list[tuple[ast.expr, bool]] = []
        calls: list[tuple[ast.Call, bool, str]] = []
        # (node, under TYPE_CHECKING, where: "" at module level, "function" inside a function
        # body, "main" under ``if __name__ == "__main__":``)
        stack: list[_Item] = [(tree, False, "")]
        while stack:
            node, tc, where = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                self._function(node, tc, where, stack)
            elif isinstance(node, ast.If):
                inside = tc or guard.test(node.test)
                body_where = "main" if not where and _is_main_guard(node.test) else where
                stack.extend((child, tc, where) for child in node.orelse)
                stack.extend((child, inside, body_where) for child in node.body)
                stack.append((node.test, tc, where))
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
        self._defaults(node.args)
        body = node.body if isinstance(node.body, list) else [node.body]
        stack.extend((child, tc, "function") for child in body)
        outer: list[ast.expr | None] = [*node.args.defaults, *node.args.kw_defaults]
        if not isinstance(node, ast.Lambda):
            outer += [*node.decorator_list, node.returns]
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
        refs: list[tuple[ast.expr, bool]],
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
            refs.append((node, tc))

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
            if any(kw.arg == "__all__" for kw in node.keywords):
                self.all_uses += 1  # ``globals().update(__all__=...)``

    def _references(self, refs: list[tuple[ast.expr, bool]], called: set[int]) -> None:
        """Resolve each reference through the imports and aliases of the file."""
        tc_only = self.tc_bound - self.rt_bound
        for expr, tc in refs:
            root = expr
            while isinstance(root, ast.Attribute):
                root = root.value
            # a name imported only under TYPE_CHECKING is only used in annotations
            tc_ref = tc or (isinstance(root, ast.Name) and root.id in tc_only)
            resolved = self.resolve(expr)
            line, col = self.pos(expr) if resolved else (0, 0)
            for q in sorted(resolved):
                self.refs.append(RefFact(line, col, q, False, "", tc_ref))
            escaped = self._escaped_import_function(expr, resolved, called)
            if escaped is not None:
                self.dynamics.append(DynamicFact(line, col, "escaped-import", escaped))

    def _escaped_import_function(
        self, expr: ast.expr, resolved: set[str], called: set[int]
    ) -> str | None:
        """An import function used as a value (``map(importlib.import_module, names)``,
        ``partial(__import__, ...)``, ``import_module.__call__(...)``): what it imports is
        out of sight. A direct call, or an alias the walk follows, is not such a use."""
        direct = id(expr) in called or id(expr) in self.alias_values
        for q in sorted(resolved):
            for func in _ESCAPING_FUNCS:
                if (q == func and not direct) or q.startswith(func + "."):
                    return func
        return None

    def _assignment(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        for target in targets:
            if isinstance(target, ast.Name) and target.id in _RELATIVE_BASES:
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
                self._alias(target, value)

    def _all_assigned(self, value: ast.expr) -> None:
        """``__all__ = [...]``: the names of a literal list or tuple."""
        items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else None
        names = [_literal(e) for e in items] if items is not None else [None]
        if all(n is not None for n in names):
            self.all_literal += 1  # the target itself, counted as a use by the walk
            self.all_names.extend(n for n in names if n is not None)

    def _alias(self, target: ast.expr, value: ast.expr) -> None:
        """``name = value`` (also element by element of equal-length tuples): an alias the
        walk follows."""
        if isinstance(target, ast.Name):
            self.aliases.append((target.id, value))
            self.alias_values.add(id(value))
        elif (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)
        ):
            for t, v in zip(target.elts, value.elts, strict=True):
                if isinstance(t, ast.Name):
                    self.aliases.append((t.id, v))
                    self.alias_values.add(id(v))

    def _defaults(self, args: ast.arguments) -> None:
        positional = [*args.posonlyargs, *args.args]
        with_default = positional[len(positional) - len(args.defaults) :]
        for arg, default in zip(with_default, args.defaults, strict=True):
            self.aliases.append((arg.arg, default))
            self.alias_values.add(id(default))
        for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            if kw_default is not None:
                self.aliases.append((arg.arg, kw_default))
                self.alias_values.add(id(kw_default))

    def _bind_aliases(self) -> None:
        """Bind each alias to what its value resolves to, propagating along chains of aliases
        (a worklist: each binding only grows, and a name bound through its own attribute,
        ``node = node.parent`` in a loop, grows only up to :data:`_MAX_PARTS` components, so
        this ends)."""
        dependents: dict[str, list[tuple[str, ast.expr]]] = {}
        work: list[tuple[str, ast.expr]] = []
        for name, value in self.aliases:
            root: ast.expr = value
            while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
                root = root.func if isinstance(root, ast.Call) else root.value
            if isinstance(root, ast.Name):
                dependents.setdefault(root.id, []).append((name, value))
                work.append((name, value))
        # getattr(x, ...) / vars(x): the value depends on the first argument's root too
        for name, value in self.aliases:
            if isinstance(value, ast.Call):
                obj = _arg(value, 0, "o")
                while isinstance(obj, (ast.Attribute, ast.Subscript, ast.Call)):
                    obj = obj.func if isinstance(obj, ast.Call) else obj.value
                if isinstance(obj, ast.Name):
                    dependents.setdefault(obj.id, []).append((name, value))
        while work:
            name, value = work.pop()
            resolved = {q for q in self.resolve(value) if q.count(".") < _MAX_PARTS}
            bound = self.bindings.setdefault(name, set())
            if not resolved <= bound:
                bound |= resolved
                self.rt_bound.add(name)
                work.extend(dependents.get(name, ()))

    def _import(self, node: ast.Import, tc: bool, where: str) -> None:
        for alias in node.names:
            if alias.asname:
                self.bindings.setdefault(alias.asname, set()).add(alias.name)
                (self.tc_bound if tc else self.rt_bound).add(alias.asname)
            else:
                root = alias.name.partition(".")[0]
                self.bindings.setdefault(root, set()).add(root)
                (self.tc_bound if tc else self.rt_bound).add(root)
            line, col = self.pos(alias)
            self.imports.append(
                ImportFact(
                    line,
                    col,
                    alias.name,
                    None,
                    "import",
                    tc,
                    f"import {alias.name}",
                    where == "function",
                    node.lineno,
                    where == "main",
                )
            )

    def _import_from(self, node: ast.ImportFrom, tc: bool, where: str) -> None:
        module = self.absolute(node.level, node.module or "")
        spelled = "." * node.level + (node.module or "")
        for alias in node.names:
            if (alias.asname or alias.name) == "__all__":
                self.all_uses += 1
            if module and alias.name == "*":  # ``from importlib import *`` binds import_module
                for func in _ALL_FUNCS:
                    owner, _, last = func.rpartition(".")
                    if owner == module:
                        self.bindings.setdefault(last, set()).add(func)
                        (self.tc_bound if tc else self.rt_bound).add(last)
            if module and alias.name != "*":
                name = alias.asname or alias.name
                self.bindings.setdefault(name, set()).add(f"{module}.{alias.name}")
                (self.tc_bound if tc else self.rt_bound).add(name)
            line, col = self.pos(alias if alias.name != "*" else node)
            self.imports.append(
                ImportFact(
                    line,
                    col,
                    module,
                    alias.name,
                    "from",
                    tc,
                    f"from {spelled} import {alias.name}",
                    where == "function",
                    node.lineno,
                    where == "main",
                )
            )


class _DynamicImports:
    """The dynamic-import rules of this pass, judged on each call once the walk has bound
    every import and alias: import functions with literal (or literal-resolvable) names,
    string-importing calls, computed names (ST301), path loaders and plugin discovery."""

    def __init__(self, visitor: _Visitor) -> None:
        self.visitor = visitor
        self._literals: Literals | None = None

    def call(self, node: ast.Call, tc: bool) -> None:
        """Judge one call (see the class docstring)."""
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in _LIST_MUTATORS
            and isinstance(func.value, ast.Name)
            and func.value.id == "__path__"
        ):
            line, col = self.visitor.pos(node)
            self.visitor.dynamics.append(DynamicFact(line, col, "relative-base", "__path__"))
        callee = self.visitor.resolve(node.func)
        computed = self._computed_root(node, callee)
        if computed is not None:
            line, col = self.visitor.pos(node)
            self.visitor.dynamics.append(DynamicFact(line, col, "computed-import", computed))
        self._string_import(node, callee, tc)
        self._attribute_maker(node, callee)
        if not callee & _ALL_FUNCS:
            return
        line, col = self.visitor.pos(node)
        if callee & _IMPORT_FUNCS:
            self._dynamic_import(node, sorted(callee & _IMPORT_FUNCS)[0], line, col, tc)
        if callee & PATH_LOADERS:
            self.visitor.dynamics.append(
                DynamicFact(line, col, "path-import", sorted(callee & PATH_LOADERS)[0])
            )
        if callee & _PLUGIN_FUNCS:
            self.visitor.dynamics.append(
                DynamicFact(line, col, "plugin-discovery", sorted(callee & _PLUGIN_FUNCS)[0])
            )

    def _string_import(self, node: ast.Call, callee: set[str], tc: bool) -> None:
        """Calls that import a module named by a string (:data:`_STRING_IMPORTS`) and calls
        that may import modules named in their data (:data:`_HIDDEN_IMPORTS`)."""
        line, col = self.visitor.pos(node)
        hidden = callee & _HIDDEN_IMPORTS
        if hidden:
            self.visitor.dynamics.append(DynamicFact(line, col, "hidden-import", sorted(hidden)[0]))
        matched = sorted(callee & _STRING_IMPORTS.keys())
        spec: tuple[int, tuple[str, ...]] | None = None
        func = ""
        if matched:
            func = matched[0]
            spec = _STRING_IMPORTS[func]
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_IMPORT_METHODS:
            func = node.func.attr
            spec = _STRING_IMPORT_METHODS[func]
        if spec is None:
            return
        index, keywords = spec
        arg: ast.expr | None = None
        for keyword in keywords:
            arg = _arg(node, index, keyword)
            if arg is not None:
                break
        if arg is None:
            return  # ``files()``: the calling module itself
        listed = func.endswith("Names") or func in _STRING_LIST_IMPORTS
        items = arg.elts if (listed and isinstance(arg, (ast.List, ast.Tuple))) else [arg]
        for item in items:
            texts = self.literals(item, node)
            if texts is not None:
                self.visitor.imports.extend(
                    self._dynamic_fact(line, col, text.strip("."), None, tc, f"{func}({text!r})")
                    for text in sorted(texts)
                    if text.strip(".")
                )
                continue
            if isinstance(item, ast.Name) and item.id in ("__name__", "__package__"):
                continue  # the module itself or its package: already imported
            if isinstance(item, (ast.Name, ast.Attribute)) and self.visitor.resolve(item):
                continue  # a module object: its reference is an edge of its own
            self.visitor.dynamics.append(DynamicFact(line, col, "computed-import", func))
            return

    def _attribute_maker(self, node: ast.Call, callee: set[str]) -> None:
        """``operator.attrgetter("__import__")(builtins_module)(...)``: an attribute getter or
        method caller for an import function's name may fetch it from a module the lint cannot
        see (``len.__self__`` is ``builtins``). A computed name is treated as ``getattr`` with
        a computed name on an unknown object is (see docs/lint.md, Limits)."""
        makers = callee & _ATTRIBUTE_MAKERS
        if not makers:
            return
        maker = sorted(makers)[0]
        for arg in node.args[:1] if maker == "operator.methodcaller" else node.args:
            text = _literal(arg)
            if text is not None and any(name in _FUNC_BY_NAME for name in text.split(".")):
                line, col = self.visitor.pos(node)
                self.visitor.dynamics.append(DynamicFact(line, col, "computed-import", maker))
                return

    def _computed_root(self, node: ast.Call, callee: set[str]) -> str | None:
        """``getattr(importlib, name)`` / ``__builtins__[name](...)``: an attribute of an
        import-capable module fetched under a computed name may be an import function."""
        if "builtins.getattr" in callee:
            obj = _arg(node, 0, "o")
            attr = _arg(node, 1, "name")
            if obj is not None and attr is not None and _literal(attr) is None:
                roots = self.visitor.resolve(obj) & _IMPORT_ROOTS
                if roots:
                    return f"getattr({sorted(roots)[0]}, ...)"
        func = node.func
        if isinstance(func, ast.Subscript) and _literal(func.slice) is None:
            roots = self.visitor.resolve(func.value) & _IMPORT_ROOTS
            if roots:
                return f"{sorted(roots)[0]}[...]"
        return None

    @staticmethod
    def _import_level(node: ast.Call, func: str) -> int | None:
        """The ``level`` of ``__import__(name, globals, locals, fromlist, level)`` (0 for the
        other import functions), None when it is computed."""
        if func not in _DUNDER_IMPORTS:
            return 0
        level = _arg(node, 4, "level")
        if level is None:
            return 0
        if isinstance(level, ast.Constant) and type(level.value) is int and level.value >= 0:
            if level.value == 0:
                return 0
            # A relative import resolves against the package its globals name: only the
            # module's own globals (``globals()``, or none given) name this module's package.
            base = _arg(node, 1, "globals")
            own = base is None or (
                isinstance(base, ast.Call)
                and isinstance(base.func, ast.Name)
                and base.func.id == "globals"
                and not base.args
                and not base.keywords
            )
            return level.value if own else None
        return None

    def literals(self, expr: ast.expr | None, at: ast.AST) -> frozenset[str] | None:
        """Every string ``expr`` can be at ``at`` (see :mod:`.literals`); None when one is
        not a literal."""
        if expr is None:
            return None
        text = _literal(expr)
        if text is not None:
            return frozenset({text})
        if self._literals is None:
            if self.visitor.tree is None:
                return None
            self._literals = Literals(self.visitor.tree)
        return self._literals.values(expr, at)

    def _dynamic_import(self, node: ast.Call, func: str, line: int, col: int, tc: bool) -> None:
        arg = _arg(node, 0, "mod_name" if func == "runpy.run_module" else "name")
        texts = self.literals(arg, node)
        if texts is None:
            self.visitor.dynamics.append(DynamicFact(line, col, "computed-import", func))
            return
        for text in sorted(texts):
            self._literal_import(node, func, text, line, col, tc)

    def _literal_import(
        self, node: ast.Call, func: str, text: str, line: int, col: int, tc: bool
    ) -> None:
        """One module name an import function's call takes (a literal, or one of the
        literals its computed argument can be)."""
        if func == "pkgutil.resolve_name":
            text = text.partition(":")[0]  # "pkg.mod:attr" imports pkg.mod
        relative = self._import_level(node, func)
        if relative is None or not (text.strip(".") or relative):
            self.visitor.dynamics.append(DynamicFact(line, col, "computed-import", func))
            return
        own = self.visitor.package
        package_arg = _arg(node, 1, "package")
        package = _literal(package_arg)
        if isinstance(package_arg, ast.Name) and (
            package_arg.id == "__package__"
            or (package_arg.id == "__name__" and self.visitor.is_package)
        ):  # a package's ``__name__`` is its ``__package__``
            package = own
        module = dynamic_import_target(text, relative, package, own)
        if module is None:
            self.visitor.dynamics.append(DynamicFact(line, col, "computed-import", func))
            return
        self.visitor.imports.append(
            self._dynamic_fact(line, col, module, None, tc, f"{func}({text!r})")
        )
        fromlist = _arg(node, 3, "fromlist") if func in _DUNDER_IMPORTS else None
        if isinstance(fromlist, (ast.List, ast.Tuple)):
            for element in fromlist.elts:
                item = _literal(element)
                if item:
                    self.visitor.imports.append(
                        self._dynamic_fact(
                            line, col, module, item, tc, f"{func}({text!r}, fromlist=[{item!r}])"
                        )
                    )

    def _dynamic_fact(
        self, line: int, col: int, module: str, name: str | None, tc: bool, text: str
    ) -> ImportFact:
        """A literal dynamic import of the call being judged (the walk says where it
        runs)."""
        where = self.visitor.where
        return ImportFact(
            line, col, module, name, "dynamic", tc, text, where == "function", line, where == "main"
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
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if _literal(s) == "__main__"]
    return len(names) == 1 and len(texts) == 1


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
        return [
            (a.asname, f"module:{a.name}") if a.asname else (root, f"module:{root}")
            for a in stmt.names
            for root in (a.name.partition(".")[0],)
        ]
    base = visitor.absolute(stmt.level, stmt.module or "")
    if not base:
        return []
    return [
        ("*", f"star:{base}") if a.name == "*" else (a.asname or a.name, f"import:{base}.{a.name}")
        for a in stmt.names
    ]


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
        tree = ast.parse(text, feature_version=feature_version)
        # the compiler's own checks too ('return' outside function, duplicate arguments, a
        # misplaced __future__ import): such a file cannot be imported either
        compile(tree, "<module>", "exec", dont_inherit=True)
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
