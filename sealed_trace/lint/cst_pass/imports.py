"""Import statements and the guards that say how they run.

:class:`ImportVisitor` records each ``import``/``from ... import`` alias (star imports too) as
an :class:`ImportFact` (through :mod:`sealed_trace.lint.dynamic_rules`, the rule both passes
use), the names imports bind inside and outside ``TYPE_CHECKING``, and marks for the walk the
blocks of ``if TYPE_CHECKING:`` and ``if __name__ == "__main__":``.
:func:`star_imported_modules` reads the module-level star imports before the walk.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import Assignment

from sealed_trace.lint.cst_pass.context import FileContext
from sealed_trace.lint.cst_pass.syntax import BLOCKS, main_guard
from sealed_trace.lint.cst_pass.visitor import FactVisitor
from sealed_trace.lint.dynamic_rules import (
    Importer,
    from_import_binding,
    from_import_fact,
    import_binding,
    import_statement_fact,
)

__all__ = ["TYPE_CHECKING_NAMES", "ImportVisitor", "star_imported_modules"]

#: The qualified names of the type checker's constant.
TYPE_CHECKING_NAMES = frozenset({"typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING"})


def _module_statements(node: cst.CSTNode) -> Iterator[cst.BaseSmallStatement]:
    """The small statements that run at module level: in the module's body and in its
    compound statements' blocks, not in function or class bodies."""
    for child in node.children:
        if isinstance(child, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            yield from child.body
        elif isinstance(child, (cst.FunctionDef, cst.ClassDef)):
            continue
        elif isinstance(child, BLOCKS):
            yield from _module_statements(child)


def star_imported_modules(module: cst.Module, importer: Importer) -> list[str]:
    """The modules ``from m import *`` statements import at module level (sorted): an unbound
    name may come from any of them."""
    found: set[str] = set()
    for statement in _module_statements(module):
        if isinstance(statement, cst.ImportFrom) and isinstance(statement.names, cst.ImportStar):
            name = get_full_name_for_node(statement.module) if statement.module is not None else ""
            absolute = importer.absolute(len(statement.relative), name or "")
            if absolute:
                found.add(absolute)
    return sorted(found)


class ImportVisitor(FactVisitor):
    """Import statements and the ``TYPE_CHECKING`` and main guards (see the module
    docstring). ``type_checking_spoofed``: ``TYPE_CHECKING`` may be bound or written otherwise
    than imported (read from the text), so no block is type-checking-only."""

    def __init__(self, context: FileContext, type_checking_spoofed: bool) -> None:
        super().__init__(context)
        self.type_checking_spoofed = type_checking_spoofed
        #: names bound by imports under ``TYPE_CHECKING``, and by imports that run
        self.type_checking_bound: set[str] = set()
        self.runtime_bound: set[str] = set()

    def type_checking_only(self) -> set[str]:
        """Names bound only by imports under ``TYPE_CHECKING`` (used only in annotations)."""
        return self.type_checking_bound - self.runtime_bound

    # -- guards --------------------------------------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        """Mark the body of a main guard or of a ``TYPE_CHECKING`` test for the walk."""
        walk = self.context.walk
        if main_guard(node.test):
            walk.main_blocks.add(id(node.body))
        if not self.type_checking_spoofed and self._type_checking_test(node.test):
            walk.type_checking_blocks.add(id(node.body))

    def _type_checking_test(self, test: cst.BaseExpression) -> bool:
        """``TYPE_CHECKING`` imported from ``typing``/``typing_extensions`` (a name bound
        otherwise too is not the type checker's constant)."""
        names = self.context.names
        if not names.qnames(test) & TYPE_CHECKING_NAMES:
            return False
        if not isinstance(test, cst.Name):
            return True
        scope = names.scope(test)
        bindings = scope[test.value] if scope is not None else set()
        return all(
            isinstance(a, Assignment) and isinstance(a.node, (cst.Import, cst.ImportFrom))
            for a in bindings
        )

    # -- imports -------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        """One fact per alias of ``import a, b.c as d``."""
        statement = self.context.position(node)[0]
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            asname = _asname(alias)
            self._bound(import_binding(name, asname)[0])
            site = self.context.site(alias)
            self.context.facts.imports.append(import_statement_fact(site, statement, name))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        """One fact per alias of ``from m import a, b as c``, one for ``from m import *``."""
        level = len(node.relative)
        name = (get_full_name_for_node(node.module) if node.module is not None else "") or ""
        module = self.context.importer.absolute(level, name)
        spelled = "." * level + name
        statement = self.context.position(node)[0]
        imports = self.context.facts.imports
        if isinstance(node.names, cst.ImportStar):
            site = self.context.site(node)
            imports.append(from_import_fact(site, statement, module, spelled, "*"))
            return
        for alias in node.names:
            imported = get_full_name_for_node(alias.name) or ""
            self._bound(from_import_binding(module, imported, _asname(alias))[0])
            site = self.context.site(alias)
            imports.append(from_import_fact(site, statement, module, spelled, imported))

    def _bound(self, name: str) -> None:
        """Record that ``name`` is bound by an import inside (or outside) ``TYPE_CHECKING``."""
        if self.context.walk.type_checking:
            self.type_checking_bound.add(name)
        else:
            self.runtime_bound.add(name)


def _asname(alias: cst.ImportAlias) -> str | None:
    """The ``as`` name of an import alias, if any."""
    if alias.asname is None:
        return None
    return get_full_name_for_node(alias.asname.name)
