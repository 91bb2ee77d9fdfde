"""ADR-0230 §17 item 20 at runtime: sealing works with every effect disabled.

The static side of items 17-20 (import surface, banned calls, forbidden fields, reverse
dependencies) is proved by the project's own boundary lint, run on the project in CI and in
``tests/lint/test_lint_catalog_and_dogfood.py``; this file adds the runtime complement.
"""

from __future__ import annotations

import builtins
import importlib
import io
import os
import platform
import random
import socket
import subprocess
import time
import uuid

import independent as ind
import pytest

from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import build_episode

# --- item 20 at runtime: sealing works with every effect disabled -----------------------


class _Forbidden(Exception):
    pass


def _forbid(*_args, **_kwargs):
    raise _Forbidden("effect reached")


class _NoEnv(dict):
    def __getitem__(self, key):
        raise _Forbidden(f"environ[{key!r}]")

    def get(self, key, default=None):
        raise _Forbidden(f"environ.get({key!r})")


@pytest.mark.parametrize(
    "disposition", ["sealed_candidate_replay_closed", "sealed_original_refusal"]
)
def test_sealing_reaches_no_io_clock_random_env_or_import(disposition):
    episode = build_episode(disposition)
    bad = build_episode(disposition)
    bad = type(bad)(
        **{**{f: getattr(bad, f) for f in bad.__dataclass_fields__}, "problem_frame": None}
    )
    expected = ind.trace_id(episode)
    patches = [
        (builtins, "open"),
        (io, "open"),
        (os, "open"),
        (os, "getenv"),
        (os, "getcwd"),
        (os, "getpid"),
        (os, "urandom"),
        (os, "listdir"),
        (os, "scandir"),
        (os, "system"),
        (time, "time"),
        (time, "time_ns"),
        (time, "monotonic"),
        (time, "localtime"),
        (random, "random"),
        (random, "getrandbits"),
        (uuid, "uuid4"),
        (uuid, "uuid1"),
        (socket, "socket"),
        (socket, "gethostname"),
        (platform, "node"),
        (subprocess, "Popen"),
        (subprocess, "run"),
        (importlib, "import_module"),
        (builtins, "print"),
        (builtins, "input"),
        (os, "environ"),
        (builtins, "__import__"),  # last: restoring must not need an import
    ]
    saved = [(target, name, getattr(target, name)) for target, name in patches]
    try:
        for target, name in patches:
            setattr(target, name, _NoEnv() if name == "environ" else _forbid)
        outcome = seal(episode)
        refusal = seal(bad)
        hostile = seal(object())
    finally:
        for target, name, value in reversed(saved):
            setattr(target, name, value)
    assert isinstance(outcome, SealedPracticeTrace)
    assert outcome.trace_id == expected
    assert isinstance(refusal, PracticeTraceRefusal)
    assert refusal.reason_codes != ("sealer_internal_fault",)
    assert isinstance(hostile, PracticeTraceRefusal)
