"""The boundary lint of ``[tool.sealed_trace]`` as collected pytest items.

The lint runs once per session, in ``pytest_sessionstart`` of the controlling process: xdist
workers receive the controller's results through ``workerinput`` and never lint themselves,
so ``-n 2`` and no xdist give the same items and outcomes. With the cache provider active,
the engine's cache lives in ``config.cache`` (``.pytest_cache/d/sealed_trace``); with
``-p no:cacheprovider`` the lint simply runs uncached. A configuration error is a pytest usage
error listing every problem.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

__all__ = ["LINT_KEY", "LintResults", "collect_lint_items", "lint_enabled", "prepare_lint"]

_ITEM_MODES = ("boundary", "module")


@dataclass(frozen=True)
class LintResults:
    """What the lint items need: per group (boundary name or module path), its findings.

    ``groups`` maps an item name to a list of finding dicts
    (``path, line, column, code, message``); an empty list is a passing item.
    """

    groups: dict[str, list[dict[str, Any]]]

    def to_json(self) -> str:
        """Serialise for xdist's ``workerinput`` (plain JSON text)."""
        return json.dumps(self.groups, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> LintResults:
        """Inverse of :meth:`to_json`."""
        return cls(json.loads(text))


LINT_KEY = pytest.StashKey[LintResults]()


def lint_enabled(config: pytest.Config) -> bool:
    """True when ``--sealed-trace-lint`` or ini ``sealed_trace_lint = true`` asks for items."""
    option = config.getoption("sealed_trace_lint", default=None)
    return bool(option) or bool(config.getini("sealed_trace_lint"))


def _mode(config: pytest.Config) -> str:
    mode = str(config.getini("sealed_trace_lint_items")).strip() or "boundary"
    if mode not in _ITEM_MODES:
        raise pytest.UsageError(
            f"sealed_trace_lint_items must be one of {', '.join(_ITEM_MODES)}, not {mode!r}"
        )
    return mode


def _compute(config: pytest.Config) -> LintResults:
    from sealed_trace.lint.config import ConfigError, find_config, load_config
    from sealed_trace.lint.engine import lint

    path = config.getoption("sealed_trace_config", default=None)
    if path is None:
        found = find_config(config.rootpath)
        if found is None:
            raise pytest.UsageError(
                f"--sealed-trace-lint: no pyproject.toml with a [tool.sealed_trace] table at or "
                f"above {config.rootpath}"
            )
        path = str(found)
    try:
        policy = load_config(path)
    except ConfigError as error:
        raise pytest.UsageError(
            "\n".join(
                [
                    f"sealed-trace lint configuration {error.source}:",
                    *(f"  - {p}" for p in error.problems),
                ]
            )
        ) from None
    cache = getattr(config, "cache", None)
    if cache is not None:
        policy = dataclasses.replace(policy, cache_dir=str(cache.mkdir("sealed_trace")))
    result = lint(policy, use_cache=cache is not None)
    groups: dict[str, list[dict[str, Any]]] = {}
    if _mode(config) == "boundary":
        for boundary in policy.boundaries:
            groups[boundary.name] = []
        for finding in result.findings:
            key = finding.boundary if finding.boundary in groups else "engine"
            groups.setdefault(key, []).append(finding.to_dict())
    else:
        for source in policy.files:
            groups[source.relpath] = []
        for finding in result.findings:
            groups.setdefault(finding.path, []).append(finding.to_dict())
    return LintResults(groups)


def prepare_lint(config: pytest.Config) -> None:
    """Compute (controller) or receive (xdist worker) the lint results into ``config.stash``."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and "sealed_trace_lint" in workerinput:
        config.stash[LINT_KEY] = LintResults.from_json(workerinput["sealed_trace_lint"])
        return
    config.stash[LINT_KEY] = _compute(config)


class SealedTraceLintCollector(pytest.Collector):
    """Parent node of the lint items (``sealed-trace-lint``)."""

    def collect(self) -> Iterator[pytest.Item]:
        results = self.config.stash[LINT_KEY]
        for name in sorted(results.groups):
            yield SealedTraceLintItem.from_parent(self, name=name)


class SealedTraceLintFailure(Exception):
    """Raised by a lint item whose group has findings."""


class SealedTraceLintItem(pytest.Item):
    """One boundary (or module) of the boundary lint; fails when it has findings."""

    def runtest(self) -> None:
        findings = self.config.stash[LINT_KEY].groups.get(self.name, [])
        if findings:
            raise SealedTraceLintFailure(findings)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if not isinstance(excinfo.value, SealedTraceLintFailure):
            return str(super().repr_failure(excinfo, style=style))
        findings: list[dict[str, Any]] = excinfo.value.args[0]
        lines = [
            f"{f['path']}:{f['line']}:{f['column']} {f['code']} {f['message']}" for f in findings
        ]
        codes = sorted({f["code"] for f in findings})
        lines += [
            "",
            f"{len(findings)} finding(s) in {self.name}. Fix them, or suppress one on its line "
            f"with a reason: # sealed-trace: ignore[{codes[0]}] -- <why this is safe>",
            "Explain a rule: sealed-trace explain " + " | ".join(codes),
        ]
        return "\n".join(lines)

    def reportinfo(self) -> tuple[str, int | None, str]:
        return "pyproject.toml", None, f"sealed-trace lint: {self.name}"


def collect_lint_items(session: pytest.Session) -> list[pytest.Item]:
    """The lint items for this session (all of them; -k/-m deselect afterwards)."""
    if LINT_KEY not in session.config.stash:
        return []
    parent = SealedTraceLintCollector.from_parent(session, name="sealed-trace-lint")
    return list(parent.collect())
