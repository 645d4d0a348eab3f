"""Laws of permissions in real runs: a denied call never executes, `PLAN` runs nothing but read-only tools,
the same inputs give the same decisions, and no configured secret reaches any event.

Each example is a whole simulated run: a fuzzed permission configuration, fuzzed tool calls of tools
with fuzzed effects, the run's events and the calls its tools actually made.
"""

from __future__ import annotations

import json
import string

import attrs
from hypothesis import given, strategies as st
from properties.permission_strategies import TOOLS, arguments_texts, permission_configs, tool_effects
from tests.control.scenario import LoggingTool

from helikon_fc import AgentAsTool, LlmAgent, RunContext
from helikon_fc.core import (
    AgentEvent,
    Allow,
    ApprovalRequested,
    Ask,
    ConsultPolicy,
    Deny,
    JsonObject,
    ModelRequest,
    PermissionConfig,
    PermissionDenied,
    PermissionGranted,
    PermissionMode,
    RedactionConfig,
    ToolCall,
    ToolEffect,
    ToolInfo,
    ToolResult,
    decide,
    to_json,
)
from helikon_fc.core.redaction import is_secret_value
from helikon_fc.shell.control.permissions import Permissions
from helikon_fc.shell.tools.tool import ToolContext, ToolOutput
from helikon_fc.testing import FunctionModel, ScriptedModel, call, call_tools, reply, simulate
from helikon_fc.testing.script import ScriptedTurn


@attrs.frozen
class _Spy:
    """A tool that accepts any object and remembers each call it made (in a shared list)."""

    name: str
    effect: ToolEffect
    made: list[tuple[str, str]]
    description: str = "a tool"

    @property
    def parameters(self) -> JsonObject:
        return {"type": "object"}

    async def invoke(self, ctx: ToolContext[None], arguments: JsonObject) -> ToolOutput:
        self.made.append((ctx.call_id, json.dumps(arguments, sort_keys=True)))
        return ToolOutput("ok")


@st.composite
def rounds(draw: st.DrawFn) -> tuple[tuple[ToolCall, ...], dict[str, ToolEffect]]:
    """One to four calls (distinct ids) of the vocabulary's tools, and an effect for each tool."""
    names = draw(st.lists(st.sampled_from(TOOLS), min_size=1, max_size=4))
    calls = tuple(ToolCall(f"c{index}", name, draw(arguments_texts())) for index, name in enumerate(names))
    effects = {name: draw(tool_effects()) for name in TOOLS}
    return calls, effects


def _run(
    config: PermissionConfig, calls: tuple[ToolCall, ...], effects: dict[str, ToolEffect]
) -> tuple[tuple[AgentEvent, ...], list[tuple[str, str]]]:
    """Run one round of `calls` under `config`: the run's events and the calls the tools made."""
    made: list[tuple[str, str]] = []
    tools = [_Spy(name, effects[name], made) for name in TOOLS]
    turn = call_tools(*(call(c.name).with_raw_arguments(c.arguments).with_id(c.call_id) for c in calls))
    agent = LlmAgent(name="fuzzed", model=ScriptedModel([turn, reply("done")]), tools=tools)
    ctx = RunContext.ephemeral(None).with_permissions(Permissions(config=config))
    return simulate(agent, "go", ctx).events, made


def _decisions(events: tuple[AgentEvent, ...]) -> list[AgentEvent]:
    return [event for event in events if isinstance(event, PermissionGranted | PermissionDenied | ApprovalRequested)]


@given(permission_configs(), rounds())
def test_no_denied_call_executes_and_each_call_meets_its_pure_decision(
    config: PermissionConfig, round_: tuple[tuple[ToolCall, ...], dict[str, ToolEffect]]
) -> None:
    """A call runs only if `decide` allows it (with its replaced arguments, if any); a denied, asked or
    policy-deferred call (no policy installed: refused) never runs, and every run call has its PermissionGranted."""
    calls, effects = round_
    events, made = _run(config, calls, effects)
    ran = dict(made)
    granted = {event.call_id for event in events if isinstance(event, PermissionGranted)}
    denied = {event.call_id for event in events if isinstance(event, PermissionDenied)}
    for c in calls:
        decision = decide(config, c, ToolInfo(c.name, effects[c.name]))
        match decision:
            case Deny() | Ask() | ConsultPolicy():
                assert c.call_id not in ran, (c, decision)
            case Allow(arguments=arguments):
                if c.call_id in ran and arguments is not None:
                    assert ran[c.call_id] == json.dumps(json.loads(arguments), sort_keys=True)
        if c.call_id in ran:
            assert c.call_id in granted and c.call_id not in denied


@given(permission_configs(), rounds())
def test_plan_mode_never_runs_a_tool_that_is_not_read_only(
    config: PermissionConfig, round_: tuple[tuple[ToolCall, ...], dict[str, ToolEffect]]
) -> None:
    """Under `PLAN`, every call a tool made belongs to a read-only tool, whatever the rules and policy say."""
    calls, effects = round_
    _, made = _run(attrs.evolve(config, mode=PermissionMode.PLAN), calls, effects)
    names = {c.call_id: c.name for c in calls}
    assert all(effects[names[call_id]] is ToolEffect.READ_ONLY for call_id, _ in made)


@given(permission_configs(), rounds())
def test_the_same_inputs_give_the_same_decisions(
    config: PermissionConfig, round_: tuple[tuple[ToolCall, ...], dict[str, ToolEffect]]
) -> None:
    """Two runs of the same configuration and calls emit the same decision events and make the same calls."""
    calls, effects = round_
    first, made_first = _run(config, calls, effects)
    second, made_second = _run(config, calls, effects)
    assert _decisions(first) == _decisions(second)
    assert sorted(made_first) == sorted(made_second)


# A secret mixes letters and digits, so it cannot also be a word of the wire format itself (a secret "complete"
# is found in `"type":"run_completed"` whether or not it leaked).
SECRETS = (
    st.text(string.ascii_letters + string.digits + "-_/+", min_size=8, max_size=20)
    .filter(is_secret_value)
    .filter(lambda text: any(c.isdigit() for c in text) and any(c.isalpha() for c in text))
)
SHAPES = (
    "{secret}",
    "token: {secret}",
    "DB_PASSWORD={secret}",
    '{{"key": "{secret}", "n": 1}}',
    "x{secret}{secret}y",
    "export SERVICE_API_KEY={secret}\nnext line",
)


def _echo(request: ModelRequest) -> ScriptedTurn:
    """Calls the leaky tool once, then repeats every tool result it read (so a leak would show in its answer)."""
    results = [item.output for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(call("leak"))
    return reply(" / ".join(results))


@given(SECRETS, st.lists(st.sampled_from(SHAPES), min_size=1, max_size=3), st.booleans())
def test_no_configured_secret_appears_in_any_event(secret: str, shapes: list[str], nested: bool) -> None:
    """A tool that prints a configured secret in any shape (inside an agent-as-tool sub-run or not): the secret is
    in no event of the run, written as JSON, and not in the model's answer built from the tool's output."""
    output = "\n".join(shape.format(secret=secret) for shape in shapes)
    leaky = LlmAgent(name="leaky", model=FunctionModel(_echo), tools=[LoggingTool("leak", output=output)])
    agent = leaky
    if nested:
        asks = ScriptedModel([call_tools(call("leaky", input="go")), reply("asked")])
        agent = LlmAgent(name="outer", model=asks, tools=[AgentAsTool(leaky)])
    permissions = Permissions(
        config=PermissionConfig(mode=PermissionMode.BYPASS), redaction=RedactionConfig(secrets=(secret,))
    )
    run = simulate(agent, "go", RunContext.ephemeral(None).with_permissions(permissions))
    assert run.result is not None and not run.result.paused
    for event in run.events:
        assert secret not in to_json(event), event
