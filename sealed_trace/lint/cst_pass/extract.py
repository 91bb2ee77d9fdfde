"""One file through the libcst pass: parse it, resolve its metadata once, and walk it once
with every visitor batched (:meth:`libcst.MetadataWrapper.visit_batched`)."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from sealed_trace.lint.cst_pass.context import FactSink, FileContext
from sealed_trace.lint.cst_pass.dynamic import DynamicVisitor
from sealed_trace.lint.cst_pass.fields import FieldVisitor
from sealed_trace.lint.cst_pass.imports import ImportVisitor, star_imported_modules
from sealed_trace.lint.cst_pass.names import NameResolver
from sealed_trace.lint.cst_pass.parsing import ParseError, check_syntax, on_deep_stack, parse
from sealed_trace.lint.cst_pass.rebinding import ModuleBindings
from sealed_trace.lint.cst_pass.references import ReferenceVisitor
from sealed_trace.lint.dynamic_rules import Importer
from sealed_trace.lint.facts import FileFacts
from sealed_trace.lint.screen import type_checking_spoofed
from sealed_trace.lint.suppressions import scan_suppressions

__all__ = ["extract_facts"]


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
    # CPython's own parser first: it refuses nesting that could overflow the native libcst
    # parser's stack, and reports syntax errors exactly as the interpreter would.
    error, newer = check_syntax(text, target)
    if error is not None:
        return FileFacts(error=error, suppressions=suppressions)
    importer = Importer(module or "", is_package)
    outcome: list[FactSink | ParseError] = []
    on_deep_stack(lambda: outcome.append(_analyse(text, importer, newer)))
    if not outcome:
        outcome.append(("ST001", 1, 1, "cannot analyse: the parser thread failed"))
    facts = outcome[0]
    if not isinstance(facts, FactSink):
        return FileFacts(error=facts, suppressions=suppressions)
    return FileFacts(
        imports=tuple(facts.imports),
        refs=tuple(dict.fromkeys(facts.refs)),
        dynamics=tuple(facts.dynamics),
        fields=tuple(facts.fields),
        suppressions=suppressions,
    )


def _analyse(text: str, importer: Importer, newer: tuple[int, int] | None) -> FactSink | ParseError:
    """Parse and walk (in the deep-stack thread); a tuple is an ST001 error."""
    tree = parse(text, newer)
    if not isinstance(tree, cst.Module):
        return tree
    try:
        return _walk(MetadataWrapper(tree, unsafe_skip_copy=True), importer, text)
    except RecursionError:
        return ("ST001", 1, 1, "cannot analyse: nesting too deep")


def _walk(wrapper: MetadataWrapper, importer: Importer, text: str) -> FactSink:
    """The facts of one parsed file: module-scope bindings first, then one batched walk,
    then what only the whole walk can tell (aliases, type-checking-only names)."""
    tree = wrapper.module
    scopes = wrapper.resolve(ScopeProvider)
    positions = wrapper.resolve(PositionProvider)
    bindings = ModuleBindings(tree, scopes, positions)
    names = NameResolver(scopes, importer, bindings.rebound, star_imported_modules(tree, importer))
    context = FileContext(importer, positions, names)
    context.facts.dynamics.extend(bindings.facts)
    imports = ImportVisitor(context, type_checking_spoofed(text))
    references = ReferenceVisitor(context)
    # The order matters where two visitors add facts of one kind at one node: at a call, the
    # dynamic visitor's facts come before a write to TYPE_CHECKING, which comes before the
    # field visitor's computed field lists.
    visitors = [imports, DynamicVisitor(context, tree), references, FieldVisitor(context)]
    wrapper.visit_batched(visitors, before_visit=context.walk.enter, after_leave=context.walk.leave)
    written = context.facts.type_checking_written()
    if written:
        context.facts.nothing_type_checking_only()
    references.finish(set() if written else imports.type_checking_only(), written)
    return context.facts
