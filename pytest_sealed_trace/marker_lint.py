"""One lint for all the ``sealed_trace_forbid_*`` markers of a session.

Each marker asks the boundary lint to judge one boundary (:class:`Request`: a module, the
policy keys its arguments make, the modules upstream of it). Running a lint per marker costs
a scan of the tree per marker; instead, the first marker that runs gathers the requests of
every marked test of the session, and :class:`SharedLint` runs one lint per source root with
all of them as boundaries of one policy (as pytest-mypy runs mypy once for all its items).
Every other marker is then a lookup of its boundary's findings: N markers cost one lint and
N queries. A marker whose arguments make a policy problem (a ``forbidden`` entry that names
nothing, say) gets that problem, worded in its own arguments' terms; the others still run.
The checked modules are read, never imported.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sealed_trace import lint

__all__ = ["MarkerProblem", "Request", "SharedLint"]

_BOUNDARY = re.compile(r"^boundary\[(\d+)\]")


class MarkerProblem(Exception):
    """The policy a marker's arguments make is not valid: ``problems`` name each, as the
    lint's configuration check words them (about ``boundary[0]``, the marker's own)."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class Request:
    """One boundary a marker asks the lint to judge: ``key`` (unique in the session, the
    boundary's name), the sealed ``module``, the source ``root`` its file lies in, the policy
    keys of its ``boundary``, the modules named ``third_party``, and the ``upstream``
    patterns (what must not import it)."""

    key: str
    module: str
    root: str
    boundary: dict[str, Any] = field(hash=False, compare=False)
    third_party: tuple[str, ...] = ()
    upstream: tuple[str, ...] = ()

    @property
    def tops(self) -> frozenset[str]:
        """The top-level names the lint must read: the module's and the upstream ones'."""
        return frozenset(name.split(".")[0] for name in (self.module, *self.upstream))


class SharedLint:
    """The session's marker lint: :meth:`gather` every request first, then :meth:`answer`
    each (lints run on first answer, one per source root, for every request gathered)."""

    def __init__(self) -> None:
        self._pending: dict[str, Request] = {}
        self._answers: dict[str, list[lint.Finding]] = {}
        self._problems: dict[str, list[str]] = {}
        self._modules: dict[str, dict[str, str | None]] = {}

    def gather(self, requests: Iterable[Request]) -> None:
        """Add ``requests`` to the next lint (those answered already are not linted again)."""
        for request in requests:
            if request.key not in self._answers and request.key not in self._problems:
                self._pending[request.key] = request

    def answer(self, request: Request) -> list[lint.Finding]:
        """The findings of ``request``'s boundary and the findings of no boundary (files
        the lint could not read). Raises :class:`MarkerProblem` for a marker whose
        arguments make an invalid policy."""
        if request.key not in self._answers and request.key not in self._problems:
            self.gather([request])
            self._run()
        problems = self._problems.get(request.key)
        if problems is not None:
            raise MarkerProblem(problems)
        return self._answers[request.key]

    def modules(self, request: Request) -> dict[str, str | None]:
        """The module name of each file (root-relative) of ``request``'s lint."""
        return self._modules[request.key]

    def _run(self) -> None:
        # one lint per source root and third-party list: a module one marker declares
        # third party is not known to another marker's policy
        groups: dict[tuple[str, tuple[str, ...]], list[Request]] = {}
        for request in self._pending.values():
            groups.setdefault((request.root, request.third_party), []).append(request)
        self._pending.clear()
        for (root, _), requests in groups.items():
            self._run_root(root, requests)

    def _run_root(self, root: str, requests: list[Request]) -> None:
        """One lint of ``root`` for ``requests``; a request whose boundary the policy check
        refuses is answered with its problems, and the others are linted without it."""
        policy = None
        while requests and policy is None:
            try:
                policy = _policy(root, requests)
            except lint.ConfigError as error:
                requests = self._refuse(requests, error.problems)
        if policy is None:
            return
        self._lint(policy, requests)

    def _lint(self, policy: Any, requests: list[Request]) -> None:
        """Lint ``policy`` and answer each of ``requests`` with its boundary's findings and
        the findings of no boundary."""
        run = lint.lint_project(
            lint.LintOptions(
                policy=policy, use_cache=False, entry_point_plugins=False, every_chain=False
            )
        )
        modules = {f.relpath: f.module for f in policy.files}
        for request in requests:
            self._answers[request.key] = [f for f in run.found if f.boundary in (request.key, "")]
            self._modules[request.key] = modules

    def _refuse(self, requests: list[Request], problems: Sequence[str]) -> list[Request]:
        """Answer the requests ``problems`` are about; the rest, to lint again. A problem of
        no boundary (their common ``third_party`` list) refuses them all."""
        about: dict[int, list[str]] = {}
        for problem in problems:
            match = _BOUNDARY.match(problem)
            if match is None:
                for index in range(len(requests)):
                    about.setdefault(index, []).append(problem)
            else:
                own = "boundary[0]" + problem[match.end() :]
                about.setdefault(int(match.group(1)), []).append(own)
        for index, found in about.items():
            self._problems[requests[index].key] = found
        return [r for i, r in enumerate(requests) if i not in about]


def _policy(root: str, requests: Sequence[Request]) -> Any:
    """The policy of ``requests`` (of one ``third_party`` list) under ``root``: one boundary
    each, the files of their top-level names only (so that a root such as site-packages is
    not read whole)."""
    others = _other_entries(root, requests)
    third_party = list(requests[0].third_party)
    section: dict[str, Any] = {
        "source_roots": ["."],
        "cache_dir": False,
        "boundary": [
            {"name": r.key, "module": r.module, "upstream": [*r.upstream], **r.boundary}
            for r in requests
        ],
    }
    if third_party:
        section["third_party"] = third_party

    def discover_top(root: str, roots: tuple[str, ...], exclude: tuple[str, ...]) -> list[Any]:
        return lint.discover_files(root, roots, (), others)

    return lint.parse_config(section, root, "the markers", discover_files=discover_top)


def _other_entries(root: str, requests: Sequence[Request]) -> tuple[str, ...]:
    """The entries of ``root`` that are none of the requests' top-level names, as exclude
    patterns (none when a name is a pattern itself)."""
    tops = frozenset().union(*(r.tops for r in requests))
    if any("*" in top for top in tops):
        return ()
    keep = {name for top in tops for name in (top, f"{top}.py")}
    return tuple(glob.escape(n) for n in sorted(os.listdir(root)) if n not in keep)
