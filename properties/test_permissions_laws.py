"""Laws of the permission decision: deterministic and replayable, total, deny rules first, Plan read-only,
Bypass still guarded, DontAsk never asks the policy, and an allow rule only ever allows what it names."""

from __future__ import annotations

import json

import trio
from hypothesis import assume, given, strategies as st
from properties.permission_strategies import (
    command_lines,
    object_arguments_texts,
    permission_configs,
    permission_tool_calls,
    policy_verdicts,
    tool_effects,
)
from properties.test_purity import no_io

from helikon_fc.core import (
    Allow,
    Ask,
    BashRule,
    ConsultPolicy,
    Deny,
    PermissionConfig,
    PermissionDecision,
    PermissionMode,
    PolicyAllow,
    PolicyVerdict,
    ToolCall,
    ToolEffect,
    ToolInfo,
    ToolRule,
    decide,
    decision_events,
    from_json,
    parse_command,
    to_json,
)
from helikon_fc.core.events import AgentEvent, ApprovalRequested, PermissionDenied, PermissionGranted
from helikon_fc.shell.control.permissions import (
    ApprovalAnswer,
    ApprovalRequest,
    Approve,
    PermissionResolution,
    Permissions,
    Reject,
    resolve_permission,
)

APPROVALS = st.sets(st.sampled_from(("rm-root", "system-path", "secret-path", "g1", "g2")), max_size=3)
VERDICTS = st.none() | policy_verdicts()
CONFIGS = permission_configs()
CALLS = permission_tool_calls()
EFFECTS = st.none() | tool_effects()


@st.composite
def decision_inputs(
    draw: st.DrawFn,
) -> tuple[PermissionConfig, ToolCall, ToolInfo | None, frozenset[str], PolicyVerdict | None]:
    """A configuration, a call, what is known of its tool, the guards already approved and a policy verdict."""
    call = draw(CALLS)
    effect = draw(EFFECTS)
    tool = None if effect is None else ToolInfo(call.name, effect)
    return (draw(CONFIGS), call, tool, frozenset(draw(APPROVALS)), draw(VERDICTS))


def _decide(
    inputs: tuple[PermissionConfig, ToolCall, ToolInfo | None, frozenset[str], PolicyVerdict | None],
) -> PermissionDecision:
    config, call, tool, approved, verdict = inputs
    return decide(config, call, tool, approved_guards=approved, policy_verdict=verdict)


@given(inputs=decision_inputs())
def test_the_same_inputs_give_the_same_decision_even_after_a_json_round_trip(
    inputs: tuple[PermissionConfig, ToolCall, ToolInfo | None, frozenset[str], PolicyVerdict | None],
) -> None:
    """decide is a pure function of its inputs: twice, or on inputs read back from JSON (a replay), it answers
    the same, touching no IO, clock or randomness."""
    config, call, tool, approved, verdict = inputs
    with no_io():
        first = _decide(inputs)
        again = _decide(inputs)
    replayed = (
        from_json(PermissionConfig, to_json(config)),
        from_json(ToolCall, to_json(call)),
        None if tool is None else from_json(ToolInfo, to_json(tool)),
        approved,
        None if verdict is None else from_json(PolicyVerdict, to_json(verdict)),
    )
    assert first == again == _decide(replayed)
    decision: PermissionDecision = from_json(PermissionDecision, to_json(first))
    assert decision == first
    for event in decision_events(call, first):
        read: AgentEvent = from_json(AgentEvent, to_json(event))
        assert read == event


@given(inputs=decision_inputs(), effect=st.sampled_from([ToolEffect.WRITE, ToolEffect.SIDE_EFFECT]))
def test_plan_never_allows_a_tool_that_is_not_read_only(
    inputs: tuple[PermissionConfig, ToolCall, ToolInfo | None, frozenset[str], PolicyVerdict | None],
    effect: ToolEffect,
) -> None:
    """In Plan mode a tool that is not read-only is denied, whatever the rules, guards, approvals and policy say."""
    config, call, _, approved, verdict = inputs
    planning = PermissionConfig(
        mode=PermissionMode.PLAN,
        deny=config.deny,
        allow=(*config.allow, ToolRule(call.name)),
        guards=config.guards,
        builtin_guards=config.builtin_guards,
        policy=config.policy,
        external_policy=config.external_policy,
    )
    for tool in (ToolInfo(call.name, effect), None):
        assert isinstance(decide(planning, call, tool, approved_guards=approved, policy_verdict=verdict), Deny)


@given(inputs=decision_inputs(), data=st.data())
def test_a_matching_deny_rule_always_wins(
    inputs: tuple[PermissionConfig, ToolCall, ToolInfo | None, frozenset[str], PolicyVerdict | None],
    data: st.DataObject,
) -> None:
    """A call a deny rule matches is denied by that rule, even when the same rule is also an allow rule, in any mode."""
    config, call, tool, approved, verdict = inputs
    rule = ToolRule(call.name)
    denying = PermissionConfig(
        mode=data.draw(st.sampled_from(PermissionMode)),
        deny=(*config.deny, rule),
        allow=(rule, *config.allow),
        guards=config.guards,
        policy=config.policy,
        external_policy=config.external_policy,
    )
    decision = decide(denying, call, tool, approved_guards=approved, policy_verdict=verdict)
    assert isinstance(decision, Deny) and decision.reason.startswith("denied by deny rule")


@given(line=command_lines(), data=st.data())
def test_a_deny_rule_for_any_program_a_line_runs_denies_the_line(line: str, data: st.DataObject) -> None:
    """A bash deny rule naming any program of any sub-command (nested ones included) denies the whole line,
    whatever the allow rules and the mode."""
    programs = [command.program for command in parse_command(line)]
    assume(programs)
    program = data.draw(st.sampled_from(programs))
    config = PermissionConfig(
        mode=data.draw(st.sampled_from(PermissionMode)),
        deny=(BashRule(program),),
        allow=(ToolRule("Bash"), BashRule(program)),
    )
    call = ToolCall("c", "Bash", json.dumps({"command": line}))
    decision = decide(config, call, ToolInfo("Bash", data.draw(tool_effects())))
    assert decision == Deny("denied by deny rule: Bash", rule=str(BashRule(program)))


DESTRUCTIVE = ("rm -rf /", "rm -fr ~", "sudo rm -rf $HOME", "echo x > /etc/passwd", "bash -c 'rm -rf /*'")


@given(
    config=permission_configs(),
    destructive=st.sampled_from(DESTRUCTIVE),
    before=st.sampled_from(("", "ls && ", "git status; ", "cd /tmp || ")),
    verdict=VERDICTS,
)
def test_bypass_still_refuses_or_asks_for_destructive_commands(
    config: PermissionConfig, destructive: str, before: str, verdict: PolicyVerdict | None
) -> None:
    """Bypass allows only what survives the deny rules and the guards: with the built-in guards on, a
    destructive command is never allowed without an approval."""
    bypass = PermissionConfig(
        mode=PermissionMode.BYPASS,
        deny=config.deny,
        allow=config.allow,
        guards=config.guards,
        builtin_guards=True,
        policy=config.policy,
    )
    call = ToolCall("c", "Bash", json.dumps({"command": before + destructive}))
    decision = decide(bypass, call, ToolInfo("Bash"), policy_verdict=verdict)
    assert isinstance(decision, Deny | Ask)


@given(inputs=decision_inputs())
def test_dont_ask_never_consults_the_policy(
    inputs: tuple[PermissionConfig, ToolCall, ToolInfo | None, frozenset[str], PolicyVerdict | None],
) -> None:
    """In DontAsk mode the policy is never consulted: the decision is the same with or without one, and never
    ConsultPolicy."""
    config, call, tool, approved, verdict = inputs
    strict = PermissionConfig(
        mode=PermissionMode.DONT_ASK,
        deny=config.deny,
        allow=config.allow,
        guards=config.guards,
        builtin_guards=config.builtin_guards,
        policy=config.policy,
        external_policy=config.external_policy,
    )
    bare = PermissionConfig(
        mode=PermissionMode.DONT_ASK,
        deny=config.deny,
        allow=config.allow,
        guards=config.guards,
        builtin_guards=config.builtin_guards,
    )
    decision = decide(strict, call, tool, approved_guards=approved, policy_verdict=verdict)
    assert not isinstance(decision, ConsultPolicy)
    assert decision == decide(bare, call, tool, approved_guards=approved)


@given(inputs=decision_inputs())
def test_an_allow_rule_allows_only_what_it_names(
    inputs: tuple[PermissionConfig, ToolCall, ToolInfo | None, frozenset[str], PolicyVerdict | None],
) -> None:
    """When an allow rule (or a granting policy line) for a program allowed a Bash call, every sub-command of
    the call runs exactly that program."""
    call = inputs[1]
    decision = _decide(inputs)
    if isinstance(decision, Allow) and decision.rule is not None and decision.rule.startswith("bash("):
        program = decision.rule[len("bash(") : -1]
        commands = parse_command(json.loads(call.arguments)["command"])
        assert commands and all(c.program == program for c in commands)


@given(line=st.text(max_size=80) | command_lines())
def test_parsing_a_command_line_never_raises(line: str) -> None:
    """parse_command is total: any text, however malformed, gives commands with no empty program, read to depth 3
    (a deeper payload is one unread command)."""
    commands = parse_command(line)
    if not any(quote in line for quote in "'\""):  # only a quoted '' can name an empty program
        assert all(command.program for command in commands)
    assert all(command.depth <= 3 or (command.unread and command.depth == 4) for command in commands)


@given(arguments=st.text(max_size=60), config=permission_configs(), name=st.sampled_from(("Bash", "Read", "Edit", "x")))
def test_decide_never_raises_on_any_argument_text(arguments: str, config: PermissionConfig, name: str) -> None:
    """Whatever the model put in the arguments, decide answers with a decision."""
    assert isinstance(decide(config, ToolCall("c", name, arguments), None), Allow | Deny | Ask | ConsultPolicy)


ANSWERS = st.lists(
    st.sampled_from((Approve(), Reject("no"))) | object_arguments_texts().map(lambda text: Approve(text)), max_size=4
)


def _resolve(
    inputs: tuple[PermissionConfig, ToolCall, ToolInfo | None, frozenset[str], PolicyVerdict | None],
    answers: list[ApprovalAnswer],
) -> tuple[PermissionResolution, int]:
    """Resolve with a scripted policy (the drawn verdict) and a scripted approver; also how many questions it got."""
    config, call, tool, _, verdict = inputs
    script = list(answers)
    asked = 0

    async def approver(request: ApprovalRequest) -> ApprovalAnswer:
        nonlocal asked
        asked += 1
        return script.pop(0) if script else Reject("out of answers")

    async def policy(call: ToolCall, tool: ToolInfo) -> PolicyVerdict:
        return verdict if verdict is not None else PolicyAllow()

    permissions = Permissions(config=config, policy=policy, approval_handler=approver)
    return trio.run(resolve_permission, permissions, call, tool), asked


@given(inputs=decision_inputs(), answers=ANSWERS, destructive=st.none() | st.sampled_from(DESTRUCTIVE))
def test_resolution_is_replayable_and_every_question_is_recorded(
    inputs: tuple[PermissionConfig, ToolCall, ToolInfo | None, frozenset[str], PolicyVerdict | None],
    answers: list[ApprovalAnswer],
    destructive: str | None,
) -> None:
    """Resolving a call with the same policy and the same answers gives the same resolution; its events are one
    ApprovalRequested per question asked, then exactly one event for the final decision; a call the approver
    rejected is never allowed."""
    if destructive is not None:  # often a command a guard asks about, so there are questions to answer
        config, _, _, approved, verdict = inputs
        inputs = (
            config,
            ToolCall("c1", "Bash", json.dumps({"command": destructive})),
            ToolInfo("Bash"),
            approved,
            verdict,
        )
    first, asked = _resolve(inputs, answers)
    again, _ = _resolve(inputs, answers)
    assert first == again
    *questions, last = first.events
    assert len(questions) == asked and all(isinstance(event, ApprovalRequested) for event in questions)
    assert isinstance(last, PermissionGranted if isinstance(first.decision, Allow) else PermissionDenied)
    rejected = any(isinstance(answer, Reject) for answer in answers[:asked]) or asked > len(answers)
    assert not (rejected and isinstance(first.decision, Allow))
