r"""Built-in lint rules, one per module; see :mod:`sealed_trace.lint.catalog` for the codes.

How to add a rule:

1. Catalogue it in :mod:`sealed_trace.lint.catalog`: code (its family says what it judges:
   ``ST1xx`` imports, ``ST2xx`` banned names, ``ST3xx`` dynamic imports, ``ST4xx`` reverse
   dependencies, ``ST5xx`` fields), kebab name, summary, explanation, ADR section.
2. Declare it in a module of this package named after it (``plugin_discovery.py`` for
   ``plugin-discovery``), on its class (:mod:`.base` says the rest): ``code`` (name, summary
   and explanation come from the catalog), ``roles`` (which files it checks: a
   :class:`~.base.Role` set), a few ``valid`` and ``invalid`` :class:`~.base.Snippet` examples
   (code for the sealed module unless a path is given) and how it judges: a ``{kind:
   message}`` table of dynamic facts (:class:`~.base.FactRule`)::

       class PluginDiscovery(FactRule):
           code = "ST302"
           roles = frozenset({Role.BOUNDARY, Role.UPSTREAM})
           messages: ClassVar[Messages] = {
               DynamicKind.PLUGIN_DISCOVERY: "plugin discovery through {callee}()",
           }
           valid = (Snippet("def entry_points():\n    return []\nentry_points()\n", UPSTREAM),)
           invalid = (Snippet("import importlib.metadata as md\nmd.entry_points()\n", UPSTREAM),)

   or a ``check`` of its own (:class:`~.base.CatalogRule`), yielding ``ctx.finding(...)``::

       class BannedCall(CatalogRule):
           code = "ST201"
           roles = frozenset({Role.BOUNDARY})
           valid = (Snippet("def f(open):\n    return open('x')\n"),)
           invalid = (Snippet("open('f')\n"),)

           def check(self, ctx: RuleContext) -> Iterator[Finding]:
               for ref in ctx.facts.refs:
                   if ref.call and ctx.boundary.is_banned(ref.qname):
                       yield ctx.finding(
                           ref.line, ref.column, self.code, f"call of {ref.qname}", ref.qname
                       )

3. Add an instance to :func:`builtin_rules` (code order) and a section to ``docs/lint.md``.
   ``tests/lint/test_lint_rule_snippets.py`` lints every rule's snippets: a valid one must
   give no finding of the rule's code, an invalid one at least one in its file.

Plugin rules (``docs/lint.md``, "Plugins") may subclass the same bases, giving ``name``,
``summary`` and ``explanation`` themselves, or be any object with the attributes of
:class:`~.base.Rule`.
"""

from __future__ import annotations

from sealed_trace.lint.rules.banned_attribute import BannedAttribute
from sealed_trace.lint.rules.banned_call import BannedCall
from sealed_trace.lint.rules.banned_import import BannedImport
from sealed_trace.lint.rules.base import ClosureEdge, ReverseEdge, Rule, RuleContext
from sealed_trace.lint.rules.closure_import import ClosureImport
from sealed_trace.lint.rules.computed_dynamic_import import ComputedDynamicImport
from sealed_trace.lint.rules.computed_module_attribute import ComputedModuleAttribute
from sealed_trace.lint.rules.forbidden_field import ForbiddenField
from sealed_trace.lint.rules.import_outside_surface import ImportOutsideSurface
from sealed_trace.lint.rules.indirect_reverse_import import IndirectReverseImport
from sealed_trace.lint.rules.package_reverse_import import PackageReverseImport
from sealed_trace.lint.rules.plugin_discovery import PluginDiscovery
from sealed_trace.lint.rules.producer_import import ProducerImport
from sealed_trace.lint.rules.rebound_protected_name import ReboundProtectedName
from sealed_trace.lint.rules.reverse_import import ReverseImport

__all__ = ["BUILTIN_RULES", "ClosureEdge", "ReverseEdge", "Rule", "RuleContext"]


def builtin_rules() -> tuple[Rule, ...]:
    """Fresh instances of every built-in rule, in code order."""
    return (
        ImportOutsideSurface(),
        BannedImport(),
        ProducerImport(),
        BannedCall(),
        BannedAttribute(),
        ReboundProtectedName(),
        ComputedDynamicImport(),
        PluginDiscovery(),
        ComputedModuleAttribute(),
        ReverseImport(),
        IndirectReverseImport(),
        PackageReverseImport(),
        ClosureImport(),
        ForbiddenField(),
    )


BUILTIN_RULES: tuple[Rule, ...] = builtin_rules()
