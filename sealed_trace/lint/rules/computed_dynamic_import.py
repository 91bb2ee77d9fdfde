"""ST301 computed-dynamic-import (ADR-0230 §15.2, §5)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from sealed_trace.lint.facts import DynamicFact, DynamicKind
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import UPSTREAM, FactRule, Messages, Role, RuleContext, Snippet

__all__ = ["ComputedDynamicImport"]

_LAZY = "src/pkg/lazy.py"


class ComputedDynamicImport(FactRule):
    """A dynamic import whose module name is not a literal, in the boundary or upstream, or in
    a first-party module that an upstream module imports (directly or not)."""

    code = "ST301"
    roles = frozenset({Role.BOUNDARY, Role.UPSTREAM, Role.REACHED})
    messages: ClassVar[Messages] = {
        DynamicKind.COMPUTED_IMPORT: "{callee}() with a computed module name cannot be checked",
        DynamicKind.HIDDEN_IMPORT: (
            "{callee}() may import any module named in its data; it cannot be checked"
        ),
        DynamicKind.ESCAPED_IMPORT: (
            "{callee} is used as a value, not called: what it imports cannot be checked"
        ),
        (DynamicKind.RELATIVE_BASE, "__path__"): (
            "__path__ is changed: the package's submodules may come from anywhere and cannot "
            "be checked"
        ),
        DynamicKind.RELATIVE_BASE: (
            "{callee} is assigned: relative imports resolve against a computed package and "
            "cannot be checked"
        ),
        DynamicKind.PATH_IMPORT: "{callee}() loads code by file path; it cannot be checked",
        DynamicKind.COMPUTED_SPEC: (
            "importlib.util.find_spec() with a computed module name below first-party package "
            "{callee} cannot be checked"
        ),
    }
    valid = (
        Snippet("import importlib\nimportlib.import_module('pkg.values')\n", UPSTREAM),
        # an alias of an import function is followed: its literal call is an import
        Snippet("import importlib\nload = importlib.import_module\nload('pkg.values')\n", UPSTREAM),
        # a file loaded by a literal name: the first-party files of that name, here none
        Snippet("import runpy\nrunpy.run_path('plugin.py')\n", UPSTREAM),
        # a module no upstream module imports may import what it likes
        Snippet("import importlib\nimportlib.import_module(NAME)\n", "src/pkg/other.py"),
    )
    invalid = (
        Snippet("import importlib\nname = 'js' + 'on'\nimportlib.import_module(name)\n"),
        Snippet("mod = __import__(f'{x}')\n", UPSTREAM),
        Snippet("import runpy, sys\nrunpy.run_path(sys.argv[1])\n", UPSTREAM),
        Snippet("import pickle\nstate = pickle.loads(data)\n", UPSTREAM),
        Snippet("loaders = [__import__]\n", UPSTREAM),
        Snippet("__package__ = 'pkg'\nfrom . import sealed\n", UPSTREAM),
        Snippet("__path__.append('/elsewhere')\n", "src/pkg/up/__init__.py"),
        Snippet(
            "import importlib\ndef load(n):\n    return importlib.import_module(n)\n",
            _LAZY,
            files={UPSTREAM: "import pkg.lazy\n"},
        ),
    )

    def applies(self, ctx: RuleContext, fact: DynamicFact) -> bool:
        """``find_spec`` below a package only counts when that package is first-party."""
        return fact.kind != DynamicKind.COMPUTED_SPEC or fact.callee in ctx.first_party

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST301 findings of ``ctx``'s file (see the class docstring)."""
        for finding in super().check(ctx):
            if ctx.role == Role.REACHED:
                # which upstream module is shown would change with unrelated edits: the
                # message says what holds, the chain goes to JSON and SARIF
                yield ctx.finding(
                    finding.line,
                    finding.column,
                    finding.code,
                    f"{finding.message} (an upstream module loads this module)",
                    finding.anchor,
                    (ctx.reached_from,),
                )
            else:
                yield finding
