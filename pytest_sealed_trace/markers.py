"""``sealed_trace_forbid_imports`` and ``sealed_trace_forbid_fields``: a test as a static check.

Both run the boundary lint (never importing the checked module) on one module and fail the
test with the lint's ``path:line:col RULE message`` findings:

``@pytest.mark.sealed_trace_forbid_imports("pkg.mod", allowed=[...], forbidden=[...], preset=...)``
    ``allowed``: the only modules ``pkg.mod`` may import (a name allows its submodules;
    ``__future__`` is always allowed; ST101 otherwise); ``forbidden``: qualified-name patterns
    it may neither import nor use (``time.*``, ``os.environ``, a bare builtin such as
    ``open`` for ``builtins.open``; ST102/ST2xx); ``preset``:
    ``"adr-0230"`` adds the ADR §15 surface and §15.2 banned facilities. Give at least one.
    Only findings in ``pkg.mod`` itself count.

``@pytest.mark.sealed_trace_forbid_fields("pkg.mod.Record", Other, fields=[...])``
    Record types (classes or dotted names of classes or modules) that must not declare the
    given field names; ``fields="adr-0230"`` (the default) is the ADR §7.3 list. Dataclasses,
    NamedTuple, TypedDict, attrs, annotated classes and ``__slots__`` are all checked (ST501).
    ``fields="adr-0231"`` and ``"adr-0232"`` add the names those ADRs forbid beyond ADR-0230's.

``@pytest.mark.sealed_trace_forbid_importers("pkg.sealed", upstream=["pkg.gate", "pkg.run.*"])``
    Modules (patterns) that must never import ``pkg.sealed``: in any spelling (relative,
    aliased, ``from pkg import sealed``), through a chain of first-party modules, or through a
    package ``__init__`` they run (ST401-ST403, as the lint's reverse-dependency rules judge).

Every marker also takes ``third_party=[...]``: modules it names that are not installed where
the tests run (``forbidden=["requests.*"], third_party=["requests"]``), as the lint policy's
``third_party`` key declares them.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import fnmatch
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pytest_sealed_trace.marker_lint import MarkerProblem, Request, SharedLint
from sealed_trace import lint

__all__ = ["MARKERS", "SHARED_KEY", "check_markers"]

MARKERS = (
    "sealed_trace_forbid_imports(module, allowed=(), forbidden=(), preset=None): fail when the "
    "module imports outside `allowed` or imports/uses a `forbidden` name (static; "
    "sealed-trace lint)",
    "sealed_trace_forbid_fields(*types, fields='adr-0230'): fail when a record type declares "
    "a forbidden field; fields= also takes 'adr-0231' or 'adr-0232' (static; sealed-trace lint)",
    "sealed_trace_forbid_importers(module, upstream=()): fail when an upstream module imports "
    "the module, in any spelling, through a chain or a package __init__ (static; sealed-trace "
    "lint)",
    "sealed_trace: a boundary-lint item of [tool.sealed_trace] (select with -m sealed_trace, "
    "or leave out with -m 'not sealed_trace')",
)

_ADR_PRESET = "adr-0230"
#: The lint's reverse-dependency rules: direct, through a chain, through a package __init__.
_REVERSE_CODES = ("ST401", "ST402", "ST403")
#: A file the lint could not read or parse, or a rule that crashed: nothing was judged there.
_UNREAD = ("ST001", "ST002", "ST006")


def _strings(value: Any, what: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable) and all(isinstance(v, str) for v in value):
        return list(value)
    raise _Misuse(f"{what}={value!r}: must be a string or a list of strings")


def _module_file(module: str, roots: Sequence[str]) -> tuple[str, str] | None:
    """Find ``module``'s source file under ``roots`` without importing it: (root, path)."""
    for root in roots:
        found = lint.module_file(root, module)
        if found is not None:
            return root, str(found)
    return None


def _roots(config: pytest.Config) -> list[str]:
    roots = [str(config.rootpath)]
    roots += [p for p in sys.path if p and os.path.isdir(p)]
    return list(dict.fromkeys(roots))


def _third_party(mark: pytest.Mark) -> list[str]:
    """The marker's ``third_party`` list: modules it names that need not be installed."""
    return _strings(mark.kwargs.get("third_party", ()), "third_party")


def _request(
    item: pytest.Item,
    key: str,
    module: str,
    boundary: dict[str, Any],
    third_party: Sequence[str] = (),
    upstream: Sequence[str] = (),
) -> Request:
    """What a marker asks the lint to judge: ``module``'s boundary (found under the rootdir
    or ``sys.path``, never imported). Fails the test when ``module`` has no source file."""
    found = _module_file(module, _roots(item.config))
    if found is None:
        pytest.fail(
            f"sealed_trace marker: module {module!r} has no source file under the "
            "rootdir or sys.path",
            pytrace=False,
        )
    root, _ = found
    return Request(
        f"marker:{item.nodeid}:{key}", module, root, boundary, tuple(third_party), tuple(upstream)
    )


def _shown(item: pytest.Item, request: Request) -> list[_Shown]:
    """The findings of ``request``'s boundary as the marker shows them: its module's own, or
    with upstream patterns the reverse-dependency findings in every file (and the upstream
    files the lint could not read), each as ``path:line:col RULE message``."""
    shared = _shared(item)
    try:
        findings = shared.answer(request)
    except MarkerProblem as problem:
        raise _Misuse("; ".join(_as_argument(p) for p in problem.problems)) from None
    own = _module_file(request.module, [request.root])
    own_path = os.path.relpath(own[1], request.root).replace(os.sep, "/") if own else ""
    modules = shared.modules(request)
    shown = []
    for f in findings:
        if not _concerns(f, request, own_path, modules):
            continue
        path = os.path.relpath(os.path.join(request.root, f.path), item.config.rootpath)
        # the boundary's name is unique in the session's lint; the test shows its own name
        message = f.message.replace(repr(request.key), repr(f"marker:{item.name}"))
        shown.append(_Shown(f"{path}:{f.line}:{f.column} {f.code} {message}", f.code, f.anchor))
    return shown


def _concerns(
    finding: lint.Finding, request: Request, own_path: str, modules: Mapping[str, str | None]
) -> bool:
    """Whether the marker shows ``finding``: with upstream patterns, a reverse import or an
    upstream file the lint could not read; else a finding in its own module (``own_path``),
    not in its neighbours."""
    if request.upstream:
        return finding.code in _REVERSE_CODES or (
            finding.code in _UNREAD and _is_upstream(modules.get(finding.path), request.upstream)
        )
    return finding.path == own_path


def _is_upstream(module: str | None, patterns: Sequence[str]) -> bool:
    """Whether ``module`` matches an upstream pattern, or is a package above one (importing
    a module runs its packages first)."""
    return module is not None and any(
        fnmatch.fnmatchcase(module, pattern) or pattern.startswith(module + ".")
        for pattern in patterns
    )


class _Shown(NamedTuple):
    line: str
    code: str
    anchor: str


class _Misuse(Exception):
    """A marker given arguments it cannot take: the test fails with this one line."""


#: The policy keys a marker's arguments become, for messages in the marker's own terms.
_ARGUMENT_OF = {
    "allowed_imports": "allowed",
    "banned": "forbidden",
    "forbidden_fields": "fields",
    "preset": "preset",
    "upstream": "upstream",
}


def _as_argument(problem: str) -> str:
    """A policy problem about ``boundary[0].<key>`` reworded as the marker argument."""
    prefix = "boundary[0]."
    if problem.startswith(prefix):
        key, _, rest = problem[len(prefix) :].partition(" ")
        base = key.split("[", 1)[0]
        problem = f"{_ARGUMENT_OF.get(base, base)}: {rest}"
    return problem.replace("list a module that is not installed here in third_party", _HINT)


_HINT = "name a module that is not installed here in third_party=[...]"


def _unknown(item: pytest.Item, mark: pytest.Mark, known: Sequence[str]) -> None:
    unknown = sorted(set(mark.kwargs) - set(known))
    if unknown:
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, known, n=1)
            hints.append(f"{name}= (did you mean {close[0]}=?)" if close else f"{name}=")
        raise _Misuse(
            f"unknown argument {', '.join(hints)}; it takes {', '.join(k + '=' for k in known)}"
        )


def _defines(path: str, qualname: str) -> bool | None:
    """Whether the module file at ``path`` binds ``qualname`` (``Record``,
    ``Outer.Inner``) at module level or in a class body, statically; None when it cannot be
    told (a star import, a module ``__getattr__``, a file that does not parse)."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):
        return None
    body: list[ast.stmt] = tree.body
    parts = qualname.split(".")
    for depth, part in enumerate(parts):
        try:
            found = _binding(body, part, module_level=depth == 0)
        except _CannotTell:
            return None
        if found is None:
            return False
        if depth < len(parts) - 1:
            if not isinstance(found, ast.ClassDef):
                return None  # an imported or assigned name: its attributes are not visible
            body = found.body
    return True


class _CannotTell(Exception):
    """A body binds names that cannot be read statically (a star import, a module
    ``__getattr__``)."""


#: Statements that bind names of the body they are in (and whose own bodies do not).
_BINDING = (
    ast.ClassDef,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Import,
    ast.ImportFrom,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
)
#: The blocks of ``if``/``try``/``with``/``for``/``while`` (and of an ``except`` clause),
#: which bind in the body around them.
_BLOCKS = ("body", "orelse", "finalbody", "handlers")


def _binding(body: list[ast.stmt], name: str, *, module_level: bool) -> ast.stmt | None:
    """The statement of ``body`` (its blocks included) that binds ``name``, or None; of
    several, the one the walk meets last (it ends at the top of the file). Raises
    :class:`_CannotTell`."""
    found: ast.stmt | None = None
    work: list[Any] = list(body)
    while work:
        stmt = work.pop()
        if not isinstance(stmt, _BINDING):
            for block in _BLOCKS:
                work.extend(getattr(stmt, block, ()) or ())
        elif _binds(stmt, name, module_level=module_level):
            found = stmt
    return found


def _binds(stmt: ast.stmt, name: str, *, module_level: bool) -> bool:
    """Whether a binding statement binds ``name``. Raises :class:`_CannotTell`."""
    if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        if module_level and stmt.name == "__getattr__" and name != "__getattr__":
            raise _CannotTell
        return stmt.name == name
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return _imports_name(stmt, name)
    return any(_assigns_name(target, name) for target in _targets_of(stmt))


def _imports_name(stmt: ast.Import | ast.ImportFrom, name: str) -> bool:
    """Whether an import binds ``name``. Raises :class:`_CannotTell` for a star import."""
    if any(alias.name == "*" for alias in stmt.names):
        raise _CannotTell
    return any((alias.asname or alias.name.split(".")[0]) == name for alias in stmt.names)


def _assigns_name(target: ast.expr, name: str) -> bool:
    """Whether an assignment target (unpacking included) binds ``name``."""
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _targets_of(stmt: ast.stmt) -> list[ast.expr]:
    """What an assignment (plain, annotated or augmented) assigns to."""
    if isinstance(stmt, ast.Assign):
        return stmt.targets
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return [stmt.target]
    return []


def _names_in(path: str) -> list[str]:
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError):
        return []
    return [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]


def _fail(title: str, findings: list[_Shown]) -> None:
    pytest.fail("\n".join([title, *(f.line for f in findings)]), pytrace=False)


class _Check(NamedTuple):
    """A marker's lint requests and the verdict on their findings (which fails the test)."""

    requests: list[Request]
    judge: Callable[[], None]


def _forbid_imports(item: pytest.Item, mark: pytest.Mark, key: str) -> _Check:
    if len(mark.args) != 1 or not isinstance(mark.args[0], str):
        raise _Misuse(f"takes one module name as a string, got {mark.args!r}")
    _unknown(item, mark, ("allowed", "forbidden", "preset", "third_party"))
    if not {"allowed", "forbidden", "preset"} & set(mark.kwargs):
        raise _Misuse("needs allowed=..., forbidden=... and/or preset=...")
    module = mark.args[0]
    # `from __future__ import ...` is a compiler directive, always allowed.
    allowed = ["__future__", *_strings(mark.kwargs.get("allowed", ()), "allowed")]
    forbidden = _strings(mark.kwargs.get("forbidden", ()), "forbidden")
    boundary: dict[str, Any] = {"allowed_imports": allowed, "banned": forbidden}
    if "preset" in mark.kwargs:
        boundary["preset"] = mark.kwargs["preset"]
    request = _request(item, key, module, boundary, _third_party(mark))

    def judge() -> None:
        findings = _shown(item, request)
        if "preset" in mark.kwargs:  # the preset's forbidden fields are the other marker's job
            findings = [f for f in findings if not f.code.startswith("ST5")]
        if "allowed" not in mark.kwargs and "preset" not in mark.kwargs:  # no allowlist
            findings = [f for f in findings if f.code != "ST101"]
        if findings:
            _fail(f"{module} breaks its import surface:", findings)

    return _Check([request], judge)


def _targets(item: pytest.Item, args: Sequence[Any]) -> list[tuple[str, str | None]]:
    """(module, class name or None) for each marker argument."""
    roots = _roots(item.config)
    return [_target(arg, roots) for arg in args]


def _target(arg: Any, roots: list[str]) -> tuple[str, str | None]:
    """(module, class name or None) of one marker argument: a class, a module, or a dotted
    name of either."""
    if isinstance(arg, type):
        return arg.__module__, arg.__qualname__
    if isinstance(arg, str):
        if _module_file(arg, roots) is not None:
            return arg, None
        return _dotted_class(arg, roots)
    if inspect.ismodule(arg):
        return arg.__name__, None
    raise _Misuse(f"takes types, modules or dotted names, not {arg!r}")


def _dotted_class(arg: str, roots: list[str]) -> tuple[str, str]:
    """(module, class name) of a dotted name whose longest prefix with a source file is the
    module; fails the test when there is none, or when that module does not define the rest."""
    parts = arg.split(".")
    split = next(
        (
            i
            for i in range(len(parts) - 1, 0, -1)
            if _module_file(".".join(parts[:i]), roots) is not None
        ),
        None,
    )
    if split is None:
        pytest.fail(
            f"sealed_trace_forbid_fields: {arg!r}: no module of it has a "
            "source file under the rootdir or sys.path",
            pytrace=False,
        )
    module, name = ".".join(parts[:split]), ".".join(parts[split:])
    found = _module_file(module, roots)
    assert found is not None
    if _defines(found[1], name) is False:
        close = difflib.get_close_matches(name, _names_in(found[1]), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        pytest.fail(
            f"sealed_trace_forbid_fields: {arg!r}: {module} defines no {name}{hint}",
            pytrace=False,
        )
    return module, name


def _field_boundary(fields: Any) -> dict[str, Any]:
    """The policy keys of a ``fields=`` argument: a field preset or a list of names."""
    if fields == _ADR_PRESET:
        return {"preset": _ADR_PRESET}
    if isinstance(fields, str) and fields in lint.FIELD_PRESETS:
        return {"forbidden_fields": list(lint.FIELD_PRESETS[fields])}
    if isinstance(fields, str) and not fields.isidentifier():
        close = difflib.get_close_matches(fields, list(lint.FIELD_PRESETS), n=1)
        hint = f" (did you mean fields={close[0]!r}?)" if close else ""
        raise _Misuse(
            f"fields={fields!r}: neither a field name nor a preset "
            f"({', '.join(lint.FIELD_PRESETS)}){hint}"
        )
    return {"forbidden_fields": _strings(fields, "fields")}


def _forbid_fields(item: pytest.Item, mark: pytest.Mark, key: str) -> _Check:
    if not mark.args:
        raise _Misuse("needs a record type (a class, a module or a dotted name)")
    _unknown(item, mark, ("fields", "third_party"))
    boundary = _field_boundary(mark.kwargs.get("fields", _ADR_PRESET))
    third_party = _third_party(mark)
    targets = [
        (name, _request(item, f"{key}.{index}", module, boundary, third_party))
        for index, (module, name) in enumerate(_targets(item, mark.args))
    ]

    def judge() -> None:
        problems: list[_Shown] = []
        for name, request in targets:
            problems += [
                f
                for f in _shown(item, request)
                if (f.code.startswith("ST5") and (name is None or f.anchor.startswith(name + ".")))
                or f.code.startswith("ST00")
            ]
        if problems:
            _fail("forbidden fields declared:", problems)

    return _Check([request for _, request in targets], judge)


def _forbid_importers(item: pytest.Item, mark: pytest.Mark, key: str) -> _Check:
    if len(mark.args) != 1 or not isinstance(mark.args[0], str):
        raise _Misuse(f"takes one module name as a string, got {mark.args!r}")
    _unknown(item, mark, ("upstream", "third_party"))
    upstream = _strings(mark.kwargs.get("upstream", ()), "upstream")
    if not upstream:
        raise _Misuse("needs upstream=[...]: the modules that must never import it")
    module = mark.args[0]
    boundary = {"allowed_imports": ["__future__"]}
    request = _request(item, key, module, boundary, _third_party(mark), upstream)

    def judge() -> None:
        findings = _shown(item, request)
        if findings:
            _fail(f"upstream modules import {module}:", findings)

    return _Check([request], judge)


#: Each marker and what makes its check.
_CHECKS: dict[str, Callable[[pytest.Item, pytest.Mark, str], _Check]] = {
    "sealed_trace_forbid_imports": _forbid_imports,
    "sealed_trace_forbid_fields": _forbid_fields,
    "sealed_trace_forbid_importers": _forbid_importers,
}
SHARED_KEY = pytest.StashKey[SharedLint]()


def _marks(item: pytest.Item) -> Iterator[tuple[str, pytest.Mark, str]]:
    """Each ``sealed_trace_forbid_*`` mark of ``item`` with its kind and a key unique in
    the test."""
    for name in _CHECKS:
        for index, mark in enumerate(item.iter_markers(name)):
            yield name, mark, f"{name}#{index}"


def _shared(item: pytest.Item) -> SharedLint:
    """The session's marker lint, made (and given every marked test's requests) by the
    first marker that runs."""
    shared = item.config.stash.get(SHARED_KEY, None)
    if shared is None:
        shared = item.config.stash[SHARED_KEY] = SharedLint()
        for other in item.session.items:
            for name, mark, key in _marks(other):
                # a marker its arguments make fail is judged, and reported, when it runs
                with contextlib.suppress(Exception, pytest.fail.Exception):
                    shared.gather(_CHECKS[name](other, mark, key).requests)
    return shared


def check_markers(item: pytest.Item) -> None:
    """Run every ``sealed_trace_forbid_*`` marker of ``item``; fail with the findings."""
    for name, mark, key in _marks(item):
        problem: str | None = None
        try:
            _CHECKS[name](item, mark, key).judge()
        except _Misuse as misuse:
            problem = str(misuse)
        except Exception as error:  # a bug: one line, not a traceback through the plugin
            # imported here, on an internal error only: importing the plugin loads no core module
            from sealed_trace.errors import internal_error, wants_traceback

            if wants_traceback():
                raise
            problem = internal_error("checking the marker", error)
        if problem is not None:  # outside the handler: one message, no chained report
            pytest.fail(f"{name}: {problem}", pytrace=False)
