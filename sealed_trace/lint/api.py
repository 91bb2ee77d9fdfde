"""The lint's one use case: :func:`lint_project` (ADR-0230 §5, §7.3, §15).

The command line (``sealed-trace lint``), the pytest plugin's lint items and markers, and
``sealed-trace init``'s forecast all run the lint through this function: load the policy (or
take one already built), load the rule plugins, lint, then apply what the policy lets through
(selection, ignore entries, the baseline). Each caller builds one frozen
:class:`LintOptions` and renders the :class:`LintRun` it gets back its own way.

Errors a user can fix are :class:`LintError`\\ s (a bad policy, path, selector, plugin or
baseline): :func:`error_lines` words each of them the same way for every caller, one line per
problem; anything else is a bug.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass

from sealed_trace.lint import engine
from sealed_trace.lint.catalog import is_selector
from sealed_trace.lint.config import ConfigError, LintConfig, find_config, load_config
from sealed_trace.lint.discover import is_excluded
from sealed_trace.lint.engine import LintResult
from sealed_trace.lint.filters import BaselineError, Selection, apply_filters, is_selected
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.formats.sarif import Suppressed
from sealed_trace.lint.plugins import PluginError, load_plugin_rules, plugin_manager
from sealed_trace.lint.rules import Rule
from sealed_trace.lint.suppressions import recording_suppressed

__all__ = [
    "LintError",
    "LintOptions",
    "LintRun",
    "LintUsageError",
    "error_lines",
    "lint_project",
]

#: The filters' own findings: a stale ignore entry (ST008) or baseline entry (ST007).
_POLICY_CODES = ("ST007", "ST008")


class LintUsageError(Exception):
    """A path, selector or option combination the lint cannot take (a usage error)."""


#: What :func:`lint_project` raises for a problem the user can fix.
LintError = (ConfigError, LintUsageError, PluginError, BaselineError)


@dataclass(frozen=True, slots=True)
class LintOptions:
    """What to lint and how, built once by each caller.

    ``config``: the ``pyproject.toml`` holding ``[tool.sealed_trace]`` (None: the nearest at
    or above ``start``, the current directory by default); ``policy``: a policy already built
    (a marker's, ``init``'s proposal), which wins over ``config``; ``paths``: report on these
    files or directories only (the graph is always the whole tree's); ``select``/``ignore``:
    rule selectors on top of the policy's; ``use_cache`` and ``cache_dir`` (None: the
    policy's); ``plugins``: extra pluggy plugins, and ``entry_point_plugins`` whether the
    installed ones load; ``skip_uncovered``: skip, instead of refusing, a path outside the
    source roots (what a pre-commit hook passes); ``use_baseline``: False while writing one;
    ``include_suppressed``: also return what a suppression, an ignore entry or the baseline
    hides, with the reason (SARIF); ``every_chain``: each reverse-dependency finding carries
    the shortest chain of every upstream module it affects (what JSON and SARIF show; without
    it, only the finding's own chain, and the run parses less)."""

    config: str | None = None
    policy: LintConfig | None = None
    paths: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    use_cache: bool = True
    cache_dir: str | None = None
    plugins: tuple[object, ...] = ()
    entry_point_plugins: bool = True
    skip_uncovered: bool = False
    use_baseline: bool = True
    include_suppressed: bool = False
    start: str | None = None
    every_chain: bool = True


@dataclass(frozen=True, slots=True)
class LintRun:
    """One run's outcome. ``policy``: the policy linted; ``result``: the engine's result with
    the findings that fail (after selection, ignore entries and the baseline, plus the stale
    entries' ST007/ST008); ``found``: every finding before those filters; ``hidden``: how many
    findings the filters hid; ``suppressed``: with ``include_suppressed``, the findings that
    are not failures and why; ``skipped``: the paths given that the policy does not cover
    (``covers_nothing``: every path given was skipped, nothing ran)."""

    policy: LintConfig
    result: LintResult
    found: tuple[Finding, ...] = ()
    hidden: int = 0
    suppressed: tuple[Suppressed, ...] = ()
    skipped: tuple[str, ...] = ()
    covers_nothing: bool = False

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The findings that fail the run."""
        return self.result.findings


def error_lines(error: Exception) -> list[str]:
    """A :data:`LintError` as the lines every caller shows, one per problem:
    ``sealed-trace lint: <file>:<line>: <problem>`` for each problem of a policy,
    ``sealed-trace lint: plugin: <problem>`` for a plugin, the message otherwise."""
    if isinstance(error, ConfigError):
        lines = error.located()
    elif isinstance(error, PluginError):
        lines = [f"plugin: {error}"]
    else:
        lines = [str(error)]
    return [f"sealed-trace lint: {line}" for line in lines]


def lint_project(options: LintOptions) -> LintRun:
    """Lint the project ``options`` name (see the module docstring).

    Raises :class:`~sealed_trace.lint.config.ConfigError` (the policy),
    :class:`LintUsageError` (a path that does not exist or lies outside the policy, a bad
    selector),
    :class:`~sealed_trace.lint.plugins.PluginError` and
    :class:`~sealed_trace.lint.filters.BaselineError`.
    """
    policy = options.policy or _load(options)
    if options.cache_dir is not None:
        policy = dataclasses.replace(policy, cache_dir=options.cache_dir)
    selection = Selection(
        _selectors(options.select, "select"), _selectors(options.ignore, "ignore")
    )
    paths, skipped = _covered(options, policy)
    if options.paths and not paths:
        empty = LintResult((), 0, 0, False)
        return LintRun(policy, empty, skipped=skipped, covers_nothing=True)

    def rule_loader() -> tuple[Rule, ...]:
        manager = plugin_manager(options.plugins, entry_points=options.entry_point_plugins)
        return load_plugin_rules(manager)

    try:
        with recording_suppressed() as inline:
            result = engine.lint(
                policy,
                paths,
                rule_loader=rule_loader,
                # a cached run holds no suppressed findings: record them afresh
                use_cache=options.use_cache and not options.include_suppressed,
                every_chain=options.every_chain,
            )
    except FileNotFoundError as error:
        raise LintUsageError(f"{error}: no such file or directory") from None
    checked = set(paths) if paths else None
    kept = apply_filters(
        result.findings,
        policy,
        selection,
        use_baseline=options.use_baseline,
        checked_paths=checked,
    )
    added = sum(1 for f in kept if f.code in _POLICY_CODES)
    suppressed: tuple[Suppressed, ...] = ()
    if options.include_suppressed:
        suppressed = _suppressed(result.findings, kept, inline, policy, selection, checked)
    return LintRun(
        policy,
        dataclasses.replace(result, findings=tuple(kept)),
        result.findings,
        len(result.findings) - (len(kept) - added),
        suppressed,
        skipped,
    )


def _load(options: LintOptions) -> LintConfig:
    if options.config is not None:
        return load_config(options.config)
    return load_config(cwd=options.start)


def _selectors(raw: Sequence[str], option: str) -> tuple[str, ...]:
    """Comma-separated selectors (codes, prefixes such as ``ST4``, or names), each checked."""
    values = tuple(v.strip() for item in raw for v in item.split(",") if v.strip())
    bad = [v for v in values if not is_selector(v)]
    if bad:
        raise LintUsageError(
            f"--{option} {', '.join(bad)}: names no lint rule (see sealed-trace rules)"
        )
    return values


def _covered(options: LintOptions, policy: LintConfig) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The paths given that the policy covers, and those it skips (excluded, or outside the
    source roots with ``skip_uncovered``). Raises :class:`LintUsageError` for a path that
    does not exist or that the policy cannot cover."""
    kept: list[str] = []
    skipped: list[str] = []
    for path in options.paths:
        if not os.path.lexists(path):
            raise LintUsageError(f"{path}: no such file or directory")
        outside = outside_policy(path, policy)
        if outside is None:
            kept.append(path)
        elif outside.startswith("excluded") or (
            options.skip_uncovered and outside.startswith("not under")
        ):
            skipped.append(path)  # a file the policy excludes (a hook's staged file, say)
        else:
            raise LintUsageError(f"{path}: {outside}; nothing there would be checked")
    return tuple(kept), tuple(skipped)


def outside_policy(path: str, policy: LintConfig) -> str | None:
    """Why ``path`` lies outside what ``policy`` checks, or None when it is inside."""
    real = os.path.realpath(path)
    root = os.path.realpath(policy.root)
    if os.path.commonpath([real, root]) != root:
        return f"outside the project of {policy.config_path}"
    roots = [os.path.realpath(r) for r in policy.source_roots]
    if not any(
        os.path.commonpath([real, r]) == r or os.path.commonpath([real, r]) == real for r in roots
    ):
        return f"not under a source root of {policy.config_path}"
    rel = os.path.relpath(real, root).replace(os.sep, "/")
    if rel != "." and is_excluded(rel, policy.exclude):
        return f"excluded by {policy.config_path}"
    return None


def own_policies(paths: Sequence[str], policy: LintConfig) -> list[str]:
    """A hint for each policy of its own that holds some of ``paths`` (say a nested example
    project's ``pyproject.toml``): lint them with ``--config`` that file."""
    hints: dict[str, None] = {}
    for path in paths:
        start = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        found = find_config(start)
        if found is not None and os.path.realpath(found) != os.path.realpath(policy.config_path):
            command = f"sealed-trace lint --config {os.path.relpath(found)}"
            hints[f"hint: {path} has a policy of its own: {command}"] = None
    return list(hints)


def _suppressed(
    found: Sequence[Finding],
    kept: Sequence[Finding],
    inline: Sequence[tuple[Finding, str]],
    policy: LintConfig,
    selection: Selection,
    checked: set[str] | None,
) -> tuple[Suppressed, ...]:
    """The findings that are not failures, each with SARIF's reason for it: ``inSource`` for
    a suppression comment, ``external`` for an ignore entry or the baseline."""
    out = [
        Suppressed(f, "inSource", reason)
        for f, reason in inline
        if is_selected(f.code, policy, selection)
    ]
    for f in found:
        entry = next((e for e in policy.ignores if e.ignores(f.path, f.code, f.boundary)), None)
        if entry is not None and is_selected(f.code, policy, selection):
            out.append(Suppressed(f, "external", f"ignore[{entry.index}]: {entry.reason}"))
    if policy.baseline is not None:
        unbaselined = apply_filters(
            found, policy, selection, use_baseline=False, checked_paths=checked
        )
        where = os.path.relpath(policy.baseline, policy.root).replace(os.sep, "/")
        failing = set(kept)
        out += [
            Suppressed(f, "external", f"recorded in the baseline {where}")
            for f in unbaselined
            if f not in failing and f.code not in _POLICY_CODES
        ]
    return tuple(out)
