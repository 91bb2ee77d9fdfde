"""Which names exist, and the policy's names that match none of them.

A policy is never silently inert: each boundary's ``module``, ``upstream`` patterns,
``allowed_imports`` and ``banned`` entries must name something. :class:`Names` knows the
first-party modules (from the discovery of the source roots), the standard library, the
installed distributions' top-level modules (read from their metadata, nothing imported) and
the policy's ``third_party`` list; :func:`match_targets` reports each name that matches none,
with the closest one as a suggestion.
"""

from __future__ import annotations

import builtins
import difflib
import fnmatch
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

__all__ = ["BUILTIN_NAMES", "Names", "Target", "match_targets"]

#: What a bare name in ``banned`` can mean besides a module: a builtin (``open``).
BUILTIN_NAMES: Final = frozenset(vars(builtins))


@dataclass(frozen=True, slots=True)
class Target:
    """What of one boundary is matched against the modules that exist: the boundary's
    ``index``, its ``module`` (None when it is not a dotted name), its own ``upstream``,
    ``allowed`` and ``banned`` entries (without the preset's), and whether it has an
    ``upstream`` key at all."""

    index: int
    module: str | None
    upstream: tuple[str, ...]
    allowed: tuple[str, ...]
    banned: tuple[str, ...]
    has_upstream: bool


class Names:
    """Which names exist: first-party ``modules``, the standard library, the installed
    distributions' top-level modules (read from their metadata, nothing imported) and the
    policy's ``third_party`` list."""

    def __init__(self, modules: set[str], third_party: tuple[str, ...]) -> None:
        self.modules = modules
        self.tops = {m.partition(".")[0] for m in modules}
        self.packages = {m.rpartition(".")[0] for m in modules if "." in m}
        self.third_party = third_party
        self._installed: set[str] | None = None

    def installed(self) -> set[str]:
        """The top-level modules of the installed distributions (empty when their metadata
        cannot be read); read once, on first use."""
        if self._installed is None:
            try:
                # importlib.metadata (email, zipfile, csv) loads only for a policy whose names
                # are not all first-party: most runs never pay for it.
                from importlib.metadata import packages_distributions

                self._installed = set(packages_distributions())
            except Exception:  # broken metadata must not break the lint's config check
                self._installed = set()
        return self._installed

    def known(self, name: str) -> bool:
        """Whether ``name`` (a module or a qualified name in one) can exist."""
        literal = name.split("*", 1)[0].rstrip(".")
        if not literal:
            return True
        top = literal.partition(".")[0]
        if any(literal == t or literal.startswith(t + ".") for t in self.third_party):
            return True
        if top in self.tops:
            return self._first_party(literal, wildcard="*" in name)
        return top in sys.stdlib_module_names or top in self.installed()

    def _first_party(self, literal: str, *, wildcard: bool) -> bool:
        """Whether ``literal``, below a first-party top-level name, is a module, a package
        with modules below it, or an attribute of a module (a wildcard over its names), not
        a missing submodule of a package."""
        joint = literal if wildcard else literal + "."
        if literal in self.modules or any(m.startswith(joint) for m in self.modules):
            return True
        owner = literal
        while owner and owner not in self.modules:
            owner = owner.rpartition(".")[0]
        return bool(owner) and (owner not in self.packages or wildcard)

    def suggest(
        self, name: str, *, first_party_only: bool = False, builtins_too: bool = False
    ) -> str:
        """`` (did you mean 'x'?)`` for a module name or pattern that names nothing: the
        closest first-party module, else (unless ``first_party_only``) the closest
        standard-library or installed one (or builtin, with ``builtins_too``); a pattern's
        wildcard tail is kept (``pkg.serach.*`` -> ``pkg.search.*``). Empty when nothing is
        close."""
        literal = name.split("*", 1)[0].rstrip(".")
        close = difflib.get_close_matches(literal, sorted(self.modules), n=1, cutoff=0.6)
        if not close and not first_party_only:
            others = set(sys.stdlib_module_names) | self.installed()
            others |= BUILTIN_NAMES if builtins_too else set()
            close = difflib.get_close_matches(literal, sorted(others), n=1, cutoff=0.75)
        if not close or close[0] == literal:
            return ""
        return f" (did you mean {close[0] + name[len(literal) :]!r}?)"


def match_targets(targets: list[Target], existing: Names, problems: list[str]) -> None:
    """Append a problem for each ``module``, ``upstream``, ``allowed_imports`` or ``banned``
    entry that names nothing in ``existing``, each with the closest name as a suggestion, and
    for each boundary without an ``upstream`` key; boundary by boundary, in that order."""
    for spec in targets:
        problems.extend(_module_problems(spec, existing))
        problems.extend(_upstream_problems(spec, existing))
        problems.extend(_entry_problems(spec, existing))


def _module_problems(spec: Target, existing: Names) -> Iterator[str]:
    sealed = spec.module
    if sealed is None or sealed in existing.modules:
        return
    below = sorted(m for m in existing.modules if m.endswith("." + sealed))
    if below:  # it lives one directory down: that directory is the source root
        where = below[0][: -len(sealed) - 1].replace(".", "/")
        hint = (f" (it is in {where}/: set source_roots = [{where!r}], or add it to them)").replace(
            "'", '"'
        )
    else:
        hint = existing.suggest(sealed, first_party_only=True)
    yield f"boundary[{spec.index}].module {sealed!r} matches no module in the source roots{hint}"


def _upstream_problems(spec: Target, existing: Names) -> Iterator[str]:
    if not spec.has_upstream:
        yield (
            f"boundary[{spec.index}] has no upstream: no module would be checked for "
            "importing it; list the modules that must never import it, or write "
            "upstream = [] to say there are none"
        )
    sealed = spec.module
    for pattern in spec.upstream:
        match = re.compile(fnmatch.translate(pattern)).match
        if not any(match(m) and not _seals(sealed, m) for m in existing.modules):
            yield (
                f"boundary[{spec.index}].upstream pattern {pattern!r} matches no module in "
                "the source roots (other than the sealed module)"
                f"{existing.suggest(pattern, first_party_only=True)}"
            )


def _seals(sealed: str | None, module: str) -> bool:
    return sealed is not None and (module == sealed or module.startswith(sealed + "."))


def _entry_problems(spec: Target, existing: Names) -> Iterator[str]:
    for entry in spec.allowed:
        if not existing.known(entry):
            yield (
                f"boundary[{spec.index}].allowed_imports entry {entry!r} names no first-party "
                "module, standard-library module or installed distribution"
                f"{existing.suggest(entry)}; list a module that is not installed "
                "here in third_party"
            )
    for entry in spec.banned:
        if not existing.known(entry):
            yield (
                f"boundary[{spec.index}].banned entry {entry!r} names no first-party module, "
                "standard-library module, installed distribution or builtin"
                f"{existing.suggest(entry, builtins_too=True)}; list a module that is not "
                "installed here in third_party"
            )
