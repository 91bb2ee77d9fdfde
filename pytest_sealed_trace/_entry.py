"""Target of the ``pytest11`` entry point ``sealed_trace``. PYTEST_DONT_REWRITE (no asserts).

A module of its own, so that the entry point and an explicit ``-p pytest_sealed_trace`` or
``-p pytest_sealed_trace.plugin`` are different plugin objects: each only asks pytest for
:mod:`pytest_sealed_trace.plugin`, which pytest then registers once, under its own name.
"""

pytest_plugins = ["pytest_sealed_trace.plugin"]
