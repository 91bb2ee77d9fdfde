"""Loading lint rules from plugins through pluggy (hook specs in :mod:`sealed_trace.hookspecs`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from sealed_trace.lint.catalog import RuleInfo, explain_rule, lookup_rule, register_rule_info
from sealed_trace.lint.rules import Rule

if TYPE_CHECKING:
    import pluggy

__all__ = ["PluginError", "explain", "load_plugin_rules", "plugin_manager"]

_plugins_loaded: list[bool] = []


def explain(code_or_name: str) -> str | None:
    """:func:`~sealed_trace.lint.catalog.explain_rule`, after registering installed plugins'
    rules (once) when ``code_or_name`` names no known rule."""
    if lookup_rule(code_or_name) is None and not _plugins_loaded:
        _plugins_loaded.append(True)
        # a broken plugin must not break `explain` of the built-in rules
        with contextlib.suppress(Exception):
            load_plugin_rules(plugin_manager())
    return explain_rule(code_or_name)


class PluginError(Exception):
    """A plugin rule is malformed (missing attributes, code or name clash): a usage error."""


def plugin_manager(
    extra: Iterable[object] = (), *, entry_points: bool = True
) -> pluggy.PluginManager:
    """A plugin manager with the sealed-trace specs, the entry-point group and ``extra`` plugins.

    pluggy and the entry-point scan are imported here, not at module import, so the warm
    path of the lint never pays for them.
    """
    # pluggy (and the hook specs, which import it) load only when plugin rules are
    # collected: a warm (cached) lint never pays for them
    import pluggy

    from sealed_trace import hookspecs

    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    if entry_points:
        pm.load_setuptools_entrypoints(hookspecs.ENTRY_POINT_GROUP)
    for plugin in extra:
        pm.register(plugin)
    return pm


def load_plugin_rules(pm: pluggy.PluginManager) -> tuple[Rule, ...]:
    """Collect and validate the rules every plugin returns; register them in the catalog.

    Raises :class:`PluginError` for a rule lacking the interface or clashing with another.
    """
    rules: list[Rule] = []
    for batch in pm.hook.sealed_trace_lint_rules():
        for rule in batch or ():
            _register(rule)
            rules.append(rule)
    return tuple(rules)


def _register(rule: Rule) -> None:
    """Check that a plugin's ``rule`` has the rule interface and register its description in
    the catalog. Raises :class:`PluginError`."""
    missing = [
        a
        for a in ("code", "name", "summary", "explanation", "roles", "check")
        if not hasattr(rule, a)
    ]
    if missing:
        raise PluginError(f"plugin rule {rule!r} lacks {', '.join(missing)}")
    try:
        register_rule_info(
            RuleInfo(
                str(rule.code),
                str(rule.name),
                str(rule.summary),
                str(rule.explanation),
                "plugin",
            )
        )
    except ValueError as exc:
        raise PluginError(str(exc)) from None
