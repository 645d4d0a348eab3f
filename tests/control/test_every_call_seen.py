"""Every tool call goes through `PreToolUse` and authorize before its unknown-tool or bad-argument answer.

original-notes section 3.2 orders the per-call pipeline "PreToolUse hook -> authorize -> unknown-tool check ->
invoke" ("Unknown tools still go through authorize first, so under Plan/DontAsk they report permission denied";
invalid arguments surface at invoke, after the hook). The pure transition used to answer such calls itself, so
hooks and permissions never saw them; now it hands every call to the driver with its problem attached
(`ExecuteTools.problems`), and the driver answers the problem where it would invoke the tool. Without hooks or
permissions a run's events are what they were.
"""

from __future__ import annotations

import json

import attrs
import trio
import trio.testing
from tests.control.control_fakes import logging_hook

from helikon_fc import AgentInput, LlmAgent, Permissions, RunContext, Runner, RunResultStreaming, function_tool
from helikon_fc.core import (
    AgentEvent,
    JsonObject,
    MessageOutput,
    PermissionConfig,
    PermissionDenied,
    PermissionGranted,
    PermissionMode,
    RunCompleted,
    RunStarted,
    ToolCallItem,
    ToolOutputItem,
    ToolRule,
    TurnStarted,
)
from helikon_fc.shell.control.hooks import Deny, HookPoint, PreToolUse, ReplaceInput
from helikon_fc.shell.control.permissions import ApprovalRequest, Approve
from helikon_fc.shell.tools.tool import ToolContext, ToolOutput
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, run_simulated

LOOKUPS: list[int] = []


@function_tool
async def lookup(month: int) -> str:
    """Spending of a month.

    Args:
        month: the month, 1 to 12.
    """
    await trio.lowlevel.checkpoint()
    LOOKUPS.append(month)
    return f"month {month}: $688"


UNKNOWN = "unknown tool: 'teleport' (available tools: lookup)"
OFF_SCHEMA = "invalid arguments for tool 'lookup': $.month: expected integer, got string"


def _outputs(events: object) -> list[str]:
    assert isinstance(events, tuple)
    return [event.item.output for event in events if isinstance(event, ToolOutputItem)]


def _agent(*calls: object, hooks: list[object] | None = None) -> LlmAgent[None]:
    model = ScriptedModel([call_tools(*calls), reply("ok")])  # type: ignore[arg-type]
    return LlmAgent(name="a", model=model, tools=[lookup], hooks=hooks or [])  # type: ignore[arg-type]


def _plan() -> RunContext[None]:
    return RunContext.ephemeral(None).with_permissions(Permissions(config=PermissionConfig(mode=PermissionMode.PLAN)))


async def test_an_unknown_tool_under_plan_is_a_permission_denial(autojump_clock: trio.testing.MockClock) -> None:
    """Section 3.2: an unknown tool is authorized first (as a side effect), so PLAN denies it."""
    run = await run_simulated(_agent(call("teleport")), "go", _plan())
    assert [event.tool for event in run.events if isinstance(event, PermissionDenied)] == ["teleport"]
    assert _outputs(run.events)[0].startswith("permission denied")


async def test_pre_tool_use_sees_a_call_to_an_unknown_tool(autojump_clock: trio.testing.MockClock) -> None:
    """Section 3.2: PreToolUse comes before the unknown-tool check."""
    log: list[str] = []
    run = await run_simulated(_agent(call("teleport"), hooks=[logging_hook(log, "h")]), "go")
    assert "h:pre:teleport" in log
    assert _outputs(run.events) == [UNKNOWN]


async def test_pre_tool_use_can_repair_invalid_arguments(autojump_clock: trio.testing.MockClock) -> None:
    """Section 3.2: invalid arguments fail at invoke, after PreToolUse, so a ReplaceInput can repair them."""

    def repair(point: HookPoint) -> ReplaceInput | None:
        return ReplaceInput({"month": 11}) if isinstance(point, PreToolUse) else None

    run = await run_simulated(_agent(call("lookup", month="November"), hooks=[logging_hook([], "h", repair)]), "go")
    assert _outputs(run.events) == ["month 11: $688"]


async def test_a_replacement_that_is_still_invalid_is_answered_with_its_own_problem(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The hook's arguments are checked afresh: their problem is the answer, and the tool never runs."""

    def worsen(point: HookPoint) -> ReplaceInput | None:
        return ReplaceInput({"month": 3, "year": 2026}) if isinstance(point, PreToolUse) else None

    LOOKUPS.clear()
    run = await run_simulated(_agent(call("lookup", month="March"), hooks=[logging_hook([], "h", worsen)]), "go")
    assert _outputs(run.events) == ["invalid arguments for tool 'lookup': $.year: unexpected field"]
    assert LOOKUPS == []


async def test_an_unknown_tool_stays_unknown_whatever_a_hook_replaces(autojump_clock: trio.testing.MockClock) -> None:
    """Replaced arguments do not make a tool exist: the answer is the transition's unknown-tool text."""

    def replace(point: HookPoint) -> ReplaceInput | None:
        return ReplaceInput({"to": "moon"}) if isinstance(point, PreToolUse) else None

    run = await run_simulated(_agent(call("teleport"), hooks=[logging_hook([], "h", replace)]), "go")
    assert _outputs(run.events) == [UNKNOWN]


async def test_a_pre_tool_use_deny_wins_over_unknown_tool(autojump_clock: trio.testing.MockClock) -> None:
    """The hook comes first, so its refusal is the answer, not the unknown-tool text."""

    def deny(point: HookPoint) -> Deny | None:
        return Deny("no teleporting") if isinstance(point, PreToolUse) else None

    run = await run_simulated(_agent(call("teleport"), hooks=[logging_hook([], "h", deny)]), "go")
    assert _outputs(run.events) == ["blocked by PreToolUse hook: no teleporting"]


async def test_a_deny_rule_wins_over_invalid_arguments(autojump_clock: trio.testing.MockClock) -> None:
    """Authorize comes before the argument check: a deny rule refuses the call (with its event) first."""
    config = PermissionConfig(deny=(ToolRule("lookup"),))
    ctx = RunContext.ephemeral(None).with_permissions(Permissions(config=config))
    run = await run_simulated(_agent(call("lookup", month="May")), "go", ctx)
    assert _outputs(run.events) == ["permission denied: denied by deny rule: lookup"]
    assert [event.tool for event in run.events if isinstance(event, PermissionDenied)] == ["lookup"]


async def test_an_allowed_call_that_cannot_run_is_granted_then_answered_with_its_problem(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """With permissions, every call's decision is an event, a call that cannot run included."""
    ctx = RunContext.ephemeral(None).with_permissions(Permissions())
    run = await run_simulated(_agent(call("teleport"), call("lookup", month="May")), "go", ctx)
    assert [event.call_id for event in run.events if isinstance(event, PermissionGranted)] == ["call_0_0", "call_0_1"]
    assert _outputs(run.events) == [UNKNOWN, OFF_SCHEMA]


@attrs.define
class TrustingBash:
    """A hand-written tool that trusts the driver to have checked its arguments: it runs whatever it is given."""

    ran: list[JsonObject] = attrs.field(factory=list)
    name: str = "Bash"
    description: str = "Run a command."

    @property
    def parameters(self) -> JsonObject:
        properties: JsonObject = {"command": {"type": "string"}, "timeout": {"type": "integer"}}
        return {"type": "object", "properties": properties, "required": ["command", "timeout"]}

    async def invoke(self, ctx: ToolContext[None], arguments: JsonObject) -> ToolOutput:
        await trio.lowlevel.checkpoint()
        self.ran.append(arguments)
        return ToolOutput(f"ran {arguments.get('command')}")


async def test_an_approved_call_with_invalid_arguments_is_answered_with_its_problem_and_never_runs(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A guard asks about a call whose arguments are off the schema; the approver says yes: the call is answered
    with its problem after the approval, and the tool never receives the bad arguments."""
    asked: list[str] = []

    async def approver(request: ApprovalRequest) -> Approve:
        await trio.lowlevel.checkpoint()
        asked.append(str(request.guard))
        return Approve()

    tool = TrustingBash()
    model = ScriptedModel([call_tools(call("Bash", command="rm -rf /", timeout="soon")), reply("ok")])
    agent = LlmAgent(name="ops", model=model, tools=[tool])
    ctx = RunContext.ephemeral(None).with_permissions(Permissions(approval_handler=approver))
    run = await run_simulated(agent, "go", ctx)
    assert asked == ["rm-root"]
    assert _outputs(run.events) == ["invalid arguments for tool 'Bash': $.timeout: expected integer, got string"]
    assert tool.ran == []


async def test_a_paused_call_with_invalid_arguments_is_answered_with_its_problem_once_approved(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The same across a pause and a resume: the resumed run checks the waiting call again before it would run."""
    tool = TrustingBash()
    model = ScriptedModel([call_tools(call("Bash", command="rm -rf /", timeout="soon").with_id("c")), reply("ok")])
    agent = LlmAgent(name="ops", model=model, tools=[tool])
    ctx = RunContext.ephemeral(None).with_permissions(Permissions())
    async with MemoryStore() as store:
        runner = Runner(store=store)
        paused = await RunResultStreaming(runner.run(agent, ctx, AgentInput.from_user_text("go"), run_id="r")).collect()
        assert paused.paused and [request.call_id for request in paused.pending] == ["c"]
        resumed = await RunResultStreaming(runner.resume("r", agent, ctx, approvals={"c": Approve()})).collect()
    assert _outputs(resumed.events) == ["invalid arguments for tool 'Bash': $.timeout: expected integer, got string"]
    assert tool.ran == []


def _kinds(events: tuple[AgentEvent, ...]) -> list[str]:
    """The events a user reads, deltas left out; a tool output by its text."""
    shown: list[str] = []
    for event in events:
        if isinstance(event, ToolOutputItem):
            shown.append(f"output:{event.item.output}")
        elif isinstance(event, RunStarted | TurnStarted | ToolCallItem | MessageOutput | RunCompleted):
            shown.append(type(event).__name__)
    return shown


async def test_without_hooks_or_permissions_a_run_shows_the_same_events_as_before(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The answers and the order of events are those of the transition's own rejection, which this replaced
    (checked against the previous version): a round of only invalid calls, then a mixed one."""
    model = ScriptedModel(
        [
            call_tools(call("teleport"), call("lookup", month="May")),
            call_tools(call("lookup", month=5), call("teleport", to="moon")),
            reply("done"),
        ]
    )
    run = await run_simulated(LlmAgent(name="a", model=model, tools=[lookup]), "go")
    assert _kinds(run.events) == [
        "RunStarted",
        "TurnStarted",
        "ToolCallItem",
        "ToolCallItem",
        f"output:{UNKNOWN}",
        f"output:{OFF_SCHEMA}",
        "TurnStarted",
        "ToolCallItem",
        "ToolCallItem",
        "output:month 5: $688",
        f"output:{UNKNOWN}",
        "TurnStarted",
        "MessageOutput",
        "RunCompleted",
    ]
    calls = [json.loads(event.item.arguments) for event in run.events if isinstance(event, ToolCallItem)]
    assert calls == [{}, {"month": "May"}, {"month": 5}, {"to": "moon"}]
