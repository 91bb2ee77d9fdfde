"""Dynamic facilities: imports by function call, path loaders, plugin discovery, attribute
fetches by name, and string literals that name an escape.

:class:`DynamicVisitor` judges each call through the rules both passes share
(:mod:`sealed_trace.lint.dynamic_rules`, in the sealed pass's :data:`SEALED_PASS` dialect):
a literal ``import_module``/``__import__`` is an import, a computed one a ``computed-import``;
``getattr`` with a literal name is a reference, with a computed one a ``computed-getattr``
(unless the name is a loop variable over names fixed in the module); ``attrgetter`` and
``methodcaller`` strings are references below the callee; a string handed to a call or
used as a subscript that names an escape (``"__globals__"``) is a reference of its own.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import Assignment, BaseAssignment, GlobalScope

from sealed_trace.lint.cst_pass.context import FileContext
from sealed_trace.lint.cst_pass.references import FRAME_ATTRIBUTES, escape_attribute
from sealed_trace.lint.cst_pass.syntax import argument, plain_arguments, string_literal
from sealed_trace.lint.cst_pass.syntax import target_names as _target_names
from sealed_trace.lint.cst_pass.visitor import FactVisitor
from sealed_trace.lint.dynamic_rules import (
    SEALED_PASS,
    attribute_name_arguments,
    import_function,
    judge_import_call,
    loader_facts,
    module_name_argument,
)
from sealed_trace.lint.facts import DynamicFact

__all__ = ["DynamicVisitor"]

#: String literals that name an escape from any object to globals, builtins, code, frames or
#: the import system: in the sealed module such a string is reported wherever it occurs
#: (``attrgetter("__globals__")``, ``map(getattr, [f], ["__globals__"])``, ``g["__builtins__"]``).
ESCAPE_STRINGS = (
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
    | FRAME_ATTRIBUTES
)
#: Callables that fetch attributes named by their string arguments (by their last name).
_ATTRIBUTE_FETCHERS = frozenset({"attrgetter", "methodcaller"})


class _LoopSources(cst.CSTVisitor):
    """What loop targets iterate and what plain names are assigned (a comprehension's element
    is visited before its ``for``, so this is read over the whole module first)."""

    def __init__(self) -> None:
        super().__init__()
        self.loop_iters: dict[int, cst.BaseExpression] = {}
        self.assigned: dict[int, cst.BaseExpression] = {}

    def visit_For(self, node: cst.For) -> None:
        for name in _target_names(node.target):
            self.loop_iters[id(name)] = node.iter

    def visit_CompFor(self, node: cst.CompFor) -> None:
        for name in _target_names(node.target):
            self.loop_iters[id(name)] = node.iter

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.assigned[id(target.target)] = node.value

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self.assigned[id(node.target)] = node.value


def _names_a_field(element: cst.BaseElement) -> bool:
    """An element of a fixed list of names: a literal string, or a tuple starting with one."""
    item = element.value
    if isinstance(item, (cst.Tuple, cst.List)) and item.elements:
        item = item.elements[0].value
    return not isinstance(element, cst.StarredElement) and string_literal(item) is not None


class DynamicVisitor(FactVisitor):
    """Dynamic imports, loaders, attribute fetches and escape strings (see the module
    docstring). ``module`` is the file's tree: its loops are read when a computed
    attribute name first needs them."""

    def __init__(self, context: FileContext, module: cst.Module) -> None:
        super().__init__(context)
        self.module = module
        self._sources: _LoopSources | None = None
        #: string literals already reported as an attribute name (getattr, attrgetter)
        self._named_strings: set[int] = set()
        #: string literals that are call arguments or subscripts (they may name an attribute)
        self._lookup_strings: set[int] = set()

    # -- calls ---------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        """Judge a call (see the module docstring)."""
        self._lookup_strings.update(id(arg.value) for arg in node.args)
        callee = self.context.callee(node)
        line, col = self.context.position(node)
        func = import_function(callee, SEALED_PASS)
        if func is not None:
            self._dynamic_import(node, func)
        self.context.facts.dynamics.extend(loader_facts(callee, line, col))
        if "builtins.getattr" in callee:
            self._getattr(node, line, col)
        if any(c.rpartition(".")[2] in _ATTRIBUTE_FETCHERS for c in callee):
            self._attribute_fetcher(node, sorted(callee)[0], line, col)

    def _dynamic_import(self, node: cst.Call, func: str) -> None:
        """An import function's call: its literal module name (none when computed) judged by
        the shared rule."""
        name_arg = argument(node, *module_name_argument(func))
        text = string_literal(name_arg) if name_arg is not None else None
        imports, dynamics = judge_import_call(
            func,
            None if text is None else (text,),
            plain_arguments(node),
            self.context.site(node),
            self.context.importer,
            SEALED_PASS,
        )
        self.context.facts.imports.extend(imports)
        self.context.facts.dynamics.extend(dynamics)

    def _getattr(self, node: cst.Call, line: int, col: int) -> None:
        """``getattr(obj, name)``: a reference for a literal name, a computed fetch for any
        other (unless it is a loop variable over fixed names)."""
        obj, attr = argument(node, 0, "o"), argument(node, 1, "name")
        if obj is None or attr is None:
            self._computed_getattr(line, col, "<arguments>")
            return
        if any(a.star for a in node.args):
            self._computed_getattr(line, col, "<arguments>")
        text = string_literal(attr)
        if text is not None:
            self._named_strings.add(id(attr))
            self._literal_getattr(node, obj, text, line, col)
        elif not self._static_name(attr):
            # fail closed on any object: the name may be a dunder or a module's
            owner = sorted(self.context.names.resolve(obj) or {"<object>"})[0]
            self._computed_getattr(line, col, owner)

    def _computed_getattr(self, line: int, col: int, owner: str) -> None:
        self.context.facts.dynamics.append(DynamicFact(line, col, "computed-getattr", owner))

    def _literal_getattr(
        self, node: cst.Call, obj: cst.BaseExpression, text: str, line: int, col: int
    ) -> None:
        """``getattr(obj, "name")``: a reference to what it resolves to (unless it is part of
        a longer chain, which is the reference), and an escape attribute on any object."""
        names = self.context.names
        if id(node) not in self.context.roles.inner:
            self.context.add_refs(node, sorted(names.resolve(node)), "getattr")
        if escape_attribute(text) and not names.resolve(obj):
            self.context.add_refs(node, (f"<object>.{text}",), "getattr")

    def _attribute_fetcher(self, node: cst.Call, callee: str, line: int, col: int) -> None:
        """``operator.attrgetter("sys")``/``methodcaller(...)``: each literal dotted name is a
        reference below the callee (``operator.attrgetter.sys`` reaches module ``sys``); a
        computed one is a computed attribute fetch."""
        for a in node.args[: attribute_name_arguments(callee, len(node.args))]:
            text = string_literal(a.value) if not a.star else None
            if text is None:
                self._computed_getattr(line, col, callee)
                continue
            self._named_strings.add(id(a.value))
            parts = [f"{callee}.{part}" for part in text.split(".")]
            self.context.add_refs(node, parts, "string", call=False)

    # -- computed attribute names over fixed names ------------------------------------------------
    def _static_name(self, attr: cst.BaseExpression) -> bool:
        """Whether a computed attribute name is a loop variable over names fixed in the
        module: a module constant holding a literal tuple or list of strings (or of tuples
        that start with one; escape names among them are reported as strings), or a record's
        ``__dataclass_fields__`` (its declared field names)."""
        assignments = self._bindings(attr)
        return bool(assignments) and all(self._over_static_names(a) for a in assignments)

    def _bindings(self, node: cst.BaseExpression) -> list[BaseAssignment]:
        """Every binding of a name visible where it is (none for another expression)."""
        if not isinstance(node, cst.Name):
            return []
        scope = self.context.names.scope(node)
        return list(scope[node.value]) if scope is not None else []

    def _over_static_names(self, binding: BaseAssignment) -> bool:
        """A loop variable whose loop iterates fixed names."""
        if not isinstance(binding, Assignment):
            return False
        source = self._loop_sources().loop_iters.get(id(binding.node))
        return source is not None and self._static_names(source)

    def _loop_sources(self) -> _LoopSources:
        if self._sources is None:
            self._sources = _LoopSources()
            self.module.visit(self._sources)
        return self._sources

    def _static_names(self, source: cst.BaseExpression) -> bool:
        if isinstance(source, cst.Attribute):
            return source.attr.value == "__dataclass_fields__"
        value = self._constant(source)
        if not isinstance(value, (cst.Tuple, cst.List)):
            return False
        return all(_names_a_field(element) for element in value.elements)

    def _constant(self, source: cst.BaseExpression) -> cst.BaseExpression | None:
        """The value of a name bound once, at module scope, by a plain assignment."""
        assignments = self._bindings(source)
        if len(assignments) != 1:
            return None
        binding = assignments[0]
        if not isinstance(binding, Assignment) or not isinstance(binding.scope, GlobalScope):
            return None
        return self._loop_sources().assigned.get(id(binding.node))

    # -- strings ---------------------------------------------------------------------------------
    def visit_Subscript(self, node: cst.Subscript) -> None:
        """A string used as a subscript may name an attribute (``vars(m)["x"]``)."""
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                self._lookup_strings.add(id(element.slice.value))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        """A string naming an escape, handed to a call or used as a subscript."""
        self._string(node)

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        """A string naming an escape, handed to a call or used as a subscript."""
        self._string(node)

    def _string(self, node: cst.SimpleString | cst.ConcatenatedString) -> None:
        # Only a string handed to a call or used as a subscript can name an attribute
        # (``getattr(x, "__globals__")``, ``vars(m)["__import__"]``); one stored as data
        # (``NAMES = ("time.time", "__import__")``) names nothing until such a use, which is
        # then a computed lookup (ST303) or a literal one (seen here).
        if id(node) in self._named_strings or id(node) not in self._lookup_strings:
            return
        value = node.evaluated_value
        if isinstance(value, str) and value in ESCAPE_STRINGS:
            qname = "builtins.__import__" if value == "__import__" else f"<object>.{value}"
            self.context.add_refs(node, (qname,), "string", call=False)
