"""Sealing is byte-identical under different PYTHONHASHSEED values (ADR-0230 §12.3).

Each subprocess builds the same episodes (every sealed disposition, a disagreement, and refused
ones with several reason codes), seals them and prints the canonical JSON of every outcome's
fields, encoded in the subprocess with the ADR §12 ``json.dumps`` settings.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r"""
import dataclasses, enum, json, sys
from dataclasses import replace
from sealed_trace import seal
from sealed_trace.builder import SEALED_DISPOSITION_NAMES, EpisodeSpec, build_episode

def plain(value):
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value

facts = {f"k{i}": [i, {"z": None, "a": str(i)}] for i in range(40)}
spec = EpisodeSpec(facts=facts, assessment_spans=("gained", "Maya", "gained"))
episodes = [build_episode(d) for d in SEALED_DISPOSITION_NAMES]
episodes.append(build_episode("sealed_candidate_replay_closed", spec=spec, attempts=5))
episodes.append(build_episode("sealed_candidate_replay_closed",
                              outcomes=["contract_and_proof_closed"] * 3))
bad = build_episode("sealed_candidate_replay_closed")
other = "f" * 64
episodes.append(replace(bad, search_gate_decision=replace(bad.search_gate_decision,
                                                          decision_id=other),
                        replay_results=bad.replay_results[:1], problem_frame=None))
episodes.append(replace(bad, schema_versions=tuple(reversed(bad.schema_versions)),
                        policy_versions=bad.policy_versions[1:]))
episodes.append(None)
for episode in episodes:
    outcome = seal(episode, explanation="fixed")
    print(json.dumps([type(outcome).__name__, plain(outcome)], ensure_ascii=False,
                     sort_keys=True, separators=(",", ":")))
"""

SEEDS = ["0", "1", "42", "123456789", "4294967295", "random"]


def _run(seed: str) -> str:
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = seed
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    return {seed: _run(seed) for seed in SEEDS}


def test_outputs_are_non_trivial(outputs):
    lines = outputs["0"].splitlines()
    assert len(lines) == 11
    assert sum('"SealedPracticeTrace"' in line for line in lines) == 8
    assert sum('"PracticeTraceRefusal"' in line for line in lines) == 3


@pytest.mark.parametrize("seed", SEEDS[1:])
def test_sealing_is_byte_identical_across_hash_seeds(outputs, seed):
    assert outputs[seed] == outputs["0"]
