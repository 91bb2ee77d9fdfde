"""Configuration errors: all problems reported at once, with suggestions; never inert."""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_project import Project

from sealed_trace.lint.config import ConfigError, find_config, load_config


def _problems(project: Project) -> list[str]:
    with pytest.raises(ConfigError) as info:
        project.config()
    return info.value.problems


def test_valid_config_merges_preset(project: Project) -> None:
    config = project.config()
    (b,) = config.boundaries
    assert b.module == "pkg.sealed"
    assert "hashlib" in b.allowed_imports
    assert "pkg.values" in b.allowed_imports
    assert "time.*" in b.banned
    assert "answer" in b.forbidden_fields


def test_unknown_keys_with_suggestions_all_at_once(project: Project) -> None:
    project.top_toml += "sources_roots = ['src']\n"
    project.boundary_toml += "alowed_imports = []\nbaned = []\n"
    problems = _problems(project)
    assert any("'sources_roots'" in p and "did you mean 'source_roots'" in p for p in problems)
    assert any("'alowed_imports'" in p and "did you mean 'allowed_imports'" in p for p in problems)
    assert any("'baned'" in p and "did you mean 'banned'" in p for p in problems)


def test_wrong_types(project: Project) -> None:
    project.boundary_toml = """
[[tool.sealed_trace.boundary]]
name = 3
module = ["pkg.sealed"]
preset = "adr0230"
allowed_imports = "json"
banned = [1, "os..path"]
forbidden_fields = ["not-an-identifier"]
upstream = "pkg.up"
type_checking_imports = "sometimes"
"""
    problems = " | ".join(_problems(project))
    for fragment in (
        "boundary[0].name must be a non-empty string",
        "boundary[0].module must be a dotted module name",
        "did you mean 'adr-0230'",
        "allowed_imports must be an array of strings",
        "banned[0] must be a string",
        "'os..path' is not a qualified-name pattern",
        "'not-an-identifier' is not an identifier",
        "upstream must be an array of strings",
        "type_checking_imports must be",
    ):
        assert fragment in problems


def test_module_and_upstream_must_match_something(project: Project) -> None:
    project.boundary_toml = project.boundary_toml.replace('"pkg.sealed"', '"pkg.seald"')
    project.boundary_toml = project.boundary_toml.replace('"pkg.up.*"', '"pkg.nowhere.*"')
    problems = " | ".join(_problems(project))
    assert "module 'pkg.seald' matches no module" in problems
    assert "did you mean 'pkg.sealed'" in problems
    assert "upstream pattern 'pkg.nowhere.*' matches no module" in problems


def test_upstream_matching_only_the_sealed_module_is_inert(project: Project) -> None:
    project.boundary_toml = project.boundary_toml.replace('"pkg.up.*"', '"pkg.sealed"')
    assert any("'pkg.sealed' matches no module" in p for p in _problems(project))


def test_missing_boundary_and_bad_roots(project: Project) -> None:
    project.boundary_toml = ""
    project.top_toml = 'source_roots = ["nope"]\nmax_file_bytes = -1\njobs = true\ncache_dir = 5\n'
    problems = " | ".join(_problems(project))
    assert "at least one [[tool.sealed_trace.boundary]]" in problems
    assert "'nope' is not a directory" in problems
    assert "max_file_bytes must be a positive integer" in problems
    assert "jobs must be a non-negative integer" in problems
    assert "cache_dir must be" in problems


def test_duplicate_boundary_names(project: Project) -> None:
    project.boundary_toml = project.boundary_toml * 2
    assert any("used by another boundary" in p for p in _problems(project))


def test_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.sealed_trace\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "is not valid TOML" in info.value.problems[0]


def test_no_table(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[project]\nname = 'x'\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.problems == [
        "has no [tool.sealed_trace] table; `sealed-trace init MODULE` proposes one"
    ]


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "absent.toml")
    assert "cannot read" in info.value.problems[0]


def test_find_config_walks_up(project: Project) -> None:
    project.write_config()
    assert find_config(project.root / "src" / "pkg") == project.root / "pyproject.toml"


def test_policy_hash_changes_with_policy(project: Project) -> None:
    first = project.config().policy_hash()
    project.boundary_toml += 'banned = ["pkg.values.x"]\n'
    assert project.config().policy_hash() != first


def test_several_boundaries(project: Project) -> None:
    project.write("src/pkg/kernel.py", "import time\n")
    project.boundary_toml += """
[[tool.sealed_trace.boundary]]
name = "kernel"
module = "pkg.kernel"
upstream = ["pkg.values"]
"""
    project.write("src/pkg/values.py", "from pkg import kernel\n")
    found = {(f.path, f.code, f.boundary) for f in project.findings()}
    assert ("src/pkg/kernel.py", "ST101", "kernel") in found
    assert ("src/pkg/values.py", "ST401", "kernel") in found


# -- issue 9 §6: reading the policy ---------------------------------------------------------------
def test_the_policy_is_found_in_any_toml_spelling(project: Project) -> None:
    path = project.write_config()
    text = path.read_text()
    dotted = text.replace(
        "[tool.sealed_trace]\n",
        '[tool]\nsealed_trace.source_roots = ["src"]\nsealed_trace.cache_dir = false\n',
        1,
    )
    dotted = dotted.replace('source_roots = ["src"]\ncache_dir = false\n', "", 1)
    path.write_text(dotted)
    assert find_config(project.root / "src") == path
    assert load_config(find_config(project.root) or path).boundaries[0].name == "sealed"


def test_a_near_miss_table_gets_a_hint(project: Project) -> None:
    path = project.write_config()
    path.write_text(path.read_text().replace("tool.sealed_trace", "tool.sealed-trace"))
    with pytest.raises(ConfigError) as info:
        load_config(cwd=str(project.root / "src"))
    assert any(
        "[tool.sealed-trace]: the table is [tool.sealed_trace]" in p for p in info.value.problems
    )


def test_type_errors_echo_the_value_and_problems_point_at_their_line(project: Project) -> None:
    project.top_toml += 'jobs = "4"\n'
    project.boundary_toml += 'closure = "yes"\n'
    with pytest.raises(ConfigError) as info:
        project.config()
    located = dict(zip(info.value.problems, info.value.lines, strict=True))
    jobs = next(p for p in located if p.startswith("jobs"))
    closure = next(p for p in located if ".closure" in p)
    assert 'not a string ("4")' in jobs
    assert 'not a string ("yes")' in closure
    text = (project.root / "pyproject.toml").read_text().splitlines()
    assert text[located[jobs] - 1].startswith("jobs")
    assert text[located[closure] - 1].startswith("closure")


def test_a_policy_that_is_not_utf8_says_at_which_byte(project: Project) -> None:
    path = project.write_config()
    path.write_bytes(path.read_bytes().replace(b"cache_dir", b"cache_d\xffr"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    (problem,) = info.value.problems
    assert "is not UTF-8: byte" in problem
    assert "(line 3, column 8) is 0xff" in problem


def test_one_toml_dialect_on_every_python(project: Project) -> None:
    # TOML 1.1's trailing comma in an inline table is not TOML 1.0, whatever reads it
    path = project.write_config()
    path.write_text(path.read_text() + "[tool.other]\nx = { a = 1, }\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)


# -- issue 9 §5: never silently inert ----------------------------------------------------------
def test_allowed_and_banned_entries_that_name_nothing_are_config_errors(project: Project) -> None:
    project.boundary_toml += (
        'allowed_imports = ["sealed_trase", "pkg.values"]\n'
        'banned = ["pkg.serach", "tiem.*", "os.environ", "pkg.values.x*"]\n'
    )
    project.boundary_toml = project.boundary_toml.replace(
        'allowed_imports = ["pkg.values"]\n', "", 1
    )
    problems = " | ".join(_problems(project))
    assert "allowed_imports entry 'sealed_trase' names no first-party module" in problems
    assert "did you mean 'sealed_trace'" in problems
    assert "banned entry 'pkg.serach'" in problems
    assert "banned entry 'tiem.*'" in problems
    assert "'os.environ'" not in problems
    assert "'pkg.values.x*'" not in problems


def test_third_party_admits_modules_not_installed_here(project: Project) -> None:
    project.top_toml += 'third_party = ["numpy_nightly"]\n'
    project.boundary_toml += 'banned = ["numpy_nightly.random"]\n'
    project.config()


def test_a_boundary_without_upstream_must_say_so(project: Project) -> None:
    project.boundary_toml = project.boundary_toml.replace('upstream = ["pkg.up", "pkg.up.*"]\n', "")
    assert any("has no upstream" in p for p in _problems(project))
    project.boundary_toml += "upstream = []\n"
    project.config()


def test_exclude_never_cuts_a_chain(project: Project) -> None:
    project.top_toml += 'exclude = ["src/pkg/legacy"]\n'
    project.write("src/pkg/legacy/__init__.py", "")
    project.write("src/pkg/legacy/bridge.py", "import pkg.sealed\n")
    project.write("src/pkg/up/a.py", "import pkg.legacy.bridge\n")
    findings = project.run().findings
    # the excluded bridge, which would be the cause, is not reported: the upstream module
    # that imports it is, with the chain through it
    assert [(f.path, f.code) for f in findings] == [("src/pkg/up/a.py", "ST402")]
    assert "pkg.up.a -> pkg.legacy.bridge -> pkg.sealed" in findings[0].message
    project.top_toml = project.top_toml.replace('exclude = ["src/pkg/legacy"]\n', "")
    (finding,) = project.run().findings
    assert (finding.path, finding.code) == ("src/pkg/legacy/bridge.py", "ST402")
    assert "pkg.up.a -> pkg.legacy.bridge -> pkg.sealed" in finding.chains


def test_a_module_one_directory_down_names_the_source_root_to_set(project: Project) -> None:
    project.top_toml = 'source_roots = ["."]\ncache_dir = false\n'
    with pytest.raises(ConfigError) as info:
        project.config()
    assert any(
        "boundary[0].module 'pkg.sealed' matches no module in the source roots "
        '(it is in src/: set source_roots = ["src"], or add it to them)' in p
        for p in info.value.problems
    )
    assert not any("src.pkg.sealed" in p for p in info.value.problems)


def test_a_top_level_key_below_a_boundary_says_where_it_belongs(project: Project) -> None:
    project.boundary_toml += 'baseline = "lint-baseline.json"\n'
    problems = _problems(project)
    assert any(
        p.startswith(
            "boundary[0]: unknown key 'baseline': it is a [tool.sealed_trace] "
            "key; move it above the first [[tool.sealed_trace.boundary]]"
        )
        for p in problems
    )


# -- issue 17 §6: bare builtins, the reference table, suggestions for module names ------------
def test_a_bare_builtin_in_banned_means_the_builtin(project: Project) -> None:
    project.boundary_toml = project.boundary_toml.replace('preset = "adr-0230"', 'preset = "none"')
    project.boundary_toml += 'banned = ["open", "eval", "__import__"]\n'
    (boundary,) = project.config().boundaries
    assert boundary.banned == ("builtins.open", "builtins.eval", "builtins.__import__")


def test_the_lint_finds_every_spelling_of_a_bare_builtin_ban(project: Project) -> None:
    project.boundary_toml = project.boundary_toml.replace('preset = "adr-0230"', 'preset = "none"')
    project.boundary_toml += 'banned = ["open", "eval", "__import__"]\n'
    project.write(
        "src/pkg/sealed.py",
        """
        import builtins
        import builtins as b


        def read(path, text):
            handle = open(path)
            other = builtins.open(path)
            reader = open
            reader(path)
            b.eval(text)
            return eval(text), __import__("json"), handle, other
        """,
    )
    found = {(f.code, f.line) for f in project.findings() if f.code.startswith("ST2")}
    assert found == {
        ("ST201", 6),
        ("ST201", 7),
        ("ST201", 9),  # `reader = open` (line 8) is reported at its use
        ("ST201", 10),
        ("ST201", 11),
    }
    messages = " | ".join(f.message for f in project.findings())
    for name in ("builtins.open", "builtins.eval", "builtins.__import__"):
        assert name in messages


def test_a_misspelt_builtin_in_banned_gets_a_suggestion(project: Project) -> None:
    project.boundary_toml += 'banned = ["opne"]\n'
    problems = " | ".join(_problems(project))
    assert "banned entry 'opne' names no first-party module" in problems
    assert "(did you mean 'open'?)" in problems


def test_a_misspelt_upstream_pattern_gets_the_closest_first_party_name(project: Project) -> None:
    project.boundary_toml = project.boundary_toml.replace(
        'upstream = ["pkg.up", "pkg.up.*"]', 'upstream = ["pkg.upp", "pkg.upp.*", "pkg.up.b"]'
    )
    problems = _problems(project)
    assert any(
        "upstream pattern 'pkg.upp' matches no module" in p and "(did you mean 'pkg.up'?)" in p
        for p in problems
    )
    assert any("'pkg.upp.*'" in p and "(did you mean 'pkg.up.*'?)" in p for p in problems)
    assert any("'pkg.up.b'" in p and "(did you mean 'pkg.up.a'?)" in p for p in problems)


def test_every_key_that_names_modules_suggests_the_same_way(project: Project) -> None:
    project.boundary_toml = """
[[tool.sealed_trace.boundary]]
name = "sealed"
module = "pkg.seald"
allowed_imports = ["pkg.valuse"]
banned = ["pkg.valeus"]
upstream = ["pkg.upp.*"]
"""
    problems = _problems(project)
    suggestions = [p[p.index("(did you mean") :].split(")")[0] for p in problems]
    assert suggestions == [
        "(did you mean 'pkg.sealed'?",
        "(did you mean 'pkg.up.*'?",
        "(did you mean 'pkg.values'?",
        "(did you mean 'pkg.values'?",
    ]


_DOCS = Path(__file__).parents[2] / "docs" / "lint.md"


def _reference_rows() -> dict[str, list[list[str]]]:
    """The cells of each row of each reference table in docs/lint.md, by the table its marker
    names (``<!-- keys of [tool.sealed_trace] ... -->``)."""
    text = _DOCS.read_text(encoding="utf-8")
    tables: dict[str, list[list[str]]] = {}
    for part in text.split("<!-- keys of ")[1:]:
        name, _, rest = part.partition(" ")
        lines = rest.split("\n\n", 1)[0].splitlines()[1:]
        assert lines[:2] == ["| key | type | default | meaning |", "|---|---|---|---|"]
        assert name not in tables, f"two tables of {name}"
        tables[name] = [row[2:-2].split(" | ") for row in lines[2:]]
    return tables


def test_the_reference_tables_in_the_docs_hold_every_key_the_config_accepts() -> None:
    from sealed_trace.lint.config import BOUNDARY_KEYS, IGNORE_KEYS, TOP_KEYS
    from sealed_trace.lint.config.fields import EDGE_KIND_FIELDS

    keys = {name: [row[0].strip("`") for row in rows] for name, rows in _reference_rows().items()}
    assert keys == {
        "[tool.sealed_trace]": list(TOP_KEYS),
        "[[tool.sealed_trace.boundary]]": list(BOUNDARY_KEYS),
        "edge_kinds": [f.name for f in EDGE_KIND_FIELDS],
        "[[tool.sealed_trace.ignore]]": list(IGNORE_KEYS),
    }


def test_each_reference_row_is_its_declaration() -> None:
    from sealed_trace.lint.config.reference import TABLES, with_tables

    for name, rows in _reference_rows().items():
        for row, field in zip(rows, TABLES[name], strict=True):
            assert row == [f"`{field.name}`", field.type, field.default_text(), field.doc]
    text = _DOCS.read_text(encoding="utf-8")
    assert with_tables(text) == text, "python -m sealed_trace.lint.config.reference docs/lint.md"


def test_each_declaration_is_named_as_its_key() -> None:
    from sealed_trace.lint.config import fields
    from sealed_trace.lint.config.table import Field

    namespaces = (fields.TopKeys, fields.BoundaryKeys, fields.EdgeKindKeys, fields.IgnoreKeys)
    for namespace in namespaces:
        declared = {k: v for k, v in vars(namespace).items() if isinstance(v, Field)}
        assert declared
        assert all(key == field.name and field.doc for key, field in declared.items())
