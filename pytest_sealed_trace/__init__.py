"""pytest plugin for ADR-0230 sealed practice traces: ``pytest -p sealed_trace``.

PYTEST_DONT_REWRITE: it holds no assertions, and naming it with ``-p`` after the entry point
has imported it must not warn that it cannot be rewritten.

The plugin itself lives in :mod:`pytest_sealed_trace.plugin`; every way of loading it (the
``sealed_trace`` entry point, ``-p sealed_trace``, ``-p pytest_sealed_trace``,
``-p pytest_sealed_trace.plugin``, ``PYTEST_PLUGINS``) registers that one module exactly once,
and ``-p no:sealed_trace`` disables it.
"""

pytest_plugins = ["pytest_sealed_trace.plugin"]
