"""Finding and reading the policy file: :func:`find_config` and :func:`load_config`.

The file is read with ``tomllib``, or ``tomli`` below Python 3.11 (the one place the lint's
configuration reads TOML). A file that cannot be read, is not UTF-8 or not valid TOML, or
has no ``tool.sealed_trace`` table is a :class:`ConfigError` saying so; the table itself is
validated by :func:`~sealed_trace.lint.config.parse.parse_config`, and each of its problems
gets the line of the key it is about.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sealed_trace.lint.config.lines import key_lines, line_of
from sealed_trace.lint.config.model import ConfigError, LintConfig
from sealed_trace.lint.config.parse import parse_config

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["find_config", "load_config"]


def _read_toml(path: Path) -> tuple[dict[str, Any] | None, bytes]:
    """``path`` parsed (None when it cannot be read or parsed) and its bytes."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None, b""
    try:
        return tomllib.loads(raw.decode("utf-8")), raw
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None, raw


def _pyprojects(start: str | os.PathLike[str]) -> Iterator[Path]:
    """The ``pyproject.toml`` files at or above ``start``, nearest first."""
    here = Path(start).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            yield candidate


def find_config(start: str | os.PathLike[str]) -> Path | None:
    """Return the nearest ``pyproject.toml`` at or above ``start`` whose TOML holds a
    ``tool.sealed_trace`` table (in any TOML spelling: ``[tool.sealed_trace]``, or ``[tool]``
    with ``sealed_trace.boundary = ...``). One that is not valid TOML or not UTF-8 but
    mentions ``sealed_trace`` is returned too, so that loading it says what is wrong."""
    for candidate in _pyprojects(start):
        document, raw = _read_toml(candidate)
        if document is None:
            if b"sealed_trace" in raw or b"sealed-trace" in raw:
                return candidate
            continue
        tool = document.get("tool")
        if isinstance(tool, dict) and "sealed_trace" in tool:
            return candidate
    return None


def _near_misses(start: str | os.PathLike[str]) -> list[str]:
    """Hints for a policy that is almost there: a ``tool`` table named like ours
    (``[tool.sealed-trace]``, ``[tool.sealedtrace]``) in the nearest ``pyproject.toml`` at or
    above ``start`` that has one."""
    for candidate in _pyprojects(start):
        document, _ = _read_toml(candidate)
        tool = document.get("tool") if document is not None else None
        if not isinstance(tool, dict):
            continue
        hints = [
            f"{candidate} has [tool.{name}]: the table is [tool.sealed_trace]"
            for name in tool
            if _named_like_ours(name)
        ]
        if hints:
            return hints
    return []


def _named_like_ours(name: str) -> bool:
    folded = name.lower().replace("-", "_").replace(".", "_")
    return name != "sealed_trace" and (
        folded == "sealed_trace"
        or difflib.SequenceMatcher(None, folded, "sealed_trace").ratio() > 0.8
    )


def load_config(
    path: str | os.PathLike[str] | None = None, *, cwd: str | None = None
) -> LintConfig:
    """Load the policy from ``path`` or from the nearest ``pyproject.toml`` above ``cwd``.

    Raises :class:`ConfigError` when no file is found (with a hint when a table is named
    almost like ours), it is not UTF-8 (saying at which byte) or not valid TOML, it has no
    ``tool.sealed_trace`` table, or the table is invalid (each problem with the line of its
    key where it can be found).
    """
    config_path = Path(path) if path is not None else _found(cwd or os.getcwd())
    shown = str(config_path)
    text = _text(config_path)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(shown, [f"is not valid TOML: {exc}"]) from None
    section = _section(document, config_path)
    root = str(config_path.resolve().parent)
    project = document.get("project")
    requires = project.get("requires-python") if isinstance(project, dict) else None
    try:
        return parse_config(section, root, shown, requires_python=requires)
    except ConfigError as error:
        lines = key_lines(text)
        raise ConfigError(
            error.source, error.problems, [line_of(p, lines) for p in error.problems]
        ) from None


def _found(where: str) -> Path:
    """The policy file found from ``where``; a :class:`ConfigError` when there is none."""
    found = find_config(where)
    if found is not None:
        return found
    hints = _near_misses(where)
    init = "" if hints else "; `sealed-trace init MODULE` proposes one for the sealed MODULE"
    raise ConfigError(
        str(where),
        [
            "no pyproject.toml with a [tool.sealed_trace] table here or in a parent folder" + init,
            *hints,
        ],
    )


def _text(config_path: Path) -> str:
    """The policy file's text; a :class:`ConfigError` when it cannot be read or is not UTF-8
    (saying at which byte, line and column)."""
    shown = str(config_path)
    try:
        raw = config_path.read_bytes()
    except OSError as exc:
        raise ConfigError(shown, [f"cannot read: {exc.strerror or exc}"]) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            shown,
            [
                f"is not UTF-8: byte {exc.start} (line {line}, column {column}) is "
                f"0x{raw[exc.start]:02x}, {exc.reason}"
            ],
            [line],
        ) from None


def _section(document: dict[str, Any], config_path: Path) -> dict[str, Any]:
    """The ``tool.sealed_trace`` table of ``document``; a :class:`ConfigError` when there is
    none (with a hint when a table is named almost like it) or it is not a table."""
    tool = document.get("tool", {})
    section = tool.get("sealed_trace") if isinstance(tool, dict) else None
    if section is None:
        hints = _near_misses(config_path.parent)
        raise ConfigError(
            str(config_path),
            [
                "has no [tool.sealed_trace] table"
                + ("" if hints else "; `sealed-trace init MODULE` proposes one"),
                *hints,
            ][:2],
        )
    if not isinstance(section, dict):
        raise ConfigError(str(config_path), ["tool.sealed_trace must be a table"])
    return section
