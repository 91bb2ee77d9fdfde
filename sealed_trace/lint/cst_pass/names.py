"""Qualified names of the expressions of one file, from libcst's scopes.

Names are resolved through the qualified names libcst's ``ScopeProvider`` gives (never from
source text, so aliases resolve and strings, comments and docstrings are never mistaken for
code), extended by what scopes do not follow: attribute chains on builtins, ``getattr`` with
a literal name, local aliases of imported facilities (``clk = time.time``), builtins a
module-scope binding does not reliably hide, and names a star import may bind.
"""

from __future__ import annotations

import builtins
from collections.abc import Collection, Mapping

import libcst as cst
from libcst.metadata import (
    Assignment,
    ClassScope,
    GlobalScope,
    QualifiedName,
    QualifiedNameSource,
    Scope,
)

from sealed_trace.lint.cst_pass.syntax import argument, is_dotted, string_literal
from sealed_trace.lint.dynamic_rules import Importer

__all__ = ["BUILTIN_NAMES", "IMPLICIT_GLOBALS", "NameResolver"]

_RESOLVED = (QualifiedNameSource.IMPORT, QualifiedNameSource.BUILTIN)
#: Globals the interpreter gives every module; a load of one that the module never binds is
#: reported as ``builtins.<name>`` (``__builtins__["open"]``, ``__spec__.loader.get_data``).
IMPLICIT_GLOBALS = frozenset({"__builtins__", "__file__", "__cached__", "__loader__", "__spec__"})
#: Names a module-scope or class-scope load can fall through to (builtins and implicit globals).
BUILTIN_NAMES = frozenset(dir(builtins)) | IMPLICIT_GLOBALS


class NameResolver:
    """Resolves names and chains of one file. ``rebound``: builtin names whose module-scope
    binding may not hide the builtin everywhere; ``star_modules``: modules star-imported at
    module level. ``aliases`` (assignment node id -> qualified names) grows during the walk:
    the reference visitor binds each alias when it reaches its assignment."""

    def __init__(
        self,
        scopes: Mapping[cst.CSTNode, Scope | None],
        importer: Importer,
        rebound: Collection[str] = (),
        star_modules: Collection[str] = (),
    ) -> None:
        self.scopes = scopes
        self.importer = importer
        self.rebound = frozenset(rebound)
        self.star_modules = list(star_modules)
        self.aliases: dict[int, set[str]] = {}

    def scope(self, node: cst.CSTNode) -> Scope | None:
        """The scope ``node`` is in (None for nodes libcst gives none)."""
        return self.scopes.get(node)

    def _found(self, node: cst.CSTNode) -> Collection[QualifiedName]:
        """libcst's qualified names of ``node``, asked of its scope (what
        ``QualifiedNameProvider`` computes, without its pass over every node of the module)."""
        scope = self.scopes.get(node)
        if scope is None:
            return ()
        return scope.get_qualified_names_for(node)

    def qnames(self, node: cst.CSTNode) -> set[str]:
        """Absolute qualified names of ``node`` through imports and builtins."""
        return {self._absolute(q.name) for q in self._found(node) if q.source in _RESOLVED}

    def _absolute(self, name: str) -> str:
        """An absolute qualified name: libcst names what a relative import binds relatively
        (``from . import random`` in package ``pkg`` is ``.random``, that is ``pkg.random``)."""
        if not name.startswith("."):
            return name
        level = len(name) - len(name.lstrip("."))
        return self.importer.absolute(level, name[level:]) or name

    def chain(self, node: cst.Name | cst.Attribute) -> set[str]:
        """Qualified names of a dotted chain. libcst names a chain on a builtin by the builtin
        alone (``object.__getattribute__`` is ``builtins.object``): extend it attribute by
        attribute."""
        found = self._found(node)
        if isinstance(node, cst.Attribute) and _on_builtin(found):
            base = node.value
            if isinstance(base, (cst.Name, cst.Attribute)):
                return {f"{b}.{node.attr.value}" for b in self.chain(base)}
        return {self._absolute(q.name) for q in found if q.source in _RESOLVED}

    def dotted(self, node: cst.Name | cst.Attribute) -> set[str]:
        """Qualified names of ``node`` when it is a pure dotted chain, else none."""
        return self.chain(node) if is_dotted(node) else set()

    def resolve(self, node: cst.BaseExpression) -> set[str]:
        """Qualified names an expression refers to: imports, builtins, getattr, aliases."""
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self._resolve_chain(node)
        if isinstance(node, cst.Call):
            return self._getattr_result(node)
        return set()

    def _resolve_chain(self, node: cst.Name | cst.Attribute) -> set[str]:
        """A dotted chain libcst resolves; else a name's aliases and the builtin it may
        reach; else the attribute of what the chain's base resolves to."""
        names = self.dotted(node)
        if names:
            return names
        if isinstance(node, cst.Name):
            return self.alias_names(node) | self.fallback(node)
        return {f"{b}.{node.attr.value}" for b in self.resolve(node.value)}

    def _getattr_result(self, node: cst.Call) -> set[str]:
        """``getattr(obj, "name")``: the attribute of what ``obj`` resolves to."""
        if "builtins.getattr" not in self.qnames(node.func):
            return set()
        obj, attr = argument(node, 0, "o"), argument(node, 1, "name")
        text = string_literal(attr) if attr is not None else None
        if obj is None or text is None:
            return set()
        return {f"{b}.{text}" for b in self.resolve(obj)}

    def _loaded_in(self, node: cst.Name) -> Scope | None:
        """The scope in which ``node`` is a load of its name (None when it is not a load: a
        def, class or target name)."""
        scope = self.scopes.get(node)
        if scope is None or not any(a.node is node for a in scope.accesses[node.value]):
            return None
        return scope

    def fallback(self, node: cst.Name) -> set[str]:
        """``builtins.<name>`` for a load that can still reach the builtin (or implicit module
        global) although the module binds the name: a module-scope binding that is conditional,
        undone, repeated or used before it runs, or a class-scope binding (a class body falls
        through to builtins). Also for an implicit global the module never binds
        (``__builtins__``, ``__file__``)."""
        name = node.value
        scope = self._loaded_in(node) if name in BUILTIN_NAMES else None
        if scope is None:
            return set()
        assignments = _assignments(scope, name)
        if assignments:
            reached = any(self._falls_through(a) for a in assignments)
        else:
            reached = name in IMPLICIT_GLOBALS
        return {f"builtins.{name}"} if reached else set()

    def _falls_through(self, binding: Assignment) -> bool:
        """Whether a load may reach the builtin despite ``binding``: a class-scope binding,
        or a module-scope one that does not reliably hide the builtin."""
        if isinstance(binding.scope, ClassScope):
            return True
        return isinstance(binding.scope, GlobalScope) and binding.name in self.rebound

    def from_star(self, node: cst.Name) -> list[str]:
        """``m.name`` for each star-imported module ``m`` when ``node`` loads a name that
        nothing in the module binds (``from os import *`` then ``getenv(...)``): the star
        import may bind it, shadowing a builtin of that name too."""
        scope = self._loaded_in(node) if self.star_modules else None
        if scope is None or _assignments(scope, node.value):
            return []
        return [f"{module}.{node.value}" for module in self.star_modules]

    def alias_names(self, node: cst.Name) -> set[str]:
        """What the aliases bound so far to ``node``'s name (in its scope) refer to."""
        out: set[str] = set()
        for ident in self.assignment_ids(node):
            out |= self.aliases.get(ident, set())
        return out

    def assignment_ids(self, node: cst.Name) -> frozenset[int]:
        """The assignments of ``node``'s name in its scope (node ids)."""
        scope = self.scopes.get(node)
        if scope is None:
            return frozenset()
        return frozenset(id(a.node) for a in _assignments(scope, node.value))


def _assignments(scope: Scope, name: str) -> list[Assignment]:
    """The bindings of ``name`` visible in ``scope`` that are assignments (not builtins)."""
    return [a for a in scope[name] if isinstance(a, Assignment)]


def _on_builtin(found: Collection[QualifiedName]) -> bool:
    """Whether libcst names a chain by a builtin."""
    return any(q.source is QualifiedNameSource.BUILTIN for q in found)
