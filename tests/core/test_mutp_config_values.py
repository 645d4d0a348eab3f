"""The permission configuration's values: defaults, refusals naming the argument, rule texts, mode changes."""

from __future__ import annotations

from typing import Any

import pytest

from helikon_fc.core.permissions import (
    BashRule,
    EditRule,
    Guard,
    GuardAction,
    PermissionConfig,
    PermissionMode,
    PolicyAllow,
    PolicyRule,
    ReadRule,
    ToolEffect,
    ToolInfo,
    ToolRule,
)


def test_the_defaults_of_a_config() -> None:
    config = PermissionConfig()
    assert config.mode is PermissionMode.DEFAULT
    assert (config.deny, config.allow, config.guards, config.policy) == ((), (), (), ())
    assert config.builtin_guards is True and config.external_policy is False


def test_the_defaults_of_a_guard_and_a_tool() -> None:
    guard = Guard("g", ToolRule("x"))
    assert guard.action is GuardAction.ASK and guard.prompt == ""
    tool = ToolInfo("t")
    assert tool.effect is ToolEffect.SIDE_EFFECT and tool.known is True


def test_rules_print_as_their_rule_text() -> None:
    assert [str(rule) for rule in (ToolRule("x"), BashRule("rm"), ReadRule("*.env"), EditRule(""))] == [
        "tool(x)",
        "bash(rm)",
        "read(*.env)",
        "edit()",
    ]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ToolRule(""), "ToolRule: name must be a non-empty string, got '' (str)"),
        (lambda: BashRule(""), "BashRule: program must be a non-empty string, got '' (str)"),
        (lambda: Guard("", ToolRule("x")), "Guard: name must be a non-empty string, got '' (str)"),
    ],
)
def test_empty_names_are_refused_naming_the_field(make: object, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        make()  # type: ignore[operator]
    assert str(raised.value) == message


def test_a_name_that_is_no_string_is_a_type_error() -> None:
    with pytest.raises(TypeError) as raised:
        ToolRule(3)  # type: ignore[arg-type]
    assert str(raised.value) == "ToolRule: name must be a non-empty string, got 3 (int)"


def test_a_glob_rule_needs_a_string() -> None:
    with pytest.raises(TypeError) as raised:
        ReadRule(3)  # type: ignore[arg-type]
    assert str(raised.value) == "ReadRule: pattern must be a string, got 3 (int)"
    with pytest.raises(TypeError, match=r"EditRule: pattern must be a string, got None \(NoneType\)"):
        EditRule(None)  # type: ignore[arg-type]


def test_a_guard_needs_a_rule() -> None:
    with pytest.raises(TypeError) as raised:
        Guard("g", "rm")  # type: ignore[arg-type]
    assert str(raised.value) == (
        "Guard: when must be a permission rule (ToolRule, BashRule, ReadRule or EditRule), got 'rm' (str); "
        "wrap the name in a rule: ToolRule('rm') or BashRule('rm')"
    )
    for rule in (ToolRule("x"), BashRule("rm"), ReadRule("a"), EditRule("b")):
        assert Guard("g", rule).when == rule


def _with(field: str, value: Any) -> PermissionConfig:
    arguments: dict[str, Any] = {field: value}
    return PermissionConfig(**arguments)


@pytest.mark.parametrize("field", ["deny", "allow"])
def test_rule_lists_refuse_strings_non_sequences_and_foreign_items(field: str) -> None:
    with pytest.raises(TypeError) as raised:
        _with(field, "rm")
    assert str(raised.value) == f"PermissionConfig: {field} must be a sequence of permission rules, got 'rm' (str)"
    with pytest.raises(TypeError, match=rf"PermissionConfig: {field} must be a sequence of permission rules, got 3"):
        _with(field, 3)
    with pytest.raises(TypeError) as raised:
        _with(field, [ToolRule("x"), "rm"])
    assert str(raised.value) == (
        f"PermissionConfig: {field}[1] must be a permission rule (ToolRule, BashRule, ReadRule or EditRule), "
        "got 'rm' (str); wrap the name in a rule: ToolRule('rm') or BashRule('rm')"
    )
    assert getattr(_with(field, [ToolRule("x"), BashRule("rm")]), field) == (
        ToolRule("x"),
        BashRule("rm"),
    )


def test_guards_and_policy_lists_take_only_their_own_kind() -> None:
    with pytest.raises(TypeError) as guards:
        PermissionConfig(guards=[ToolRule("x")])  # type: ignore[list-item]
    assert str(guards.value) == "PermissionConfig: guards[0] must be a Guard, got ToolRule(name='x') (ToolRule)"
    with pytest.raises(TypeError) as policy:
        PermissionConfig(policy=[ToolRule("x")])  # type: ignore[list-item]
    assert str(policy.value) == "PermissionConfig: policy[0] must be a PolicyRule, got ToolRule(name='x') (ToolRule)"
    with pytest.raises(TypeError, match=r"^PermissionConfig: guards must be a sequence of Guards, got b'x' \(bytes\)$"):
        PermissionConfig(guards=b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^PermissionConfig: policy must be a sequence of PolicyRules, got 3 \(int\)$"):
        PermissionConfig(policy=3)  # type: ignore[arg-type]
    line = PolicyRule(ToolRule("x"), PolicyAllow())
    assert PermissionConfig(policy=iter([line])).policy == (line,)


def test_the_mode_is_a_permission_mode_or_its_value() -> None:
    assert PermissionConfig(mode="plan").mode is PermissionMode.PLAN
    with pytest.raises(ValueError) as raised:
        PermissionConfig(mode="PLAN")
    assert str(raised.value) == (
        "PermissionConfig: mode must be a PermissionMode or one of 'default', 'accept_edits', 'plan', 'bypass', "
        "'dont_ask', got 'PLAN' (str)"
    )
    with pytest.raises(TypeError, match=r"PermissionConfig: mode must be a PermissionMode or one of .*, got 3 \(int\)"):
        PermissionConfig(mode=3)  # type: ignore[arg-type]


@pytest.mark.parametrize("start", list(PermissionMode))
@pytest.mark.parametrize("target", list(PermissionMode))
def test_mode_changes(start: PermissionMode, target: PermissionMode) -> None:
    """From DONT_ASK nothing changes; from BYPASS only DONT_ASK; from the others every change."""
    config = PermissionConfig(mode=start, deny=[BashRule("rm")])
    expected: PermissionMode
    if start is PermissionMode.DONT_ASK:
        expected = start
    elif start is PermissionMode.BYPASS:
        expected = target if target is PermissionMode.DONT_ASK else start
    else:
        expected = target
    changed = config.with_mode(target)
    assert changed.mode is expected and changed.deny == (BashRule("rm"),)
