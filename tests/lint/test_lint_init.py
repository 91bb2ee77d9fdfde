"""``sealed-trace init`` (issue 9 §1): a starter policy read from the project as it stands,
printed or appended to pyproject.toml, that lints the project it came from without a config
error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sealed_trace.cli import main
from sealed_trace.lint.config import load_config

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_PROJECT = '[project]\nname = "mk"\nversion = "0"\nrequires-python = ">=3.10"\n'


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _run(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    monkeypatch.chdir(root)
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def src_kernel(tmp_path: Path) -> Path:
    _write(
        tmp_path,
        {
            "pyproject.toml": _PROJECT,
            "src/mykernel/__init__.py": "",
            "src/mykernel/residuals.py": "class Residual:\n    pass\n",
            "src/mykernel/budget.py": "LIMIT = 3\n",
            "src/mykernel/gate.py": (
                "from mykernel.residuals import Residual\nfrom . import budget\n"
            ),
            "src/mykernel/sealing.py": (
                "import json\nimport time\nimport xml.dom\nfrom . import gate\n"
                "from mykernel.residuals import Residual\n"
            ),
            "tests/test_gate.py": "import mykernel.gate\n",
        },
    )
    return tmp_path


def _boundary(text: str) -> dict[str, object]:
    table = tomllib.loads(text)["tool"]["sealed_trace"]
    boundaries = table["boundary"]
    assert len(boundaries) == 1
    boundary: dict[str, object] = boundaries[0]
    return boundary


def test_init_proposes_a_boundary_from_the_modules_imports(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing")
    assert status == 0
    table = tomllib.loads(out)["tool"]["sealed_trace"]
    assert table["source_roots"] == ["src"]
    boundary = _boundary(out)
    assert boundary["module"] == "mykernel.sealing"
    assert boundary["preset"] == "adr-0230"
    assert boundary["allowed_imports"] == ["mykernel.gate", "mykernel.residuals"]
    # what importing it loads, directly or not: none of it may import it back
    assert boundary["upstream"] == ["mykernel.budget", "mykernel.gate", "mykernel.residuals"]
    assert "loaded through mykernel.gate when it is imported" in out


def test_every_line_of_the_proposal_says_why_it_is_there(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing")
    bare = [
        line
        for line in out.splitlines()
        if line.strip()
        and "#" not in line
        and not line.startswith("[")
        and line.strip() != "]"
        and not line.rstrip().endswith("= [")
    ]
    assert bare == []


def test_the_findings_of_the_first_lint_are_forecast(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing")
    assert "# The first lint of this policy reports 2 finding(s) (ST101 x1, ST102 x1):" in out
    assert "#   src/mykernel/sealing.py:2:8 ST102 " in out
    assert "#   src/mykernel/sealing.py:3:8 ST101 " in out
    assert _boundary(out)["allowed_imports"] == ["mykernel.gate", "mykernel.residuals"]
    assert "`import json`" not in out  # the preset allows it


def test_a_sealing_module_that_imports_the_sealer_is_allowed_it(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (src_kernel / "src" / "mykernel" / "sealing.py").write_text(
        "from mykernel.residuals import Residual\nfrom sealed_trace import seal\n",
        encoding="utf-8",
    )
    _, out, _ = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing")
    assert _boundary(out)["allowed_imports"] == ["mykernel.residuals", "sealed_trace"]
    assert "the sealer, imported by mykernel.sealing (line 2)" in out
    assert _boundary(out)["upstream"] == ["mykernel.residuals"]
    assert "# The first lint of this policy reports no findings." in out


def test_a_function_taken_from_a_first_party_module_is_forecast_with_advice(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(
        src_kernel,
        {
            "src/mykernel/replay.py": "def classify_replay():\n    return 1\n",
            "src/mykernel/sealing.py": "from mykernel.replay import classify_replay\n",
        },
    )
    _, out, _ = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing")
    assert "ST104 x1" in out
    assert "# move it from allowed_imports to banned" in out


def test_printing_changes_nothing(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (src_kernel / "pyproject.toml").read_bytes()
    _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing")
    assert (src_kernel / "pyproject.toml").read_bytes() == before


def test_write_appends_a_policy_that_lints_the_project_without_a_config_error(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (src_kernel / "pyproject.toml").read_text()
    status, _, err = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing", "--write")
    assert status == 0, err
    after = (src_kernel / "pyproject.toml").read_text()
    assert after.startswith(before)
    config = load_config(src_kernel / "pyproject.toml")
    assert [b.module for b in config.boundaries] == ["mykernel.sealing"]
    status, out, err = _run(src_kernel, monkeypatch, capsys, "lint", "--no-cache")
    assert status == 1, err  # findings (the announced ones), not a config error (2)
    codes = sorted(line.split()[1] for line in out.splitlines())
    assert codes == ["ST101", "ST102"]  # exactly what the proposal forecast


def test_write_never_overwrites_an_existing_table(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = src_kernel / "pyproject.toml"
    pyproject.write_text(_PROJECT + '[tool]\nsealed_trace.source_roots = ["src"]\n')
    before = pyproject.read_bytes()
    status, _, err = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing", "--write")
    assert status == 2
    assert "already has a [tool.sealed_trace] table; not changed" in err
    assert pyproject.read_bytes() == before


def test_write_leaves_a_file_that_is_not_toml_untouched(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = src_kernel / "pyproject.toml"
    pyproject.write_text("[project\n")
    status, _, err = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing", "--write")
    assert status == 2
    assert "cannot read it as TOML" in err
    assert pyproject.read_text() == "[project\n"


def test_write_refuses_when_the_appended_table_would_not_be_toml(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = src_kernel / "pyproject.toml"
    pyproject.write_text("tool = { black = {} }\n" + _PROJECT)
    before = pyproject.read_bytes()
    status, _, err = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing", "--write")
    assert status == 2
    assert "cannot be appended" in err
    assert pyproject.read_bytes() == before
    assert [p.name for p in src_kernel.iterdir() if p.name.startswith(".pyproject")] == []


def test_write_creates_pyproject_when_there_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, {"kern/__init__.py": "", "kern/seal.py": "import hashlib\n"})
    status, _, err = _run(tmp_path, monkeypatch, capsys, "init", "kern.seal", "--write")
    assert status == 0, err
    boundary = _boundary((tmp_path / "pyproject.toml").read_text())
    assert boundary["upstream"] == []
    assert load_config(tmp_path / "pyproject.toml").boundaries[0].upstream == ()


def test_flat_layout_excludes_tests_and_finds_namespace_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(
        tmp_path,
        {
            "pyproject.toml": _PROJECT,
            "ns/kernel/records.py": "class Record:\n    pass\n",  # no __init__.py anywhere
            "ns/kernel/seal.py": "from ns.kernel.records import Record\n",
            "tests/test_seal.py": "import ns.kernel.seal\n",
            "docs/conf.py": "project = 'x'\n",
        },
    )
    status, out, _ = _run(tmp_path, monkeypatch, capsys, "init", "ns.kernel.seal")
    assert status == 0
    table = tomllib.loads(out)["tool"]["sealed_trace"]
    assert table["source_roots"] == ["."]
    assert table["exclude"] == ["tests", "docs"]
    assert _boundary(out)["allowed_imports"] == ["ns.kernel.records"]


def test_a_package_import_is_flagged_as_wide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(
        tmp_path,
        {
            "k/__init__.py": "class Record:\n    pass\n",
            "k/other.py": "",
            "k/seal.py": "from k import Record\n",
        },
    )
    _, out, _ = _run(tmp_path, monkeypatch, capsys, "init", "k.seal")
    line = next(x for x in out.splitlines() if x.strip().startswith('"k",'))
    assert "narrow it if you can" in line


def test_an_unknown_module_is_an_error_with_suggestions(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.seling")
    assert status == 2
    assert out == ""
    assert "no module 'mykernel.seling' under src/" in err
    assert "did you mean mykernel.sealing" in err


def test_without_a_module_only_the_roots_and_a_commented_template(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(src_kernel, monkeypatch, capsys, "init")
    assert status == 0
    assert tomllib.loads(out) == {"tool": {"sealed_trace": {"source_roots": ["src"]}}}
    assert "# [[tool.sealed_trace.boundary]]" in out
    status, _, err = _run(src_kernel, monkeypatch, capsys, "init", "--write")
    assert status == 2
    assert "--write needs the sealed MODULE" in err


def test_an_unparsable_sealed_module_is_an_error_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, {"k/__init__.py": "", "k/seal.py": "import json\ndef (:\n"})
    status, _, err = _run(tmp_path, monkeypatch, capsys, "init", "k.seal")
    assert status == 2
    assert "k/seal.py:2:" in err


# -- issue 17 §5: an init a team keeps ---------------------------------------------------------
def test_upstream_candidates_are_only_what_importing_the_sealed_module_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg import early\n",  # ran before the sealed module
            "pkg/early.py": "",
            "pkg/sealing.py": (
                "from typing import TYPE_CHECKING\n"
                "from . import gate\n"
                "if TYPE_CHECKING:\n    from pkg import replay\n"
                "else:\n    from pkg import budget\n"
                "def run():\n    import pkg.search\n"
                "class Holder:\n    from pkg import records\n"
                "try:\n    import pkg.fast\nexcept ImportError:\n    import pkg.slow\n"
                'if __name__ == "__main__":\n    import pkg.cli\n'
            ),
            "pkg/gate.py": (
                "import pkg.sub.values\n"
                "def later():\n    from pkg import lazy\n"
                "if '__main__' == __name__:\n    import pkg.cli\n"
            ),
            "pkg/sub/__init__.py": "from .helpers import help\n",
            "pkg/sub/helpers.py": (
                "import typing\nif typing.TYPE_CHECKING:\n    import pkg.replay\n"
            ),
            "pkg/sub/values.py": "",
            **{
                f"pkg/{name}.py": ""
                for name in ("replay", "budget", "search", "records", "fast", "slow", "cli", "lazy")
            },
        },
    )
    status, out, err = _run(tmp_path, monkeypatch, capsys, "init", "pkg.sealing")
    assert status == 0, err
    assert _boundary(out)["upstream"] == [
        "pkg.budget",
        "pkg.fast",
        "pkg.gate",
        "pkg.records",
        "pkg.slow",
        "pkg.sub",
        "pkg.sub.helpers",
        "pkg.sub.values",
    ]
    assert '"pkg.sub.helpers",  # loaded through pkg.sub when it is imported' in out


def test_a_sealed_package_loads_what_its_submodules_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(
        tmp_path,
        {
            "k/__init__.py": "",
            "k/seal/__init__.py": "from .core import x\n",
            "k/seal/core.py": "from k import records\nx = 1\n",
            "k/records.py": "",
        },
    )
    _, out, _ = _run(tmp_path, monkeypatch, capsys, "init", "k.seal")
    assert _boundary(out)["upstream"] == ["k.records"]


def test_an_allowed_module_the_preset_bans_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(
        tmp_path,
        {
            "httpx/__init__.py": "",
            "httpx/_urls.py": "class URL:\n    pass\n",
            "httpx/_models.py": "from ._urls import URL\n",
        },
    )
    status, out, err = _run(tmp_path, monkeypatch, capsys, "init", "httpx._models")
    assert status == 0
    warning = (
        "warning: the adr-0230 preset bans 'httpx.*', which matches 1 allowed module(s) "
        "(httpx._urls): allowed_imports lifts no ban, so the first lint reports their use"
    )
    assert warning in err
    assert err.count("warning") == 1
    assert f"# {warning}" in out
    line = next(x for x in out.splitlines() if x.strip().startswith('"httpx._urls",'))
    assert "BANNED by the preset (httpx.*)" in line
    assert _boundary(out)["allowed_imports"] == ["httpx._urls"]


def test_an_allowed_module_the_preset_does_not_ban_gets_no_warning(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, err = _run(src_kernel, monkeypatch, capsys, "init", "mykernel.sealing")
    assert "warning" not in err + out
    assert "BANNED" not in out


@pytest.mark.parametrize("args", [("init",), ("init", "kern.seal"), ("init", "--write")])
def test_an_empty_directory_has_nothing_to_propose(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
) -> None:
    _write(tmp_path, {"tests/test_x.py": "import kern\n", "README.md": "# kern\n"})
    status, out, err = _run(tmp_path, monkeypatch, capsys, *args)
    assert status == 2
    assert out == ""
    assert "nothing to propose: no Python module under" in err
    assert "source_roots" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "tests"]


def test_the_layout_comment_names_what_was_found(
    src_kernel: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _run(src_kernel, monkeypatch, capsys, "init")
    assert 'source_roots = ["src"]  # 5 module(s) in src/: mykernel' in out


@pytest.mark.parametrize("write", [False, True])
def test_an_existing_table_is_named_with_or_without_write(
    src_kernel: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    write: bool,
) -> None:
    pyproject = src_kernel / "pyproject.toml"
    pyproject.write_text(_PROJECT + '[tool.sealed_trace]\nsource_roots = ["src"]\n')
    before = pyproject.read_bytes()
    args = ("init", "mykernel.sealing", *(("--write",) if write else ()))
    status, out, err = _run(src_kernel, monkeypatch, capsys, *args)
    note = (
        "pyproject.toml already has a [tool.sealed_trace] table: this proposal is for "
        "comparison; --write will not touch that table (merge by hand)"
    )
    assert note in err
    assert status == (2 if write else 0)
    if not write:
        assert out.startswith(f"# {note}\n[tool.sealed_trace]\n")
    assert pyproject.read_bytes() == before


def test_init_gives_each_import_the_kind_the_lint_gives_it() -> None:
    import ast

    from sealed_trace.lint.ast_pass import extract_graph_facts
    from sealed_trace.lint.graph import kind_of_import
    from sealed_trace.lint.starter import _import_statements

    source = (
        "import typing\n"
        "import a\n"
        "if typing.TYPE_CHECKING:\n"
        "    import b\n"
        "    def f():\n"
        "        import c\n"
        "else:\n"
        "    import d\n"
        "def g():\n"
        "    import e\n"
        "    if __name__ == '__main__':\n"
        "        import f\n"
        "class K:\n"
        "    import h\n"
        "    def m(self):\n"
        "        import i\n"
        "if '__main__' == __name__:\n"
        "    import j\n"
        "    def n():\n"
        "        import k\n"
        "try:\n"
        "    import l\n"
        "except ImportError:\n"
        "    from m import x\n"
    )
    ours = {
        statement.lineno: kind for statement, kind in _import_statements(ast.parse(source).body)
    }
    lints = {
        fact.line: kind_of_import(fact) for fact in extract_graph_facts(source, "p", False).imports
    }
    assert ours == lints
    assert {kind.value for kind in ours.values()} == {"module", "function", "main", "type-checking"}
