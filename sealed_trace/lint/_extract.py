"""The libcst pass: one parse and one batched visit per file, producing :class:`FileFacts`.

This is the only module of the project that imports libcst (with :mod:`sealed_trace.lint.rules`
plugins free to do the same). Names are resolved with libcst's ``QualifiedNameProvider`` and
``ScopeProvider``, never from source text, so aliases resolve and strings, comments and
docstrings are never mistaken for code. The scanned code is never imported or executed.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import tokenize
import unicodedata

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import (
    Assignment,
    MetadataWrapper,
    PositionProvider,
    QualifiedName,
    QualifiedNameProvider,
    QualifiedNameSource,
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
)
from sealed_trace.lint.suppressions import scan_suppressions

__all__ = ["extract_facts"]

_IMPORT_FUNCS = IMPORT_FUNCS
_PLUGIN_FUNCS = PLUGIN_FUNCS
_TYPE_CHECKING = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})
_DATACLASS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
_ATTRS = frozenset({
    "attr.s", "attr.attrs", "attr.define", "attr.frozen", "attr.mutable", "attr.dataclass",
    "attrs.define", "attrs.frozen", "attrs.mutable",
})
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


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider, QualifiedNameProvider, ScopeProvider)

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

    # -- helpers ---------------------------------------------------------------------------
    def _pos(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self.get_metadata(PositionProvider, node).start
        return start.line, start.column + 1

    def _qnames(self, node: cst.CSTNode) -> set[str]:
        found: set[QualifiedName] = self.get_metadata(
            QualifiedNameProvider, node, set()  # type: ignore[arg-type]
        )
        return {q.name for q in found if q.source in _RESOLVED}

    def _resolve(self, node: cst.BaseExpression) -> set[str]:
        """Qualified names an expression refers to: imports, builtins, getattr, aliases."""
        if isinstance(node, (cst.Name, cst.Attribute)):
            names = self._qnames(node) if _dotted(node) else set()
            if names:
                return names
            if isinstance(node, cst.Name):
                return self._alias_names(node)
            base = self._resolve(node.value)
            return {f"{b}.{node.attr.value}" for b in base}
        if isinstance(node, cst.Call) and "builtins.getattr" in self._qnames(node.func):
            obj, attr = _arg(node, 0, "o"), _arg(node, 1, "name")
            if obj is not None and attr is not None:
                text = _literal(attr)
                if text is not None:
                    return {f"{b}.{text}" for b in self._resolve(obj)}
        return set()

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
        if level == 0:
            return name
        parts = self._package().split(".") if self._package() else []
        if level - 1 > len(parts) or not parts:
            return ""
        base = parts[: len(parts) - (level - 1)]
        if not base:
            return ""
        return ".".join([*base, name]) if name else ".".join(base)

    # -- type checking blocks ----------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._tc_blocks:
            self._tc_depth += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if id(original_node) in self._tc_blocks:
            self._tc_depth -= 1

    def visit_If(self, node: cst.If) -> None:
        if self._qnames(node.test) & _TYPE_CHECKING:
            self._tc_blocks.add(id(node.body))

    # -- imports -------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            bound = alias.asname.name if alias.asname is not None else alias.name
            self._bound((get_full_name_for_node(bound) or name).partition(".")[0])
            line, col = self._pos(alias)
            self.imports.append(
                ImportFact(line, col, name, None, "import", self._tc_depth > 0, f"import {name}")
            )
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        level = len(node.relative)
        name = get_full_name_for_node(node.module) if node.module is not None else ""
        module = self._absolute(level, name or "")
        spelled = "." * level + (name or "")
        tc = self._tc_depth > 0
        if isinstance(node.names, cst.ImportStar):
            line, col = self._pos(node)
            self.imports.append(
                ImportFact(line, col, module, "*", "from", tc, f"from {spelled} import *")
            )
            return False
        for alias in node.names:
            imported = get_full_name_for_node(alias.name) or ""
            bound = alias.asname.name if alias.asname is not None else alias.name
            self._bound(get_full_name_for_node(bound) or imported)
            line, col = self._pos(alias)
            self.imports.append(
                ImportFact(line, col, module, imported, "from", tc,
                           f"from {spelled} import {imported}")
            )
        return False

    def _bound(self, name: str) -> None:
        """Record that ``name`` is bound by an import inside (or outside) ``TYPE_CHECKING``."""
        (self._tc_bound if self._tc_depth > 0 else self._rt_bound).add(name)

    # -- references ------------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._inner.add(id(node.value))
        if id(node) not in self._inner:
            self._reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._inner:
            self._reference(node)

    def _reference(self, node: cst.Name | cst.Attribute) -> None:
        call = id(node) in self._callees
        names = self._qnames(node) if _dotted(node) else set()
        line, col = self._pos(node)
        tc = self._tc_depth > 0
        if names:
            root: cst.BaseExpression = node
            while isinstance(root, cst.Attribute):
                root = root.value
            for q in sorted(names):
                if isinstance(root, cst.Name):
                    self._import_refs.append((len(self.refs), root.value))
                self.refs.append(RefFact(line, col, q, call, "", tc))
        elif isinstance(node, cst.Name):
            ids = self._assignment_ids(node)
            if ids:
                self._pending.append((line, col, call, tc, ids, node.value))
        else:
            for q in sorted(self._resolve(node)):
                self.refs.append(RefFact(line, col, q, call, "getattr", tc))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

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
    def visit_Call(self, node: cst.Call) -> None:
        self._callees.add(id(node.func))
        callee = self._resolve(node.func)
        line, col = self._pos(node)
        if callee & _IMPORT_FUNCS:
            self._dynamic_import(node, callee, line, col)
        if callee & PATH_LOADERS:
            self.dynamics.append(DynamicFact(line, col, "path-import",
                                             sorted(callee & PATH_LOADERS)[0]))
        if callee & _PLUGIN_FUNCS:
            self.dynamics.append(
                DynamicFact(line, col, "plugin-discovery", sorted(callee & _PLUGIN_FUNCS)[0])
            )
        if "builtins.getattr" in callee:
            obj, attr = _arg(node, 0, "o"), _arg(node, 1, "name")
            if obj is not None and attr is not None:
                if _literal(attr) is None and self._resolve(obj):
                    self.dynamics.append(DynamicFact(line, col, "computed-getattr",
                                                     sorted(self._resolve(obj))[0]))
                elif _literal(attr) is not None and id(node) not in self._inner:
                    for q in sorted(self._resolve(node)):
                        self.refs.append(RefFact(line, col, q, id(node) in self._callees,
                                                 "getattr", self._tc_depth > 0))
        records = {_CALL_RECORDS[c] for c in callee if c in _CALL_RECORDS}
        if records:
            self._call_record(node, sorted(records)[0])

    def _dynamic_import(self, node: cst.Call, callee: set[str], line: int, col: int) -> None:
        func = sorted(callee & _IMPORT_FUNCS)[0]
        name_arg = _arg(node, 0, "mod_name" if func == "runpy.run_module" else "name")
        text = _literal(name_arg) if name_arg is not None else None
        if text is None or not text.strip("."):
            self.dynamics.append(DynamicFact(line, col, "computed-import", func))
            return
        level = len(text) - len(text.lstrip("."))
        if level:
            package = _arg(node, 1, "package")
            pkg = _literal(package) if package is not None else None
            if pkg is None:
                if isinstance(package, cst.Name) and package.value == "__package__":
                    module = self._absolute(level, text[level:])
                else:
                    self.dynamics.append(DynamicFact(line, col, "computed-import", func))
                    return
            else:
                parts = pkg.split(".")
                base = parts[: len(parts) - (level - 1)] if level - 1 < len(parts) else []
                module = ".".join([*base, text[level:]]) if base else ""
        else:
            module = text
        tc = self._tc_depth > 0
        self.imports.append(
            ImportFact(line, col, module, None, "dynamic", tc, f"{func}({text!r})")
        )
        fromlist = _arg(node, 3, "fromlist") if func == "builtins.__import__" else None
        if isinstance(fromlist, (cst.List, cst.Tuple)):
            for element in fromlist.elements:
                item = _literal(element.value)
                if item:
                    self.imports.append(ImportFact(line, col, module, item, "dynamic", tc,
                                                   f"{func}({text!r}, fromlist=[{item!r}])"))

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
        if fields_arg is not None:
            text = _literal(fields_arg)
            if text is not None:
                for word in text.replace(",", " ").split():
                    self._field(fields_arg, word, record, kind)
            elif isinstance(fields_arg, (cst.List, cst.Tuple)):
                for element in fields_arg.elements:
                    value = element.value
                    if isinstance(value, (cst.Tuple, cst.List)) and value.elements:
                        value = value.elements[0].value
                    item = _literal(value)
                    if item is not None:
                        self._field(value, item, record, kind)
            elif isinstance(fields_arg, cst.Dict):
                for entry in fields_arg.elements:
                    if isinstance(entry, cst.DictElement):
                        key = _literal(entry.key)
                        if key is not None:
                            self._field(entry.key, key, record, kind)
        for a in node.args:
            if a.keyword is not None and a.keyword.value not in (
                "typename", "fields", "field_names", "total", "rename", "defaults", "module",
                "bases", "namespace", "init", "repr", "eq", "order", "unsafe_hash", "frozen",
                "slots", "kw_only", "match_args", "weakref_slot",
            ):
                self._field(a.keyword, a.keyword.value, record, kind)

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
        for base in node.bases:
            for q in self._resolve(base.value):
                if q in _BASES:
                    kind = _BASES[q]
        record = node.name.value
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        for statement in body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self._class_statement(small, record, kind)
            elif isinstance(statement, cst.FunctionDef):
                for decorator in statement.decorators:
                    if self._resolve(decorator.decorator) & _PROPERTY:
                        self._field(statement.name, statement.name.value, record, "property")

    def _class_statement(self, small: cst.BaseSmallStatement, record: str, kind: str) -> None:
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
            self._field(small.target, small.target.value, record, kind)
        elif isinstance(small, cst.Assign):
            for target in small.targets:
                if not isinstance(target.target, cst.Name):
                    continue
                name = target.target.value
                if name == "__slots__":
                    self._slots(small.value, record)
                elif isinstance(small.value, cst.Call) and (
                    self._resolve(small.value.func) & _ATTRS_FIELD
                ):
                    self._field(target.target, name, record, "attrs class")

    def _slots(self, value: cst.BaseExpression, record: str) -> None:
        text = _literal(value)
        if text is not None:
            for word in text.split():
                self._field(value, word, record, "__slots__")
            return
        elements: list[cst.BaseElement | cst.BaseDictElement] = []
        if isinstance(value, (cst.Tuple, cst.List, cst.Set, cst.Dict)):
            elements = list(value.elements)
        for element in elements:
            node = element.key if isinstance(element, cst.DictElement) else getattr(
                element, "value", None
            )
            if isinstance(node, cst.BaseExpression):
                item = _literal(node)
                if item is not None:
                    self._field(node, item, record, "__slots__")

    # -- finish ------------------------------------------------------------------------------
    def finish(self) -> None:
        """Resolve local names bound to imported facilities (``clk = time.time; clk()``), and
        mark references through names imported only under ``TYPE_CHECKING`` (annotations)."""
        tc_only = self._tc_bound - self._rt_bound
        for index, root in self._import_refs:
            if root in tc_only:
                self.refs[index] = dataclasses.replace(self.refs[index], type_checking=True)
        for line, col, call, tc, ids, name in self._pending:
            names: set[str] = set()
            for ident in ids:
                names |= self._aliases.get(ident, set())
            for q in sorted(names):
                self.refs.append(RefFact(line, col, q, call, f"alias {name}", tc))


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


def extract_facts(text: str, module: str | None, is_package: bool) -> FileFacts:
    """Parse decoded ``text`` and return its facts.

    A syntax error becomes ``FileFacts(error=("ST001", line, column, message))``; so does any
    other failure of the parser or the metadata providers (for example a recursion limit on
    absurdly nested code): the engine fails closed, it never crashes on a file.
    """
    suppressions = scan_suppressions(text)
    # CPython's own parser first: it refuses nesting that could overflow the native libcst
    # parser's stack, and reports syntax errors exactly as the interpreter would.
    try:
        ast.parse(text)
    except SyntaxError as exc:
        where = (exc.lineno or 1, (exc.offset or 1))
        return FileFacts(error=("ST001", where[0], max(1, where[1]),
                                f"not valid Python: {exc.msg}"), suppressions=suppressions)
    except (RecursionError, MemoryError, ValueError) as exc:
        return FileFacts(error=("ST001", 1, 1, f"cannot parse: {type(exc).__name__} "
                                "(nesting too deep)"), suppressions=suppressions)
    try:
        tree = cst.parse_module(normalize_identifiers(text))
    except cst.ParserSyntaxError as exc:
        message = str(exc).splitlines()[0] if str(exc) else "syntax error"
        return FileFacts(error=("ST001", exc.raw_line, exc.raw_column + 1,
                                f"not valid Python: {message}"), suppressions=suppressions)
    except (RecursionError, MemoryError, ValueError, TypeError) as exc:
        return FileFacts(error=("ST001", 1, 1, f"cannot parse: {type(exc).__name__}"),
                         suppressions=suppressions)
    try:
        wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
        collector = _Collector(module, is_package)
        wrapper.visit(collector)
        collector.finish()
    except RecursionError:
        return FileFacts(error=("ST001", 1, 1, "cannot analyse: nesting too deep"),
                         suppressions=suppressions)
    return FileFacts(
        imports=tuple(collector.imports),
        refs=tuple(dict.fromkeys(collector.refs)),
        dynamics=tuple(collector.dynamics),
        fields=tuple(collector.fields),
        suppressions=suppressions,
    )
