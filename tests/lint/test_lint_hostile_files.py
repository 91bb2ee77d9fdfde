"""Hostile files: every one is a finding (or cleanly valid), never a crash or a silent pass."""

from __future__ import annotations

import os
import sys
import warnings

import pytest
from lint_project import Project


def _by_path(project: Project) -> dict[str, set[tuple[str, int]]]:
    out: dict[str, set[tuple[str, int]]] = {}
    for f in project.findings():
        out.setdefault(f.path, set()).add((f.code, f.line))
    return out


def test_syntax_error_in_boundary(project: Project) -> None:
    project.write("src/pkg/sealed.py", "x = 1\ndef broken(:\n")
    assert project.codes("src/pkg/sealed.py") == {("ST001", 2)}


def test_syntax_error_in_candidate_upstream(project: Project) -> None:
    project.write("src/pkg/up/a.py", "from pkg import sealed\nclass (\n")
    assert {c for c, _ in project.codes("src/pkg/up/a.py")} == {"ST001"}


def test_undecodable_bytes(project: Project) -> None:
    project.write("src/pkg/up/a.py", b"x = '\xff\xfe'\n")
    assert project.codes("src/pkg/up/a.py") == {("ST001", 1)}


def test_bad_coding_cookie(project: Project) -> None:
    project.write("src/pkg/up/a.py", b"# -*- coding: no-such-codec -*-\nx = 1\n")
    assert {c for c, _ in project.codes("src/pkg/up/a.py")} == {"ST001"}


def test_bom_file_is_analysed(project: Project) -> None:
    project.write("src/pkg/sealed.py", b"\xef\xbb\xbfimport time\ntime.time()\n")
    assert project.codes("src/pkg/sealed.py") == {("ST102", 1), ("ST201", 2)}


def test_bom_file_clean(project: Project) -> None:
    project.write("src/pkg/sealed.py", b"\xef\xbb\xbfimport json\n")
    assert project.codes("src/pkg/sealed.py") == set()


def test_nul_byte(project: Project) -> None:
    project.write("src/pkg/up/a.py", b"x = 1\ny = '\x00'\n")
    project.write("src/pkg/other.py", b"\x00")
    found = _by_path(project)
    assert found["src/pkg/up/a.py"] == {("ST001", 2)}
    assert found["src/pkg/other.py"] == {("ST001", 1)}


def test_empty_files_are_valid(project: Project) -> None:
    project.write("src/pkg/sealed.py", "")
    project.write("src/pkg/up/a.py", "")
    assert project.findings() == []


def test_very_large_file_within_limit(project: Project) -> None:
    body = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(20000))
    project.write("src/pkg/up/big.py", body + "import pkg.sealed\n")
    assert project.codes("src/pkg/up/big.py") == {("ST401", 40001)}


def test_file_above_limit(project: Project) -> None:
    project.top_toml += "max_file_bytes = 1000\n"
    project.write("src/pkg/up/big.py", "x = 1\n" * 500)
    assert project.codes("src/pkg/up/big.py") == {("ST002", 1)}


def test_deeply_nested_expression(project: Project) -> None:
    project.write("src/pkg/sealed.py", "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    codes = {c for c, _ in project.codes("src/pkg/sealed.py")}
    assert codes == {"ST001"}


def test_symlink_loop(project: Project) -> None:
    link = project.root / "src/pkg/loop.py"
    os.symlink(link, link)
    assert project.codes("src/pkg/loop.py") == {("ST002", 1)}


def test_dangling_symlink(project: Project) -> None:
    os.symlink(project.root / "missing.py", project.root / "src/pkg/dangling.py")
    assert project.codes("src/pkg/dangling.py") == {("ST002", 1)}


def test_directory_symlink_loop_is_not_followed(project: Project) -> None:
    os.symlink(project.root / "src/pkg", project.root / "src/pkg/again")
    assert project.codes() == {("ST002", 1)}
    assert [f.path for f in project.findings()] == ["src/pkg/again"]


def test_directory_named_like_a_module(project: Project) -> None:
    (project.root / "src/pkg/weird.py").mkdir()
    assert project.codes("src/pkg/weird.py") == {("ST002", 1)}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_never_blocks(project: Project) -> None:
    os.mkfifo(project.root / "src/pkg/pipe.py")
    assert project.codes("src/pkg/pipe.py") == {("ST002", 1)}


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(project: Project) -> None:
    path = project.write("src/pkg/secret.py", "x = 1\n")
    path.chmod(0)
    assert project.codes("src/pkg/secret.py") == {("ST002", 1)}


def test_hostile_file_outside_selection_is_not_reported(project: Project) -> None:
    project.write("src/pkg/other.py", b"\x00")
    result = project.run(paths=["src/pkg/up"])
    assert result.findings == ()


# --- coding cookies: the first two lines as CPython's tokenizer splits them ------------------


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # A lone CR ends line 1, so the cookie stands on line 3 and is ignored: UTF-8 applies.
        (b"#!/usr/bin/env python\rimport pkg.sealed\n# coding: cp037\n", 2),
        (b"#!/usr/bin/env python\rimport pkg.sealed\r# coding: cp037\r", 2),
        # A blank CR line first: the cookie on line 2 applies, and only decoded does the
        # import name the sealed module.
        (b"\r# coding: utf-7\rimport pkg.+AHM-ealed\r", 3),
        (b"\r\n# coding: utf-7\r\nimport pkg.+AHM-ealed\r\n", 3),
    ],
    ids=["cr-then-lf", "cr-only", "cr-cookie-line-2", "crlf-cookie-line-2"],
)
def test_coding_cookies_are_found_on_lines_split_at_any_line_end(
    project: Project, source: bytes, line: int
) -> None:
    assert project.upstream(source) == {("ST401", line)}  # type: ignore[arg-type]


def test_aliases_rebound_through_their_own_attributes_keep_the_direct_alias(
    project: Project,
) -> None:
    # Scopes are ignored for aliases, so each default below composes with every other one
    # (load.a0.a1..., an exponential number of names); the lint bounds the compositions and
    # still binds the direct alias, whose call imports the sealed module.
    defaults = "".join(f"def f{i}(load=load.a{i}):\n    pass\n" for i in range(60))
    body = "import importlib\nload = importlib.import_module\n" + defaults + 'load("pkg.sealed")\n'
    project.write("src/pkg/up/many.py", body)
    assert ("ST401", body.count("\n")) in project.codes("src/pkg/up/many.py")


def test_the_compilers_warnings_about_scanned_code_are_neither_errors_nor_output(
    project: Project, capfd: pytest.CaptureFixture[str]
) -> None:
    # CPython warns about these while compiling (SyntaxWarning; DeprecationWarning before
    # 3.12): the scanned project's business. Under -W error (pytest's filterwarnings = error)
    # they would become syntax errors; the lint's verdict and output stay the same.
    odd = 'if x is 1:\n    y = "\\d"\n'
    dynamic = "importlib.import_module(input())\n"
    project.write("src/pkg/up/warns.py", "import importlib\nx = 1\n" + odd + dynamic)
    project.write("src/pkg/sealed.py", "x = 1\n" + odd)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", module="libcst")
        warnings.filterwarnings("ignore", module="grimp")
        found = {(f.path, f.code) for f in project.findings()}
    assert found == {("src/pkg/up/warns.py", "ST301")}
    assert capfd.readouterr().err == ""
