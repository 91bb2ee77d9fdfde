"""The boundary lint of ``[tool.sealed_trace]`` as collected pytest items.

The lint runs once per session, in ``pytest_sessionstart`` of the controlling process: xdist
workers receive the controller's results through ``workerinput`` and never lint themselves,
so ``-n 2`` and no xdist give the same items and outcomes. As that is before pytest starts its
clock, the report header and the terminal summary say how long the lint took, and each lint
item carries it as the ``sealed_trace_lint_seconds`` property (junit XML shows it). Under
``--collect-only`` the items are collected and the lint does not run. With the cache provider
active, the engine's cache lives in ``config.cache`` (``.pytest_cache/d/sealed_trace``); with
``-p no:cacheprovider`` the lint simply runs uncached. A configuration error is a pytest usage
error listing every problem.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_sealed_trace._settings import LINT_FORMATS, flag, path_setting, setting
from sealed_trace import lint

__all__ = [
    "ITEM_MODES",
    "LINT_KEY",
    "REPORT_KEY",
    "LintResults",
    "collect_lint_items",
    "lint_enabled",
    "lint_summary",
    "prepare_lint",
]

ITEM_MODES = ("boundary", "module")


@dataclass(frozen=True)
class LintResults:
    """What the lint items need: per group (boundary name or module path), its findings.

    ``groups`` maps an item name to a list of finding dicts
    (``path, line, column, code, message``); an empty list is a passing item.
    """

    groups: dict[str, list[dict[str, Any]]]
    #: The policy file the lint read (the lint items' parent node).
    config_path: str = ""
    #: The lint's own wall time in seconds, and how many files it checked (None: it did not
    #: run, as under ``--collect-only``).
    seconds: float | None = None
    checked: int = 0

    def to_json(self) -> str:
        """Serialise for xdist's ``workerinput`` (plain JSON text)."""
        return json.dumps(
            {
                "groups": self.groups,
                "config": self.config_path,
                "seconds": self.seconds,
                "checked": self.checked,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> LintResults:
        """Inverse of :meth:`to_json`."""
        data = json.loads(text)
        return cls(data["groups"], data["config"], data.get("seconds"), data.get("checked", 0))


LINT_KEY = pytest.StashKey[LintResults]()
#: The lint's report in the format asked for, when it goes to the terminal summary.
REPORT_KEY = pytest.StashKey[str]()


def lint_enabled(config: pytest.Config) -> bool:
    """True when ``--sealed-trace-lint`` or ini ``sealed_trace_lint = true`` asks for items."""
    return flag(config, "sealed_trace_lint")


def _mode(config: pytest.Config) -> str:
    mode = setting(config, "sealed_trace_lint_items") or "boundary"
    if mode not in ITEM_MODES:
        raise pytest.UsageError(
            f"sealed_trace_lint_items must be one of {', '.join(ITEM_MODES)}, not {mode!r}"
        )
    return mode


def _policy_path(config: pytest.Config) -> str:
    """The policy file: the option or ini key's, else the nearest at or above the rootdir."""
    given = path_setting(config, "sealed_trace_config")
    if given is not None:
        return str(given)
    found = lint.find_config(config.rootpath)
    if found is None:
        raise pytest.UsageError(
            f"--sealed-trace-lint: no pyproject.toml with a [tool.sealed_trace] table at or "
            f"above {config.rootpath}"
        )
    return str(found)


def _compute(config: pytest.Config) -> LintResults:
    """Lint the policy once (the controller's work): the findings by item."""
    path = _policy_path(config)
    cache = getattr(config, "cache", None)
    options = lint.LintOptions(
        config=path,
        use_cache=cache is not None,
        cache_dir=str(cache.mkdir("sealed_trace")) if cache is not None else None,
        every_chain=setting(config, "sealed_trace_lint_format") in ("json", "sarif"),
    )
    mode = _mode(config)
    try:
        if config.getoption("collectonly", default=False):
            # Collecting only: the items exist, the lint does not run.
            return _collected_only(lint.load_config(path), mode)
        run = lint.lint_project(options)
    except lint.LintError as error:
        raise pytest.UsageError("\n".join(lint.error_lines(error))) from None
    _report(config, run.result, run.policy.root)
    groups = _by_boundary(run) if mode == "boundary" else _by_module(run)
    policy_path = str(Path(run.policy.config_path).resolve())
    return LintResults(groups, policy_path, run.result.seconds, run.result.checked)


def _collected_only(policy: Any, mode: str) -> LintResults:
    """The items of ``policy`` without their findings (``--collect-only``)."""
    names = (
        [b.name for b in policy.boundaries]
        if mode == "boundary"
        else [f.relpath for f in policy.files if not lint.is_excluded(f.relpath, policy.exclude)]
    )
    return LintResults({n: [] for n in names}, str(Path(policy.config_path).resolve()))


def _by_boundary(run: Any) -> dict[str, list[dict[str, Any]]]:
    """One group per boundary. A file the lint could not read or parse fails every boundary
    that must judge it (its sealed module, its upstream modules and the packages above them),
    whatever -k or node id selects: a boundary never passes unchecked; any other such file
    fails the ``engine`` group."""
    policy = run.policy
    groups: dict[str, list[dict[str, Any]]] = {b.name: [] for b in policy.boundaries}
    modules = {f.relpath: f.module for f in policy.files}
    for finding in run.findings:
        if finding.boundary in groups:
            groups[finding.boundary].append(finding.to_dict())
            continue
        needing = [b.name for b in policy.boundaries if _judged_by(b, modules.get(finding.path))]
        for key in needing or ["engine"]:
            groups.setdefault(key, []).append(finding.to_dict())
    return groups


def _by_module(run: Any) -> dict[str, list[dict[str, Any]]]:
    """One group per module file (excluded files are in the graph only, never an item)."""
    policy = run.policy
    groups: dict[str, list[dict[str, Any]]] = {
        source.relpath: []
        for source in policy.files
        if not lint.is_excluded(source.relpath, policy.exclude)
    }
    for finding in run.findings:
        groups.setdefault(finding.path, []).append(finding.to_dict())
    return groups


def _report(config: pytest.Config, result: Any, root: str) -> None:
    """Write the lint's report in the format asked for (``--sealed-trace-lint-format``), to
    the output file when one is named, else keep it for the terminal summary."""
    lint_format = setting(config, "sealed_trace_lint_format")
    output = path_setting(config, "sealed_trace_lint_output")
    if lint_format is None and output is None:
        return
    report = lint.render_report(result, _report_format(lint_format), root)
    if output is None:
        config.stash[REPORT_KEY] = report
    else:
        _write_report(output, report)


def _report_format(lint_format: str | None) -> str:
    """The report's format: ``text`` unless one is named. Raises ``pytest.UsageError`` for
    a name that is not a format."""
    if (lint_format or "text") not in LINT_FORMATS:
        raise pytest.UsageError(
            f"sealed_trace_lint_format must be one of {', '.join(LINT_FORMATS)}, not "
            f"{lint_format!r}"
        )
    return lint_format or "text"


def _write_report(output: Path, report: str) -> None:
    """Write ``report`` to ``output``. Raises ``pytest.UsageError`` when it cannot."""
    try:
        output.write_text(report, encoding="utf-8")
    except OSError as error:
        raise pytest.UsageError(
            f"sealed_trace_lint_output: cannot write {output}: {error.strerror or error}"
        ) from None


def _judged_by(boundary: Any, module: str | None) -> bool:
    """Whether ``boundary`` must read ``module`` to judge: the module it seals, an upstream
    module, or a package above either (importing a module runs its packages first)."""
    if module is None:
        return False
    if boundary.seals(module) or boundary.is_upstream(module):
        return True
    below = module + "."
    return boundary.module.startswith(below) or any(
        pattern.startswith(below) for pattern in boundary.upstream
    )


def lint_summary(config: pytest.Config) -> str | None:
    """The line that shows what the lint cost (it runs before pytest starts its clock)."""
    results = config.stash.get(LINT_KEY, None)
    if results is None or results.seconds is None:
        return None
    return (
        f"sealed-trace lint: {results.checked} file(s) in {results.seconds:.2f}s, before "
        "collection (not part of the session time)"
    )


def prepare_lint(config: pytest.Config) -> None:
    """Compute (controller) or receive (xdist worker) the lint results into ``config.stash``."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and "sealed_trace_lint" in workerinput:
        config.stash[LINT_KEY] = LintResults.from_json(workerinput["sealed_trace_lint"])
        return
    config.stash[LINT_KEY] = _compute(config)


class SealedTraceLintFile(pytest.File):
    """The policy file (``pyproject.toml``) as the parent node of the lint items.

    Node ids are ``<policy path>::<boundary or module>``, so a lint item can be run again by
    its id (``pytest pyproject.toml::kernel-sealing``).
    """

    def collect(self) -> Iterator[pytest.Item]:
        results = self.config.stash[LINT_KEY]
        for name in sorted(results.groups):
            item = SealedTraceLintItem.from_parent(self, name=name)
            item.add_marker("sealed_trace")
            yield item


class SealedTraceLintFailure(Exception):
    """Raised by a lint item whose group has findings."""


class SealedTraceLintItem(pytest.Item):
    """One boundary (or module) of the boundary lint; fails when it has findings."""

    def setup(self) -> None:
        seconds = self.config.stash[LINT_KEY].seconds
        if seconds is not None:
            self.user_properties.append(("sealed_trace_lint_seconds", f"{seconds:.3f}"))

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
        lines += ["", f"{len(findings)} finding(s) in {self.name}."]
        lines += _advice(sorted({f["code"] for f in findings}))
        return "\n".join(lines)

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int | None, str]:
        """The real policy file (``--sealed-trace-config`` included): junit's ``file``."""
        return self.path, None, f"sealed-trace lint: {self.name}"


def _advice(codes: list[str]) -> list[str]:
    """What a failing lint item says to do about findings of ``codes``: remove stale policy
    entries, fix or suppress (when a code can be suppressed), and how to explain a rule."""
    suppressible = [c for c in codes if (info := lint.lookup_rule(c)) is None or info.suppressible]
    policy = [c for c in codes if c in ("ST007", "ST008")]
    lines = []
    if policy:
        lines.append(
            "Stale policy entries: remove the ignore entry (ST008), or rewrite the baseline "
            "(ST007): sealed-trace lint --write-baseline <the baseline file>"
        )
    if suppressible:
        lines.append(
            "Fix them, or suppress one on its line with a reason: "
            f"# sealed-trace: ignore[{suppressible[0]}] -- <why this is safe>"
        )
    elif len(policy) < len(codes):
        lines.append(
            "Fix them: these findings are about the files themselves and cannot be suppressed."
        )
    lines.append("Explain a rule: sealed-trace explain " + " | ".join(codes))
    return lines


def lint_file_for(file_path: Path, parent: pytest.Collector) -> SealedTraceLintFile | None:
    """The lint collector when pytest visits the policy file itself (an explicit argument)."""
    results = parent.config.stash.get(LINT_KEY, None)
    if results is None or not results.config_path:
        return None
    if file_path.resolve() != Path(results.config_path):
        return None
    return SealedTraceLintFile.from_parent(parent, path=file_path)


def collect_lint_items(session: pytest.Session, items: list[pytest.Item]) -> list[pytest.Item]:
    """The lint items to add to this session's items (none when pytest already collected
    them through the policy file; -k/-m deselect afterwards)."""
    results = session.config.stash.get(LINT_KEY, None)
    if results is None or any(isinstance(item, SealedTraceLintItem) for item in items):
        return []
    if session.config.args and not _runs_everything(session):
        return []
    parent = SealedTraceLintFile.from_parent(session, path=Path(results.config_path))
    # Collected through pytest's own hooks, so the items count where pytest counts them
    # ("collected N items", --collect-only) like any collected file's.
    report = parent.ihook.pytest_make_collect_report(collector=parent)
    parent.ihook.pytest_collectreport(report=report)
    return [node for node in report.result if isinstance(node, pytest.Item)]


def _runs_everything(session: pytest.Session) -> bool:
    """Whether the session's arguments name whole directories (not single tests or files)."""
    for arg in session.config.args:
        path = Path(arg.split("::")[0])
        if "::" in arg or not (session.config.invocation_params.dir / path).is_dir():
            return False
    return True
