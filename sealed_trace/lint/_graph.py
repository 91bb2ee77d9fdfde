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

from sealed_trace.lint.facts import (
    IMPORT_FUNCS,
    PATH_LOADERS,
    PLUGIN_FUNCS,
    DynamicFact,
    FileFacts,
    ImportFact,
    RefFact,
)
from sealed_trace.lint.suppressions import scan_suppressions

__all__ = ["extract_graph_facts"]

_IMPORT_FUNCS = IMPORT_FUNCS
_PLUGIN_FUNCS = PLUGIN_FUNCS


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


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


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

    # -- helpers -------------------------------------------------------------------------------
    def pos(self, node: ast.AST) -> tuple[int, int]:
        line = getattr(node, "lineno", 1)
        offset = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if not text.isascii():
            offset = len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))
        return line, offset + 1

    def absolute(self, level: int, name: str) -> str:
        if level == 0:
            return name
        package = self.module if self.is_package else self.module.rpartition(".")[0]
        parts = package.split(".") if package else []
        if not parts or level - 1 >= len(parts):
            return ""
        base = parts[: len(parts) - (level - 1)]
        return ".".join([*base, name]) if name else ".".join(base)

    def resolve(self, node: ast.expr) -> set[str]:
        if isinstance(node, ast.Name):
            bound = self.bindings.get(node.id)
            if bound:
                return set(bound)
            return {f"builtins.{node.id}"} if node.id in ("__import__", "getattr") else set()
        if isinstance(node, ast.Attribute):
            return {f"{b}.{node.attr}" for b in self.resolve(node.value)}
        if isinstance(node, ast.Call) and "builtins.getattr" in self.resolve(node.func):
            text = _literal(_arg(node, 1, "name"))
            obj = _arg(node, 0, "o")
            if text is not None and obj is not None:
                return {f"{b}.{text}" for b in self.resolve(obj)}
        return set()

    # -- one pass over the tree, resolution deferred until every import is bound ----------
    def run(self, tree: ast.Module) -> None:
        """Walk ``tree`` once (iteratively: no recursion limit), then resolve references."""
        refs: list[tuple[ast.expr, int, int, bool]] = []
        calls: list[tuple[ast.Call, bool]] = []
        stack: list[tuple[ast.AST, bool]] = [(tree, False)]
        while stack:
            node, tc = stack.pop()
            if isinstance(node, ast.If):
                inside = tc or _is_type_checking(node.test)
                stack.extend((child, tc) for child in node.orelse)
                stack.extend((child, inside) for child in node.body)
                stack.append((node.test, tc))
                continue
            if isinstance(node, ast.Import):
                self._import(node, tc)
                continue
            if isinstance(node, ast.ImportFrom):
                self._import_from(node, tc)
                continue
            if isinstance(node, (ast.Attribute, ast.Name)):
                inner: ast.expr = node
                while isinstance(inner, ast.Attribute):
                    inner = inner.value
                if not isinstance(inner, ast.Name):
                    stack.append((inner, tc))
                elif isinstance(node.ctx, ast.Load):
                    line, col = self.pos(node)
                    refs.append((node, line, col, tc))
                continue
            if isinstance(node, ast.Call):
                calls.append((node, tc))
            stack.extend((child, tc) for child in ast.iter_child_nodes(node))
        tc_only = self.tc_bound - self.rt_bound
        for expr, line, col, tc in refs:
            root = expr
            while isinstance(root, ast.Attribute):
                root = root.value
            # a name imported only under TYPE_CHECKING is only used in annotations
            tc_ref = tc or (isinstance(root, ast.Name) and root.id in tc_only)
            for q in sorted(self.resolve(expr)):
                self.refs.append(RefFact(line, col, q, False, "", tc_ref))
        for call, tc in calls:
            self._call(call, tc)

    def _import(self, node: ast.Import, tc: bool) -> None:
        for alias in node.names:
            if alias.asname:
                self.bindings.setdefault(alias.asname, set()).add(alias.name)
                (self.tc_bound if tc else self.rt_bound).add(alias.asname)
            else:
                root = alias.name.partition(".")[0]
                self.bindings.setdefault(root, set()).add(root)
                (self.tc_bound if tc else self.rt_bound).add(root)
            line, col = self.pos(alias)
            self.imports.append(ImportFact(line, col, alias.name, None, "import", tc,
                                           f"import {alias.name}"))

    def _import_from(self, node: ast.ImportFrom, tc: bool) -> None:
        module = self.absolute(node.level, node.module or "")
        spelled = "." * node.level + (node.module or "")
        for alias in node.names:
            if module and alias.name != "*":
                name = alias.asname or alias.name
                self.bindings.setdefault(name, set()).add(f"{module}.{alias.name}")
                (self.tc_bound if tc else self.rt_bound).add(name)
            line, col = self.pos(alias if alias.name != "*" else node)
            self.imports.append(ImportFact(line, col, module, alias.name, "from", tc,
                                           f"from {spelled} import {alias.name}"))

    def _call(self, node: ast.Call, tc: bool) -> None:
        callee = self.resolve(node.func)
        if not callee & (_IMPORT_FUNCS | _PLUGIN_FUNCS | PATH_LOADERS):
            return
        line, col = self.pos(node)
        if callee & _IMPORT_FUNCS:
            self._dynamic_import(node, sorted(callee & _IMPORT_FUNCS)[0], line, col, tc)
        if callee & PATH_LOADERS:
            self.dynamics.append(DynamicFact(line, col, "path-import",
                                             sorted(callee & PATH_LOADERS)[0]))
        if callee & _PLUGIN_FUNCS:
            self.dynamics.append(
                DynamicFact(line, col, "plugin-discovery", sorted(callee & _PLUGIN_FUNCS)[0])
            )

    def _dynamic_import(self, node: ast.Call, func: str, line: int, col: int, tc: bool) -> None:
        text = _literal(_arg(node, 0, "mod_name" if func == "runpy.run_module" else "name"))
        if text is None or not text.strip("."):
            self.dynamics.append(DynamicFact(line, col, "computed-import", func))
            return
        level = len(text) - len(text.lstrip("."))
        module = text
        if level:
            package_arg = _arg(node, 1, "package")
            package = _literal(package_arg)
            if package is not None:
                parts = package.split(".")
                base = parts[: len(parts) - (level - 1)] if level - 1 < len(parts) else []
                module = ".".join([*base, text[level:]]) if base else ""
            elif isinstance(package_arg, ast.Name) and package_arg.id == "__package__":
                module = self.absolute(level, text[level:])
            else:
                self.dynamics.append(DynamicFact(line, col, "computed-import", func))
                return
        self.imports.append(ImportFact(line, col, module, None, "dynamic", tc,
                                       f"{func}({text!r})"))
        fromlist = _arg(node, 3, "fromlist") if func == "builtins.__import__" else None
        if isinstance(fromlist, (ast.List, ast.Tuple)):
            for element in fromlist.elts:
                item = _literal(element)
                if item:
                    self.imports.append(ImportFact(line, col, module, item, "dynamic", tc,
                                                   f"{func}({text!r}, fromlist=[{item!r}])"))


def extract_graph_facts(text: str, module: str | None, is_package: bool) -> FileFacts:
    """Imports, dynamic imports and import-resolved references of ``text``.

    A syntax error (or nesting too deep for the parser) becomes an ST001 error fact.
    """
    suppressions = scan_suppressions(text)
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return FileFacts(error=("ST001", exc.lineno or 1, max(1, exc.offset or 1),
                                f"not valid Python: {exc.msg}"), suppressions=suppressions)
    except (RecursionError, MemoryError, ValueError) as exc:
        return FileFacts(error=("ST001", 1, 1, f"cannot parse: {type(exc).__name__} "
                                "(nesting too deep)"), suppressions=suppressions)
    visitor = _Visitor(text, module or "", is_package)
    try:
        visitor.run(tree)
    except RecursionError:
        return FileFacts(error=("ST001", 1, 1, "cannot analyse: nesting too deep"),
                         suppressions=suppressions)
    return FileFacts(
        imports=tuple(visitor.imports),
        refs=tuple(dict.fromkeys(visitor.refs)),
        dynamics=tuple(visitor.dynamics),
        suppressions=suppressions,
    )
