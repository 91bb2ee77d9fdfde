"""The base of the pass's visitors: a batchable visitor over one file's shared context."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

import libcst as cst

from sealed_trace.lint.cst_pass.context import FileContext

__all__ = ["FactVisitor"]

#: A ``visit_``/``leave_`` method, as the batched walk calls it.
VisitorMethod = Callable[[cst.CSTNode], None]


class FactVisitor(cst.BatchableCSTVisitor):
    """A visitor run with the others in one batched walk of a file (one instance per file).

    Its ``visit_``/``leave_`` methods return nothing: a batched walk visits every node, so a
    visitor that must skip a subtree keeps its own depth. Metadata comes from the
    :class:`FileContext` (resolved once for all visitors), not from ``get_metadata``.
    """

    _method_names: ClassVar[dict[type, tuple[str, ...]]] = {}

    def __init__(self, context: FileContext) -> None:
        super().__init__()
        self.context = context

    def get_visitors(self) -> Mapping[str, VisitorMethod]:
        """libcst's method lookup (``inspect.getmembers`` over the hundreds of typed stubs, a
        millisecond and a half a visitor), done once per class."""
        names = self._method_names.get(type(self))
        if names is None:
            names = tuple(super().get_visitors())
            self._method_names[type(self)] = names
        return {name: getattr(self, name) for name in names}
