"""Precision of the sealed module's rules (issue 8 §5): what a finding points at is what the
code does, no more and no less."""

from __future__ import annotations

from lint_project import Project


def test_a_name_a_banned_star_import_binds_is_reported_at_its_use(project: Project) -> None:
    found = project.sealed("from os import *\n\n\ndef where():\n    return getenv('HOME')\n")
    assert found == {("ST102", 1), ("ST201", 5)}
    message = next(f.message for f in project.run().findings if f.code == "ST201")
    assert "os.getenv" in message


def test_a_name_bound_in_the_module_is_not_taken_from_the_star_import(project: Project) -> None:
    found = project.sealed(
        "from os import *\n\n\ndef getenv(key):\n    return key\n\ngetenv('HOME')\n"
    )
    assert found == {("ST102", 1)}


def test_a_builtin_a_star_import_may_shadow_is_judged_as_both(project: Project) -> None:
    # ``from os import *`` binds os.open over the builtin: either is banned
    assert ("ST201", 2) in project.sealed("from os import *\nopen('f')\n")


def test_a_string_stored_as_data_names_nothing(project: Project) -> None:
    assert (
        project.sealed(
            'NAMES = ("time.time", "__import__", "__globals__")\nTABLE = {"__builtins__": 1}\n'
        )
        == set()
    )


def test_a_string_used_as_an_attribute_name_is_still_a_reference(project: Project) -> None:
    assert project.sealed('def f(x):\n    return getattr(x, "__globals__")\n')
    assert project.sealed('def f(m):\n    return vars(m)["__import__"]\n')


def test_an_instance_attribute_of_a_plain_class_is_not_a_record_field(project: Project) -> None:
    assert (
        project.sealed("class Tally:\n    def __init__(self):\n        self.score = 0\n") == set()
    )


def test_an_instance_attribute_of_a_record_is_a_field(project: Project) -> None:
    code = (
        "from dataclasses import dataclass\n\n\n@dataclass\nclass Trace:\n    name: str\n\n"
        "    def __post_init__(self):\n        self.score = 0\n"
    )
    assert project.sealed(code) == {("ST501", 9)}


def test_a_chain_of_aliases_is_one_finding_at_its_use(project: Project) -> None:
    # one for the banned import, one for the use: not one per step of the chain
    found = project.sealed("import time as t\nc = t.perf_counter\nc()\n")
    assert found == {("ST102", 1), ("ST201", 3)}
    assert project.sealed("o = open\no2 = o\no2('f')\n") == {("ST201", 3)}


def test_an_alias_never_used_is_reported_where_it_takes_the_banned_name(
    project: Project,
) -> None:
    assert project.sealed("import json\no = open\nx = json.dumps({})\n") == {("ST202", 2)}
    # a reference that is also used directly is two uses
    assert project.sealed("o = open\no('f')\nopen('g')\n") == {("ST201", 2), ("ST201", 3)}


def test_an_alias_assigned_more_than_once_keeps_each_reference(project: Project) -> None:
    # which assignment reaches the call is not known: the banned reference stays reported
    assert project.sealed("o = open\no = len\no('x')\n") == {("ST202", 1), ("ST201", 3)}
