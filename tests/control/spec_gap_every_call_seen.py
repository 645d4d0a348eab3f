"""Spec gap, left failing on purpose (not collected by default; run it by path): the pure transition answers
calls to unknown tools and calls with invalid arguments itself (`core/transition.py` `_reject_invalid`), so
PreToolUse hooks and authorize never see them. original-notes section 3.2 orders the pipeline "PreToolUse hook
-> authorize -> unknown-tool check -> invoke" ("Unknown tools still go through authorize first, so under
Plan/DontAsk they report permission denied"; invalid arguments surface at invoke, after the hook), and
docs/control.md ("An unknown tool is authorized first too ... under PLAN it reads 'permission denied'") says
the same. ``pytest tests/control/spec_gap_every_call_seen.py`` fails today on all three tests.
"""

from __future__ import annotations

import trio
import trio.testing
from tests.control.control_fakes import logging_hook

from helikon_fc import LlmAgent, Permissions, RunContext, function_tool
from helikon_fc.core import PermissionConfig, PermissionDenied, PermissionMode, ToolOutputItem
from helikon_fc.shell.hooks import HookPoint, PreToolUse, ReplaceInput
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, run_simulated


@function_tool
async def lookup(month: int) -> str:
    """Spending of a month.

    Args:
        month: the month, 1 to 12.
    """
    await trio.lowlevel.checkpoint()
    return f"month {month}: $688"


def _outputs(events: object) -> list[str]:
    assert isinstance(events, tuple)
    return [event.item.output for event in events if isinstance(event, ToolOutputItem)]


async def test_an_unknown_tool_under_plan_is_a_permission_denial(autojump_clock: trio.testing.MockClock) -> None:
    """Section 3.2: an unknown tool is authorized first (as a side effect), so PLAN denies it."""
    agent = LlmAgent(name="a", model=ScriptedModel([call_tools(call("teleport")), reply("ok")]), tools=[lookup])
    permissions = Permissions(config=PermissionConfig(mode=PermissionMode.PLAN))
    run = await run_simulated(agent, "go", RunContext.ephemeral(None).with_permissions(permissions))
    assert [event.tool for event in run.events if isinstance(event, PermissionDenied)] == ["teleport"]
    assert _outputs(run.events)[0].startswith("permission denied")


async def test_pre_tool_use_sees_a_call_to_an_unknown_tool(autojump_clock: trio.testing.MockClock) -> None:
    """Section 3.2: PreToolUse comes before the unknown-tool check."""
    log: list[str] = []
    agent = LlmAgent(
        name="a",
        model=ScriptedModel([call_tools(call("teleport")), reply("ok")]),
        tools=[lookup],
        hooks=[logging_hook(log, "h")],
    )
    await run_simulated(agent, "go")
    assert "h:pre:teleport" in log


async def test_pre_tool_use_can_repair_invalid_arguments(autojump_clock: trio.testing.MockClock) -> None:
    """Section 3.2: invalid arguments fail at invoke, after PreToolUse, so a ReplaceInput can repair them."""

    def repair(point: HookPoint) -> ReplaceInput | None:
        return ReplaceInput({"month": 11}) if isinstance(point, PreToolUse) else None

    agent = LlmAgent(
        name="a",
        model=ScriptedModel([call_tools(call("lookup", month="November")), reply("ok")]),
        tools=[lookup],
        hooks=[logging_hook([], "h", repair)],
    )
    run = await run_simulated(agent, "go")
    assert _outputs(run.events) == ["month 11: $688"]
