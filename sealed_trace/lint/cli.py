"""The ``lint`` command: ``sealed-trace lint [PATH...] [--config FILE] [--format F]
[--output-file FILE] [--exit-zero]`` (issue 3 §4; episode-format "Command line").

Exit status: 0 clean, 1 findings, 2 configuration or usage error. User errors are printed to
stderr as one line each (``sealed-trace lint: <file>: <problem>``), never as a traceback.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from sealed_trace.lint.api import (
    LintError,
    LintOptions,
    LintRun,
    error_lines,
    lint_project,
    own_policies,
)
from sealed_trace.lint.filters import write_baseline
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.formats import render, repo_relative, tool_version
from sealed_trace.lint.formats.sarif import render as render_sarif
from sealed_trace.lint.formats.text import grouped, render_text, use_colour

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


_FLAG = {"action": "store_true"}
_CODES = {"action": "append", "default": [], "metavar": "CODES"}
#: Each option of ``lint``: its flags, its ``args`` attribute and the rest of what argparse
#: takes (the help last).
_OPTIONS: tuple[tuple[tuple[str, ...], str, dict[str, Any]], ...] = (
    (
        ("--config",),
        "lint_config",
        {
            "metavar": "FILE",
            "help": "pyproject.toml holding [tool.sealed_trace] (default: nearest)",
        },
    ),
    (
        ("--format",),
        "lint_format",
        {"choices": _FORMATS, "default": "text", "help": "report format (default: text)"},
    ),
    (
        ("--output-file",),
        "lint_output",
        {"metavar": "FILE", "help": "write the report to FILE instead of standard output"},
    ),
    (
        ("--include-suppressed",),
        "lint_include_suppressed",
        {
            **_FLAG,
            "help": "with --format sarif: also report the findings a suppression comment, an "
            "ignore entry or the baseline hides, marked in 'suppressions' with the reason",
        },
    ),
    (("--exit-zero",), "lint_exit_zero", {**_FLAG, "help": "exit 0 even when there are findings"}),
    (("--no-cache",), "lint_no_cache", {**_FLAG, "help": "neither read nor write the lint cache"}),
    (
        ("--select",),
        "lint_select",
        {
            **_CODES,
            "help": "report only these rules (codes, prefixes such as ST4, or names; "
            "comma-separated, repeatable)",
        },
    ),
    (("--ignore",), "lint_ignore", {**_CODES, "help": "do not report these rules (as --select)"}),
    (
        ("--write-baseline",),
        "lint_write_baseline",
        {
            "metavar": "FILE",
            "help": 'record today\'s findings in FILE (then set baseline = "FILE" in the policy) '
            "and exit 0",
        },
    ),
    (
        ("--skip-uncovered",),
        "lint_skip_uncovered",
        {
            **_FLAG,
            "help": "skip, instead of refusing, PATHs outside the policy's source roots (what a "
            "pre-commit hook passes)",
        },
    ),
    (
        ("--statistics",),
        "lint_statistics",
        {**_FLAG, "help": "print the number of findings per rule instead of the findings"},
    ),
    (
        ("--show-source",),
        "lint_show_source",
        {**_FLAG, "help": "show the offending line with a caret under each finding (text)"},
    ),
    (
        ("--quiet", "-q"),
        "lint_quiet",
        {**_FLAG, "help": "print the findings only: no summary line, no notes"},
    ),
    (
        ("--jobs",),
        "lint_jobs",
        {
            "type": _jobs,
            "default": None,
            "metavar": "N",
            "help": "accepted for compatibility: the import scanner uses every core",
        },
    ),
)


def add_lint_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the lint options to ``parser`` (shared by the subcommand and ``-m`` entry)."""
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories to report on (default: the source roots)",
    )
    for flags, dest, spec in _OPTIONS:
        parser.add_argument(*flags, dest=dest, **spec)


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


def _error(message: str) -> None:
    sys.stderr.write(f"sealed-trace lint: {message}\n")


def options_from(args: argparse.Namespace) -> LintOptions:
    """The :class:`LintOptions` the parsed command line asks for."""
    return LintOptions(
        config=args.lint_config,
        paths=tuple(args.paths),
        select=tuple(args.lint_select),
        ignore=tuple(args.lint_ignore),
        # a cached run holds no suppressed findings: they are recorded afresh
        use_cache=not args.lint_no_cache,
        skip_uncovered=args.lint_skip_uncovered,
        use_baseline=not args.lint_write_baseline,
        include_suppressed=args.lint_include_suppressed,
        # the formats that show every affected module's chain
        every_chain=args.lint_format in ("json", "sarif") and not args.lint_statistics,
    )


def run_lint(args: argparse.Namespace) -> int:
    """Run the lint for parsed ``args``; return the exit status (0, 1 or 2)."""
    if args.lint_include_suppressed and args.lint_format != "sarif":
        _error("--include-suppressed needs --format sarif (SARIF marks suppressed findings)")
        return 2
    try:
        run = lint_project(options_from(args))
    except LintError as error:
        sys.stderr.write("".join(f"{line}\n" for line in error_lines(error)))
        return 2
    if run.covers_nothing:
        if not args.lint_quiet:
            sys.stderr.write(
                "no files to check: the policy covers none of the paths given"
                f" ({os.path.relpath(run.policy.config_path)} excludes them)\n"
            )
            for hint in own_policies(run.skipped, run.policy):
                sys.stderr.write(hint + "\n")
        return 0
    if args.lint_write_baseline:
        return _write_baseline(args, run)
    report = _render(args, run)
    if args.lint_output:
        try:
            with open(args.lint_output, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as exc:
            _error(f"{args.lint_output}: cannot write: {exc.strerror or exc}")
            return 2
    else:
        sys.stdout.write(report)
    if args.lint_format == "text" and not args.lint_output and not args.lint_quiet:
        sys.stderr.write(_summary(run) + "\n")
    return 1 if run.findings and not args.lint_exit_zero else 0


def _summary(run: LintRun) -> str:
    """The text format's last line, on stderr (stdout holds findings only): a clean run says
    it ran."""
    shown = len(grouped(run.findings))
    summary = f"{shown} finding(s)" if run.findings else "no findings"
    if shown != len(run.findings):  # the text shows a finding of several boundaries once
        summary += f" ({len(run.findings)} counting each boundary)"
    tail = (
        f" ({run.hidden} more hidden by the baseline, ignore entries or rule selection)"
        if run.hidden > 0
        else ""
    )
    return f"{summary} in {run.result.checked} file(s){tail}"


def _write_baseline(args: argparse.Namespace, run: LintRun) -> int:
    """``--write-baseline FILE``: record the run's findings there; exit 0 (2: cannot)."""
    writing = args.lint_write_baseline
    try:
        count = write_baseline(writing, run.findings)
    except OSError as exc:
        _error(f"{writing}: cannot write: {exc.strerror or exc}")
        return 2
    if not args.lint_quiet:
        policy = run.policy
        same = policy.baseline is not None and os.path.realpath(
            policy.baseline
        ) == os.path.realpath(writing)
        hint = (
            "the policy's baseline"
            if same
            else f'set baseline = "{os.path.relpath(writing, policy.root)}" in [tool.sealed_trace]'
        )
        sys.stderr.write(f"wrote {count} finding(s) to {writing}; {hint}\n")
    return 0


def _render(args: argparse.Namespace, run: LintRun) -> str:
    """The report in the format asked for."""
    result, suppressed = run.result, list(run.suppressed)
    if args.lint_format in ("sarif", "github"):
        result = repo_relative(result, run.policy.root)
        hidden = dataclasses.replace(result, findings=tuple(x.finding for x in suppressed))
        moved = repo_relative(hidden, run.policy.root).findings
        suppressed = [x._replace(finding=f) for x, f in zip(suppressed, moved, strict=True)]
    if args.lint_statistics:
        return statistics(result.findings)
    if args.lint_format == "text":
        stream = sys.stdout if not args.lint_output else None
        return render_text(
            result,
            root=run.policy.root,
            show_source=args.lint_show_source,
            colour=stream is not None and use_colour(_isatty(stream)),
        )
    if suppressed:
        return render_sarif(result, tool_version(), suppressed)
    return render(args.lint_format, result, tool_version())


def statistics(findings: Sequence[Finding]) -> str:
    """``count<TAB>code<TAB>name`` per rule, most frequent first (``--statistics``)."""
    counts = Counter((f.code, f.rule_name) for f in findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    return "".join(f"{n}\t{code}\t{name}\n" for (code, name), n in rows)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


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
