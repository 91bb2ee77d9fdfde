"""ST302 plugin-discovery (ADR-0230 §15.2, §5)."""

from __future__ import annotations

from typing import ClassVar

from sealed_trace.lint.facts import DynamicKind
from sealed_trace.lint.rules.base import UPSTREAM, FactRule, Messages, Role, Snippet

__all__ = ["PluginDiscovery"]


class PluginDiscovery(FactRule):
    """Entry-point discovery in the boundary or an upstream module."""

    code = "ST302"
    roles = frozenset({Role.BOUNDARY, Role.UPSTREAM})
    messages: ClassVar[Messages] = {
        DynamicKind.PLUGIN_DISCOVERY: "plugin discovery through {callee}()"
    }
    valid = (
        Snippet("def entry_points():\n    return []\nentry_points()\n", UPSTREAM),
        Snippet(
            "from importlib.metadata import entry_points\nentry_points(group='x')\n",
            "src/pkg/cli.py",
        ),
    )
    invalid = (
        Snippet("from importlib.metadata import entry_points\nentry_points(group='x')\n"),
        Snippet("import importlib.metadata as md\neps = md.entry_points()\n", UPSTREAM),
        Snippet(
            "import pkg_resources\nfor ep in pkg_resources.iter_entry_points('x'):\n"
            "    ep.load()\n",
            UPSTREAM,
        ),
    )
