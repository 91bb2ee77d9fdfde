"""ST501 forbidden-field: every record form in the boundary module (ADR-0230 §7.3)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from lint_project import Project

INVALID = [
    ("from dataclasses import dataclass\n@dataclass(frozen=True)\nclass T:\n    answer: int\n", 4),
    ("import dataclasses\n@dataclasses.dataclass\nclass T:\n    score: float\n", 4),
    ("from typing import NamedTuple\nclass T(NamedTuple):\n    rank: int\n", 3),
    ("from typing import NamedTuple\nT = NamedTuple('T', [('confidence', float)])\n", 2),
    ("from typing import NamedTuple\nT = NamedTuple('T', priority=int)\n", 2),
    ("from typing import TypedDict\nclass T(TypedDict):\n    promotion: str\n", 3),
    ("from typing import TypedDict\nT = TypedDict('T', {'mutation': str})\n", 2),
    ("import collections\nT = collections.namedtuple('T', 'a served_output')\n", 2),
    ("import collections\nT = collections.namedtuple('T', ['a', 'runnable'])\n", 2),
    ("import dataclasses\nT = dataclasses.make_dataclass('T', [('best_candidate', int)])\n", 2),
    ("import attr\n@attr.s\nclass T:\n    final_answer = attr.ib()\n", 4),
    ("import attrs\n@attrs.define\nclass T:\n    serving_allowed: bool\n", 4),
    ("class T:\n    selected_candidate: str\n", 2),
    ("class T:\n    __slots__ = ('a', 'workbench_state')\n", 2),
    ("class T:\n    __slots__ = 'pack_update'\n", 2),
    ("class T:\n    @property\n    def answer(self):\n        return 1\n", 3),
    ("class T:\n    _Answer: int\n", 2),
]


@pytest.mark.parametrize(("code", "line"), INVALID)
def test_invalid(project: Project, code: str, line: int) -> None:
    assert ("ST501", line) in project.sealed(code)
    assert all(c != "ST501" or n == line for c, n in project.sealed(code))


VALID = [
    "from dataclasses import dataclass\n@dataclass\nclass T:\n    answers_seen: int\n"
    "    explanation: str\n",
    "class T:\n    ANSWERS = 'class constant with a name that is no forbidden field'\n",
    "def f(answer: int) -> int:\n    return answer\n",
    "x = {'answer': 1}\n",
    "class T:\n    def answer_text(self) -> str:\n        return ''\n",
]


@pytest.mark.parametrize("code", VALID)
def test_valid(project: Project, code: str) -> None:
    assert project.sealed(code) == set()


def test_extra_forbidden_fields(project: Project) -> None:
    project.boundary_toml += 'forbidden_fields = ["verdict"]\n'
    assert project.sealed("class T:\n    verdict: str\n") == {("ST501", 2)}


def test_forbidden_field_not_checked_outside_boundary(project: Project) -> None:
    assert project.upstream("class T:\n    answer: int\n") == set()


def test_the_kind_of_a_record_does_not_depend_on_the_hash_seed() -> None:
    """A base bound to two record bases (one per branch) gives the same kind in every
    process: the facts are cached by content and computed in pool workers."""
    script = (
        "from sealed_trace.lint.cst_pass import extract_facts\n"
        "text = 'import typing, sys\\nif sys.version_info > (3, 11):\\n"
        "    Base = typing.NamedTuple\\nelse:\\n    Base = typing.TypedDict\\n"
        "class R(Base):\\n    answer: int\\n'\n"
        "print(sorted({f.record_kind for f in extract_facts(text, 'pkg.m', False).fields}))\n"
    )
    kinds = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        kinds.add(done.stdout.strip())
    assert kinds == {"['TypedDict']"}
