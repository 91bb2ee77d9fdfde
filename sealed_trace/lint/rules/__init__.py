"""Built-in lint rules, one per module; see :mod:`sealed_trace.lint.catalog` for the codes."""

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
