"""Issue 18, item 3: the README and the guides work as a new user copies them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sealed_trace.cli import MAX_DOCUMENT_BYTES

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {path.name: path.read_text(encoding="utf-8") for path in (ROOT / "docs").glob("*.md")}


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^ *```{language}\n(.*?)^ *```", text, re.S | re.M)


@pytest.mark.parametrize("name", ["adopting.md", "lint.md"])
def test_the_pre_commit_snippets_are_valid_configurations(tmp_path: Path, name: str) -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    snippets = [b for b in _blocks(DOCS[name], "yaml") if "sealed-trace-lint" in b]
    assert snippets
    for snippet in snippets:
        config = tmp_path / ".pre-commit-config.yaml"
        config.write_text(snippet, encoding="utf-8")
        loaded = clientlib.load_config(str(config))  # raises on what pre-commit rejects
        assert loaded["repos"][0]["hooks"][0]["id"] == "sealed-trace-lint"


def test_the_readme_spells_the_command_one_way() -> None:
    shell = "\n".join(_blocks(README, "sh"))
    assert ".venv/bin/sealed-trace" not in README
    assert re.search(r"^sealed-trace \w", shell, re.M)
    # Said once: bare `sealed-trace` needs the virtual environment's bin directory on PATH.
    assert README.count(".venv/bin/activate") == 1
    assert README.count('export PATH="$PWD/.venv/bin:$PATH"') == 1
    assert README.index(".venv/bin/activate") < README.index("\nsealed-trace ")


def test_the_document_size_limit_is_documented() -> None:
    assert MAX_DOCUMENT_BYTES == 256 * 1024 * 1024
    for text in (README, DOCS["documents.md"]):
        assert "256 MiB (268 435 456 bytes" in text
