"""Suppression comments: ST003 suppression-without-reason, ST004 unused, ST005 malformed."""

from __future__ import annotations

from lint_project import Project


def test_suppression_with_reason_silences(project: Project) -> None:
    code = "x = print  # sealed-trace: ignore[ST202] -- diagnostic hook reviewed in ADR-0231\n"
    assert project.sealed(code) == set()


def test_kebab_name_and_several_codes(project: Project) -> None:
    code = "import time  # sealed-trace: ignore[banned-import, ST101] -- tracing only\n"
    assert project.sealed(code) == {("ST004", 1)}  # ST101 does not fire: unused


def test_reason_required(project: Project) -> None:
    code = "x = print  # sealed-trace: ignore[ST202]\n"
    assert project.sealed(code) == {("ST202", 1), ("ST003", 1)}


def test_empty_reason_is_no_reason(project: Project) -> None:
    assert project.sealed("x = print  # sealed-trace: ignore[ST202] --   \n") == {
        ("ST202", 1),
        ("ST003", 1),
    }


def test_unused_suppression(project: Project) -> None:
    assert project.sealed("x = 1  # sealed-trace: ignore[ST201] -- stale\n") == {("ST004", 1)}


def test_wrong_code_does_not_silence(project: Project) -> None:
    code = "x = print  # sealed-trace: ignore[ST201] -- wrong code\n"
    assert project.sealed(code) == {("ST202", 1), ("ST004", 1)}


def test_malformed_suppressions(project: Project) -> None:
    code = (
        "a = 1  # sealed-trace: ignore ST201 -- no brackets\n"
        "b = 2  # sealed-trace: ignore[ST999] -- unknown code\n"
        "c = 3  # sealed-trace: ignore[ST001] -- engine rule\n"
        "d = 4  # sealed-trace: ignore[] -- empty\n"
    )
    assert project.sealed(code) == {("ST005", 1), ("ST005", 2), ("ST005", 3), ("ST005", 4)}


def test_suppression_in_string_is_not_a_suppression(project: Project) -> None:
    code = 'x = "# sealed-trace: ignore[ST201] -- not a comment"\n'
    assert project.sealed(code) == set()


def test_unused_suppression_in_unrelated_module(project: Project) -> None:
    project.write("src/pkg/other.py", "x = 1  # sealed-trace: ignore[ST201] -- stale\n")
    assert project.codes("src/pkg/other.py") == {("ST004", 1)}


def test_suppression_in_upstream(project: Project) -> None:
    code = "from pkg import sealed  # sealed-trace: ignore[ST401] -- migration, issue 9\n"
    assert project.upstream(code) == set()


def test_suppression_after_other_comment_text(project: Project) -> None:
    code = "x = print  # noqa: E501 sealed-trace: ignore[ST202] -- reviewed\n"
    assert project.sealed(code) == set()
