"""The rule catalog (libcst-free ``explain``) and the project's own boundary policy."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

from sealed_trace.lint.catalog import RULES, explain_rule
from sealed_trace.lint.config import load_config
from sealed_trace.lint.engine import lint
from sealed_trace.lint.rules import BUILTIN_RULES

REPO = Path(__file__).resolve().parents[2]


def test_every_rule_is_catalogued_with_family_and_kebab_name() -> None:
    families = {
        "0": "engine",
        "1": "import",
        "2": "banned",
        "3": "dynamic",
        "4": "reverse",
        "5": "field",
    }
    for code, info in RULES.items():
        if not code.startswith("ST") or code[2] not in families:
            continue
        assert len(code) == 5
        assert info.name == info.name.lower()
        assert " " not in info.name
        assert info.explanation
    assert {r.code for r in BUILTIN_RULES} | {c for c in RULES if c.startswith("ST0")} >= {
        c for c in RULES if c[2] in families
    }


def test_one_module_per_rule() -> None:
    for rule in BUILTIN_RULES:
        module = type(rule).__module__
        assert module.startswith("sealed_trace.lint.rules.")
        assert module.rsplit(".", 1)[1] == rule.name.replace("-", "_")


def test_explain_by_code_and_name() -> None:
    text = explain_rule("st201")
    assert text is not None
    assert text.startswith("ST201 banned-call: ")
    assert "ADR-0230 §15.2" in text
    assert explain_rule("reverse-import") == explain_rule("ST401")
    assert explain_rule("ST999") is None
    assert explain_rule("nonsense") is None


def test_explain_does_not_import_libcst() -> None:
    code = (
        "import sys\nfrom sealed_trace.lint.catalog import explain_rule\n"
        "assert explain_rule('ST501')\nassert 'libcst' not in sys.modules\n"
        "import sealed_trace.lint.cli\nassert 'libcst' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_project_lints_itself_clean() -> None:
    config = load_config(REPO / "pyproject.toml")
    (boundary,) = config.boundaries
    assert boundary.module == "sealed_trace.trace"
    assert boundary.preset == "adr-0230"
    result = lint(config, use_cache=False)
    assert result.findings == ()


def test_project_policy_is_not_inert(tmp_path: Path) -> None:
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(
        REPO / "sealed_trace",
        tmp_path / "sealed_trace",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    for name in ("examples", "benchmarks", "tests"):
        (tmp_path / name).mkdir()
    # A check module deep in the sealing package is sealed like the package itself.
    trace = tmp_path / "sealed_trace" / "trace" / "_chain.py"
    trace.write_text(
        trace.read_text(encoding="utf-8") + "\nimport time\n_T = time.time()\n", encoding="utf-8"
    )
    budget = tmp_path / "sealed_trace" / "upstream" / "budget.py"
    budget.write_text(
        budget.read_text(encoding="utf-8") + "\nfrom sealed_trace import trace\n", encoding="utf-8"
    )
    config = load_config(tmp_path / "pyproject.toml")
    found = {(f.path, f.code) for f in lint(config, use_cache=False).findings}
    assert ("sealed_trace/trace/_chain.py", "ST102") in found
    assert ("sealed_trace/trace/_chain.py", "ST201") in found
    assert ("sealed_trace/upstream/budget.py", "ST401") in found


def test_core_modules_never_import_libcst_or_pytest() -> None:
    assert importlib.util.find_spec("libcst") is not None
    for path in (REPO / "sealed_trace").rglob("*.py"):
        if "lint" in path.relative_to(REPO / "sealed_trace").parts:
            continue
        text = path.read_text(encoding="utf-8")
        assert "import libcst" not in text, path
        assert "from libcst" not in text, path
