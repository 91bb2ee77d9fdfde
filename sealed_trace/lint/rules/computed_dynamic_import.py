"""ST301 computed-dynamic-import (ADR-0230 §15.2, §5)."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import RuleContext

__all__ = ["ComputedDynamicImport"]

_INFO = RULES["ST301"]


class ComputedDynamicImport:
    """A dynamic import whose module name is not a literal, in the boundary or upstream, or in
    a first-party module that an upstream module imports (directly or not)."""

    code, name, summary, explanation = _INFO.code, _INFO.name, _INFO.summary, _INFO.explanation
    roles = frozenset({"boundary", "upstream", "reached"})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST301 findings of ``ctx``'s file (see the class docstring)."""
        for finding in self._check(ctx):
            if ctx.role == "reached":
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

    def _check(self, ctx: RuleContext) -> Iterator[Finding]:
        for fact in ctx.facts.dynamics:
            if fact.kind == "computed-import":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    f"{fact.callee}() with a computed module name cannot be checked",
                    fact.callee,
                )
            elif fact.kind == "hidden-import":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    f"{fact.callee}() may import any module named in its data; "
                    "it cannot be checked",
                    fact.callee,
                )
            elif fact.kind == "escaped-import":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    f"{fact.callee} is used as a value, not called: what it "
                    "imports cannot be checked",
                    fact.callee,
                )
            elif fact.kind == "relative-base" and fact.callee == "__path__":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    "__path__ is changed: the package's submodules may come "
                    "from anywhere and cannot be checked",
                    fact.callee,
                )
            elif fact.kind == "relative-base":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    f"{fact.callee} is assigned: relative imports resolve against "
                    "a computed package and cannot be checked",
                    fact.callee,
                )
            elif fact.kind == "path-import":
                yield ctx.finding(
                    fact.line,
                    fact.column,
                    self.code,
                    f"{fact.callee}() loads code by file path; it cannot be checked",
                    fact.callee,
                )
