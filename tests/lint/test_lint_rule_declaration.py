"""How rules are declared: fact kinds and roles as string enums, :class:`CatalogRule` and
:class:`FactRule`, and the plugin rule of ``docs/lint.md`` working as written."""

from __future__ import annotations

import json
import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from lint_project import Project

from sealed_trace.lint.catalog import RULES
from sealed_trace.lint.facts import DynamicFact, DynamicKind, FileFacts, ImportFact, ImportKind
from sealed_trace.lint.findings import Finding
from sealed_trace.lint.plugins import load_plugin_rules, plugin_manager
from sealed_trace.lint.rules import BUILTIN_RULES
from sealed_trace.lint.rules.base import CatalogRule, FactRule, Messages, Role, RuleContext

DOCS = Path(__file__).resolve().parents[2] / "docs" / "lint.md"


@pytest.mark.parametrize("member", [*DynamicKind, *ImportKind, *Role])
def test_members_are_their_strings(member: str) -> None:
    value = member.value  # type: ignore[attr-defined]
    assert member == value
    assert hash(member) == hash(value)
    assert str(member) == f"{member}" == f"{member:>1}" == value
    assert json.dumps(member) == json.dumps(value)
    assert {value: 1}[member] == 1
    assert member in {value}


def test_facts_of_plain_strings_and_of_members_are_one() -> None:
    plain = FileFacts(
        imports=(ImportFact(1, 1, "json", None, "import", False, "import json"),),
        dynamics=(DynamicFact(2, 1, "computed-import", "importlib.import_module"),),
    )
    members = FileFacts(
        imports=(ImportFact(1, 1, "json", None, ImportKind.IMPORT, False, "import json"),),
        dynamics=(DynamicFact(2, 1, DynamicKind.COMPUTED_IMPORT, "importlib.import_module"),),
    )
    assert plain == members
    assert json.dumps(plain.to_json()) == json.dumps(members.to_json())
    assert FileFacts.from_json(json.loads(json.dumps(members.to_json()))) == plain


def test_builtin_rules_take_their_catalogue_entry_by_code() -> None:
    for rule in BUILTIN_RULES:
        info = RULES[rule.code]
        assert (rule.name, rule.summary, rule.explanation) == (
            info.name,
            info.summary,
            info.explanation,
        )
        assert rule.roles
        assert all(isinstance(role, Role) for role in rule.roles)


def test_a_rule_of_an_uncatalogued_code_must_name_itself() -> None:
    with pytest.raises(TypeError, match="ST977 is not catalogued; set name"):

        class _Nameless(CatalogRule):
            code = "ST977"
            roles = frozenset({Role.BOUNDARY})


def test_roles_are_checked_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match="says no roles"):

        class _Roleless(CatalogRule):
            code = "ST201"

    with pytest.raises(TypeError, match="'sealed'"):

        class _Misspelled(CatalogRule):
            code = "ST201"
            roles = frozenset({"sealed"})

    class _Plain(CatalogRule):
        code = "ST201"
        roles = frozenset({"boundary", "upstream"})

    assert _Plain.roles == {Role.BOUNDARY, Role.UPSTREAM}


class _Callees(FactRule):
    code = "ST978"
    name = "callees"
    summary = "a demonstration fact rule"
    explanation = "Reports plugin discovery, one callee specially."
    roles = frozenset({Role.BOUNDARY})
    messages: ClassVar[Messages] = {
        (DynamicKind.PLUGIN_DISCOVERY, "pkg_resources.iter_entry_points"): "old {name}",
        DynamicKind.PLUGIN_DISCOVERY: "new {callee}",
    }
    anchor = "anchor:{name}"


def test_a_fact_rule_table_is_read_by_kind_then_by_kind_and_callee(project: Project) -> None:
    project.write(
        "src/pkg/sealed.py",
        "import importlib.metadata as md\nimport pkg_resources\n"
        "md.entry_points()\npkg_resources.iter_entry_points('x')\n",
    )
    found = [f for f in project.findings(extra_rules=[_Callees()]) if f.code == "ST978"]
    assert [(f.line, f.message, f.anchor) for f in found] == [
        (3, "new importlib.metadata.entry_points", "anchor:entry_points"),
        (4, "old iter_entry_points", "anchor:iter_entry_points"),
    ]


def test_a_plain_object_with_string_roles_is_still_a_rule(project: Project) -> None:
    class _Plain:
        code = "ST979"
        name = "plain-object"
        summary = "a rule that derives from nothing"
        explanation = "Plugin rules need no base class."
        roles = frozenset({"upstream"})

        def check(self, ctx: RuleContext) -> Iterator[Finding]:
            yield ctx.finding(1, 1, self.code, f"{ctx.role} file", ctx.path)

    found = [f for f in project.findings(extra_rules=[_Plain()]) if f.code == "ST979"]
    assert sorted((f.path, f.message) for f in found) == [
        ("src/pkg/up/__init__.py", "upstream file"),
        ("src/pkg/up/a.py", "upstream file"),
    ]


def test_the_plugin_of_the_docs_works_as_written(project: Project) -> None:
    section = DOCS.read_text(encoding="utf-8").split("## Plugins\n", 1)[1].split("\n## ", 1)[0]
    (source,) = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    plugin = types.ModuleType("sealed_trace_docs_plugin")
    exec(compile(source, "docs/lint.md", "exec"), plugin.__dict__)
    saved = dict(RULES)
    RULES.pop("ST901", None)  # the demonstration plugin of test_lint_plugins may hold it
    try:
        rules = load_plugin_rules(plugin_manager([plugin], entry_points=False))
        project.write("src/pkg/sealed.py", "import json\njson.dumps({})\n")
        found = {(f.code, f.line, f.message) for f in project.findings(extra_rules=rules)}
        assert found == {("ST901", 2, "uses json.dumps")}
    finally:
        RULES.clear()
        RULES.update(saved)
