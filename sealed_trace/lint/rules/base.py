"""The rule interface (libcst-free): a rule judges one file's facts against one boundary.

A rule is any object with ``code`` (``ST201``), ``name`` (``banned-call``), ``summary``,
``explanation``, ``roles`` (which files it checks: a set of :class:`Role` members or their
strings, ``{"boundary", "upstream", "reached", "ancestor"}``; ``reached`` is a first-party
module outside the boundary and its upstream that an upstream module imports, directly or not,
and that holds a dynamic import the lint cannot see; ``ancestor`` is a package above upstream
modules that reaches the sealed module) and ``check(ctx) -> Iterable[Finding]``. Built-in
rules live one per module in this package; plugins add rules through the
``sealed_trace_lint_rules`` hook (:mod:`sealed_trace.hookspecs`).

Built-in rules are declared on their class with :class:`CatalogRule` (the code, once: name,
summary and explanation come from :mod:`sealed_trace.lint.catalog`) or :class:`FactRule` (a
``{kind: message}`` table of dynamic facts), each with ``valid`` and ``invalid``
:class:`Snippet` examples that the test suite lints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.config import Boundary
from sealed_trace.lint.facts import DynamicFact, FileFacts, StrEnum
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.graph import EdgeKind

__all__ = [
    "PACKAGE",
    "SEALED",
    "UPSTREAM",
    "VALUES",
    "CatalogRule",
    "ClosureEdge",
    "FactRule",
    "Messages",
    "ReverseEdge",
    "Role",
    "Rule",
    "RuleContext",
    "Snippet",
    "marked_chain",
    "through",
]


class Role(StrEnum):
    """Which files a rule checks (a rule's ``roles``, a :class:`RuleContext`'s ``role``).

    Members are their strings: ``Role.BOUNDARY == "boundary"``, so a rule that says
    ``roles = frozenset({"boundary"})`` is judged the same."""

    #: the sealed module of a boundary
    BOUNDARY = "boundary"
    #: a module of the boundary's ``upstream`` patterns
    UPSTREAM = "upstream"
    #: a first-party module, neither sealed nor upstream, that an upstream module imports
    #: (directly or not) and that holds a dynamic import the lint cannot resolve
    REACHED = "reached"
    #: a package above upstream modules that reaches the sealed module
    ANCESTOR = "ancestor"
    #: any other first-party module (neither sealed nor upstream) whose import of the sealed
    #: module makes upstream modules reach it
    HELPER = "helper"


def listed(modules: Sequence[str]) -> str:
    """``"a, b, c, d, e and 3 more"``: at most five module names, then how many others."""
    more = f" and {len(modules) - 5} more" if len(modules) > 5 else ""
    return ", ".join(modules[:5]) + more


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


#: The files of the project :class:`Snippet` examples are linted in (``tests/lint``'s
#: ``Project``): boundary ``sealed`` seals ``pkg.sealed`` under the ``adr-0230`` preset, allows
#: ``pkg.values`` besides the preset's surface and names ``pkg.up`` and ``pkg.up.*`` upstream;
#: ``src/pkg/up/a.py`` holds ``from pkg import values``, every other file starts empty.
SEALED = "src/pkg/sealed.py"
VALUES = "src/pkg/values.py"
UPSTREAM = "src/pkg/up/a.py"
PACKAGE = "src/pkg/__init__.py"


@dataclass(frozen=True, slots=True)
class Snippet:
    """An example of a rule, linted by the test suite in the fixed project described at
    :data:`SEALED`: ``code`` is written to ``path`` (the sealed module unless said), each of
    ``files`` (path to text) besides, and ``policy`` (TOML lines such as ``closure = true``)
    is added to the boundary. A rule's ``valid`` snippets give no finding of its code
    anywhere; each of its ``invalid`` ones at least one, in ``path``."""

    code: str
    path: str = SEALED
    files: Mapping[str, str] = field(default_factory=dict)
    policy: str = ""


#: A :class:`FactRule`'s table: a fact kind, or ``(kind, callee)``, to a message template.
Messages = Mapping[str | tuple[str, str], str]


class CatalogRule:
    """Base of a rule declared on its class: ``code``, ``roles``, ``check`` and examples.

    ``name``, ``summary`` and ``explanation`` come from the catalog entry of ``code``
    (:data:`sealed_trace.lint.catalog.RULES`) unless the class gives them (a plugin rule,
    whose code the catalog learns when the plugin loads, must). ``roles`` are :class:`Role`
    members or their strings; ``valid`` and ``invalid`` hold :class:`Snippet` examples (see
    there). A subclass that sets no ``code`` is a further base (:class:`FactRule`), filled in
    by its own subclasses. :mod:`sealed_trace.lint.rules` shows a complete rule.
    """

    code: str
    name: str
    summary: str
    explanation: str
    roles: frozenset[str]
    valid: ClassVar[tuple[Snippet, ...]] = ()
    invalid: ClassVar[tuple[Snippet, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Fill ``name``, ``summary`` and ``explanation`` of a class that sets ``code``, and
        check its ``roles`` (a :class:`TypeError` names what is missing or unknown)."""
        super().__init_subclass__(**kwargs)
        code = cls.__dict__.get("code")
        if code is None:
            return
        info = RULES.get(code)
        for attr in ("name", "summary", "explanation"):
            if attr in cls.__dict__:
                continue
            if info is None:
                raise TypeError(f"rule {cls.__qualname__}: {code} is not catalogued; set {attr}")
            setattr(cls, attr, getattr(info, attr))
        roles = getattr(cls, "roles", None)
        if not roles:
            raise TypeError(f"rule {cls.__qualname__} ({code}) says no roles")
        try:
            cls.roles = frozenset(Role(role) for role in roles)
        except ValueError as exc:
            raise TypeError(f"rule {cls.__qualname__} ({code}): {exc}") from None

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        """Return the findings of ``ctx``'s file (empty when clean)."""
        raise NotImplementedError(f"{type(self).__qualname__} does not define check")


class FactRule(CatalogRule):
    """A rule reporting the file's dynamic facts (:class:`~sealed_trace.lint.facts.DynamicFact`)
    by kind: ``messages`` maps a :class:`~sealed_trace.lint.facts.DynamicKind` to the message
    of its findings (a key ``(kind, callee)`` wins over ``kind`` alone for that callee); a
    fact of a kind not in the table is not this rule's. Messages and ``anchor`` are
    :meth:`str.format` templates of ``{callee}`` (the fact's callee) and ``{name}`` (its last
    dotted part); :meth:`applies` can refuse a fact the table names::

        class PluginDiscovery(FactRule):
            code = "ST302"
            roles = frozenset({Role.BOUNDARY, Role.UPSTREAM})
            messages: ClassVar[Messages] = {
                DynamicKind.PLUGIN_DISCOVERY: "plugin discovery through {callee}()",
            }
    """

    messages: ClassVar[Messages] = {}
    #: the finding's anchor (what its fingerprint keeps across line moves)
    anchor: ClassVar[str] = "{callee}"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield a finding for each fact of ``ctx``'s file whose kind has a message."""
        for fact in ctx.facts.dynamics:
            template = self.messages.get((fact.kind, fact.callee), self.messages.get(fact.kind))
            if template is None or not self.applies(ctx, fact):
                continue
            name = fact.callee.rpartition(".")[2]
            yield ctx.finding(
                fact.line,
                fact.column,
                self.code,
                template.format(callee=fact.callee, name=name),
                self.anchor.format(callee=fact.callee, name=name),
            )

    def applies(self, ctx: RuleContext, fact: DynamicFact) -> bool:
        """Whether a fact whose kind has a message is a finding (always, unless overridden)."""
        return True
