"""The ``sealed_trace`` pytest plugin (``pytest -p sealed_trace``). PYTEST_DONT_REWRITE: it
holds no assertions, and any documented ``-p`` spelling may name it after it was imported.

- Fixtures (:mod:`pytest_sealed_trace.fixtures`): ``sealed_trace_episodes``,
  ``practice_episode``, ``sealed_practice_episode``, ``refused_practice_episode``, and for
  ADR-0233 bound episodes ``bound_practice_episode`` and ``refused_bound_practice_episode``.
- Markers: ``sealed_trace_forbid_imports``, ``sealed_trace_forbid_fields`` and
  ``sealed_trace_forbid_importers`` turn a test into a static check of a module
  (:mod:`pytest_sealed_trace.markers`).
- Lint items: with ``--sealed-trace-lint`` (or ini ``sealed_trace_lint = true``) the boundary
  lint of ``[tool.sealed_trace]`` is collected as test items (:mod:`pytest_sealed_trace.items`),
  computed once per run (on the xdist controller, shared with the workers) and cached in
  ``config.cache`` when the cache provider is active.

Importing this module imports neither libcst nor the lint engine: they load only when a lint
item or a marked test needs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_sealed_trace import hookspecs
from pytest_sealed_trace._settings import IDENTITY_LAYOUTS, LINT_FORMATS
from pytest_sealed_trace.fixtures import (
    FACTORY_KEY,
    bound_practice_episode,
    make_factory,
    practice_episode,
    refused_bound_practice_episode,
    refused_practice_episode,
    sealed_practice_episode,
    sealed_trace_episodes,
)
from pytest_sealed_trace.items import (
    ITEM_MODES,
    LINT_KEY,
    REPORT_KEY,
    collect_lint_items,
    lint_enabled,
    lint_file_for,
    lint_summary,
    prepare_lint,
)
from pytest_sealed_trace.markers import MARKERS, check_markers

__all__ = [
    "bound_practice_episode",
    "practice_episode",
    "refused_bound_practice_episode",
    "refused_practice_episode",
    "sealed_practice_episode",
    "sealed_trace_episodes",
]


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Add the ``sealed_trace_*`` hook specifications."""
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``--sealed-trace-*`` options and their ``sealed_trace_*`` ini twins."""
    group = parser.getgroup("sealed-trace", "ADR-0230 sealed practice traces")
    _add_lint_options(group)
    _add_episode_options(group)
    _add_ini_keys(parser)


def _add_lint_options(group: pytest.OptionGroup) -> None:
    """The options of the lint items and the lint's report."""
    group.addoption(
        "--sealed-trace-lint",
        action="store_true",
        default=None,
        dest="sealed_trace_lint",
        help="collect the boundary lint of [tool.sealed_trace] as test items "
        "(ini sealed_trace_lint)",
    )
    group.addoption(
        "--sealed-trace-config",
        default=None,
        dest="sealed_trace_config",
        metavar="FILE",
        help="pyproject.toml holding [tool.sealed_trace] (default: the rootdir's, or the "
        "nearest above it; ini sealed_trace_config)",
    )
    group.addoption(
        "--sealed-trace-lint-items",
        default=None,
        choices=ITEM_MODES,
        dest="sealed_trace_lint_items",
        help="one lint item per 'boundary' (default) or per 'module' (ini sealed_trace_lint_items)",
    )
    group.addoption(
        "--sealed-trace-lint-format",
        default=None,
        choices=LINT_FORMATS,
        dest="sealed_trace_lint_format",
        help="also write the lint's report in this format, as sealed-trace lint --format "
        "does: to --sealed-trace-lint-output, or after the test summary "
        "(ini sealed_trace_lint_format)",
    )
    group.addoption(
        "--sealed-trace-lint-output",
        default=None,
        dest="sealed_trace_lint_output",
        metavar="FILE",
        help="write the lint's report to FILE (text unless --sealed-trace-lint-format says "
        "otherwise; ini sealed_trace_lint_output)",
    )


def _add_episode_options(group: pytest.OptionGroup) -> None:
    """The options of the episode fixtures."""
    group.addoption(
        "--sealed-trace-record-types",
        action="append",
        default=None,
        dest="sealed_trace_record_types",
        metavar="MODULE",
        help="a module whose classes, named like the reference record types, the episode "
        "fixtures build instead (repeatable; ini sealed_trace_record_types)",
    )
    group.addoption(
        "--sealed-trace-identity-layout",
        default=None,
        choices=IDENTITY_LAYOUTS,
        dest="sealed_trace_identity_layout",
        help="the identity layout the episode fixtures seal under: adr-0230 (the default) or "
        "adr-0233, which the kernel's bound episodes need (sealing-policy §10; ini "
        "sealed_trace_identity_layout)",
    )


def _add_ini_keys(parser: pytest.Parser) -> None:
    """The ``sealed_trace_*`` ini twins of the options."""
    parser.addini(
        "sealed_trace_identity_layout",
        default="adr-0230",
        help="the identity layout the episode fixtures seal under (adr-0230 or adr-0233; "
        "like --sealed-trace-identity-layout)",
    )
    parser.addini(
        "sealed_trace_lint",
        type="bool",
        default=False,
        help="collect the boundary lint as test items (like --sealed-trace-lint)",
    )
    parser.addini(
        "sealed_trace_config",
        default="",
        help="pyproject.toml holding [tool.sealed_trace], relative to the rootdir (like "
        "--sealed-trace-config)",
    )
    parser.addini(
        "sealed_trace_lint_items",
        default="boundary",
        help="one lint item per 'boundary' (default) or per 'module'",
    )
    parser.addini(
        "sealed_trace_lint_format",
        default="",
        help=f"also write the lint's report in this format ({', '.join(LINT_FORMATS)}; like "
        "--sealed-trace-lint-format)",
    )
    parser.addini(
        "sealed_trace_lint_output",
        default="",
        help="write the lint's report to this file, relative to the rootdir (like "
        "--sealed-trace-lint-output)",
    )
    parser.addini(
        "sealed_trace_record_types",
        type="linelist",
        default=[],
        help="modules whose classes, named like the reference record types, the "
        "episode fixtures build instead",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers (and the xdist hand-over when xdist is present)."""
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(), "sealed_trace-xdist")


class _XdistHooks:
    """Hand the controller's lint results to every xdist worker (registered with xdist only)."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        results = node.config.stash.get(LINT_KEY, None)
        if results is not None:
            node.workerinput["sealed_trace_lint"] = results.to_json()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Compute the lint once when it is on: before xdist starts its workers, and only for a
    session that runs or collects tests (``--help``, ``--markers`` and ``--fixtures`` never
    lint, so a broken policy cannot hide them)."""
    config = session.config
    option = config.option
    showing = getattr(option, "showfixtures", False) or getattr(
        option, "show_fixtures_per_test", False
    )
    if showing:
        return
    try:
        # Host record types are resolved once, up front: a bad module is one usage error.
        config.stash[FACTORY_KEY] = make_factory(config)
        if lint_enabled(config):
            prepare_lint(config)
    except pytest.UsageError:
        raise
    except Exception as error:  # a bug: one line, not pytest's INTERNALERROR wall
        # imported here, on an internal error only: importing the plugin loads no core module
        from sealed_trace.errors import internal_error, wants_traceback

        if wants_traceback():
            raise
        line = internal_error("starting the sealed_trace plugin (its lint)", error)
        pytest.exit(f"sealed-trace: {line}", returncode=pytest.ExitCode.INTERNAL_ERROR)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Append the lint items (before -k/-m deselection runs)."""
    if lint_enabled(config):
        items.extend(collect_lint_items(session, items))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect the lint items from the policy file when it is named on the command line."""
    if lint_enabled(parent.config):
        return lint_file_for(file_path, parent)
    return None


def pytest_report_header(config: pytest.Config) -> str | None:
    """Say what the lint cost, when it ran (it runs before pytest's clock)."""
    return lint_summary(config)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Repeat the lint's cost beside the session's own time."""
    line = lint_summary(config)
    if line is not None:
        terminalreporter.write_line(line)
    report = config.stash.get(REPORT_KEY, None)
    if report is not None:
        terminalreporter.section("sealed-trace lint report")
        terminalreporter.write(report)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Run the static checks a test's ``sealed_trace_forbid_*`` markers ask for."""
    check_markers(item)
