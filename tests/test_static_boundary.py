"""Interim static and runtime checks of ADR-0230 §17 items 17-20 (and STYLE: no pytest in core).

The sealing module ``sealed_trace/trace.py`` is parsed with the stdlib ``ast`` module: its
imports stay inside the ADR §15.1 surface, it calls nothing banned, and the modules it depends
on stay pure too. No upstream module or ``identity.py`` imports the sealing module, in any
spelling. The detectors are themselves tested on snippets, so they can fail.
"""

from __future__ import annotations

import ast
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
from pathlib import Path

import independent as ind
import pytest

import sealed_trace.trace as trace_module
from sealed_trace import PracticeTraceRefusal, SealedPracticeTrace, seal
from sealed_trace.builder import build_episode

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "sealed_trace"
TRACE = PKG / "trace.py"

#: ADR §15.1 surface of the sealing module itself.
TRACE_ALLOWED = {"__future__", "dataclasses", "enum", "typing", "collections.abc",
                 "sealed_trace.identity", "sealed_trace.reasons", "sealed_trace._reader"}
TRACE_ALLOWED_PREFIX = "sealed_trace.upstream"
#: Pure standard-library facilities the sealing module's own dependencies may use.
DEPENDENCY_STDLIB = {"__future__", "dataclasses", "enum", "typing", "collections.abc",
                     "hashlib", "json", "types", "operator", "re"}
BANNED_MODULES = {
    "time", "random", "uuid", "os", "socket", "subprocess", "importlib", "sys", "datetime",
    "pathlib", "secrets", "platform", "shutil", "threading", "multiprocessing", "io",
    "tempfile", "urllib", "http", "logging", "pickle", "marshal", "ctypes", "signal",
    "getpass", "inspect", "asyncio", "sqlite3", "glob", "fnmatch", "locale", "zoneinfo",
    "concurrent", "builtins", "gc", "runpy", "pkgutil", "site", "ssl", "select", "mmap",
}
BANNED_CALLS = {"open", "exec", "eval", "compile", "__import__", "input", "breakpoint",
                "globals", "locals", "vars", "setattr", "delattr", "print", "exit", "quit",
                "__setattr__", "__delattr__", "import_module"}
#: Verbs of the authorities the trace must not reach (ADR §14, §15.2, §17 items 17-18).
FORBIDDEN_VERBS = ("generate", "execute", "repair", "serve", "serving", "promote", "teach",
                   "mutate", "workbench", "write", "persist", "save", "dump", "publish",
                   "evaluate", "select", "rank", "score", "classify", "search_run",
                   "run_search", "run_replay", "replay_contract", "replay_proof", "prove")


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(tree: ast.Module, module: str, is_package: bool = False) -> set[str]:
    """Every module an AST imports, relative imports resolved, ``from pkg import sub`` as
    ``pkg.sub`` as well as ``pkg``."""
    package = module if is_package else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            out.add(target)
            out.update(f"{target}.{alias.name}" for alias in node.names)
    return out


def builtin_calls(tree: ast.Module) -> set[str]:
    """Names called directly (``open(...)``, ``eval(...)``), not as attributes."""
    return {node.func.id for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}


def called_names(tree: ast.Module) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                out.add(f.id)
            elif isinstance(f, ast.Attribute):
                out.add(f.attr)
    return out


def used_names(tree: ast.Module) -> set[str]:
    """Every bare name read and every attribute chain root (``os`` in ``os.path.join``)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
    return out


def defined_names(tree: ast.Module) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
    return out


def imports_sealing_module(tree: ast.Module, module: str, is_package: bool = False) -> list[str]:
    """Every way ``tree`` reaches ``sealed_trace.trace`` (or the package root, which imports
    it): import statements in any spelling and dynamic-import strings."""
    hits = []
    public = set(trace_module.__all__)
    for name in imported_modules(tree, module, is_package):
        parts = name.split(".")
        if parts[0] != "sealed_trace":
            continue
        # the module itself, the package root (its __init__ imports the module), a name the
        # module exports, or a star import
        if name == "sealed_trace" or parts[1] == "trace" or parts[1] in public or (
                parts[-1] == "*"):
            hits.append(name)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in (None, "sealed_trace") and any(
                alias.name == "*" for alias in node.names):
            hits.append("star")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                "sealed_trace.trace" in node.value or node.value == "trace"):
            hits.append(repr(node.value))
    return hits


def _pure_import_closure() -> set[Path]:
    """trace.py and every sealed_trace module it (transitively) imports."""
    seen: set[Path] = set()
    todo = [TRACE]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in imported_modules(parse(path), module_name(path), path.name == "__init__.py"):
            if not name.startswith("sealed_trace."):
                continue
            rel = Path(*name.split("."))
            for candidate in (ROOT / rel.with_suffix(".py"), ROOT / rel / "__init__.py"):
                if candidate.exists():
                    todo.append(candidate)
    return seen


CLOSURE = sorted(_pure_import_closure())
UPSTREAM = [*sorted((PKG / "upstream").glob("*.py")), PKG / "identity.py"]
CORE = sorted(p for p in PKG.rglob("*.py") if "lint" not in p.relative_to(PKG).parts)


# --- the detectors catch what they should -------------------------------------------------

@pytest.mark.parametrize(
    "snippet",
    [
        "import sealed_trace.trace",
        "import sealed_trace.trace as t",
        "from sealed_trace import trace",
        "from sealed_trace.trace import seal",
        "from .. import trace",
        "from ..trace import seal",
        "from .. import *",
        "import sealed_trace",
        "from sealed_trace import seal",
        "def f():\n    from sealed_trace.trace import seal",
        "importlib.import_module('sealed_trace.trace')",
        "__import__('sealed_trace.trace')",
        "getattr(importlib.import_module('sealed_trace'), 'trace')",
    ],
)
def test_reverse_import_detector_catches(snippet):
    assert imports_sealing_module(ast.parse(snippet), "sealed_trace.upstream.run")


@pytest.mark.parametrize(
    "snippet",
    ["from sealed_trace.identity import identity_digest",
     "from .spans import SourceSpan", "from . import spans",
     "from sealed_trace.upstream.spans import SourceSpan"],
)
def test_reverse_import_detector_allows(snippet):
    assert not imports_sealing_module(ast.parse(snippet), "sealed_trace.upstream.run")


def test_import_resolution_handles_relative_and_package_forms():
    tree = ast.parse("from . import _reader as r\nfrom .upstream.run import run_id\n"
                     "import os.path")
    names = imported_modules(tree, "sealed_trace.trace")
    assert {"sealed_trace._reader", "sealed_trace.upstream.run", "os.path"} <= names


# --- items 17-20 on the real module -------------------------------------------------------

def test_trace_imports_stay_inside_the_adr_surface():
    names = imported_modules(parse(TRACE), "sealed_trace.trace")
    outside = set()
    for name in names:
        if name in TRACE_ALLOWED or name.startswith(TRACE_ALLOWED_PREFIX):
            continue
        parent = name.rpartition(".")[0]
        # ``from typing import Final`` adds ``typing.Final``; ``from sealed_trace import
        # _reader`` adds ``sealed_trace``: judge each by its resolved module
        if parent in TRACE_ALLOWED or parent.startswith(TRACE_ALLOWED_PREFIX):
            continue
        if name == "sealed_trace":
            continue
        outside.add(name)
    assert outside == set()
    root_imports = {n for n in names if n.startswith("sealed_trace.")
                    and n.count(".") == 1}
    assert root_imports <= TRACE_ALLOWED | {"sealed_trace.upstream"}


@pytest.mark.parametrize("path", CLOSURE, ids=lambda p: str(p.relative_to(ROOT)))
def test_sealing_closure_imports_only_pure_modules(path):
    names = imported_modules(parse(path), module_name(path), path.name == "__init__.py")
    for name in names:
        if name.startswith("sealed_trace"):
            assert not name.startswith(("sealed_trace.lint", "sealed_trace.cli",
                                        "sealed_trace.episode_json", "sealed_trace.builder")), name
            continue
        root = name.split(".")[0]
        assert root not in BANNED_MODULES, name
        assert name in DEPENDENCY_STDLIB or name.rpartition(".")[0] in DEPENDENCY_STDLIB, name


def test_closure_is_what_we_expect():
    rels = {str(p.relative_to(ROOT)) for p in CLOSURE}
    assert "sealed_trace/trace.py" in rels
    assert {"sealed_trace/identity.py", "sealed_trace/_reader.py",
            "sealed_trace/reasons.py"} <= rels
    assert not any("lint" in r or "builder" in r or "cli" in r for r in rels)


@pytest.mark.parametrize("path", CLOSURE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_banned_calls_or_names(path):
    tree = parse(path)
    assert builtin_calls(tree) & BANNED_CALLS == set()
    assert used_names(tree) & BANNED_MODULES == set()


def test_trace_calls_nothing_banned_even_as_an_attribute():
    assert called_names(parse(TRACE)) & BANNED_CALLS == set()


def test_trace_reaches_no_forbidden_authority():
    tree = parse(TRACE)
    names = called_names(tree) | defined_names(tree)
    hits = sorted(n for n in names for verb in FORBIDDEN_VERBS if verb in n.lower())
    assert hits == []


def test_trace_has_no_global_state_or_mutation_statements():
    tree = parse(TRACE)
    for node in ast.walk(tree):
        assert not isinstance(node, (ast.Global, ast.Nonlocal)), ast.dump(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            assert node.func.attr not in {"__setattr__", "__delattr__"}


@pytest.mark.parametrize("path", UPSTREAM, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_reverse_dependency_into_the_sealing_module(path):
    hits = imports_sealing_module(parse(path), module_name(path), path.name == "__init__.py")
    assert hits == []


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_never_imports_pytest(path):
    names = imported_modules(parse(path), module_name(path), path.name == "__init__.py")
    for name in names:
        assert name.split(".")[0] not in {"pytest", "_pytest", "hypothesis"}, name
    assert "pytest" not in {n.value for n in ast.walk(parse(path))
                            if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_core_list_is_not_empty():
    rels = {str(p.relative_to(ROOT)) for p in CORE}
    assert "sealed_trace/trace.py" in rels
    assert not any("/lint/" in r for r in rels)


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


@pytest.mark.parametrize("disposition", ["sealed_candidate_replay_closed",
                                         "sealed_original_refusal"])
def test_sealing_reaches_no_io_clock_random_env_or_import(disposition):
    episode = build_episode(disposition)
    bad = build_episode(disposition)
    bad = type(bad)(**{**{f: getattr(bad, f) for f in bad.__dataclass_fields__},
                       "problem_frame": None})
    expected = ind.trace_id(episode)
    patches = [
        (builtins, "open"), (io, "open"), (os, "open"), (os, "getenv"), (os, "getcwd"),
        (os, "getpid"), (os, "urandom"), (os, "listdir"), (os, "scandir"), (os, "system"),
        (time, "time"), (time, "time_ns"), (time, "monotonic"), (time, "localtime"),
        (random, "random"), (random, "getrandbits"), (uuid, "uuid4"), (uuid, "uuid1"),
        (socket, "socket"), (socket, "gethostname"), (platform, "node"),
        (subprocess, "Popen"), (subprocess, "run"), (importlib, "import_module"),
        (builtins, "print"), (builtins, "input"), (os, "environ"),
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
