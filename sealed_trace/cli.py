"""The ``sealed-trace`` command line (episode-format.md, "Command line").

=======================================  ==================================================
command                                  exit status
=======================================  ==================================================
``sealed-trace seal FILE|-``             0 sealed, 1 refused, 2 usage or I/O error
``sealed-trace verify OUTCOME EPISODE``  0 same bytes, 1 different, 2 usage error
``sealed-trace show OUTCOME [EPISODE]``  0 shown, 1 EPISODE does not seal to OUTCOME, 2 usage
                                         or input error
``sealed-trace explain CODE``            0 known, 2 unknown
``sealed-trace lint [PATH...]``          0 clean, 1 findings, 2 config or usage error
``sealed-trace init [MODULE] [--write]``  0 proposed or written, 2 usage error
=======================================  ==================================================

User errors are one line on stderr naming the file and what is wrong, never a traceback. An
internal error (a bug) is one line too, exit status 2; ``--traceback`` or
``SEALED_TRACE_TRACEBACK=1`` shows its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from sealed_trace import __version__
from sealed_trace._internal import TRACEBACK_ENV, internal_error, wants_traceback
from sealed_trace.reasons import DISPOSITION_MEANINGS, REASON_CODES, markdown_table

__all__ = ["main"]

PROG = "sealed-trace"
#: Largest document read, in bytes (256 MiB); larger inputs are a usage error.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
#: The identity layouts (sealing-policy §10), named without loading the sealer.
LAYOUTS = ("adr-0230", "adr-0233")


class _UsageError(Exception):
    """A user error: printed as one line, exit status 2."""


class _LayoutConflict(_UsageError):
    """An episode document naming another identity layout than the one asked for: a usage
    error for ``seal --layout``, a difference for ``verify`` (sealing-policy §10)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # A bad choice names the allowed values already; anything else points at the help of
        # the command that was given (`sealed-trace show --help`), not the program's.
        hint = "" if "invalid choice" in message else f" (see '{self.prog} --help')"
        self.exit(2, f"{self.prog}: error: {message}{hint}\n")


def _read(path: str) -> bytes:
    try:
        if path == "-":
            if sys.stdin is None:
                raise _UsageError("cannot read -: there is no standard input")
            data = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as error:
        raise _UsageError(f"cannot read {path}: {error.strerror or error}") from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise _UsageError(f"{path}: larger than {MAX_DOCUMENT_BYTES} bytes")
    return data


def _seal_bytes(path: str, layout: str | None = None) -> tuple[bytes, bool]:
    # The sealer loads only for the commands that seal: `lint` and `explain` start faster.
    from sealed_trace.episode_json import (
        DocumentError,
        LayoutConflictError,
        encode_outcome,
        seal_document,
    )
    from sealed_trace.trace import SealedPracticeTrace

    data = _read(path)
    try:
        outcome = seal_document(data, layout=layout)
    except LayoutConflictError as error:
        raise _LayoutConflict(
            f"{path}: names identity layout {error.named}, not {error.asked}"
        ) from None
    except DocumentError as error:  # worded as `show` words it
        raise _UsageError(f"{path}: not an episode document ({error})") from None
    return encode_outcome(outcome), isinstance(outcome, SealedPracticeTrace)


def _write(data: bytes) -> None:
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    except OSError as error:
        # Send what is still buffered to the null device, so exiting cannot fail again.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise _UsageError(f"cannot write the output: {error.strerror or error}") from None


def _cmd_seal(args: argparse.Namespace) -> int:
    encoded, sealed = _seal_bytes(args.episode, args.layout)
    _write(encoded)
    return 0 if sealed else 1


def _cmd_verify(args: argparse.Namespace) -> int:
    from sealed_trace.episode_json import DocumentError, decode_outcome

    expected = _read(args.outcome)
    try:  # the same decoder as `show`: the same words for the same fault
        outcome = decode_outcome(expected)
    except DocumentError as error:
        raise _UsageError(f"{args.outcome}: {error}") from None
    document = json.loads(expected.decode("utf-8"))
    # The outcome says which identity layout made it (sealing-policy §10): no flag needed.
    layout = outcome.identity_layout.value
    try:
        encoded, _ = _seal_bytes(args.episode, layout)
    except _LayoutConflict as error:  # the episode cannot give an outcome of this layout
        _stderr(f"{args.outcome}: differs: made under identity layout {layout}; {error}")
        return 1
    if encoded == expected:
        _write(f"{args.outcome}: same outcome, byte for byte\n".encode())
        return 0
    fresh = json.loads(encoded.decode("utf-8"))
    differing = sorted(key for key in {*document, *fresh} if document.get(key) != fresh.get(key))
    where = "in " + ", ".join(differing) if differing else "in its bytes only (same values)"
    _stderr(f"{args.outcome}: differs from the outcome of sealing {args.episode} {where}")
    return 1


def _cmd_show(args: argparse.Namespace) -> int:
    from sealed_trace import show

    outcome = _read(args.outcome)
    episode = None if args.episode is None else _read(args.episode)
    try:
        view = show.load_view(outcome, args.outcome, episode, args.episode)
    except show.EpisodeMismatchError as error:
        _stderr(f"{PROG}: error: {error}")
        return 1
    except show.ShowError as error:
        raise _UsageError(str(error)) from None
    if args.format == "html":
        page = show.render_html(view)
    else:
        colour = args.output_file is None and show.wants_colour(sys.stdout)
        page = show.render_text(view, colour=colour)
    if args.output_file is None:
        _write(page.encode("utf-8"))
        return 0
    try:
        show.write_atomically(args.output_file, page.encode("utf-8"))
    except show.ShowError as error:
        raise _UsageError(str(error)) from None
    return 0


def explain(code: str) -> str | None:
    """Return the explanation of a reason code, disposition or lint rule, or None."""
    if code in REASON_CODES:
        family, meaning = REASON_CODES[code]
        return f"{code} ({family}): {meaning}"
    if code in DISPOSITION_MEANINGS:  # the very sentences `show` prints
        family = "sealed trace" if code.startswith("sealed_") else "trace refusal"
        means, does_not = DISPOSITION_MEANINGS[code]
        codes = sorted(c for c, (f, _) in REASON_CODES.items() if f == code)
        tail = f"\nreason codes:  {', '.join(codes)}" if codes else ""
        return (
            f"{code}: a {family} disposition of ADR-0230 §8\n"
            f"means:         {means}\ndoes not mean: {does_not}{tail}"
        )
    try:
        from sealed_trace.lint.plugins import explain as explain_rule
    except ImportError:
        return None
    return explain_rule(code)


def _lint_rule_table() -> str:
    """The lint rules' table that ``explain --all`` adds after the reason codes (empty when
    the lint is not installed)."""
    try:
        from sealed_trace.lint.catalog import BUILTIN_RULES, help_anchor
    except ImportError:  # pragma: no cover
        return ""
    lines = [
        "",
        "## Lint rules",
        "",
        "`sealed-trace explain CODE` (or the rule's name) prints a rule's explanation; "
        "[lint.md](lint.md#rules) describes each.",
        "",
        "| code | name | fires on |",
        "|---|---|---|",
    ]
    lines += [
        f"| [`{info.code}`](lint.md#{help_anchor(info)}) | `{info.name}` | {info.summary} |"
        for info in BUILTIN_RULES
    ]
    return "\n".join(lines) + "\n"


def _cmd_explain(args: argparse.Namespace) -> int:
    if args.all:
        if args.code is not None:
            raise _UsageError("give a CODE or --all, not both")
        _write((markdown_table() + _lint_rule_table()).encode())
        return 0
    if args.code is None:
        raise _UsageError("explain needs a CODE (or --all for every reason code and rule)")
    text = explain(args.code)
    if text is None:
        raise _UsageError(f"unknown reason code or rule {args.code!r}")
    _write((text + "\n").encode())
    return 0


def _cmd_init(args: argparse.Namespace) -> int:
    from sealed_trace.lint.starter import InitError, propose, write_proposal

    try:
        proposal = propose(".", args.module)
        for note in proposal.notes:
            _stderr(note)
        if args.write:
            path = write_proposal(".", proposal)
            _stderr(
                f"wrote the [tool.sealed_trace] policy for {proposal.module} to "
                f"{path.name}; next: sealed-trace lint (and --write-baseline FILE to "
                "record what it reports today)"
            )
            return 0
    except InitError as error:
        raise _UsageError(str(error)) from None
    _write(proposal.text.encode())
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    from sealed_trace.lint.catalog import RULES

    with contextlib.suppress(Exception):  # installed plugin rules, when they load
        from sealed_trace.lint.plugins import load_plugin_rules, plugin_manager

        load_plugin_rules(plugin_manager())
    width = max(len(info.name) for info in RULES.values())
    lines = [
        f"{code}  {info.name:<{width}}  {info.summary}" for code, info in sorted(RULES.items())
    ]
    _write(("\n".join(lines) + "\n").encode())
    return 0


#: The commands that need nothing of the lint package: their parser is built without it.
_CORE_COMMANDS = frozenset({"seal", "verify", "show"})


def _parser(with_lint: bool = True) -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Seal, verify and explain ADR-0230 practice traces; lint the boundary.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "--traceback",
        action="store_true",
        help=f"show the traceback of an internal error (as {TRACEBACK_ENV}=1 does)",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    seal = sub.add_parser(
        "seal",
        help="seal one episode document and print the outcome",
        description="Seal one sealed_trace.episode.v1 document (a file, or - for standard "
        "input) and print its outcome document (canonical JSON and a newline): a "
        "SealedPracticeTrace or a PracticeTraceRefusal (ADR-0230 §6-§13). Exit 0 sealed, "
        "1 refused, 2 usage or I/O error (not UTF-8 JSON, unreadable, too large, or a "
        "--layout the document contradicts).",
    )
    seal.add_argument("episode", metavar="FILE", help="episode document, or - for stdin")
    seal.add_argument(
        "--layout",
        choices=LAYOUTS,
        default=None,
        help="identity layout (sealing-policy §10): adr-0230 (ADR-0230 §12, the default) or "
        "adr-0233 (binding ids hashed; bound episodes). A document's own identity_layout key "
        "is used when this is not given; when both are given they must agree.",
    )
    seal.set_defaults(run=_cmd_seal)
    verify = sub.add_parser(
        "verify",
        help="re-seal an episode and compare with an outcome",
        description="Seal EPISODE again and compare the result with the OUTCOME document byte "
        "for byte (replay stability, ADR-0230 §12), under the identity layout the outcome "
        "names. Exit 0 same bytes, 1 different (the "
        "differing fields are named), 2 usage error.",
    )
    verify.add_argument("outcome", metavar="OUTCOME", help="outcome document")
    verify.add_argument("episode", metavar="EPISODE", help="episode document")
    verify.set_defaults(run=_cmd_verify)
    show = sub.add_parser(
        "show",
        help="render a sealed trace or a refusal for a reviewer",
        description="Render an OUTCOME document for a person (ADR-0230 §2, §7, §8.1, §11, "
        "§13): its practice_disposition and what it does and does not mean, the problem text "
        "with every evidence span highlighted, the upstream identity chain as a tree, every "
        "candidate attempt with its replay outcome side by side as equals, and a refusal's "
        "reason codes with their explanations. EPISODE, the episode document it was sealed "
        "from, is sealed again and must give this outcome; only it holds the problem text. "
        "Text is coloured on a terminal (NO_COLOR turns colour off, FORCE_COLOR on); "
        "otherwise spans are bracketed in place, like [gained].",
        epilog="Exit 0 shown, 1 OUTCOME's own id does not reproduce from its fields (altered "
        "after sealing) or EPISODE does not seal to OUTCOME (the differing fields are named), "
        "2 usage or input error (a file unreadable or not UTF-8 JSON, OUTCOME not an outcome "
        "document, EPISODE an outcome document, the output file not writable).",
    )
    show.add_argument("outcome", metavar="OUTCOME", help="outcome document")
    show.add_argument(
        "episode", metavar="EPISODE", nargs="?", help="the episode document it was sealed from"
    )
    show.add_argument(
        "--format",
        choices=("text", "html"),
        default="text",
        help="text (default) or one self-contained HTML page",
    )
    show.add_argument(
        "--output-file",
        metavar="PATH",
        help="write to PATH (atomically, without colour) instead of standard output",
    )
    show.set_defaults(run=_cmd_show)
    explain_cmd = sub.add_parser(
        "explain",
        help="explain a reason code or lint rule",
        description="Explain a refusal reason code, a practice_disposition, or a lint rule (by "
        "code or name); --all prints every reason code and lint rule as Markdown. Exit 0 "
        "known, 2 unknown or usage error.",
    )
    explain_cmd.add_argument("code", metavar="CODE", nargs="?")
    explain_cmd.add_argument(
        "--all",
        action="store_true",
        help="print the table of every reason code and lint rule (Markdown)",
    )
    explain_cmd.set_defaults(run=_cmd_explain)
    init = sub.add_parser(
        "init",
        help="propose a [tool.sealed_trace] policy for this project",
        description="Read the project in the current directory (statically) and propose a "
        "starter policy: its source roots and, for the sealed MODULE, a boundary with the "
        "adr-0230 preset, its first-party imports as allowed_imports and as upstream "
        "candidates, every line commented. Prints it, or appends it to pyproject.toml with "
        "--write (never over an existing [tool.sealed_trace] table). Exit 0 proposed or "
        "written, 2 usage error.",
    )
    init.add_argument(
        "module", metavar="MODULE", nargs="?", help="the sealed module, e.g. mykernel.sealing"
    )
    init.add_argument(
        "--write",
        action="store_true",
        help="append the policy to ./pyproject.toml instead of printing it",
    )
    init.set_defaults(run=_cmd_init)
    rules = sub.add_parser(
        "rules",
        help="list every lint rule: code, name, summary",
        description="List every lint rule, installed plugin rules included: code, name and "
        "summary, one per line. Exit 0.",
    )
    rules.set_defaults(run=_cmd_rules)
    if not with_lint:
        return parser
    try:
        from sealed_trace.lint.cli import add_lint_parser, run_lint
    except ImportError:
        pass
    else:
        add_lint_parser(sub)
        sub.choices["lint"].set_defaults(run=run_lint)
    return parser


def _stderr(line: str) -> None:
    with contextlib.suppress(OSError, AttributeError):  # no stderr: the exit status tells
        print(line, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module table)."""
    words = list(sys.argv[1:] if argv is None else argv)
    command = next((word for word in words if not word.startswith("-")), None)
    args = _parser(with_lint=command not in _CORE_COMMANDS).parse_args(words)
    try:
        return int(args.run(args))
    except _UsageError as error:
        _stderr(f"{PROG}: error: {error}")
        return 2
    except Exception as error:  # a bug: one line and exit 2, never a finding's exit 1
        if args.traceback or wants_traceback():
            raise
        _stderr(f"{PROG}: error: {internal_error(f'running {args.command}', error, _HOW)}")
        return 2


_HOW = " or pass --traceback before the command"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
