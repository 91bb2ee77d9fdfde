"""The kernel's suite without the sealed_trace plugin (``pytest -p no:sealed_trace``).

With the plugin loaded (the usual way) this does nothing. Without it, the plugin's markers are
registered here as plain names, so ``--strict-markers`` still collects the suite, and each
test that needs the plugin (one of its ``sealed_trace_*`` fixtures or markers) is skipped
with that reason: the rest of the suite runs, and there are no lint items.
"""

from __future__ import annotations

import pytest

_MARKERS = ("sealed_trace_forbid_imports", "sealed_trace_forbid_fields")
_FIXTURES = frozenset(
    (
        "sealed_trace_episodes",
        "practice_episode",
        "sealed_practice_episode",
        "refused_practice_episode",
        "bound_practice_episode",
        "refused_bound_practice_episode",
    )
)


def _loaded(plugins: pytest.PytestPluginManager) -> bool:
    """Whether a module of the plugin's package is registered, under whichever name."""
    return any(
        getattr(plugin, "__name__", "").startswith("pytest_sealed_trace")
        for plugin in plugins.get_plugins()
    )


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # Plugins named by -p or autoloaded are registered before this conftest: when none of
    # ours is, the ini keys this project sets for it are declared here (read by nothing), so
    # they are not "unknown config options" (an error under -W error).
    if not _loaded(pluginmanager):
        parser.addini("sealed_trace_lint", "the sealed_trace plugin's (not loaded)", "bool")
        parser.addini("sealed_trace_record_types", "the plugin's (not loaded)", "args")


def pytest_configure(config: pytest.Config) -> None:
    if not _loaded(config.pluginmanager):
        for name in _MARKERS:
            config.addinivalue_line("markers", f"{name}: the sealed_trace plugin's (not loaded)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _loaded(config.pluginmanager):
        return
    skip = pytest.mark.skip(reason="needs the sealed_trace plugin, which is not loaded")
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if _FIXTURES.intersection(fixtures) or any(
            item.get_closest_marker(name) is not None for name in _MARKERS
        ):
            item.add_marker(skip)
