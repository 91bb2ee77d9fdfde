"""ST102 banned-import (ADR-0230 §15.2)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from sealed_trace.lint.config import Boundary
from sealed_trace.lint.facts import ImportFact
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import CatalogRule, Role, RuleContext, Snippet

__all__ = ["BannedImport", "import_ban_reason", "import_is_banned", "reexported_module"]

#: Modules whose ``import *`` binds only their documented public names (their ``__all__``);
#: a star import from any other module (first-party ones included) can bind anything.
_PURE_STAR = frozenset(
    {
        "__future__",
        "collections.abc",
        "dataclasses",
        "enum",
        "hashlib",
        "json",
        "types",
        "typing",
        "typing_extensions",
    }
)


@lru_cache(maxsize=64)
def _banned_module_names(banned: tuple[str, ...], allowed: tuple[str, ...]) -> frozenset[str]:
    """The top-level module names of the banned patterns (``sys``, ``os``, ``builtins``, ...),
    except modules of the allowed surface (``json`` of ``json.load``)."""
    out: set[str] = set()
    for pattern in banned:
        top = pattern.split(".", 1)[0]
        if not top.isidentifier():
            continue
        if any(top == a or a.startswith(top + ".") or top.startswith(a + ".") for a in allowed):
            continue
        out.add(top)
    return frozenset(out)


def _public_names_banned(boundary: Boundary, module: str) -> bool:
    """Whether ``from module import *`` of a pure module (which binds only public names) can
    bind a banned name: private-name patterns (``dataclasses._*``) and the any-object
    attribute patterns (``*.__dict__``) cannot be star-imported."""
    if boundary.module_is_banned(module):
        return True
    prefix = module + "."
    for pattern in boundary.banned:
        if pattern.startswith(prefix) and not pattern[len(prefix) :].startswith("_"):
            return True
        if (
            "*" in pattern
            and not pattern.startswith("*.")
            and prefix.startswith(pattern.split("*", 1)[0])
        ):
            return True
    return False


#: Attribute names under which standard-library modules hold other modules without their
#: names (``enum.bltns`` is ``builtins``); leading underscores are stripped besides
#: (``collections._sys`` is ``sys``, ``typing._io`` would be ``io``).
_MODULE_ALIASES = {
    "bltns": "builtins",
    "_imp": "importlib",
    "_bootstrap": "importlib",
    "_bootstrap_external": "importlib",
}


@lru_cache(maxsize=64)
def _pattern_tops(banned: tuple[str, ...]) -> frozenset[str]:
    """Top-level module names of every banned pattern (``types`` of ``types.CodeType``)."""
    return frozenset(p.split(".", 1)[0] for p in banned if p.split(".", 1)[0].isidentifier())


def reexported_module(
    boundary: Boundary, qualified_name: str, first_party: frozenset[str] = frozenset()
) -> str | None:
    """The banned module a qualified name reaches as an attribute of another module
    (``dataclasses.sys.modules`` reaches ``sys``; ``enum.bltns`` and ``collections._sys`` the
    same under other names), or the banned name it reaches through a module re-exported by
    another (``dataclasses.types.FunctionType``), or None.

    A part that, with what precedes it, names a ``first_party`` module is that module, not the
    standard-library module of the same name (``pkg.random``)."""
    names = _banned_module_names(boundary.banned, boundary.allowed_imports)
    tops = _pattern_tops(boundary.banned)
    parts = qualified_name.split(".")
    for index in range(1, len(parts)):
        if first_party and ".".join(parts[: index + 1]) in first_party:
            continue
        part = parts[index]
        for candidate in (part, part.lstrip("_"), _MODULE_ALIASES.get(part)):
            if candidate and candidate in names:
                return candidate
        if index + 1 < len(parts) and part in tops:
            suffix = ".".join(parts[index:])
            if boundary.is_banned(suffix):
                return suffix
    return None


def import_ban_reason(
    boundary: Boundary, fact: ImportFact, first_party: frozenset[str] = frozenset()
) -> str | None:
    """Why the import is banned (a message tail), or None when it is not."""
    if not fact.module:
        return None
    if fact.name == "*":
        return _star_ban_reason(boundary, fact.module)
    if fact.name is not None and boundary.is_banned(f"{fact.module}.{fact.name}"):
        return "imports a banned name"
    if boundary.module_is_banned(fact.module):
        return "imports a banned name"
    full = fact.module if fact.name is None else f"{fact.module}.{fact.name}"
    module = reexported_module(boundary, full, first_party)
    if module is not None:
        return f"imports banned {_kind(module)} {module} through another module"
    return None


def _star_ban_reason(boundary: Boundary, module: str) -> str | None:
    """Why ``from module import *`` is banned, or None: a pure module's public names may be
    banned; any other module's star import can bind anything (not the sealed module's own)."""
    if module in _PURE_STAR:
        if _public_names_banned(boundary, module):
            return f"star-imports {module}, which has banned names"
        return None
    if boundary.seals(module):
        return None
    if boundary.star_is_banned(module):
        return f"star-imports {module}, which has banned names"
    return (
        f"star-imports {module}, which can bind any name (banned modules "
        "included); import the names explicitly"
    )


def _kind(reached: str) -> str:
    return "name" if "." in reached else "module"


def import_is_banned(boundary: Boundary, fact: ImportFact) -> bool:
    """True when the import binds a banned name (or star-imports a module with one)."""
    return import_ban_reason(boundary, fact) is not None


class BannedImport(CatalogRule):
    """An import in the boundary module that binds a banned qualified name, a banned module
    re-exported by another module (``from dataclasses import sys``), or anything at all
    (``from first_party import *``)."""

    code = "ST102"
    roles = frozenset({Role.BOUNDARY})
    valid = (
        Snippet("import json\nfrom json import dumps, loads\n"),
        Snippet("from hashlib import sha256\n"),
        # outside the surface (ST101), but not banned
        Snippet("import timeit\n"),
    )
    invalid = (
        Snippet("import time\n"),
        Snippet("from os import environ\n"),
        Snippet("from time import *\n"),
        Snippet("from dataclasses import sys\n"),
        Snippet("from pkg.values import *\n", policy='banned = ["pkg.values.clock"]'),
    )

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST102 findings of ``ctx``'s file (see the class docstring)."""
        for fact in ctx.facts.imports:
            if not ctx.counts(fact.type_checking):
                continue
            why = import_ban_reason(ctx.boundary, fact, ctx.first_party)
            if why is not None:
                yield ctx.finding(
                    fact.line, fact.column, self.code, f"`{fact.text}` {why}", fact.text
                )
