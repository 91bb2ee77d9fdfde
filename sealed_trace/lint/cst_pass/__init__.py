"""The libcst pass over sealed modules: one parse and one batched walk per file, producing
:class:`~sealed_trace.lint.facts.FileFacts`.

This package and rule plugins are the only code of the project that imports libcst; it is
imported only when a file needs the pass. Names are resolved through libcst's
``ScopeProvider`` (the qualified names its scopes give), never from source text, so aliases
resolve and strings, comments and docstrings are never mistaken for code. The scanned code is
never imported or executed.

Layout: :mod:`.extract` runs the pass (:mod:`.parsing` parses); one visitor per kind of fact
shares the walk through :mod:`.context`: :mod:`.imports` (import statements, ``TYPE_CHECKING``
and main guards), :mod:`.references` (qualified-name references, aliases, writes to
``TYPE_CHECKING``), :mod:`.dynamic` (dynamic imports, attribute fetches, escapes) and
:mod:`.fields` (records and their fields, with :mod:`.records` for class bodies);
:mod:`.names` resolves names, :mod:`.rebinding` reads module-scope rebinding before the walk,
:mod:`.syntax` reads nodes. The import rules both passes share are in
:mod:`sealed_trace.lint.dynamic_rules`.
"""

from __future__ import annotations

from sealed_trace.lint.cst_pass.extract import extract_facts

__all__ = ["extract_facts"]
