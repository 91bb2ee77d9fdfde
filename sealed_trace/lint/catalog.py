"""The registry of every boundary-lint rule (ADR-0230 §15, §7.3, §5; issue 3).

This module deliberately imports nothing but the standard library, so that
``sealed-trace explain ST201`` can describe a rule without importing libcst.

Shape: :data:`RULES` maps a stable code (``"ST201"``) to a :class:`RuleInfo` carrying the code,
its kebab name (``"banned-call"``), a one-line summary used in reports and a one-paragraph
explanation. Codes never change meaning; retired codes are never reused.

Families: ``ST0xx`` engine, ``ST1xx`` import outside the allowed surface, ``ST2xx`` banned call
or attribute use, ``ST3xx`` dynamic import, ``ST4xx`` reverse dependency, ``ST5xx`` forbidden
output field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "BUILTIN_RULES",
    "RULES",
    "RuleInfo",
    "docs_url",
    "explain_rule",
    "help_anchor",
    "lookup_rule",
    "matches_rule",
    "register_rule_info",
]


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """One rule: ``code`` (``ST201``), ``name`` (``banned-call``), ``summary`` and ``explanation``.

    ``adr`` names the ADR-0230 section the rule enforces (empty for engine rules).
    ``suppressible`` is False for engine rules about the lint itself (a suppression cannot
    silence an unreadable file or an unused suppression).
    """

    code: str
    name: str
    summary: str
    explanation: str
    adr: str = ""
    suppressible: bool = True


def _r(
    code: str,
    name: str,
    summary: str,
    explanation: str,
    adr: str = "",
    *,
    suppressible: bool = True,
) -> RuleInfo:
    return RuleInfo(code, name, summary, " ".join(explanation.split()), adr, suppressible)


_BUILTIN: Final[tuple[RuleInfo, ...]] = (
    _r(
        "ST001",
        "unparsable-file",
        "a Python file could not be decoded or parsed",
        """A file the lint has to analyse could not be decoded with its declared encoding
        (PEP 263, UTF-8 by default), contains a NUL byte, or is not valid Python syntax. The lint
        never guesses what such a file would do, so it reports the file instead of passing it:
        fix the file, or exclude it from the source roots.""",
        suppressible=False,
    ),
    _r(
        "ST002",
        "unreadable-file",
        "a Python file could not be read",
        """A path ending in ``.py`` inside the linted tree could not be read: it is a directory,
        a FIFO or another non-regular file, a symbolic link that loops or dangles, a file the
        process may not read, or a file larger than ``max_file_bytes``. The lint fails closed:
        an unread file is a finding, never a silent pass.""",
        suppressible=False,
    ),
    _r(
        "ST003",
        "suppression-without-reason",
        "a suppression comment gives no reason",
        """A ``# sealed-trace: ignore[CODE]`` comment must carry a reason after `` -- ``, for
        example ``# sealed-trace: ignore[ST201] -- reviewed in ADR-0231``. A suppression
        without a reason suppresses nothing, and is reported with this rule.""",
        suppressible=False,
    ),
    _r(
        "ST004",
        "unused-suppression",
        "a suppression comment suppresses nothing",
        """A ``# sealed-trace: ignore[CODE] -- reason`` comment whose line has no finding with
        that code. Stale suppressions hide future regressions, so each one must be needed; delete
        it or correct the code.""",
        suppressible=False,
    ),
    _r(
        "ST005",
        "malformed-suppression",
        "a suppression comment cannot be understood",
        """A comment starting ``# sealed-trace:`` that does not follow the grammar
        ``# sealed-trace: ignore[CODE, ...] -- reason``, or names a code that no rule has, or
        names an engine rule that cannot be suppressed. It suppresses nothing.""",
        suppressible=False,
    ),
    _r(
        "ST006",
        "rule-crashed",
        "a rule raised an error while checking a file",
        """A lint rule (usually one added by a plugin) raised an exception. The file is
        reported instead of being passed, so a broken rule can never make the lint inert.""",
        suppressible=False,
    ),
    _r(
        "ST007",
        "unused-baseline-entry",
        "a baseline entry matches no finding any more",
        """The policy's ``baseline`` file records findings a team has accepted for now, by
        their line-move-proof fingerprint. An entry that matches no current finding (it was
        fixed, or its code changed) is reported, so that the baseline only ever shrinks: remove
        the entry, or write the file again with ``sealed-trace lint --write-baseline FILE``.""",
        suppressible=False,
    ),
    _r(
        "ST008",
        "unused-ignore",
        "a [[tool.sealed_trace.ignore]] entry ignores nothing",
        """A config-level ignore (``path`` patterns, ``codes`` and a ``reason``) that matches
        no finding is reported, like an unused suppression: remove it, or fix its patterns.""",
        suppressible=False,
    ),
    _r(
        "ST101",
        "import-outside-surface",
        "the boundary module imports a module outside its allowed surface",
        """The sealed module may import only the allowed surface of ADR-0230 §15.1: the
        modules listed by its preset and its ``allowed_imports`` (a module allows its
        submodules, never its parents). Every spelling is judged: ``import a.b``, ``from a
        import b``, relative imports resolved against the module's package, imports inside
        functions or ``try`` blocks, and ``__import__``/``importlib.import_module`` calls with a
        literal name. Imports under ``if TYPE_CHECKING:`` count unless
        ``type_checking_imports = "ignore"``.""",
        "§15.1",
    ),
    _r(
        "ST102",
        "banned-import",
        "the boundary module imports a banned name or star-imports a module with banned names",
        """An import brings a banned facility (ADR-0230 §15.2; the preset's and the boundary's
        ``banned`` patterns) into the sealed module, for example ``from os import environ`` or
        ``from time import *`` when ``time.*`` is banned. Star imports from a module with any
        banned member count as importing the banned members.""",
        "§15.2",
    ),
    _r(
        "ST104",
        "producer-import",
        "the boundary module takes a function from a first-party allowed module",
        """ADR-0230 §15.1 lets the sealed module import upstream records *as value types*:
        classes, enums and constants. A name it takes from a first-party module of its
        allowed surface (``from pkg.replay_adapter import classify_replay``, or
        ``adapter.classify_replay`` after ``import pkg.replay_adapter as adapter``) that is
        defined there as a function, a lambda, or re-exported from one (followed through
        first-party re-exports and aliases), lets the sealing module call a producer: it may
        classify, search or replay instead of checking. A name re-exported from another
        module that the boundary bans is a finding too. List the pure helpers it may call
        (canonical encoding, identity recomputation) in the boundary's ``allowed_callables``
        (qualified-name patterns). Each import site is a finding of its own, so a suppression
        or baseline entry on one never hides another.""",
        "§15.1",
    ),
    _r(
        "ST201",
        "banned-call",
        "the boundary module calls a banned facility",
        """A call whose callee resolves, through the module's scopes, to a banned qualified
        name (ADR-0230 §15.2): file, network, clock, randomness, UUID, environment, subprocess
        or dynamic-code facilities. Resolution follows ``import a as b``, ``from a import b as
        c``, rebinding to local names (``clk = time.time; clk()``), attribute chains
        (``os.environ.get``), ``getattr(module, "literal")`` and ``builtins.open``. A local
        name that merely shadows a banned one (a parameter called ``open``) is not banned.""",
        "§15.2",
    ),
    _r(
        "ST202",
        "banned-attribute",
        "the boundary module references a banned facility without calling it",
        """A reference (not a call) that resolves to a banned qualified name, for example
        ``reader = os.environ`` or ``clk = time.time``. Holding a banned facility is as much a
        breach of ADR-0230 §15.2 as calling it, because the reference can be called later or
        handed to other code.""",
        "§15.2",
    ),
    _r(
        "ST203",
        "rebound-protected-name",
        "the boundary module rebinds a banned builtin where the builtin stays reachable, or "
        "writes TYPE_CHECKING",
        """A module-scope binding of a banned builtin's name (``open``, ``exec``,
        ``__import__``, ...) hides the builtin only if it is the name's single binding, an
        unconditional top-level statement, never undone (``del``, ``global``, ``delattr``) and
        every use comes after it. Any other binding (``if False: open = None``, ``for eval in
        ()``, ``except E as print``, ``open = 1; del open``, a binding after a use) is reported,
        and every use of the name is judged as the builtin (ST201/ST202). A write to
        ``TYPE_CHECKING`` (``typing.TYPE_CHECKING = True``, a module-level ``TYPE_CHECKING =
        ...``) is reported too, and no block of the file is then treated as
        type-checking-only.""",
        "§15.2",
    ),
    _r(
        "ST301",
        "computed-dynamic-import",
        "a dynamic import with a name that cannot be resolved statically",
        """``__import__``, ``importlib.import_module``, ``importlib.__import__`` or
        ``runpy.run_module`` called with a module name that is not a literal string, or a loader
        of code by file path (``importlib.util.spec_from_file_location``, ``SourceFileLoader``,
        ``runpy.run_path``), or a standard-library call that imports the module named by its
        string argument (``pydoc.locate``, ``pkgutil.get_data``, ``importlib.resources.files``,
        ``loadTestsFromName``, ``unittest.mock.patch``) given a non-literal one, or (upstream)
        ``pickle``/``marshal`` loads, which import modules named in their data. The lint
        cannot prove what such a call imports, so in the boundary module, in upstream modules
        and in any first-party module an upstream module imports (directly or not) it is a
        finding in itself. A name every value of which is a literal (a module-level string
        constant, an element of a literal tuple, list or dict, a PEP 562 ``__getattr__``
        parameter checked against a literal collection) is resolved to those literals
        instead, and each is an import like a literal argument
        (ADR-0230 §15.2 forbids dynamic import; §5 forbids reverse dependencies however they
        are spelled).""",
        "§15.2, §5",
    ),
    _r(
        "ST302",
        "plugin-discovery",
        "entry-point plugin discovery",
        """A call to ``importlib.metadata.entry_points`` (or ``pkg_resources.iter_entry_points``)
        loads code chosen by installed packages, not by this module. It is forbidden in the
        sealed module (ADR-0230 §15.2, "dynamic import or plugin discovery") and reported in
        upstream modules because it can import the sealed module out of sight.""",
        "§15.2, §5",
    ),
    _r(
        "ST303",
        "computed-module-attribute",
        "getattr on a module with a computed attribute name",
        """``getattr(module, name)`` where ``module`` is an imported module and ``name`` is not
        a literal string. Such a lookup can reach any facility of the module, banned or not, so
        in the boundary module it is a finding in itself.""",
        "§15.2",
    ),
    _r(
        "ST401",
        "reverse-import",
        "an upstream module imports the sealed module",
        """ADR-0230 §5 and §15.2: assessment, residual, gate, budget, run and replay-adapter
        modules (the boundary's ``upstream`` patterns) must not import the sealed module. Every
        spelling counts: absolute, ``from pkg import sealed``, relative (``from . import``,
        ``from .sealed import``, ``from .. import``), inside functions or ``try`` blocks, under
        ``TYPE_CHECKING`` (unless the boundary says ``type_checking_imports = "ignore"``), a
        literal dynamic import, and an attribute reference through a package
        (``pkg.sealed.x``). Importing a submodule of a sealed package counts too. One finding
        per import statement; the first names how many other upstream modules reach the
        sealed module through it (they get no finding of their own: one cause, one finding),
        and JSON and SARIF carry the shortest chain of each.""",
        "§5, §15.2",
    ),
    _r(
        "ST402",
        "indirect-reverse-import",
        "an upstream module reaches the sealed module through other first-party modules",
        """An upstream module imports a first-party module that, through a chain of further
        first-party imports (for example a helper, or a package that re-exports the sealed
        module), imports the sealed module. Importing ``a.b.c`` runs the packages ``a`` and
        ``a.b`` too, so their imports are part of the chain. One finding per root cause: on
        the import of the sealed module by the last module of the chain (the one fix), with
        the upstream modules that reach it through that import (JSON and SARIF carry the
        chain of each, each step that does not run on import marked); when that module is not
        reported (excluded, or not among the paths linted), on the nearest reported module of
        the chain. An upstream module that names the sealed module's objects through a module
        re-exporting them (``from pkg.reexport import Thing``) is a root cause of its own: one
        finding where it first names one.""",
        "§5, §15.2",
    ),
    _r(
        "ST403",
        "package-reverse-import",
        "a package above upstream modules reaches the sealed module",
        """Importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` first. A package
        ``__init__`` above upstream modules that imports the sealed module, directly or
        through other first-party modules, therefore loads it whenever any of those upstream
        modules is imported, although none of them names it. The finding is reported once per
        package that imports the sealed module, and names the upstream modules it affects (a
        package that reaches it through a helper runs the helper: the helper's import is the
        finding, ST402). Keep package ``__init__`` files of upstream packages free of the sealed
        module (import it where it is used, outside upstream packages).""",
        "§5, §15.2",
    ),
    _r(
        "ST404",
        "closure-import",
        "the sealed module's import closure loads a banned facility or an upstream module",
        """With ``closure = true`` the boundary's whole first-party import closure is checked,
        as ADR-0230 §15.2 says the sealed module *may not import* banned facilities: importing
        it loads every module its allowed imports load in turn, their package ``__init__``
        files included. A module of that closure that imports a banned facility (the
        preset's and the boundary's ``banned`` modules), is itself banned, or is an upstream
        module the boundary does not list in ``allowed_imports``, is reported once per
        module (whole modules: ``from datetime import datetime, timezone`` is one finding,
        ``from types import FunctionType`` none), on the sealed module's import that starts
        the shortest chain, with the chain shown. What loads is what runs on import: by
        default only module-level imports count; the boundary's ``edge_kinds.closure`` can
        add imports in functions, under ``TYPE_CHECKING`` or under the ``__main__`` guard, and
        the chain marks each such step.""",
        "§15.2",
    ),
    _r(
        "ST501",
        "forbidden-field",
        "a record in the boundary module declares a forbidden output field",
        """ADR-0230 §7.3 lists fields neither output type may emit or contain (``answer``,
        ``confidence``, ``rank``, ``serving_allowed``, ...). The rule checks every record-like
        class in the sealed module: dataclasses, ``NamedTuple`` and ``TypedDict`` (class and
        call forms, and ``collections.namedtuple``/``dataclasses.make_dataclass``), attrs
        classes, plain classes with annotated attributes, class attributes, instance attributes
        assigned in methods (``self.x = ...``, ``setattr(self, "x", ...)``), ``__slots__`` and
        ``__annotations__`` entries and properties, also inside ``if``/``try`` blocks of the
        class body. A field list that is computed (``__slots__ = tuple(names)``,
        ``make_dataclass("M", names)``) cannot be checked and is a finding in itself.""",
        "§7.3",
    ),
)

#: The built-in rules, in code order (what ``docs/lint.md`` and ``explain --all`` describe).
BUILTIN_RULES: Final[tuple[RuleInfo, ...]] = tuple(sorted(_BUILTIN, key=lambda i: i.code))
RULES: Final[dict[str, RuleInfo]] = {info.code: info for info in _BUILTIN}


def register_rule_info(info: RuleInfo) -> None:
    """Add a plugin rule's description to :data:`RULES`.

    Raises ``ValueError`` when the code or kebab name is already taken by a different rule
    (stable codes are never shared).
    """
    existing = RULES.get(info.code)
    if existing is not None:
        if existing == info:
            return
        raise ValueError(f"rule code {info.code} is already registered as {existing.name}")
    for other in RULES.values():
        if other.name == info.name:
            raise ValueError(f"rule name {info.name} is already registered as {other.code}")
    RULES[info.code] = info


def lookup_rule(code_or_name: str) -> RuleInfo | None:
    """Return the rule with this code (``st201`` accepted) or kebab name, or None."""
    key = code_or_name.strip()
    found = RULES.get(key.upper())
    if found is not None:
        return found
    for info in RULES.values():
        if info.name == key.lower():
            return info
    return None


def matches_rule(selector: str, code: str) -> bool:
    """Whether ``selector`` (a code ``ST201``, a prefix ``ST2`` or ``ST``, or a kebab name
    ``banned-call``) names the rule ``code``."""
    key = selector.strip()
    if key.upper() == code or (key.upper().startswith("ST") and code.startswith(key.upper())):
        return True
    info = RULES.get(code)
    return info is not None and info.name == key.lower()


def is_selector(selector: str) -> bool:
    """Whether ``selector`` names at least one known rule (see :func:`matches_rule`)."""
    return any(matches_rule(selector, code) for code in RULES)


def help_anchor(info: RuleInfo) -> str:
    """The anchor of the rule's section of ``docs/lint.md`` (its ``### CODE name`` heading,
    as GitHub names it): ``st201-banned-call``."""
    return f"{info.code.lower()}-{info.name}"


def docs_url() -> str | None:
    """Where ``docs/lint.md`` is published: the installed distribution's ``Documentation``
    project URL (``[project.urls]``) followed by ``/lint.md``, or None when it declares none
    (then SARIF carries no ``helpUri``; a link that leads nowhere would be worse)."""
    # importlib.metadata (~20 ms) loads only when a SARIF report asks for the URL: `sealed-trace
    # explain --all` and the rule lookups import this module without it
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        urls = metadata("sealed-trace").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = str(entry).partition(",")
        if label.strip().lower() in ("documentation", "docs") and url.strip():
            return url.strip().rstrip("/") + "/lint.md"
    return None


def explain_rule(code_or_name: str) -> str | None:
    """Return a multi-line explanation of a lint rule, or None when no rule matches (built-in
    and registered plugin rules; :func:`sealed_trace.lint.plugins.explain` loads installed
    plugins first when the code is unknown).

    The text starts ``ST201 banned-call: <summary>``, followed by the explanation paragraph and,
    when the rule enforces an ADR section, an ``ADR-0230 §...`` line.
    """
    info = lookup_rule(code_or_name)
    if info is None:
        return None
    lines = [f"{info.code} {info.name}: {info.summary}", "", info.explanation]
    if info.adr:
        lines += ["", f"Enforces ADR-0230 {info.adr}."]
    if not info.suppressible:
        lines += ["", "This engine rule cannot be suppressed."]
    return "\n".join(lines)
