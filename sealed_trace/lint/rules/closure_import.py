"""ST404 closure-import (ADR-0230 §15.2), for boundaries with ``closure = true``."""

from __future__ import annotations

from collections.abc import Iterator

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules.base import RuleContext

__all__ = ["ClosureImport"]

_INFO = RULES["ST404"]


class ClosureImport:
    """What the sealed module's first-party import closure loads against the policy: one
    finding per banned facility or module, with its shortest chain."""

    code, name, summary, explanation = _INFO.code, _INFO.name, _INFO.summary, _INFO.explanation
    roles = frozenset({"boundary"})

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        """Yield the ST404 findings computed for ``ctx``'s boundary (see the class docstring)."""
        for edge in ctx.closure:
            steps = [edge.chain[0]]
            for module, lazy in zip(edge.chain[1:], edge.lazy, strict=True):
                steps.append(f"{module} (lazy)" if lazy else module)
            yield ctx.finding(
                edge.line,
                edge.column,
                self.code,
                f"importing sealed module {edge.chain[0]} loads {edge.what}: " + " -> ".join(steps),
                f"{edge.what}|{' -> '.join(edge.chain)}",
            )
