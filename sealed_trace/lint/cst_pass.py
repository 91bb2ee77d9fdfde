"""The libcst pass: one parse and one batched visit per file, producing :class:`FileFacts`.

This is the only module of the project that imports libcst (with :mod:`sealed_trace.lint.rules`
plugins free to do the same). Names are resolved through libcst's ``ScopeProvider`` (the
qualified names its scopes give), never from source text, so aliases resolve and strings,
comments and docstrings are never mistaken for code. The scanned code is never imported or executed.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import io
import sys
import threading
import tokenize
import unicodedata
from collections.abc import Callable, Collection
from typing import Final

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    Assignment,
    BuiltinAssignment,
    ClassScope,
    GlobalScope,
    MetadataWrapper,
    PositionProvider,
    QualifiedName,
    QualifiedNameSource,
    Scope,
    ScopeProvider,
)

from sealed_trace.lint.facts import (
    IMPORT_FUNCS,
    PATH_LOADERS,
    PLUGIN_FUNCS,
    DynamicFact,
    FieldFact,
    FileFacts,
    ImportFact,
    RefFact,
    SuppressionFact,
    dynamic_import_target,
    relative_module,
)
from sealed_trace.lint.screen import type_checking_spoofed
from sealed_trace.lint.suppressions import scan_suppressions

__all__ = ["extract_facts"]

_IMPORT_FUNCS = IMPORT_FUNCS
_PLUGIN_FUNCS = PLUGIN_FUNCS
_TYPE_CHECKING = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})
_DATACLASS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
_ATTRS = frozenset(
    {
        "attr.s",
        "attr.attrs",
        "attr.define",
        "attr.frozen",
        "attr.mutable",
        "attr.dataclass",
        "attrs.define",
        "attrs.frozen",
        "attrs.mutable",
    }
)
_ATTRS_FIELD = frozenset({"attr.ib", "attr.attrib", "attr.field", "attrs.field"})
_BASES = {
    "typing.NamedTuple": "NamedTuple",
    "typing_extensions.NamedTuple": "NamedTuple",
    "typing.TypedDict": "TypedDict",
    "typing_extensions.TypedDict": "TypedDict",
    "pydantic.BaseModel": "pydantic model",
    "msgspec.Struct": "msgspec struct",
}
_CALL_RECORDS = {
    "typing.NamedTuple": "NamedTuple",
    "typing_extensions.NamedTuple": "NamedTuple",
    "collections.namedtuple": "namedtuple",
    "typing.TypedDict": "TypedDict",
    "typing_extensions.TypedDict": "TypedDict",
    "dataclasses.make_dataclass": "make_dataclass",
    "attr.make_class": "attrs make_class",
    "attrs.make_class": "attrs make_class",
}
_PROPERTY = frozenset({"builtins.property", "functools.cached_property"})
_RESOLVED = (QualifiedNameSource.IMPORT, QualifiedNameSource.BUILTIN)
#: Globals the interpreter gives every module; a load of one that the module never binds is
#: reported as ``builtins.<name>`` (``__builtins__["open"]``, ``__spec__.loader.get_data``).
_IMPLICIT_GLOBALS = frozenset({"__builtins__", "__file__", "__cached__", "__loader__", "__spec__"})
#: Names a module-scope or class-scope load can fall through to (builtins and implicit globals).
_BUILTIN_NAMES = frozenset(dir(builtins)) | _IMPLICIT_GLOBALS
#: Attributes that reach interpreter internals from any object (frames, code, globals).
_FRAME_ATTRIBUTES = frozenset(
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
_SETATTR = frozenset({"builtins.setattr", "builtins.object.__setattr__"})
#: String literals that name an escape from any object to globals, builtins, code, frames or
#: the import system: in the sealed module such a string is reported wherever it occurs
#: (``attrgetter("__globals__")``, ``map(getattr, [f], ["__globals__"])``, ``g["__builtins__"]``).
_ESCAPE_STRINGS = (
    frozenset(
        {
            "__globals__",
            "__builtins__",
            "__subclasses__",
            "__code__",
            "__closure__",
            "__dict__",
            "__getattribute__",
            "__loader__",
            "__spec__",
            "__self__",
            "__reduce__",
            "__reduce_ex__",
            "__file__",
            "__cached__",
            "__import__",
        }
    )
    | _FRAME_ATTRIBUTES
)
#: Callables that fetch attributes named by their string arguments.
_ATTR_FETCHERS = frozenset({"attrgetter", "methodcaller"})
#: Keyword arguments of the record call forms that are options, not fields.
_RECORD_OPTIONS = frozenset(
    {
        "typename",
        "fields",
        "field_names",
        "total",
        "rename",
        "defaults",
        "module",
        "bases",
        "namespace",
        "init",
        "repr",
        "eq",
        "order",
        "unsafe_hash",
        "frozen",
        "slots",
        "kw_only",
        "match_args",
        "weakref_slot",
        "cls_name",
        "attrs",
    }
)


#: Nodes whose children are statements (blocks and the clauses of compound statements).
_BLOCKS: Final = (
    cst.BaseSuite,
    cst.BaseCompoundStatement,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


def _escape_attribute(name: str) -> bool:
    """True for a dunder attribute or a frame/code attribute (reported on any object)."""
    return (len(name) > 4 and name.startswith("__") and name.endswith("__")) or (
        name in _FRAME_ATTRIBUTES
    )


def _declares_fields(body: cst.CSTNode) -> bool:
    """Whether a class body declares fields itself: an annotation, ``__slots__`` or
    ``__annotations__`` (also inside ``if``/``try`` blocks of the body)."""
    for child in body.children:
        if isinstance(child, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in child.body:
                if isinstance(small, cst.AnnAssign):
                    return True
                if isinstance(small, (cst.Assign, cst.AugAssign)):
                    targets = (
                        [t.target for t in small.targets]
                        if isinstance(small, cst.Assign)
                        else [small.target]
                    )
                    if any(
                        isinstance(t, cst.Name) and t.value in ("__slots__", "__annotations__")
                        for t in targets
                    ):
                        return True
        elif isinstance(child, (cst.FunctionDef, cst.ClassDef)):
            continue
        elif isinstance(child, _BLOCKS) and _declares_fields(child):
            return True
    return False


def _names_in_target(node: cst.BaseExpression) -> list[cst.Name]:
    """The plain names an assignment target binds (through tuples, lists and starred)."""
    if isinstance(node, cst.Name):
        return [node]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for e in node.elements for n in _names_in_target(e.value)]
    if isinstance(node, cst.StarredElement):
        return _names_in_target(node.value)
    return []


def _literal(node: cst.BaseExpression) -> str | None:
    """The value of a string literal without placeholders, else None."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString) and all(
        isinstance(p, cst.FormattedStringText) for p in node.parts
    ):
        return "".join(p.value for p in node.parts if isinstance(p, cst.FormattedStringText))
    return None


def _is_main_guard(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` (either way round): true only when the file runs as a
    script, never when it is imported."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = (test.left, target.comparator)
    names = [s for s in sides if isinstance(s, cst.Name) and s.value == "__name__"]
    texts = [s for s in sides if _literal(s) == "__main__"]
    return len(names) == 1 and len(texts) == 1


def _dotted(node: cst.BaseExpression) -> bool:
    """True for a pure ``a.b.c`` chain of names (no calls or subscripts inside)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _arg(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    if index < len(positional):
        return positional[index].value
    return None


class _StarImports(cst.CSTVisitor):
    """Module-level ``from m import *`` statements: ``(level, module)``."""

    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if isinstance(node.names, cst.ImportStar):
            name = get_full_name_for_node(node.module) if node.module is not None else ""
            self.found.append((len(node.relative), name or ""))
        return False


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
                text = _literal(a.value)
                if text is not None:
                    self.names.add(text)


class _ClassBinds(cst.CSTVisitor):
    """Names a class body binds other than by assignment: walrus targets, ``for`` targets,
    ``import ... as name``, ``with ... as name`` (not inside nested functions, classes,
    lambdas or comprehensions, which have scopes of their own)."""

    def __init__(self, root: cst.ClassDef) -> None:
        super().__init__()
        self.root = root
        self.names: list[cst.Name] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return node is self.root

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return False

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return False

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return False

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.names.extend(_names_in_target(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.names.extend(_names_in_target(node.target))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.names.extend(_names_in_target(node.asname.name))

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            if alias.asname is not None:
                self.names.extend(_names_in_target(alias.asname.name))
            elif isinstance(alias.name, cst.Name):
                self.names.append(alias.name)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if isinstance(node.names, cst.ImportStar):
            return False
        for alias in node.names:
            if alias.asname is not None:
                self.names.extend(_names_in_target(alias.asname.name))
            elif isinstance(alias.name, cst.Name):
                self.names.append(alias.name)
        return False


class _Sources(cst.CSTVisitor):
    """What loop targets iterate and what plain names are assigned (read before the main
    visit: a comprehension's element is visited before its ``for``)."""

    def __init__(self) -> None:
        super().__init__()
        self.loop_iters: dict[int, cst.BaseExpression] = {}
        self.assigned: dict[int, cst.BaseExpression] = {}

    def visit_For(self, node: cst.For) -> None:
        for name in _names_in_target(node.target):
            self.loop_iters[id(name)] = node.iter

    def visit_CompFor(self, node: cst.CompFor) -> None:
        for name in _names_in_target(node.target):
            self.loop_iters[id(name)] = node.iter

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.assigned[id(target.target)] = node.value

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self.assigned[id(node.target)] = node.value


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider, ScopeProvider)

    def __init__(self, module: str | None, is_package: bool) -> None:
        super().__init__()
        self.module = module or ""
        self.is_package = is_package
        self.imports: list[ImportFact] = []
        self.refs: list[RefFact] = []
        self.dynamics: list[DynamicFact] = []
        self.fields: list[FieldFact] = []
        self._inner: set[int] = set()
        self._callees: set[int] = set()
        self._tc_blocks: set[int] = set()
        self._tc_depth = 0
        self._aliases: dict[int, set[str]] = {}
        self._pending: list[tuple[int, int, bool, bool, frozenset[int], str]] = []
        self._classes: list[tuple[str, str]] = []
        self._tc_bound: set[str] = set()
        self._rt_bound: set[str] = set()
        self._import_refs: list[tuple[int, str]] = []
        self._rebound: set[str] = set()
        self._tc_tampered = False
        self._methods: dict[int, tuple[str, str]] = {}
        #: classes defined in the module (``R.score = 1`` after the class adds a field), and
        #: those that are enums (their members are constants, not fields)
        self._class_names: set[str] = set()
        #: string literals already reported as getattr's attribute name
        self._named_strings: set[int] = set()
        #: loop targets (``for``, comprehensions) -> what they iterate; plain assignment
        #: targets -> their value (for :meth:`_static_name`)
        self._loop_iters: dict[int, cst.BaseExpression] = {}
        self._assigned: dict[int, cst.BaseExpression] = {}
        self._enum_classes: set[str] = set()
        self._method_stack: list[tuple[str, str]] = []
        #: function bodies the walk is inside: imports there are lazy
        self._fn_depth = 0
        #: ``if __name__ == "__main__":`` bodies, and how many the walk is inside
        self._main_blocks: set[int] = set()
        self._main_depth = 0
        #: ``TYPE_CHECKING`` may be bound or written otherwise than imported (set by
        #: :func:`extract_facts` from the text): no block is type-checking-only
        self._tc_spoofed = False
        #: string literals that are call arguments or subscripts (they may name an attribute)
        self._lookup_strings: set[int] = set()
        #: modules star-imported at module level: an unbound name may come from any of them
        self._star_modules: list[str] = []

    # -- helpers ---------------------------------------------------------------------------
    def _pos(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self.get_metadata(PositionProvider, node).start
        return start.line, start.column + 1

    def _found(self, node: cst.CSTNode) -> Collection[QualifiedName]:
        """libcst's qualified names of ``node``, asked of its scope (what
        ``QualifiedNameProvider`` computes, without its pass over every node of the module)."""
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return ()
        return scope.get_qualified_names_for(node)

    def _qnames(self, node: cst.CSTNode) -> set[str]:
        found = self._found(node)
        return {self._absq(q.name) for q in found if q.source in _RESOLVED}

    def _absq(self, name: str) -> str:
        """An absolute qualified name: libcst names what a relative import binds relatively
        (``from . import random`` in package ``pkg`` is ``.random``, that is ``pkg.random``)."""
        if not name.startswith("."):
            return name
        level = len(name) - len(name.lstrip("."))
        return self._absolute(level, name[level:]) or name

    def _chain(self, node: cst.Name | cst.Attribute) -> set[str]:
        """Qualified names of a dotted chain. libcst names a chain on a builtin by the builtin
        alone (``object.__getattribute__`` is ``builtins.object``): extend it attribute by
        attribute."""
        found = self._found(node)
        if isinstance(node, cst.Attribute) and any(
            q.source is QualifiedNameSource.BUILTIN for q in found
        ):
            base = node.value
            if isinstance(base, (cst.Name, cst.Attribute)):
                return {f"{b}.{node.attr.value}" for b in self._chain(base)}
        return {self._absq(q.name) for q in found if q.source in _RESOLVED}

    def _resolve(self, node: cst.BaseExpression) -> set[str]:
        """Qualified names an expression refers to: imports, builtins, getattr, aliases."""
        if isinstance(node, (cst.Name, cst.Attribute)):
            names = self._chain(node) if _dotted(node) else set()
            if names:
                return names
            if isinstance(node, cst.Name):
                return self._alias_names(node) | self._fallback(node)
            base = self._resolve(node.value)
            return {f"{b}.{node.attr.value}" for b in base}
        if isinstance(node, cst.Call) and "builtins.getattr" in self._qnames(node.func):
            obj, attr = _arg(node, 0, "o"), _arg(node, 1, "name")
            if obj is not None and attr is not None:
                text = _literal(attr)
                if text is not None:
                    return {f"{b}.{text}" for b in self._resolve(obj)}
        return set()

    def _fallback(self, node: cst.Name) -> set[str]:
        """``builtins.<name>`` for a load that can still reach the builtin (or implicit module
        global) although the module binds the name: a module-scope binding that is conditional,
        undone, repeated or used before it runs, or a class-scope binding (a class body falls
        through to builtins). Also for an implicit global the module never binds
        (``__builtins__``, ``__file__``)."""
        name = node.value
        if name not in _BUILTIN_NAMES:
            return set()
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None or not any(access.node is node for access in scope.accesses[name]):
            return set()  # not a load (a def, class or target name)
        assignments = [a for a in scope[name] if isinstance(a, Assignment)]
        if not assignments:
            return {f"builtins.{name}"} if name in _IMPLICIT_GLOBALS else set()
        for a in assignments:
            if isinstance(a.scope, ClassScope) or (
                isinstance(a.scope, GlobalScope) and name in self._rebound
            ):
                return {f"builtins.{name}"}
        return set()

    def _from_star(self, node: cst.Name) -> list[str]:
        """``m.name`` for each star-imported module ``m`` when ``node`` loads a name that
        nothing in the module binds (``from os import *`` then ``getenv(...)``): the star
        import may bind it, shadowing a builtin of that name too."""
        if not self._star_modules:
            return []
        name = node.value
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None or not any(access.node is node for access in scope.accesses[name]):
            return []
        if any(isinstance(a, Assignment) for a in scope[name]):
            return []
        return [f"{module}.{name}" for module in self._star_modules]

    def _alias_names(self, node: cst.Name) -> set[str]:
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return set()
        out: set[str] = set()
        for assignment in scope[node.value]:
            if isinstance(assignment, Assignment):
                out |= self._aliases.get(id(assignment.node), set())
        return out

    def _assignment_ids(self, node: cst.Name) -> frozenset[int]:
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None:
            return frozenset()
        return frozenset(id(a.node) for a in scope[node.value] if isinstance(a, Assignment))

    def _package(self) -> str:
        if self.is_package:
            return self.module
        return self.module.rpartition(".")[0]

    def _absolute(self, level: int, name: str) -> str:
        return relative_module(self._package(), level, name) if level else name

    # -- module-scope bindings of builtin names --------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        stars = _StarImports()
        node.visit(stars)
        self._star_modules = sorted(
            {m for level, name in stars.found if (m := self._absolute(level, name))}
        )
        scope = self.get_metadata(ScopeProvider, node, None)
        if not isinstance(scope, GlobalScope):
            return
        unbinds = _Unbinds()
        node.visit(unbinds)
        sources = _Sources()
        node.visit(sources)
        self._loop_iters, self._assigned = sources.loop_iters, sources.assigned
        top: dict[int, cst.CSTNode] = {}
        for statement in node.body:
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                top[id(statement)] = statement
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        top[id(small)] = statement
                    elif isinstance(small, cst.Assign):
                        for target in small.targets:
                            for name in _names_in_target(target.target):
                                top[id(name)] = statement
                    elif isinstance(small, cst.AnnAssign) and small.value is not None:
                        for name in _names_in_target(small.target):
                            top[id(name)] = statement
        by_name: dict[str, list[Assignment]] = {}
        for a in scope.assignments:
            if not isinstance(a, Assignment):
                continue
            if a.name in _BUILTIN_NAMES:
                by_name.setdefault(a.name, []).append(a)
            if a.name == "TYPE_CHECKING" and not isinstance(a.node, (cst.Import, cst.ImportFrom)):
                self._tamper(a.node)
        scopes = (
            list(
                {
                    id(v): v for v in self.metadata[ScopeProvider].values() if isinstance(v, Scope)
                }.values()
            )
            if by_name
            else []
        )
        for builtin, assignments in sorted(by_name.items()):
            if self._safe_rebinding(builtin, assignments, top, unbinds.names, scopes):
                continue
            self._rebound.add(builtin)
            for a in assignments:
                bound: cst.CSTNode = a.node
                if isinstance(bound, (cst.FunctionDef, cst.ClassDef)):
                    bound = bound.name
                line, col = self._pos(bound)
                self.dynamics.append(DynamicFact(line, col, "rebind", f"builtins.{builtin}"))

    def _safe_rebinding(
        self,
        name: str,
        assignments: list[Assignment],
        top: dict[int, cst.CSTNode],
        unbound: set[str],
        scopes: list[Scope],
    ) -> bool:
        """A module-scope binding of a builtin name hides the builtin everywhere only when it
        is the name's single binding, an unconditional top-level statement, never undone
        (``del``, ``global``, ``delattr``), and every load of the name comes after it."""
        if len(assignments) != 1 or name in unbound:
            return False
        statement = top.get(id(assignments[0].node))
        if statement is None:
            return False
        end = self.get_metadata(PositionProvider, statement).end
        binding = assignments[0]
        for scope in scopes:
            for access in scope.accesses[name]:
                if not any(
                    r is binding or isinstance(r, BuiltinAssignment) for r in access.referents
                ):
                    continue  # a load of a nearer binding (a parameter, a local)
                start = self.get_metadata(PositionProvider, access.node).start
                if (start.line, start.column) <= (end.line, end.column):
                    return False
        return True

    def _tamper(self, node: cst.CSTNode) -> None:
        """Record a write to ``TYPE_CHECKING``: no block of this file is type-checking-only."""
        self._tc_tampered = True
        line, col = self._pos(node)
        self.dynamics.append(DynamicFact(line, col, "type-checking-write", "typing.TYPE_CHECKING"))

    # -- type checking blocks ----------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._tc_blocks:
            self._tc_depth += 1
        if id(node) in self._main_blocks:
            self._main_depth += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if id(original_node) in self._tc_blocks:
            self._tc_depth -= 1
        if id(original_node) in self._main_blocks:
            self._main_depth -= 1

    def _main(self) -> bool:
        """Whether the walk is under ``if __name__ == "__main__":`` (outside any function)."""
        return self._main_depth > 0 and self._fn_depth == 0

    def visit_If(self, node: cst.If) -> None:
        if _is_main_guard(node.test):
            self._main_blocks.add(id(node.body))
        if self._tc_spoofed or not self._qnames(node.test) & _TYPE_CHECKING:
            return
        if isinstance(node.test, cst.Name):
            scope = self.get_metadata(ScopeProvider, node.test, None)
            bindings = scope[node.test.value] if scope is not None else set()
            if any(
                not isinstance(a, Assignment)
                or not isinstance(a.node, (cst.Import, cst.ImportFrom))
                for a in bindings
            ):
                return  # a locally assigned name is not the type checker's constant
        self._tc_blocks.add(id(node.body))

    # -- imports -------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        statement = self._pos(node)[0]
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            bound = alias.asname.name if alias.asname is not None else alias.name
            self._bound((get_full_name_for_node(bound) or name).partition(".")[0])
            line, col = self._pos(alias)
            self.imports.append(
                ImportFact(
                    line,
                    col,
                    name,
                    None,
                    "import",
                    self._tc_depth > 0,
                    f"import {name}",
                    self._fn_depth > 0,
                    statement,
                    self._main(),
                )
            )
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        level = len(node.relative)
        name = get_full_name_for_node(node.module) if node.module is not None else ""
        module = self._absolute(level, name or "")
        spelled = "." * level + (name or "")
        tc = self._tc_depth > 0
        statement = self._pos(node)[0]
        if isinstance(node.names, cst.ImportStar):
            line, col = self._pos(node)
            self.imports.append(
                ImportFact(
                    line,
                    col,
                    module,
                    "*",
                    "from",
                    tc,
                    f"from {spelled} import *",
                    self._fn_depth > 0,
                    statement,
                    self._main(),
                )
            )
            return False
        for alias in node.names:
            imported = get_full_name_for_node(alias.name) or ""
            bound = alias.asname.name if alias.asname is not None else alias.name
            self._bound(get_full_name_for_node(bound) or imported)
            line, col = self._pos(alias)
            self.imports.append(
                ImportFact(
                    line,
                    col,
                    module,
                    imported,
                    "from",
                    tc,
                    f"from {spelled} import {imported}",
                    self._fn_depth > 0,
                    statement,
                    self._main(),
                )
            )
        return False

    def _bound(self, name: str) -> None:
        """Record that ``name`` is bound by an import inside (or outside) ``TYPE_CHECKING``."""
        (self._tc_bound if self._tc_depth > 0 else self._rt_bound).add(name)

    # -- references ------------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._inner.add(id(node.value))
        inner = id(node) in self._inner
        if not inner:
            self._reference(node)
        attr = node.attr.value
        if _escape_attribute(attr):
            names = self._resolve(node)
            if inner or not names:
                line, col = self._pos(node)
                for q in sorted(names or {f"<object>.{attr}"}):
                    self.refs.append(
                        RefFact(line, col, q, id(node) in self._callees, "", self._tc_depth > 0)
                    )

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._inner:
            self._reference(node)

    def _reference(self, node: cst.Name | cst.Attribute) -> None:
        call = id(node) in self._callees
        names = self._chain(node) if _dotted(node) else set()
        line, col = self._pos(node)
        tc = self._tc_depth > 0
        if isinstance(node, cst.Name) and not call and "builtins.getattr" in names:
            self.dynamics.append(DynamicFact(line, col, "getattr-value", "builtins.getattr"))
        if names:
            root: cst.BaseExpression = node
            while isinstance(root, cst.Attribute):
                root = root.value
            for q in sorted(names):
                if isinstance(root, cst.Name):
                    self._import_refs.append((len(self.refs), root.value))
                self.refs.append(RefFact(line, col, q, call, "", tc))
        elif isinstance(node, cst.Name):
            for q in sorted(self._fallback(node)):
                via = "" if q[9:] in _IMPLICIT_GLOBALS else "rebound"
                self.refs.append(RefFact(line, col, q, call, via, tc))
            for q in self._from_star(node):
                self.refs.append(RefFact(line, col, q, call, "star import", tc))
            ids = self._assignment_ids(node)
            if ids:
                self._pending.append((line, col, call, tc, ids, node.value))
        else:
            for q in sorted(self._resolve(node)):
                self.refs.append(RefFact(line, col, q, call, "getattr", tc))

    def _static_name(self, attr: cst.BaseExpression) -> bool:
        """Whether a computed attribute name is a loop variable over names fixed in the
        module: a module constant holding a literal tuple or list of strings (or of tuples
        that start with one; escape names among them are reported as strings), or a record's
        ``__dataclass_fields__`` (its declared field names)."""
        if not isinstance(attr, cst.Name):
            return False
        scope = self.get_metadata(ScopeProvider, attr, None)
        if scope is None:
            return False
        assignments = list(scope[attr.value])
        if not assignments:
            return False
        for a in assignments:
            source = self._loop_iters.get(id(a.node)) if isinstance(a, Assignment) else None
            if source is None or not self._static_names(source):
                return False
        return True

    def _static_names(self, source: cst.BaseExpression) -> bool:
        if isinstance(source, cst.Attribute):
            return source.attr.value == "__dataclass_fields__"
        if not isinstance(source, cst.Name):
            return False
        scope = self.get_metadata(ScopeProvider, source, None)
        if scope is None:
            return False
        assignments = list(scope[source.value])
        if (
            len(assignments) != 1
            or not isinstance(assignments[0], Assignment)
            or not (isinstance(assignments[0].scope, GlobalScope))
        ):
            return False
        value = self._assigned.get(id(assignments[0].node))
        if not isinstance(value, (cst.Tuple, cst.List)):
            return False
        for element in value.elements:
            item = element.value
            if isinstance(item, (cst.Tuple, cst.List)) and item.elements:
                item = item.elements[0].value
            if isinstance(element, cst.StarredElement) or _literal(item) is None:
                return False
        return True

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)
            self._written(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)
        self._written(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._written(node.target)

    def _written(self, target: cst.BaseExpression) -> None:
        """An assignment target: a write to ``typing.TYPE_CHECKING``, or ``self.x = ...`` in
        a method (an instance attribute of the method's class)."""
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._written(element.value)
            return
        if isinstance(target, cst.StarredElement):
            self._written(target.value)
            return
        if not isinstance(target, cst.Attribute):
            return
        if self._resolve(target) & _TYPE_CHECKING:
            self._tamper(target)
        if isinstance(target.value, cst.Name) and target.value.value in self._class_names:
            self._field(
                target.attr,
                target.attr.value,
                target.value.value,
                "class attribute (assigned outside the class)",
            )
        if self._method_stack and isinstance(target.value, cst.Name):
            record, self_name = self._method_stack[-1]
            if target.value.value == self_name:
                self._field(target.attr, target.attr.value, record, "instance attribute")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._fn_depth += 1
        method = self._methods.get(id(node))
        if method is not None:
            self._method_stack.append(method)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._fn_depth -= 1
        if id(original_node) in self._methods:
            self._method_stack.pop()

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._inner.add(id(target))
            names = self._resolve(value)
            if names:
                self._aliases.setdefault(id(target), set()).update(names)
        elif (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
        ):
            for t, v in zip(target.elements, value.elements, strict=True):
                self._bind(t.value, v.value)
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                if isinstance(element.value, cst.Name):
                    self._inner.add(id(element.value))

    # -- calls -------------------------------------------------------------------------------
    def visit_Subscript(self, node: cst.Subscript) -> None:
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                self._lookup_strings.add(id(element.slice.value))

    def visit_Call(self, node: cst.Call) -> None:
        self._callees.add(id(node.func))
        self._lookup_strings.update(id(arg.value) for arg in node.args)
        callee = self._resolve(node.func)
        line, col = self._pos(node)
        if callee & _IMPORT_FUNCS:
            self._dynamic_import(node, callee, line, col)
        if callee & PATH_LOADERS:
            self.dynamics.append(
                DynamicFact(line, col, "path-import", sorted(callee & PATH_LOADERS)[0])
            )
        if callee & _PLUGIN_FUNCS:
            self.dynamics.append(
                DynamicFact(line, col, "plugin-discovery", sorted(callee & _PLUGIN_FUNCS)[0])
            )
        if "builtins.getattr" in callee:
            obj, attr = _arg(node, 0, "o"), _arg(node, 1, "name")
            if obj is None or attr is None or any(a.star for a in node.args):
                self.dynamics.append(DynamicFact(line, col, "computed-getattr", "<arguments>"))
            if obj is not None and attr is not None:
                if _literal(attr) is not None:
                    self._named_strings.add(id(attr))
                if _literal(attr) is None and not self._static_name(attr):
                    # fail closed on any object: the name may be a dunder or a module's
                    self.dynamics.append(
                        DynamicFact(
                            line,
                            col,
                            "computed-getattr",
                            sorted(self._resolve(obj) or {"<object>"})[0],
                        )
                    )
                elif _literal(attr) is not None and id(node) not in self._inner:
                    for q in sorted(self._resolve(node)):
                        self.refs.append(
                            RefFact(
                                line,
                                col,
                                q,
                                id(node) in self._callees,
                                "getattr",
                                self._tc_depth > 0,
                            )
                        )
                text = _literal(attr)
                if text is not None and _escape_attribute(text) and not self._resolve(obj):
                    self.refs.append(
                        RefFact(
                            line,
                            col,
                            f"<object>.{text}",
                            id(node) in self._callees,
                            "getattr",
                            self._tc_depth > 0,
                        )
                    )
        if any(c.rpartition(".")[2] in _ATTR_FETCHERS for c in callee):
            self._attr_fetcher(node, sorted(callee)[0], line, col)
        if callee & _SETATTR:
            self._setattr(node)
        records = {_CALL_RECORDS[c] for c in callee if c in _CALL_RECORDS}
        if records:
            self._call_record(node, sorted(records)[0])
        if "builtins.type" in callee and len(node.args) == 3:
            self._namespace_record(node, _arg(node, 2, "dict"), "type()")
        if "types.SimpleNamespace" in callee:
            self._namespace_record(
                node,
                _arg(node, 0, "mapping") if node.args and node.args[0].keyword is None else None,
                "SimpleNamespace",
            )

    def _namespace_record(
        self, node: cst.Call, namespace: cst.BaseExpression | None, kind: str
    ) -> None:
        """Fields of ``type(name, bases, {...})`` / ``SimpleNamespace({...}, k=v)``: literal
        dict keys and keywords; anything else is a computed field list."""
        name_arg = _arg(node, 0, "name") if kind == "type()" else None
        record = (_literal(name_arg) if name_arg is not None else None) or f"<{kind}>"
        computed = False
        if isinstance(namespace, cst.Dict):
            computed = self._dict_fields(namespace, record, kind)
        elif namespace is not None:
            computed = True
        for a in node.args:
            if a.star:
                computed = True
            elif a.keyword is not None and kind != "type()":
                self._field(a.keyword, a.keyword.value, record, kind)
        if computed:
            self._computed(node, f"{kind} {record}")

    def _attr_fetcher(self, node: cst.Call, callee: str, line: int, col: int) -> None:
        """``operator.attrgetter("sys")``/``methodcaller(...)``: each literal dotted name is a
        reference below the callee (``operator.attrgetter.sys`` reaches module ``sys``); a
        computed one is a computed attribute fetch."""
        args = node.args[:1] if callee.endswith("methodcaller") else node.args
        for a in args:
            text = _literal(a.value) if not a.star else None
            if text is None:
                self.dynamics.append(DynamicFact(line, col, "computed-getattr", callee))
                continue
            self._named_strings.add(id(a.value))
            for part in text.split("."):
                self.refs.append(
                    RefFact(line, col, f"{callee}.{part}", False, "string", self._tc_depth > 0)
                )

    def _string(self, node: cst.SimpleString | cst.ConcatenatedString) -> None:
        # Only a string handed to a call or used as a subscript can name an attribute
        # (``getattr(x, "__globals__")``, ``vars(m)["__import__"]``); one stored as data
        # (``NAMES = ("time.time", "__import__")``) names nothing until such a use, which is
        # then a computed lookup (ST303) or a literal one (seen here).
        if id(node) in self._named_strings or id(node) not in self._lookup_strings:
            return
        value = node.evaluated_value
        if isinstance(value, str) and value in _ESCAPE_STRINGS:
            line, col = self._pos(node)
            qname = "builtins.__import__" if value == "__import__" else f"<object>.{value}"
            self.refs.append(RefFact(line, col, qname, False, "string", self._tc_depth > 0))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self._string(node)

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        self._string(node)

    def _setattr(self, node: cst.Call) -> None:
        """``setattr(obj, "name", v)``: a write to ``TYPE_CHECKING``, or an instance attribute
        when ``obj`` is a method's ``self`` (a computed name there cannot be checked)."""
        obj, attr = _arg(node, 0, "obj"), _arg(node, 1, "name")
        if obj is None or attr is None:
            return
        text = _literal(attr)
        if text == "TYPE_CHECKING":
            self._tamper(node)
        if isinstance(obj, cst.Name) and obj.value in self._class_names:
            if text is None:
                self._computed(node, f"{obj.value} (setattr)")
            else:
                self._field(attr, text, obj.value, "class attribute (set by setattr)")
        if self._method_stack and isinstance(obj, cst.Name):
            record, self_name = self._method_stack[-1]
            if obj.value == self_name:
                if text is None:
                    line, col = self._pos(node)
                    self.dynamics.append(
                        DynamicFact(
                            line, col, "computed-fields", f"{record} (setattr on {self_name})"
                        )
                    )
                else:
                    self._field(attr, text, record, "instance attribute")

    def _dynamic_import(self, node: cst.Call, callee: set[str], line: int, col: int) -> None:
        func = sorted(callee & _IMPORT_FUNCS)[0]
        name_arg = _arg(node, 0, "mod_name" if func == "runpy.run_module" else "name")
        text = _literal(name_arg) if name_arg is not None else None
        # __import__(name, globals, locals, fromlist, level): level > 0 is relative to the
        # calling module's package; a computed level cannot be checked
        relative = 0
        level_arg = _arg(node, 4, "level") if func == "builtins.__import__" else None
        if level_arg is not None:
            if not isinstance(level_arg, cst.Integer):
                text = None
            else:
                relative = int(level_arg.evaluated_value)
        package_arg = _arg(node, 1, "package")
        package = _literal(package_arg) if package_arg is not None else None
        if isinstance(package_arg, cst.Name) and package_arg.value == "__package__":
            package = self._package()
        module = (
            dynamic_import_target(text, relative, package, self._package())
            if text is not None and (text.strip(".") or relative)
            else None
        )
        if text is None or module is None:
            self.dynamics.append(DynamicFact(line, col, "computed-import", func))
            return
        tc = self._tc_depth > 0
        lazy, main = self._fn_depth > 0, self._main()
        self.imports.append(
            ImportFact(
                line, col, module, None, "dynamic", tc, f"{func}({text!r})", lazy, line, main
            )
        )
        fromlist = _arg(node, 3, "fromlist") if func == "builtins.__import__" else None
        if isinstance(fromlist, (cst.List, cst.Tuple)):
            for element in fromlist.elements:
                item = _literal(element.value)
                if item:
                    self.imports.append(
                        ImportFact(
                            line,
                            col,
                            module,
                            item,
                            "dynamic",
                            tc,
                            f"{func}({text!r}, fromlist=[{item!r}])",
                            lazy,
                            line,
                            main,
                        )
                    )

    # -- records -------------------------------------------------------------------------------
    def _field(self, node: cst.CSTNode, name: str, record: str, kind: str) -> None:
        line, col = self._pos(node)
        self.fields.append(FieldFact(line, col, name, record, kind))

    def _call_record(self, node: cst.Call, kind: str) -> None:
        record_arg = _arg(node, 0, "typename")
        record = (_literal(record_arg) if record_arg is not None else None) or "<record>"
        fields_arg = _arg(node, 1, "fields")
        if fields_arg is None:
            fields_arg = _arg(node, 1, "field_names")
        computed = False
        if fields_arg is not None:
            text = _literal(fields_arg)
            if text is not None:
                for word in text.replace(",", " ").split():
                    self._field(fields_arg, word, record, kind)
            elif isinstance(fields_arg, (cst.List, cst.Tuple)):
                for element in fields_arg.elements:
                    value = element.value
                    if isinstance(element, cst.StarredElement):
                        computed = True
                        continue
                    if isinstance(value, (cst.Tuple, cst.List)) and value.elements:
                        value = value.elements[0].value
                    item = _literal(value)
                    if item is not None:
                        self._field(value, item, record, kind)
                    else:
                        computed = True
            elif isinstance(fields_arg, cst.Dict):
                computed = self._dict_fields(fields_arg, record, kind)
            elif not (isinstance(fields_arg, cst.Name) and fields_arg.value == "None"):
                computed = True
        for a in node.args:
            if a.star:
                computed = True
            elif a.keyword is not None and a.keyword.value not in _RECORD_OPTIONS:
                self._field(a.keyword, a.keyword.value, record, kind)
        if computed:
            self._computed(node, f"{kind} {record}")

    def _computed(self, node: cst.CSTNode, what: str) -> None:
        line, col = self._pos(node)
        self.dynamics.append(DynamicFact(line, col, "computed-fields", what))

    def _dict_fields(self, value: cst.Dict, record: str, kind: str) -> bool:
        """Fields from literal dict keys; True when some key is computed."""
        computed = False
        for entry in value.elements:
            key = _literal(entry.key) if isinstance(entry, cst.DictElement) else None
            if isinstance(entry, cst.DictElement) and key is not None:
                self._field(entry.key, key, record, kind)
            else:
                computed = True
        return computed

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        kind = "annotated class"
        for decorator in node.decorators:
            expr = decorator.decorator
            target = expr.func if isinstance(expr, cst.Call) else expr
            names = self._resolve(target)
            if names & _DATACLASS:
                kind = "dataclass"
            elif names & _ATTRS:
                kind = "attrs class"
        enum = False
        for base in node.bases:
            for q in self._resolve(base.value):
                if q in _BASES:
                    kind = _BASES[q]
                if q.startswith("enum."):
                    enum = True
            if isinstance(base.value, cst.Name) and base.value.value in self._enum_classes:
                enum = True
        record = node.name.value
        self._class_names.add(record)
        if enum:
            self._enum_classes.add(record)
            kind = "enum"
        # A plain class (no record decorator or base, no annotations, no ``__slots__``) is not
        # a record: what its methods assign to ``self`` is state, not declared fields.
        plain = kind == "annotated class" and not enum and not _declares_fields(node.body)
        self._class_level(node.body, record, kind, not plain)
        binds = _ClassBinds(node)
        node.body.visit(binds)
        for name in binds.names:
            self._field(name, name.value, record, "class attribute")

    def _class_level(self, node: cst.CSTNode, record: str, kind: str, instance: bool) -> None:
        """Walk a class body, through ``if``/``try``/``with``/``for``/``while``/``match``
        blocks (not into nested classes, which are records of their own); ``instance``: what
        methods assign to ``self`` are fields."""
        for child in node.children:
            if isinstance(child, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                for small in child.body:
                    self._class_statement(small, record, kind)
            elif isinstance(child, cst.FunctionDef):
                self._method(child, record, instance)
            elif isinstance(child, cst.ClassDef):
                continue
            elif isinstance(child, _BLOCKS):
                self._class_level(child, record, kind, instance)

    def _method(self, node: cst.FunctionDef, record: str, instance: bool) -> None:
        static = False
        for decorator in node.decorators:
            names = self._resolve(decorator.decorator)
            if names & _PROPERTY:
                self._field(node.name, node.name.value, record, "property")
            if "builtins.staticmethod" in names:
                static = True
        params = [*node.params.posonly_params, *node.params.params]
        if params and not static and instance:
            self._methods[id(node)] = (record, params[0].name.value)

    def _class_statement(self, small: cst.BaseSmallStatement, record: str, kind: str) -> None:
        if isinstance(small, cst.AnnAssign):
            for name in _names_in_target(small.target):
                self._field(name, name.value, record, kind)
                if small.value is not None:
                    self._special(name.value, small.value, record)
        elif isinstance(small, cst.Assign):
            for target in small.targets:
                self._annotations_item(target.target, record)
                if kind == "enum":
                    continue  # enum members are constants, not fields
                for name in _names_in_target(target.target):
                    if self._special(name.value, small.value, record):
                        continue
                    what = "class attribute"
                    if isinstance(small.value, cst.Call) and (
                        self._resolve(small.value.func) & _ATTRS_FIELD
                    ):
                        what = "attrs class"
                    elif isinstance(small.value, cst.Call) and (
                        self._resolve(small.value.func) & _PROPERTY
                    ):
                        what = "property"
                    self._field(name, name.value, record, what)
        elif (
            isinstance(small, cst.AugAssign)
            and isinstance(small.target, cst.Name)
            and kind != "enum"
            and not self._special(small.target.value, small.value, record)
        ):
            self._field(small.target, small.target.value, record, "class attribute")

    def _annotations_item(self, target: cst.BaseExpression, record: str) -> None:
        """``__annotations__["name"] = type`` in a class body declares a field."""
        if not (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and target.value.value == "__annotations__"
        ):
            return
        key = None
        if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
            key = _literal(target.slice[0].slice.value)
        if key is None:
            self._computed(target, f"{record}.__annotations__")
        else:
            self._field(target, key, record, "__annotations__")

    def _special(self, name: str, value: cst.BaseExpression, record: str) -> bool:
        """``__slots__`` and ``__annotations__`` declare fields through their contents."""
        if name == "__slots__":
            self._slots(value, record)
            return True
        if name == "__annotations__":
            if not isinstance(value, cst.Dict) or self._dict_fields(
                value, record, "__annotations__"
            ):
                self._computed(value, f"{record}.__annotations__")
            return True
        return False

    def _slots(self, value: cst.BaseExpression, record: str) -> None:
        text = _literal(value)
        if text is not None:
            for word in text.split():
                self._field(value, word, record, "__slots__")
            return
        if isinstance(value, cst.Dict):
            if self._dict_fields(value, record, "__slots__"):
                self._computed(value, f"{record}.__slots__")
            return
        if not isinstance(value, (cst.Tuple, cst.List, cst.Set)):
            self._computed(value, f"{record}.__slots__")
            return
        for element in value.elements:
            item = None if isinstance(element, cst.StarredElement) else _literal(element.value)
            if item is None:
                self._computed(element, f"{record}.__slots__")
            else:
                self._field(element.value, item, record, "__slots__")

    # -- finish ------------------------------------------------------------------------------
    def finish(self) -> None:
        """Resolve local names bound to imported facilities (``clk = time.time; clk()``), and
        mark references through names imported only under ``TYPE_CHECKING`` (annotations)."""
        if self._tc_tampered:  # TYPE_CHECKING written: nothing is type-checking-only
            self.imports = [dataclasses.replace(i, type_checking=False) for i in self.imports]
            self.refs = [dataclasses.replace(r, type_checking=False) for r in self.refs]
            self._tc_bound.clear()
        tc_only = self._tc_bound - self._rt_bound
        for index, root in self._import_refs:
            if root in tc_only:
                self.refs[index] = dataclasses.replace(self.refs[index], type_checking=True)
        for line, col, call, tc, ids, name in self._pending:
            names: set[str] = set()
            for ident in ids:
                names |= self._aliases.get(ident, set())
            for q in sorted(names):
                self.refs.append(
                    RefFact(line, col, q, call, f"alias {name}", tc and not self._tc_tampered)
                )


def normalize_identifiers(text: str) -> str:
    """NFKC-normalise non-ASCII identifiers, as the Python compiler does (PEP 3131).

    Without this, ``open`` spelled with a fullwidth ``o`` (U+FF4F) would read to libcst as an
    unknown name while Python runs the builtin ``open``. Text that cannot be tokenized is
    returned unchanged (the parse reports it).
    """
    if text.isascii():
        return text
    edits: dict[int, list[tuple[int, int, str]]] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME and not token.string.isascii():
                normal = unicodedata.normalize("NFKC", token.string)
                if normal != token.string:
                    edits.setdefault(token.start[0], []).append(
                        (token.start[1], token.end[1], normal)
                    )
    except (tokenize.TokenError, SyntaxError, ValueError):
        return text
    if not edits:
        return text
    lines = text.splitlines(keepends=True)
    for row, changes in edits.items():
        line = lines[row - 1]
        for start, end, normal in sorted(changes, reverse=True):
            line = line[:start] + normal + line[end:]
        lines[row - 1] = line
    return "".join(lines)


#: Stack and recursion limit of the libcst pass: flat but long code (an expression of hundreds
#: of terms, a long attribute chain) recurses once per term in libcst and its visitors,
#: although CPython compiles it. The memory is reserved, not touched, unless it is used.
_STACK_BYTES = 512 * 1024 * 1024
_RECURSION_LIMIT = 200_000
_deep_lock = threading.Lock()


def _deep_stack(work: Callable[[], None]) -> None:
    """Run ``work`` in a thread with a large stack and a raised recursion limit (both
    restored afterwards)."""
    with _deep_lock:
        old_size = threading.stack_size()
        old_limit = sys.getrecursionlimit()
        try:
            threading.stack_size(_STACK_BYTES)
            thread = threading.Thread(target=work, name="sealed-trace-libcst")
        finally:
            threading.stack_size(old_size)
        sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
        try:
            thread.start()
            thread.join()
        finally:
            sys.setrecursionlimit(old_limit)


def _parser_config(target: tuple[int, int] | None) -> cst.PartialParserConfig:
    """libcst's parser for the project's Python (the newest libcst knows, if it is newer)."""
    if target is None:
        return cst.PartialParserConfig()
    try:
        return cst.PartialParserConfig(python_version=f"{target[0]}.{target[1]}")
    except ValueError:
        return cst.PartialParserConfig()


def _analyse(
    text: str,
    module: str | None,
    is_package: bool,
    suppressions: tuple[SuppressionFact, ...],
    newer: tuple[int, int] | None = None,
) -> _Collector | FileFacts:
    """Parse and visit (in the deep-stack thread); a FileFacts is an ST001 error. Unless
    ``newer`` (the project's Python, newer than this interpreter, whose parser refused the
    text) is given, CPython already accepted the text, so libcst's refusals are never called
    invalid Python."""
    try:
        tree = cst.parse_module(normalize_identifiers(text), _parser_config(newer))
    except cst.ParserSyntaxError as exc:
        message = str(exc).splitlines()[0] if str(exc) else "syntax error"
        if newer is not None:
            return FileFacts(
                error=(
                    "ST001",
                    exc.raw_line,
                    exc.raw_column + 1,
                    f"not valid Python {newer[0]}.{newer[1]}: {message}",
                ),
                suppressions=suppressions,
            )
        return FileFacts(
            error=(
                "ST001",
                exc.raw_line,
                exc.raw_column + 1,
                f"cannot parse: libcst rejects what CPython accepts: {message}",
            ),
            suppressions=suppressions,
        )
    except (RecursionError, MemoryError, ValueError, TypeError) as exc:
        return FileFacts(
            error=("ST001", 1, 1, f"cannot parse: {type(exc).__name__}"), suppressions=suppressions
        )
    try:
        wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
        collector = _Collector(module, is_package)
        collector._tc_spoofed = type_checking_spoofed(text)
        wrapper.visit(collector)
        collector.finish()
    except RecursionError:
        return FileFacts(
            error=("ST001", 1, 1, "cannot analyse: nesting too deep"), suppressions=suppressions
        )
    return collector


def extract_facts(
    text: str, module: str | None, is_package: bool, target: tuple[int, int] | None = None
) -> FileFacts:
    """Parse decoded ``text`` and return its facts.

    ``target`` is the project's Python (``target_version``; None: this interpreter's). A
    syntax error for it becomes ``FileFacts(error=("ST001", line, column, message))``; so does
    any other failure of the parser or the metadata providers (for example a recursion limit
    on absurdly nested code): the engine fails closed, it never crashes on a file.
    """
    suppressions = scan_suppressions(text)
    running = sys.version_info[:2]
    # CPython's own parser first: it refuses nesting that could overflow the native libcst
    # parser's stack, and reports syntax errors exactly as the interpreter would.
    newer: tuple[int, int] | None = None
    try:
        tree = ast.parse(
            text, feature_version=target if target is not None and target < running else None
        )
        compile(tree, "<module>", "exec", dont_inherit=True)  # the compiler's checks too
    except SyntaxError as exc:
        if target is None or target <= running:
            where = (exc.lineno or 1, (exc.offset or 1))
            return FileFacts(
                error=("ST001", where[0], max(1, where[1]), f"not valid Python: {exc.msg}"),
                suppressions=suppressions,
            )
        newer = target  # syntax newer than this interpreter's: libcst judges it
    except (RecursionError, MemoryError, ValueError) as exc:
        return FileFacts(
            error=("ST001", 1, 1, f"cannot parse: {type(exc).__name__} (nesting too deep)"),
            suppressions=suppressions,
        )
    outcome: list[_Collector | FileFacts] = []
    _deep_stack(lambda: outcome.append(_analyse(text, module, is_package, suppressions, newer)))
    if not outcome:
        return FileFacts(
            error=("ST001", 1, 1, "cannot analyse: the parser thread failed"),
            suppressions=suppressions,
        )
    collector = outcome[0]
    if isinstance(collector, FileFacts):
        return collector
    return FileFacts(
        imports=tuple(collector.imports),
        refs=tuple(dict.fromkeys(collector.refs)),
        dynamics=tuple(collector.dynamics),
        fields=tuple(collector.fields),
        suppressions=suppressions,
    )
