"""Record types and the fields they declare (ADR-0230 §7.3 forbids some output fields).

:class:`FieldVisitor` reads a :class:`FieldFact` for each field a record declares: class
bodies (annotations, class attributes, ``__slots__``, ``__annotations__``, properties, names
bound by loops, imports and ``with``), what a record's methods assign to ``self`` (also by
``setattr``), class attributes assigned after the class, and the call forms
(``namedtuple``, ``NamedTuple``, ``TypedDict``, ``make_dataclass``, ``attrs.make_class``,
``type(name, bases, ns)``, ``SimpleNamespace``). A field list the lint cannot read is a
``computed-fields`` dynamic fact.
"""

from __future__ import annotations

from collections.abc import Collection

import libcst as cst

from sealed_trace.lint.cst_pass.context import FileContext
from sealed_trace.lint.cst_pass.records import ClassBody, record_kind
from sealed_trace.lint.cst_pass.references import SETATTR
from sealed_trace.lint.cst_pass.syntax import argument, assigned_attributes, string_literal
from sealed_trace.lint.cst_pass.visitor import FactVisitor
from sealed_trace.lint.facts import DynamicFact, FieldFact

__all__ = ["FieldVisitor"]

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


def _record_name(node: cst.Call, keyword: str, default: str) -> str:
    """The record's name: the call's first argument when it is a non-empty literal."""
    arg = argument(node, 0, keyword)
    return (string_literal(arg) if arg is not None else None) or default


def _positional_mapping(node: cst.Call) -> cst.BaseExpression | None:
    """``SimpleNamespace``'s mapping: its first argument when it is positional."""
    if node.args and node.args[0].keyword is None:
        return argument(node, 0, "mapping")
    return None


class FieldVisitor(FactVisitor):
    """Records and their fields (see the module docstring)."""

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        #: classes defined in the module (``R.score = 1`` after the class adds a field), and
        #: those that are enums (their members are constants, not fields)
        self._class_names: set[str] = set()
        self._enum_classes: set[str] = set()
        #: methods of records whose ``self`` assignments are fields: ``(record, self name)``
        self._methods: dict[int, tuple[str, str]] = {}
        self._method_stack: list[tuple[str, str]] = []

    def _field(self, node: cst.CSTNode, name: str, record: str, kind: str) -> None:
        line, col = self.context.position(node)
        self.context.facts.fields.append(FieldFact(line, col, name, record, kind))

    def _computed(self, node: cst.CSTNode, what: str) -> None:
        line, col = self.context.position(node)
        self.context.facts.dynamics.append(DynamicFact(line, col, "computed-fields", what))

    def _self_of_method(self, name: cst.BaseExpression) -> str | None:
        """The record whose method the walk is in, when ``name`` is that method's ``self``."""
        if not self._method_stack or not isinstance(name, cst.Name):
            return None
        record, self_name = self._method_stack[-1]
        return record if name.value == self_name else None

    # -- classes -------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        """A class: its kind of record and the fields its body declares."""
        names = self.context.names
        kind, enum = record_kind(node, names.resolve, self._enum_classes)
        record = node.name.value
        self._class_names.add(record)
        if enum:
            self._enum_classes.add(record)
        body = ClassBody(names.resolve, record, kind, self._field, self._computed)
        self._methods.update(body.read(node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """Enter a record's method: its ``self`` assignments are fields."""
        method = self._methods.get(id(node))
        if method is not None:
            self._method_stack.append(method)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        """Leave a record's method."""
        if id(original_node) in self._methods:
            self._method_stack.pop()

    # -- attributes assigned outside the class body ----------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        """Attributes of a record assigned outside its body."""
        for target in node.targets:
            self._written(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        """Attributes of a record assigned outside its body."""
        self._written(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        """Attributes of a record assigned outside its body."""
        self._written(node.target)

    def _written(self, target: cst.BaseExpression) -> None:
        """``R.x = ...`` after class ``R``, and ``self.x = ...`` in a record's method."""
        for attribute in assigned_attributes(target):
            owner, name = attribute.value, attribute.attr
            if isinstance(owner, cst.Name) and owner.value in self._class_names:
                kind = "class attribute (assigned outside the class)"
                self._field(name, name.value, owner.value, kind)
            record = self._self_of_method(owner)
            if record is not None:
                self._field(name, name.value, record, "instance attribute")

    # -- calls ---------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        """``setattr`` on a class or ``self``, and the record call forms."""
        callee = self.context.callee(node)
        if callee & SETATTR:
            self._setattr(node)
        records = sorted(_CALL_RECORDS[c] for c in callee if c in _CALL_RECORDS)
        if records:
            self._call_record(node, records[0])
        if "builtins.type" in callee and len(node.args) == 3:
            self._namespace_record(node, argument(node, 2, "dict"), "type()")
        if "types.SimpleNamespace" in callee:
            self._namespace_record(node, _positional_mapping(node), "SimpleNamespace")

    def _setattr(self, node: cst.Call) -> None:
        """``setattr(obj, "name", v)``: a class attribute when ``obj`` is a class of the
        module, an instance attribute when it is a method's ``self`` (a computed name there
        cannot be checked)."""
        obj, attr = argument(node, 0, "obj"), argument(node, 1, "name")
        if not isinstance(obj, cst.Name) or attr is None:
            return
        text = string_literal(attr)
        if obj.value in self._class_names:
            if text is None:
                self._computed(node, f"{obj.value} (setattr)")
            else:
                self._field(attr, text, obj.value, "class attribute (set by setattr)")
        record = self._self_of_method(obj)
        if record is None:
            return
        if text is None:
            self._computed(node, f"{record} (setattr on {obj.value})")
        else:
            self._field(attr, text, record, "instance attribute")

    def _call_record(self, node: cst.Call, kind: str) -> None:
        """``namedtuple("R", "a b")``, ``NamedTuple("R", [("a", int)])``,
        ``TypedDict("R", {"a": int})``, ``make_dataclass("R", ["a"])``, and fields passed as
        keywords."""
        record = _record_name(node, "typename", "<record>")
        fields_arg = argument(node, 1, "fields")
        if fields_arg is None:
            fields_arg = argument(node, 1, "field_names")
        computed = fields_arg is not None and self._field_list(fields_arg, record, kind)
        starred = self._keyword_fields(node, record, kind, _RECORD_OPTIONS)
        if computed or starred:
            self._computed(node, f"{kind} {record}")

    def _keyword_fields(
        self, node: cst.Call, record: str, kind: str, options: Collection[str] | None
    ) -> bool:
        """Fields passed as keywords (those not in ``options``; none when ``options`` is
        None); True when an argument is starred (its fields cannot be read)."""
        starred = False
        for a in node.args:
            if a.star:
                starred = True
            elif a.keyword is not None and options is not None and a.keyword.value not in options:
                self._field(a.keyword, a.keyword.value, record, kind)
        return starred

    def _field_list(self, value: cst.BaseExpression, record: str, kind: str) -> bool:
        """Fields of a record call's field list; True when some are computed."""
        text = string_literal(value)
        if text is not None:
            for word in text.replace(",", " ").split():
                self._field(value, word, record, kind)
            return False
        if isinstance(value, (cst.List, cst.Tuple)):
            return self._field_sequence(value, record, kind)
        if isinstance(value, cst.Dict):
            return self._dict_fields(value, record, kind)
        return not (isinstance(value, cst.Name) and value.value == "None")

    def _field_sequence(self, value: cst.List | cst.Tuple, record: str, kind: str) -> bool:
        """``["a", ("b", int)]``: a literal name, or a pair starting with one, per field."""
        computed = False
        for element in value.elements:
            item = element.value
            if isinstance(element, cst.StarredElement):
                computed = True
                continue
            if isinstance(item, (cst.Tuple, cst.List)) and item.elements:
                item = item.elements[0].value
            text = string_literal(item)
            if text is None:
                computed = True
            else:
                self._field(item, text, record, kind)
        return computed

    def _namespace_fields(self, namespace: cst.BaseExpression, record: str, kind: str) -> bool:
        """Fields of a namespace's literal dict; True when it is no such dict or some key is
        computed."""
        return not isinstance(namespace, cst.Dict) or self._dict_fields(namespace, record, kind)

    def _dict_fields(self, value: cst.Dict, record: str, kind: str) -> bool:
        """Fields from literal dict keys; True when some key is computed."""
        computed = False
        for entry in value.elements:
            key = string_literal(entry.key) if isinstance(entry, cst.DictElement) else None
            if isinstance(entry, cst.DictElement) and key is not None:
                self._field(entry.key, key, record, kind)
            else:
                computed = True
        return computed

    def _namespace_record(
        self, node: cst.Call, namespace: cst.BaseExpression | None, kind: str
    ) -> None:
        """Fields of ``type(name, bases, {...})`` / ``SimpleNamespace({...}, k=v)``: literal
        dict keys and keywords; anything else is a computed field list."""
        typed = kind == "type()"
        record = _record_name(node, "name", f"<{kind}>") if typed else f"<{kind}>"
        computed = namespace is not None and self._namespace_fields(namespace, record, kind)
        starred = self._keyword_fields(node, record, kind, None if typed else ())
        if computed or starred:
            self._computed(node, f"{kind} {record}")
