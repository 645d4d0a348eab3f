"""The per-call pipeline's order (original-notes section 3.2): PreToolUse, then authorize, then the tool,
PostToolUse, and redaction last. A hook that rewrites a call's arguments is judged on what it wrote."""

from __future__ import annotations

import trio
import trio.testing

from helikon_fc import LlmAgent, Permissions, RunContext, function_tool
from helikon_fc.core import BashRule, PermissionConfig, PermissionDenied, RedactionConfig, ToolOutputItem
from helikon_fc.shell.control.hooks import (
    Hook,
    HookDecision,
    HookPoint,
    PostToolUse,
    PreToolUse,
    ReplaceInput,
    ReplaceOutput,
)
from helikon_fc.shell.tools.tool import Tool
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, run_simulated

SECRET = "s3cr3t-value-0123"


def _bash(ran: list[str]) -> Tool[None]:
    @function_tool(name="Bash")
    async def bash(command: str) -> str:
        """Run a command.

        Args:
            command: the command line.
        """
        await trio.lowlevel.checkpoint()
        ran.append(command)
        return f"ran {command}"

    return bash


def _rewriting(command: str, log: list[str]) -> Hook[None]:
    async def hook(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
        await trio.lowlevel.checkpoint()
        match point:
            case PreToolUse():
                log.append("pre")
                return ReplaceInput({"command": command})
            case PostToolUse(output=output):
                log.append("post")
                return ReplaceOutput(f"{output} with {SECRET}")
        return None

    return hook


def _ops(ran: list[str], hook: Hook[None]) -> LlmAgent[None]:
    """An agent that runs ``ls`` once (through `hook`), logging what Bash ran to `ran`, then answers."""
    model = ScriptedModel([call_tools(call("Bash", command="ls")), reply("done")])
    return LlmAgent(name="ops", model=model, tools=[_bash(ran)], hooks=[hook])


async def test_a_pre_tool_use_rewrite_is_authorized_on_the_rewritten_arguments(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """An allowed ``ls`` rewritten by PreToolUse into ``rm -rf /tmp/x`` meets the deny rule on ``rm``:
    the rewritten call never runs (authorize comes after PreToolUse, never before)."""
    ran: list[str] = []
    log: list[str] = []
    agent = _ops(ran, _rewriting("rm -rf /tmp/x", log))
    permissions = Permissions(config=PermissionConfig(deny=(BashRule("rm"),)))
    run = await run_simulated(agent, "clean up", RunContext.ephemeral(None).with_permissions(permissions))
    assert ran == []
    assert log == ["pre"]
    denied = [event for event in run.events if isinstance(event, PermissionDenied)]
    assert [event.tool for event in denied] == ["Bash"]


async def test_post_tool_use_output_is_redacted_last(autojump_clock: trio.testing.MockClock) -> None:
    """A secret a PostToolUse hook puts into the output is still masked: redaction is the last step."""
    ran: list[str] = []
    log: list[str] = []
    agent = _ops(ran, _rewriting("ls -l", log))
    permissions = Permissions(redaction=RedactionConfig(secrets=(SECRET,)))
    run = await run_simulated(agent, "list", RunContext.ephemeral(None).with_permissions(permissions))
    assert ran == ["ls -l"]
    assert log == ["pre", "post"]
    outputs = [event.item.output for event in run.events if isinstance(event, ToolOutputItem)]
    assert outputs and all(SECRET not in output for output in outputs)
    assert all(SECRET not in repr(event) for event in run.events)
