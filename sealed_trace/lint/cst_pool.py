"""The sealed modules' libcst pass on the standard library's process pool.

This module is what a worker process imports (with :mod:`.facts`): small, so that a worker
spends its start-up on libcst, not on the engine. libcst itself is imported by
:func:`sealed_facts`, when a file needs the pass, so that the engine's process never pays
for its import (a third of a second) while the pool parses the sealed modules: the lint's one
deferred import, for cost, not to hide a cycle.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from sealed_trace.lint.facts import FileFacts

__all__ = ["sealed_facts", "submit", "workers_for"]


def sealed_facts(
    text: str, module: str | None, is_package: bool, target: tuple[int, int] | None
) -> FileFacts:
    """The libcst pass of one file (a sealed module, in a worker of the pool or in process)."""
    # libcst loads in the worker that parses (and on a cold run only): a warm lint and the
    # pool's parent never pay its import
    from sealed_trace.lint.cst_pass import extract_facts

    return extract_facts(text, module, is_package, target)


def workers_for(jobs: int) -> int:
    """Workers for ``jobs`` sealed modules: one each, leaving a core to the engine's own scan
    (at least one)."""
    return max(1, min(jobs, (os.cpu_count() or 1) - 1))


def submit(
    jobs: Sequence[tuple[str, tuple[Any, ...]]], workers: int
) -> dict[str, Future[FileFacts]]:
    """Start a pool of ``workers`` processes, submit each ``(key, arguments of
    sealed_facts)`` job and let the pool shut down once they are done; ``{}`` when no process
    can be started (the files are then parsed in process)."""
    pool: ProcessPoolExecutor | None = None
    try:
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        futures = {key: pool.submit(sealed_facts, *args) for key, args in jobs}
    except Exception:  # no process could be started (a reloaded pool module cannot pickle
        # its own worker function, a sandbox without processes, ...): parse in process
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        return {}
    pool.shutdown(wait=False)
    return futures
