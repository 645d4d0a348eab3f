"""The permission mechanism names no tool; the coding agent's rules plug into it as argument rules."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from helikon_fc.core.items import ToolCall
from helikon_fc.core.json_value import JsonObject
from helikon_fc.core.permissions import (
    ArgumentRule,
    PermissionAllow,
    PermissionAsk,
    PermissionConfig,
    PermissionDeny,
    ToolInfo,
    ToolRule,
    decide,
)
from helikon_fc.core.permissions.coding import BashRule, EditRule, ReadRule, builtin_guard_hits

MECHANISM = Path(__file__).resolve().parents[2] / "src" / "helikon_fc" / "core" / "permissions"
CODING_TOOLS = {"Bash", "Read", "Edit", "Write"}


def test_the_mechanism_names_no_tool() -> None:
    """No module of the generic mechanism holds the name of a coding agent's tool as a string."""
    for module in sorted(MECHANISM.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        named = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value in CODING_TOOLS}
        assert named == set(), module.name


def test_the_coding_rules_are_argument_rules() -> None:
    """Each coding rule answers `matches(tool, arguments, every=...)`, the one question the mechanism asks."""
    rules: list[ArgumentRule] = [BashRule("git"), ReadRule("*.env"), EditRule("src/**")]
    asked = [
        rules[0].matches("Bash", {"command": "git status && git diff"}, every=True),
        rules[1].matches("Read", {"path": "deploy/prod.env"}, every=False),
        rules[2].matches("Write", {"path": "src/app/main.py"}, every=True),
    ]
    assert asked == [True, True, True]
    assert rules[0].matches("Shell", {"command": "git status"}, every=False) is False  # another tool's command
    assert not rules[1].matches("Edit", {"path": "prod.env"}, every=False)  # a read rule reads Read only
    assert not rules[2].matches("Write", {"path": 7}, every=False)  # no path text, no match


def test_a_config_without_coding_rules_decides_any_tool_by_name_alone() -> None:
    """A tool called ``Bash`` is one more tool to a config of `ToolRule`s, guards off: its command is not read."""
    config = PermissionConfig(deny=(ToolRule("Bash"),), builtin_guards=False)
    call = ToolCall("c1", "Bash", json.dumps({"command": "ls"}))
    assert decide(config, call, ToolInfo("Bash")) == PermissionDeny("denied by deny rule: Bash", rule="tool(Bash)")
    calm = PermissionConfig(builtin_guards=False)
    rm_root = ToolCall("c2", "Bash", json.dumps({"command": "rm -rf /"}))
    assert decide(calm, rm_root, ToolInfo("Bash")) == PermissionAllow("no policy: allowed")


def test_the_builtin_guards_come_from_the_coding_module() -> None:
    """With the built-in guards on, the coding module's guard hits are what the decision asks about."""
    arguments: JsonObject = {"command": "rm -rf /"}
    hits = builtin_guard_hits("Bash", arguments)
    assert [hit.name for hit in hits] == ["rm-root"]
    decision = decide(PermissionConfig(), ToolCall("c1", "Bash", json.dumps(arguments)), ToolInfo("Bash"))
    assert decision == PermissionAsk("destructive command requires approval", hits[0].prompt, guard="rm-root")
    assert builtin_guard_hits("Edit", {"path": ".git/config"})[0].name == "secret-path"
    assert builtin_guard_hits("Read", {"path": ".git/config"}) == ()
