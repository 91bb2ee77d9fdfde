"""Outcome bytes are the same on every supported Python (issue 10 §4; sealing-policy §9
"Resource limits"): the CLI seals the same documents, limit breaches included, under each
interpreter 3.10-3.13 found on PATH, and the outcomes are compared byte for byte.

With one interpreter the comparison has nothing to compare against and is skipped; the
documents are still sealed under the running interpreter and checked against the limits'
documented explanations.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sealed_trace.builder import build_episode
from sealed_trace.episode_json import MAX_DOCUMENT_DEPTH, encode_episode
from sealed_trace.identity import IdentityError

ROOT = Path(__file__).resolve().parents[1]
_MAX = 2**63


def _interpreters() -> dict[str, str]:
    """``{"3.x": path}`` of every supported interpreter on PATH, the running one included."""
    found = {f"{sys.version_info[0]}.{sys.version_info[1]}": sys.executable}
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for minor in range(10, 14):
        version = f"3.{minor}"
        candidates = [
            shutil.which(f"python{version}"),
            *(str(p) for p in sorted(pyenv.glob(f"{version}.*/bin/python3"))),
        ]
        for path in candidates:
            if version in found or path is None:
                continue
            probe = subprocess.run(
                [path, "-c", "import sys; print(tuple(sys.version_info[:2]))"],
                capture_output=True,
                text=True,
                check=False,
            )
            if probe.returncode == 0 and probe.stdout.strip() == f"(3, {minor})":
                found[version] = path
    return found


def _valid() -> dict[str, object]:
    document: dict[str, object] = json.loads(encode_episode(build_episode()))
    return document


def _documents() -> dict[str, bytes]:
    """Documents at and past each resource limit, and a few ordinary ones."""
    docs: dict[str, bytes] = {"valid": json.dumps(_valid()).encode()}
    for depth in (MAX_DOCUMENT_DEPTH, MAX_DOCUMENT_DEPTH + 1, 1_000, 5_000, 100_000):
        docs[f"array-{depth}-deep"] = b"[" * depth + b"]" * depth
    # past the limit inside the facts, with a duplicate key further out
    facts_deep = _valid()
    frame = facts_deep["problem_frame"]
    assert isinstance(frame, dict)
    frame["facts"] = {"x": "DEEP"}
    text = json.dumps(facts_deep).replace('"DEEP"', "[" * 2_000 + "]" * 2_000)
    docs["facts-2000-deep-duplicate-key"] = ('{"format": "x", ' + text[1:]).encode()
    for name, number in (
        ("int-max", _MAX - 1),
        ("int-min", -_MAX),
        ("int-past-max", _MAX),
        ("int-past-min", -_MAX - 1),
    ):
        doc = _valid()
        budget = doc["compute_budget_decision"]
        assert isinstance(budget, dict)
        budget["max_wallclock_ms"] = number
        docs[name] = json.dumps(doc).encode()
    for name, count in (("facts-100000-values", 99_999), ("facts-100001-values", 100_000)):
        doc = _valid()
        frame = doc["problem_frame"]
        assert isinstance(frame, dict)
        frame["facts"] = {"v": list(range(count))}  # the list itself is one value
        docs[name] = json.dumps(doc).encode()
    return docs


def _seal_all(python: str, folder: Path) -> dict[str, bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "random"}
    out: dict[str, bytes] = {}
    for path in sorted(folder.glob("*.json")):
        result = subprocess.run(
            [python, "-m", "sealed_trace", "seal", str(path)],
            capture_output=True,
            env=env,
            check=False,
        )
        assert result.returncode in (0, 1), (python, path.name, result.stderr)
        out[path.name] = result.stdout
    return out


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("documents")
    for name, data in _documents().items():
        (folder / f"{name}.json").write_bytes(data)
    return folder


def test_each_limit_breach_has_its_documented_explanation(documents: Path) -> None:
    outcomes = {
        name: json.loads(data) for name, data in _seal_all(sys.executable, documents).items()
    }
    assert outcomes["valid.json"]["outcome"] == "sealed_practice_trace"
    deep = f"nesting deeper than {MAX_DOCUMENT_DEPTH} containers"
    assert outcomes[f"array-{MAX_DOCUMENT_DEPTH}-deep.json"]["explanation"].count(deep) == 0
    for name in (
        f"array-{MAX_DOCUMENT_DEPTH + 1}-deep",
        "array-1000-deep",
        "array-5000-deep",
        "array-100000-deep",
        "facts-2000-deep-duplicate-key",
    ):
        outcome = outcomes[f"{name}.json"]
        assert outcome["reason_codes"] == ["malformed_episode_document"], name
        assert outcome["explanation"] == f"Refused: malformed_episode_document: {deep}.", name
    for name in ("int-max", "int-min"):  # max_wallclock_ms is not hashed: both ends seal
        assert outcomes[f"{name}.json"]["outcome"] == "sealed_practice_trace", name
    for name in ("int-past-max", "int-past-min"):
        assert (
            "an integer beyond the signed 64-bit range" in outcomes[f"{name}.json"]["explanation"]
        ), name
    assert "100000" not in outcomes["facts-100000-values.json"]["explanation"]
    assert outcomes["facts-100001-values.json"]["reason_codes"][0] in (
        "malformed_episode_document",
        "malformed_problem_frame",
    )


def test_outcomes_are_byte_identical_on_every_interpreter(documents: Path) -> None:
    found = _interpreters()
    if len(found) < 2:
        pytest.skip(f"only Python {', '.join(found)} here: nothing to compare with")
    outcomes = {version: _seal_all(path, documents) for version, path in sorted(found.items())}
    first, *others = sorted(outcomes)
    for version in others:
        differing = sorted(
            name for name in outcomes[first] if outcomes[first][name] != outcomes[version][name]
        )
        assert differing == [], f"Python {first} and {version} differ on {differing}"


def test_encode_episode_raises_only_its_documented_error_on_deep_or_cyclic_facts() -> None:
    episode = build_episode()
    deep: dict[str, object] = {}
    node = deep
    for _ in range(2_000):
        child: dict[str, object] = {}
        node["x"] = child
        node = child
    cyclic: dict[str, object] = {}
    cyclic["self"] = cyclic
    import dataclasses as dc
    from types import MappingProxyType

    for facts in (deep, cyclic):
        frame = dc.replace(episode.problem_frame, facts=MappingProxyType(facts))
        with pytest.raises(IdentityError):
            encode_episode(dc.replace(episode, problem_frame=frame))
