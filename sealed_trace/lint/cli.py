"""The ``lint`` command: ``sealed-trace lint [PATH...] [--config FILE] [--format F]
[--output-file FILE] [--exit-zero]`` (issue 3 §4; episode-format "Command line").

Exit status: 0 clean, 1 findings, 2 configuration or usage error. User errors are printed to
stderr as one line each (``sealed-trace lint: <file>: <problem>``), never as a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

__all__ = ["add_lint_arguments", "add_lint_parser", "main", "run_lint", "statistics"]

_FORMATS = ("text", "json", "sarif", "github")


def _jobs(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError("must be 0 (one per core) or more")
    return number


def add_lint_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the lint options to ``parser`` (shared by the subcommand and ``-m`` entry)."""
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories to report on (default: the source roots)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        dest="lint_config",
        help="pyproject.toml holding [tool.sealed_trace] (default: nearest)",
    )
    parser.add_argument(
        "--format",
        choices=_FORMATS,
        default="text",
        dest="lint_format",
        help="report format (default: text)",
    )
    parser.add_argument(
        "--output-file",
        metavar="FILE",
        dest="lint_output",
        help="write the report to FILE instead of standard output",
    )
    parser.add_argument(
        "--include-suppressed",
        action="store_true",
        dest="lint_include_suppressed",
        help="with --format sarif: also report the findings a suppression comment, an ignore "
        "entry or the baseline hides, marked in 'suppressions' with the reason",
    )
    parser.add_argument(
        "--exit-zero",
        action="store_true",
        dest="lint_exit_zero",
        help="exit 0 even when there are findings",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        dest="lint_no_cache",
        help="neither read nor write the lint cache",
    )
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        dest="lint_select",
        metavar="CODES",
        help="report only these rules (codes, prefixes such "
        "as ST4, or names; comma-separated, repeatable)",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        dest="lint_ignore",
        metavar="CODES",
        help="do not report these rules (as --select)",
    )
    parser.add_argument(
        "--write-baseline",
        metavar="FILE",
        dest="lint_write_baseline",
        help='record today\'s findings in FILE (then set baseline = "FILE" '
        "in the policy) and exit 0",
    )
    parser.add_argument(
        "--skip-uncovered",
        action="store_true",
        dest="lint_skip_uncovered",
        help="skip, instead of refusing, PATHs outside the policy's source "
        "roots (what a pre-commit hook passes)",
    )
    parser.add_argument(
        "--statistics",
        action="store_true",
        dest="lint_statistics",
        help="print the number of findings per rule instead of the findings",
    )
    parser.add_argument(
        "--show-source",
        action="store_true",
        dest="lint_show_source",
        help="show the offending line with a caret under each finding (text)",
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        dest="lint_quiet",
        help="print the findings only: no summary line, no notes",
    )
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        dest="lint_jobs",
        metavar="N",
        help="accepted for compatibility: the import scanner uses every core",
    )


def add_lint_parser(subparsers: Any) -> None:
    """Add the ``lint`` subcommand to an ``argparse`` subparsers object."""
    parser = subparsers.add_parser(
        "lint",
        help="run the static boundary lint from [tool.sealed_trace]",
        description="Prove the sealed module's import/call surface, forbidden fields and the "
        "absence of reverse dependencies (ADR-0230 §5, §7.3, §15). Exit 0 clean, 1 findings, "
        "2 configuration or usage error.",
    )
    add_lint_arguments(parser)


def _own_policies(paths: list[str], config: Any) -> list[str]:
    """A hint for each policy of its own that holds some of ``paths`` (say a nested example
    project's ``pyproject.toml``): lint them with ``--config`` that file."""
    from sealed_trace.lint.config import find_config

    hints: dict[str, None] = {}
    for path in paths:
        start = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
        found = find_config(start)
        if found is not None and os.path.realpath(found) != os.path.realpath(config.config_path):
            command = f"sealed-trace lint --config {os.path.relpath(found)}"
            hints[f"hint: {path} has a policy of its own: {command}"] = None
    return list(hints)


def _error(message: str) -> None:
    sys.stderr.write(f"sealed-trace lint: {message}\n")


def run_lint(args: argparse.Namespace) -> int:
    """Run the lint for parsed ``args``; return the exit status (0, 1 or 2)."""
    from sealed_trace.lint.config import ConfigError, load_config
    from sealed_trace.lint.engine import lint
    from sealed_trace.lint.formats import render
    from sealed_trace.lint.rules import Rule

    try:
        config = load_config(args.lint_config) if args.lint_config else load_config()
    except ConfigError as exc:
        for problem in exc.located():
            _error(problem)
        return 2

    def load_rules() -> tuple[Rule, ...]:
        from sealed_trace.lint.plugins import load_plugin_rules, plugin_manager

        return load_plugin_rules(plugin_manager(getattr(args, "lint_plugins", ())))

    quiet = bool(getattr(args, "lint_quiet", False))
    paths = tuple(getattr(args, "paths", ()) or ())
    kept: list[str] = []
    skipped: list[str] = []
    for path in paths:
        if not os.path.lexists(path):
            _error(f"{path}: no such file or directory")
            return 2
        outside = _outside_policy(path, config)
        if outside and (
            outside.startswith("excluded")
            or (getattr(args, "lint_skip_uncovered", False) and outside.startswith("not under"))
        ):
            skipped.append(path)
            continue  # a file the policy excludes (a hook's staged file, say) is skipped
        if outside:
            _error(f"{path}: {outside}; nothing there would be checked")
            return 2
        kept.append(path)
    if paths and not kept:
        if not quiet:
            sys.stderr.write(
                "no files to check: the policy covers none of the paths given"
                f" ({os.path.relpath(config.config_path)} excludes them)\n"
            )
            for hint in _own_policies(skipped, config):
                sys.stderr.write(hint + "\n")
        return 0
    paths = tuple(kept)
    from sealed_trace.lint.catalog import is_selector
    from sealed_trace.lint.filters import BaselineError, Selection, apply_filters, write_baseline
    from sealed_trace.lint.plugins import PluginError

    selectors: dict[str, tuple[str, ...]] = {}
    for option in ("select", "ignore"):
        values = tuple(
            v.strip()
            for raw in getattr(args, f"lint_{option}", [])
            for v in raw.split(",")
            if v.strip()
        )
        bad = [v for v in values if not is_selector(v)]
        if bad:
            _error(f"--{option} {', '.join(bad)}: names no lint rule (see sealed-trace rules)")
            return 2
        selectors[option] = values
    selection = Selection(selectors["select"], selectors["ignore"])
    include_suppressed = bool(getattr(args, "lint_include_suppressed", False))
    if include_suppressed and args.lint_format != "sarif":
        _error("--include-suppressed needs --format sarif (SARIF marks suppressed findings)")
        return 2
    from sealed_trace.lint.suppressions import recording_suppressed

    try:
        with recording_suppressed() as inline:
            result = lint(
                config,
                paths,
                rule_loader=load_rules,
                # a cached run holds no suppressed findings: record them afresh
                use_cache=not args.lint_no_cache and not include_suppressed,
                jobs=args.lint_jobs,
            )
        writing = getattr(args, "lint_write_baseline", None)
        filtered = apply_filters(
            result.findings,
            config,
            selection,
            use_baseline=not writing,
            checked_paths=set(paths) if paths else None,
        )
    except FileNotFoundError as exc:
        _error(f"{exc}: no such file or directory")
        return 2
    except PluginError as exc:
        _error(f"plugin: {exc}")
        return 2
    except BaselineError as exc:
        _error(str(exc))
        return 2
    import dataclasses

    added = sum(1 for f in filtered if f.code in ("ST007", "ST008"))
    hidden = len(result.findings) - (len(filtered) - added)
    suppressed = (
        _suppressed(result.findings, filtered, inline, config, selection, paths)
        if include_suppressed
        else []
    )
    result = dataclasses.replace(result, findings=tuple(filtered))
    if writing:
        try:
            count = write_baseline(writing, result.findings)
        except OSError as exc:
            _error(f"{writing}: cannot write: {exc.strerror or exc}")
            return 2
        if not quiet:
            same = config.baseline is not None and os.path.realpath(
                config.baseline
            ) == os.path.realpath(writing)
            hint = (
                "the policy's baseline"
                if same
                else "set baseline = "
                f'"{os.path.relpath(writing, config.root)}" in [tool.sealed_trace]'
            )
            sys.stderr.write(f"wrote {count} finding(s) to {writing}; {hint}\n")
        return 0
    if args.lint_format in ("sarif", "github"):
        result = _repo_relative(result, config.root)
        hidden_result = dataclasses.replace(result, findings=tuple(x.finding for x in suppressed))
        moved = _repo_relative(hidden_result, config.root).findings
        suppressed = [x._replace(finding=f) for x, f in zip(suppressed, moved, strict=True)]
    if getattr(args, "lint_statistics", False):
        report = statistics(result.findings)
    elif args.lint_format == "text":
        from sealed_trace.lint.formats.text import render_text, use_colour

        stream = sys.stdout if not args.lint_output else None
        report = render_text(
            result,
            root=config.root,
            show_source=getattr(args, "lint_show_source", False),
            colour=stream is not None and use_colour(_isatty(stream)),
        )
    elif suppressed:
        from sealed_trace.lint.formats.sarif import render as render_sarif

        report = render_sarif(result, _version(), suppressed)
    else:
        report = render(args.lint_format, result, _version())
    if args.lint_output:
        try:
            with open(args.lint_output, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as exc:
            _error(f"{args.lint_output}: cannot write: {exc.strerror or exc}")
            return 2
    else:
        sys.stdout.write(report)
    if args.lint_format == "text" and not args.lint_output and not quiet:
        # On stderr, so that stdout holds findings only; a clean run says it ran.
        summary = f"{len(result.findings)} finding(s)" if result.findings else "no findings"
        tail = (
            f" ({hidden} more hidden by the baseline, ignore entries or rule selection)"
            if hidden > 0
            else ""
        )
        sys.stderr.write(f"{summary} in {result.checked} file(s){tail}\n")
    return 1 if result.findings and not args.lint_exit_zero else 0


def render_report(result: Any, lint_format: str, root: str) -> str:
    """``result`` as ``sealed-trace lint --format lint_format`` prints it, without colour or
    source lines (the pytest plugin's ``--sealed-trace-lint-format``)."""
    from sealed_trace.lint.formats import render

    if lint_format == "text":
        from sealed_trace.lint.formats.text import render_text

        return render_text(result, root=root, show_source=False, colour=False)
    if lint_format in ("sarif", "github"):
        result = _repo_relative(result, root)
    return render(lint_format, result, _version())


def _suppressed(
    found: Any, filtered: Any, inline: Any, config: Any, selection: Any, paths: Any
) -> list[Any]:
    """The findings that are not failures, each with SARIF's reason for it: ``inSource`` for
    a suppression comment, ``external`` for an ignore entry or the baseline."""
    from sealed_trace.lint.filters import _selected, apply_filters
    from sealed_trace.lint.formats.sarif import Suppressed

    out = [
        Suppressed(f, "inSource", reason)
        for f, reason in inline
        if _selected(f.code, config, selection)
    ]
    unbaselined = apply_filters(
        found, config, selection, use_baseline=False, checked_paths=set(paths) if paths else None
    )
    for f in found:
        entry = next((e for e in config.ignores if e.ignores(f.path, f.code)), None)
        if entry is not None and _selected(f.code, config, selection):
            out.append(Suppressed(f, "external", f"ignore[{entry.index}]: {entry.reason}"))
    kept = set(filtered)
    if config.baseline is not None:
        where = os.path.relpath(config.baseline, config.root).replace(os.sep, "/")
        out += [
            Suppressed(f, "external", f"recorded in the baseline {where}")
            for f in unbaselined
            if f not in kept and f.code not in ("ST007", "ST008")
        ]
    return out


def statistics(findings: Any) -> str:
    """``count<TAB>code<TAB>name`` per rule, most frequent first (``--statistics``)."""
    from collections import Counter

    counts = Counter((f.code, f.rule_name) for f in findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    return "".join(f"{n}\t{code}\t{name}\n" for (code, name), n in rows)


def _outside_policy(path: str, config: Any) -> str | None:
    """Why ``path`` lies outside what the policy checks, or None when it is inside."""
    from sealed_trace.lint.discover import _excluded

    real = os.path.realpath(path)
    root = os.path.realpath(config.root)
    if os.path.commonpath([real, root]) != root:
        return f"outside the project of {config.config_path}"
    roots = [os.path.realpath(r) for r in config.source_roots]
    if not any(
        os.path.commonpath([real, r]) == r or os.path.commonpath([real, r]) == real for r in roots
    ):
        return f"not under a source root of {config.config_path}"
    rel = os.path.relpath(real, root).replace(os.sep, "/")
    if rel != "." and _excluded(rel, config.exclude):
        return f"excluded by {config.config_path}"
    return None


def _repo_relative(result: Any, root: str) -> Any:
    """``result`` with paths relative to the enclosing git repository (GitHub's frame of
    reference for annotations and code scanning), when the policy lives below its top."""
    import dataclasses

    top = os.path.realpath(root)
    here = top
    while not os.path.exists(os.path.join(here, ".git")):
        parent = os.path.dirname(here)
        if parent == here:
            return result
        here = parent
    prefix = os.path.relpath(top, here).replace(os.sep, "/")
    if prefix == ".":
        return result
    findings = tuple(dataclasses.replace(f, path=f"{prefix}/{f.path}") for f in result.findings)
    return dataclasses.replace(result, findings=findings)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return "0.0.0"
    try:
        return version("sealed-trace")
    except PackageNotFoundError:
        return "0.0.0"


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (``python -m sealed_trace.lint``): the lint options only."""
    parser = argparse.ArgumentParser(
        prog="sealed-trace lint", description="sealed-trace static boundary lint"
    )
    add_lint_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_lint(args)
    except Exception as error:  # a bug: one line and exit 2, as `sealed-trace lint` says it
        from sealed_trace._internal import internal_error, wants_traceback

        if wants_traceback():
            raise
        _error(internal_error("running lint", error))
        return 2
