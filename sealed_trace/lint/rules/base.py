"""The rule interface (libcst-free): a rule judges one file's facts against one boundary.

A rule is any object with ``code`` (``ST201``), ``name`` (``banned-call``), ``summary``,
``explanation``, ``roles`` (a subset of ``{"boundary", "upstream", "reached", "ancestor"}``:
which files it checks; ``reached`` is a first-party module outside the boundary and its
upstream that an upstream module imports, directly or not, and that holds a dynamic import the
lint cannot see; ``ancestor`` is a package above upstream modules that reaches the sealed
module)
and ``check(ctx) -> Iterable[Finding]``. Built-in rules live one per module in this package;
plugins add rules through the ``sealed_trace_lint_rules`` hook (:mod:`sealed_trace.hookspecs`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sealed_trace.lint.config import Boundary
from sealed_trace.lint.facts import FileFacts
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.graph import EdgeKind

__all__ = ["ClosureEdge", "ReverseEdge", "Rule", "RuleContext", "marked_chain", "through"]


def through(module: str | None, affected: Sequence[str]) -> str:
    """``"; 3 other upstream modules reach it through this import"`` (empty when ``affected``
    names no upstream module but ``module``)."""
    others = len([m for m in affected if m != module])
    if not others:
        return ""
    plural = others > 1
    return (
        f"; {others} other upstream module{'s' if plural else ''} reach{'' if plural else 'es'} "
        "it through this import"
    )


def marked_chain(chain: Sequence[str], kinds: Sequence[str]) -> str:
    """``a -> b -> c`` with each step that does not run when its importer is imported marked
    after the module it reaches (``b (in a function)``); ``kinds[i]`` is the kind of step
    ``chain[i] -> chain[i + 1]`` (an :class:`EdgeKind` value; missing ones run on import)."""
    shown = [chain[0]] if chain else []
    for index, module in enumerate(chain[1:]):
        note = EdgeKind(kinds[index]).note if index < len(kinds) else ""
        shown.append(f"{module} ({note})" if note else module)
    return " -> ".join(shown)


@dataclass(frozen=True, slots=True)
class ReverseEdge:
    """An import of an upstream module that reaches the sealed module.

    ``chain`` runs from the imported module to the sealed module (length 1: a direct import);
    ``others`` counts the other modules the upstream module imports that reach it too;
    ``kinds`` says how each step runs, from the upstream module on (see :func:`marked_chain`);
    ``affected`` names the upstream modules this import makes reach the sealed module (the
    importing one first when it is upstream) and ``chains`` the shortest chain of each.
    """

    line: int
    column: int
    text: str
    chain: tuple[str, ...]
    others: int = 0
    kinds: tuple[str, ...] = ()
    affected: tuple[str, ...] = ()
    chains: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ClosureEdge:
    """A module the sealed module's import closure loads against the policy (ST404):
    ``what`` it is (``banned subprocess``, ``upstream module pkg.gate``), the sealed module's
    import that starts the ``chain`` (module names from the sealed module on, ending with the
    offending module; ``kinds`` holds, per step, how that import runs: an
    :class:`EdgeKind` value)."""

    line: int
    column: int
    text: str
    what: str
    chain: tuple[str, ...]
    kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What a rule sees: the file (``path``, ``module``, ``facts``, decoded ``text`` when read
    in this run), the ``boundary`` judged, the file's ``role`` and, for upstream files, the
    ``reverse_edges`` into the sealed module computed from the first-party import graph, and
    the ``first_party`` module names."""

    path: str
    module: str | None
    facts: FileFacts
    boundary: Boundary
    role: str
    text: str | None = None
    reverse_edges: tuple[ReverseEdge, ...] = ()
    #: every first-party module of the source roots (``pkg.random`` is not ``random``)
    first_party: frozenset[str] = frozenset()
    #: for a ``reached`` file: a shortest chain from an upstream module that loads it
    reached_from: str = ""
    #: for an ``ancestor`` package: the upstream modules below it
    affected: tuple[str, ...] = ()
    #: for a boundary with ``closure = true``: what its import closure loads against the policy
    closure: tuple[ClosureEdge, ...] = ()
    #: for a boundary: what a qualified name of a first-party module is defined as there
    #: (``function``, ``class``, ``value``, ``module``, ``external:<name>`` or ``unknown``)
    kind_of: Callable[[str], str] | None = None

    def finding(
        self,
        line: int,
        column: int,
        code: str,
        message: str,
        anchor: str,
        chains: tuple[str, ...] = (),
    ) -> Finding:
        """Build a finding of this file and boundary (``chains``: see :class:`Finding`)."""
        return Finding(self.path, line, column, code, message, anchor, self.boundary.name, chains)

    def counts(self, type_checking: bool) -> bool:
        """Whether a fact under ``TYPE_CHECKING`` counts for this boundary's policy."""
        return not type_checking or self.boundary.type_checking_imports == "count"


class Rule(Protocol):
    """See the module docstring."""

    code: str
    name: str
    summary: str
    explanation: str
    roles: frozenset[str]

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        """Return the findings of ``ctx``'s file (empty when clean)."""
        ...
