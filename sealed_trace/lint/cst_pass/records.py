"""Class bodies as records: what kind of record a class is and which fields its body
declares (read when the walk reaches the class, for :class:`~.fields.FieldVisitor`)."""

from __future__ import annotations

from collections.abc import Callable, Collection

import libcst as cst

from sealed_trace.lint.cst_pass.syntax import BLOCKS, string_literal, target_names

__all__ = ["ClassBody", "record_kind"]

#: A resolver of expressions to qualified names.
Resolve = Callable[[cst.BaseExpression], set[str]]

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
_PROPERTY = frozenset({"builtins.property", "functools.cached_property"})
_SPECIAL = ("__slots__", "__annotations__")


def record_kind(
    node: cst.ClassDef, resolve: Resolve, enum_classes: Collection[str]
) -> tuple[str, bool]:
    """``(kind, is enum)`` of a class: its record decorator or base (``dataclass``,
    ``attrs class``, ``NamedTuple``, ...), ``enum`` for an enum (a subclass of ``enum.*`` or
    of an enum of the module), else ``annotated class``. The same whatever the hash seed."""
    kind = _decorated_kind(node, resolve)
    enum = False
    for base in node.bases:
        for q in sorted(resolve(base.value)):  # a base bound to several: the last by name
            kind = _BASES.get(q, kind)
            enum = enum or q.startswith("enum.")
        enum = enum or _names_one_of(base.value, enum_classes)
    return ("enum" if enum else kind), enum


def _decorated_kind(node: cst.ClassDef, resolve: Resolve) -> str:
    """``dataclass`` or ``attrs class`` by the class's decorators (the last such wins), else
    ``annotated class``."""
    kind = "annotated class"
    for decorator in node.decorators:
        expr = decorator.decorator
        names = resolve(expr.func if isinstance(expr, cst.Call) else expr)
        if names & _DATACLASS:
            kind = "dataclass"
        elif names & _ATTRS:
            kind = "attrs class"
    return kind


def _names_one_of(node: cst.BaseExpression, names: Collection[str]) -> bool:
    """A bare name among ``names``."""
    return isinstance(node, cst.Name) and node.value in names


def _declares_fields(body: cst.CSTNode) -> bool:
    """Whether a class body declares fields itself: an annotation, ``__slots__`` or
    ``__annotations__`` (also inside ``if``/``try`` blocks of the body)."""
    for child in body.children:
        if isinstance(child, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            if any(_declares_field(small) for small in child.body):
                return True
        elif isinstance(child, (cst.FunctionDef, cst.ClassDef)):
            continue
        elif isinstance(child, BLOCKS) and _declares_fields(child):
            return True
    return False


def _declares_field(small: cst.BaseSmallStatement) -> bool:
    """An annotation, or an assignment to ``__slots__`` or ``__annotations__``."""
    if isinstance(small, cst.AnnAssign):
        return True
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, cst.AugAssign):
        targets = [small.target]
    else:
        return False
    return any(isinstance(t, cst.Name) and t.value in _SPECIAL for t in targets)


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
        self.names.extend(target_names(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.names.extend(target_names(node.target))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.names.extend(target_names(node.asname.name))

    def visit_Import(self, node: cst.Import) -> bool:
        self._aliases(node.names)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not isinstance(node.names, cst.ImportStar):
            self._aliases(node.names)
        return False

    def _aliases(self, aliases: Collection[cst.ImportAlias]) -> None:
        for alias in aliases:
            if alias.asname is not None:
                self.names.extend(target_names(alias.asname.name))
            elif isinstance(alias.name, cst.Name):
                self.names.append(alias.name)


class ClassBody:
    """The fields one class body declares, reported through ``field(node, name, record,
    kind)`` and ``computed(node, what)`` (a field list that cannot be read)."""

    def __init__(
        self,
        resolve: Resolve,
        record: str,
        kind: str,
        field: Callable[[cst.CSTNode, str, str, str], None],
        computed: Callable[[cst.CSTNode, str], None],
    ) -> None:
        self.resolve = resolve
        self.record = record
        self.kind = kind
        self.field = field
        self.computed = computed
        #: methods whose ``self`` assignments are fields: function node id -> (record, self)
        self.methods: dict[int, tuple[str, str]] = {}

    def read(self, node: cst.ClassDef) -> dict[int, tuple[str, str]]:
        """Report the fields of ``node``'s body; return its methods whose assignments to
        ``self`` are fields (none for a plain class: no record decorator or base, no
        annotations, no ``__slots__``; what its methods assign is state, not fields)."""
        plain = self.kind == "annotated class" and not _declares_fields(node.body)
        self._level(node.body, not plain)
        binds = _ClassBinds(node)
        node.body.visit(binds)
        for name in binds.names:
            self.field(name, name.value, self.record, "class attribute")
        return self.methods

    def _level(self, node: cst.CSTNode, instance: bool) -> None:
        """Walk a class body, through ``if``/``try``/``with``/``for``/``while``/``match``
        blocks (not into nested classes, which are records of their own); ``instance``: what
        methods assign to ``self`` are fields."""
        for child in node.children:
            if isinstance(child, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                for small in child.body:
                    self._statement(small)
            elif isinstance(child, cst.FunctionDef):
                self._method(child, instance)
            elif isinstance(child, cst.ClassDef):
                continue
            elif isinstance(child, BLOCKS):
                self._level(child, instance)

    def _method(self, node: cst.FunctionDef, instance: bool) -> None:
        """A property is a field; a method's first parameter is its ``self``."""
        static = False
        for decorator in node.decorators:
            names = self.resolve(decorator.decorator)
            if names & _PROPERTY:
                self.field(node.name, node.name.value, self.record, "property")
            if "builtins.staticmethod" in names:
                static = True
        params = [*node.params.posonly_params, *node.params.params]
        if params and not static and instance:
            self.methods[id(node)] = (self.record, params[0].name.value)

    def _statement(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.AnnAssign):
            self._annotated(small)
        elif isinstance(small, cst.Assign):
            self._assigned(small)
        elif (
            isinstance(small, cst.AugAssign)
            and isinstance(small.target, cst.Name)
            and self.kind != "enum"
            and not self._special(small.target.value, small.value)
        ):
            self.field(small.target, small.target.value, self.record, "class attribute")

    def _annotated(self, small: cst.AnnAssign) -> None:
        for name in target_names(small.target):
            self.field(name, name.value, self.record, self.kind)
            if small.value is not None:
                self._special(name.value, small.value)

    def _assigned(self, small: cst.Assign) -> None:
        for target in small.targets:
            self._annotations_item(target.target)
            if self.kind == "enum":
                continue  # enum members are constants, not fields
            for name in target_names(target.target):
                if not self._special(name.value, small.value):
                    self.field(name, name.value, self.record, self._attribute_kind(small.value))

    def _attribute_kind(self, value: cst.BaseExpression) -> str:
        """``attr.ib()`` is an attrs field, ``property(...)`` a property, anything else a
        class attribute."""
        if isinstance(value, cst.Call):
            if self.resolve(value.func) & _ATTRS_FIELD:
                return "attrs class"
            if self.resolve(value.func) & _PROPERTY:
                return "property"
        return "class attribute"

    def _annotations_item(self, target: cst.BaseExpression) -> None:
        """``__annotations__["name"] = type`` in a class body declares a field."""
        if not (
            isinstance(target, cst.Subscript)
            and isinstance(target.value, cst.Name)
            and target.value.value == "__annotations__"
        ):
            return
        key = None
        if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
            key = string_literal(target.slice[0].slice.value)
        if key is None:
            self.computed(target, f"{self.record}.__annotations__")
        else:
            self.field(target, key, self.record, "__annotations__")

    def _special(self, name: str, value: cst.BaseExpression) -> bool:
        """``__slots__`` and ``__annotations__`` declare fields through their contents."""
        if name == "__slots__":
            self._slots(value)
            return True
        if name == "__annotations__":
            if not isinstance(value, cst.Dict) or self._dict_fields(value, "__annotations__"):
                self.computed(value, f"{self.record}.__annotations__")
            return True
        return False

    def _dict_fields(self, value: cst.Dict, kind: str) -> bool:
        """Fields from literal dict keys; True when some key is computed."""
        computed = False
        for entry in value.elements:
            key = string_literal(entry.key) if isinstance(entry, cst.DictElement) else None
            if isinstance(entry, cst.DictElement) and key is not None:
                self.field(entry.key, key, self.record, kind)
            else:
                computed = True
        return computed

    def _slots(self, value: cst.BaseExpression) -> None:
        """``__slots__ = "a b"``, ``("a", "b")``, ``{"a": doc}``: a field per name."""
        text = string_literal(value)
        if text is not None:
            for word in text.split():
                self.field(value, word, self.record, "__slots__")
        elif isinstance(value, (cst.Tuple, cst.List, cst.Set)):
            for element in value.elements:
                self._slot(element)
        elif not isinstance(value, cst.Dict) or self._dict_fields(value, "__slots__"):
            self.computed(value, f"{self.record}.__slots__")

    def _slot(self, element: cst.BaseElement) -> None:
        text = None if isinstance(element, cst.StarredElement) else string_literal(element.value)
        if text is None:
            self.computed(element, f"{self.record}.__slots__")
        else:
            self.field(element.value, text, self.record, "__slots__")
