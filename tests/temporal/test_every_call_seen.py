"""Every tool call goes through `PreToolUse` and authorize before its unknown-tool or bad-argument answer, on
Temporal as on trio (original-notes section 3.2).

Each scenario runs on Temporal and on the trio runner with the same agent: the events (deltas aside) and the
hooks' firing order must be equal. Without hooks or permissions a call that cannot run is answered in the
workflow, with no activity, as before; with them it goes through the tool activity's pipeline.
"""

from __future__ import annotations

from collections.abc import Callable

from temporalio.api.enums.v1 import EventType
from tests.control.control_fakes import logging_hook, lookup_tool

from helikon_fc import LlmAgent, RunContext
from helikon_fc.core import (
    AgentEvent,
    PermissionConfig,
    PermissionDenied,
    PermissionMode,
    ToolOutputItem,
)
from helikon_fc.shell.control.hooks import HookPoint, PreToolUse, ReplaceInput
from helikon_fc.shell.control.permissions import Permissions
from helikon_fc.temporal._payloads import CALL_TOOL
from helikon_fc.testing import simulate

from .harness import Outcome, on_temporal, without_deltas
from .record_history import scenario_model

UNKNOWN = "unknown tool: 'teleport' (available tools: lookup)"
OFF_SCHEMA = "invalid arguments for tool 'lookup': $.key: expected string, got integer"


Build = Callable[[list[str], list[str]], LlmAgent[None]]


def _both(
    address: str, build: Build, permissions: PermissionConfig | None = None
) -> tuple[Outcome, list[str], list[str]]:
    """Run `build`'s agent on Temporal and on trio; check the events and hook logs agree (the calls of one round
    run at once, so their hooks may fire in either order); the Temporal outcome, hook log and tool calls."""
    log: list[str] = []
    calls: list[str] = []
    agent = build(log, calls)
    outcome = on_temporal(address, [agent], agent.name, "hi", run_permissions=permissions)
    trio_log: list[str] = []
    trio_calls: list[str] = []
    ctx = RunContext.ephemeral(None)
    if permissions is not None:
        ctx = ctx.with_permissions(Permissions(config=permissions))
    trio = simulate(build(trio_log, trio_calls), "hi", ctx)
    assert outcome.events == without_deltas(trio.events)
    assert (_by_turn(log), sorted(calls)) == (_by_turn(trio_log), sorted(trio_calls))
    return outcome, log, calls


def _by_turn(log: list[str]) -> list[list[str]]:
    """The hook log cut at each turn start, each piece sorted."""
    pieces: list[list[str]] = [[]]
    for entry in log:
        if ":turn_start:" in entry:
            pieces.append([])
        pieces[-1].append(entry)
    return [sorted(piece) for piece in pieces]


def _outputs(events: tuple[AgentEvent, ...]) -> list[str]:
    return [event.item.output for event in events if isinstance(event, ToolOutputItem)]


def _tool_activities(outcome: Outcome) -> int:
    """How many ``helikon.call_tool`` activities the run scheduled."""
    return sum(
        1
        for event in outcome.histories[0].events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == CALL_TOOL
    )


def test_without_hooks_or_permissions_a_call_that_cannot_run_needs_no_activity(temporal_address: str) -> None:
    """The answers are the problems, and only the one valid call is an activity (histories as before)."""
    outcome, _, calls = _both(
        temporal_address, lambda log, calls: LlmAgent(name="a", model=scenario_model(), tools=[lookup_tool(calls)])
    )
    assert _outputs(outcome.events) == [UNKNOWN, OFF_SCHEMA, "value of k", UNKNOWN]
    assert calls == ["k"] and _tool_activities(outcome) == 1


def test_pre_tool_use_sees_every_call_and_can_repair_bad_arguments(temporal_address: str) -> None:
    """The hook fires for the unknown tool too; its replacement of bad arguments is checked and runs."""

    def repair(point: HookPoint) -> ReplaceInput | None:
        if isinstance(point, PreToolUse) and point.arguments.get("key") == 7:
            return ReplaceInput({"key": "seven"})
        return None

    def build(log: list[str], calls: list[str]) -> LlmAgent[None]:
        hook = logging_hook(log, "h", repair)
        return LlmAgent(name="a", model=scenario_model(), tools=[lookup_tool(calls)], hooks=[hook])

    outcome, log, calls = _both(temporal_address, build)
    assert _outputs(outcome.events) == [UNKNOWN, "value of seven", "value of k", UNKNOWN]
    assert sorted(calls) == ["k", "seven"]
    assert _by_turn(log)[1] == ["h:post:lookup", "h:pre:lookup", "h:pre:teleport", "h:turn_start:0"]
    assert _tool_activities(outcome) == 4


def test_under_plan_an_unknown_tool_is_a_permission_denial(temporal_address: str) -> None:
    """Authorize comes before the unknown-tool check: PLAN refuses it as a side effect, with its event."""
    plan = PermissionConfig(mode=PermissionMode.PLAN)
    outcome, _, calls = _both(
        temporal_address,
        lambda log, calls: LlmAgent(name="a", model=scenario_model(), tools=[lookup_tool(calls)]),
        plan,
    )
    denied = [event.tool for event in outcome.events if isinstance(event, PermissionDenied)]
    assert denied == ["teleport", "lookup", "lookup", "teleport"]
    assert calls == []
