"""ST302 plugin-discovery (ADR-0230 §15.2, §5)."""

from __future__ import annotations

from typing import ClassVar

from sealed_trace.lint.facts import DynamicKind
from sealed_trace.lint.rules.base import FactRule, Messages, Role

__all__ = ["PluginDiscovery"]


class PluginDiscovery(FactRule):
    """Entry-point discovery in the boundary or an upstream module."""

    code = "ST302"
    roles = frozenset({Role.BOUNDARY, Role.UPSTREAM})
    messages: ClassVar[Messages] = {
        DynamicKind.PLUGIN_DISCOVERY: "plugin discovery through {callee}()"
    }
