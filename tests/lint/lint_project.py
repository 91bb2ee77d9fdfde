"""Test helper of the boundary-lint tests: a throw-away project (used through the ``project``
fixture of ``conftest.py``; named uniquely so that it never clashes with other test packages)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

from sealed_trace.lint.config import LintConfig, load_config
from sealed_trace.lint.engine import LintResult, lint
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.rules import Rule

DEFAULT_BOUNDARY = """
[[tool.sealed_trace.boundary]]
name = "sealed"
module = "pkg.sealed"
preset = "adr-0230"
allowed_imports = ["pkg.values"]
upstream = ["pkg.up", "pkg.up.*"]
"""


class Project:
    """A small project: ``src/pkg/{__init__,sealed,values}.py`` and ``src/pkg/up/{__init__,a}.py``.

    ``boundary`` and ``top`` hold the TOML of the policy; files are written dedented.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.boundary_toml = DEFAULT_BOUNDARY
        self.top_toml = 'source_roots = ["src"]\ncache_dir = false\n'
        for rel in ("src/pkg/__init__.py", "src/pkg/values.py", "src/pkg/up/__init__.py"):
            self.write(rel, "")
        self.write("src/pkg/sealed.py", "from __future__ import annotations\n")
        self.write("src/pkg/up/a.py", "from pkg import values\n")

    def write(self, rel: str, text: str | bytes) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def write_config(self) -> Path:
        text = "[tool.sealed_trace]\n" + self.top_toml + self.boundary_toml
        return self.write("pyproject.toml", text)

    def config(self) -> LintConfig:
        return load_config(self.write_config())

    def run(
        self,
        paths: Sequence[str] = (),
        *,
        extra_rules: Sequence[Rule] = (),
        use_cache: bool = False,
        jobs: int = 1,
        parsed: list[str] | None = None,
    ) -> LintResult:
        config = self.config()
        return lint(
            config,
            [str(self.root / p) for p in paths],
            extra_rules=extra_rules,
            use_cache=use_cache,
            jobs=jobs,
            on_parse=parsed.append if parsed is not None else None,
        )

    def findings(self, **kwargs: object) -> list[Finding]:
        return list(self.run(**kwargs).findings)  # type: ignore[arg-type]

    def codes(self, rel: str | None = None) -> set[tuple[str, int]]:
        """``{(code, line)}`` of every finding, or of one file's findings."""
        return {(f.code, f.line) for f in self.findings() if rel is None or f.path == rel}

    def sealed(self, code: str) -> set[tuple[str, int]]:
        """Write ``code`` as the sealed module and return its ``{(code, line)}``."""
        self.write("src/pkg/sealed.py", code)
        return self.codes("src/pkg/sealed.py")

    def upstream(self, code: str, rel: str = "src/pkg/up/a.py") -> set[tuple[str, int]]:
        """Write ``code`` as an upstream module and return its ``{(code, line)}``."""
        self.write(rel, code)
        return self.codes(rel)

    def reaches(self, code: str, rel: str = "src/pkg/up/a.py") -> set[tuple[str, str, int]]:
        """Write ``code`` as an upstream module and return ``{(path, code, line)}`` of the
        findings about it: its own, and the reverse-dependency findings of the modules that
        cause it to reach the sealed module (a chain of theirs starts at it)."""
        self.write(rel, code)
        module = rel.removeprefix("src/").removesuffix(".py").replace("/", ".")
        module = module.removesuffix(".__init__")
        return {
            (f.path, f.code, f.line)
            for f in self.findings()
            if f.path == rel or any(c.startswith(module + " ") for c in f.chains)
        }
