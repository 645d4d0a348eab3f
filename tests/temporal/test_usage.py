"""What model calls cost counts wherever they are made: inside a tool's activity, inside a child that fails."""

from __future__ import annotations

from helikon_fc import LlmAgent, function_tool
from helikon_fc.core import MessageOutput, RunCompleted, UserMessage
from helikon_fc.shell.input import AgentInput
from helikon_fc.shell.tool import ToolContext
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate

from .harness import on_temporal

helper = LlmAgent[None](name="helper", model=ScriptedModel([reply("helped")] * 4))


@function_tool
async def consult(ctx: ToolContext[None], question: str) -> str:
    """Ask the helper agent, in this tool's own run context."""
    text = ""
    async with helper.run(ctx.run.isolated_child(), AgentInput((UserMessage(question),))) as events:
        async for event in events:
            if isinstance(event, MessageOutput):
                text = event.item.text
    return text


def _boss() -> LlmAgent[None]:
    model = ScriptedModel([call_tools(call("consult", question="q")), reply("done")])
    return LlmAgent(name="boss", model=model, tools=[consult])


def test_a_model_called_inside_a_tool_counts_in_the_run_as_on_trio(temporal_address: str) -> None:
    outcome = on_temporal(temporal_address, [_boss()], "boss", "go")
    expected = simulate(_boss(), "go").events[-1]
    terminal = outcome.result.terminal
    assert isinstance(terminal, RunCompleted) and isinstance(expected, RunCompleted)
    assert terminal == expected
    assert [entry.agent for entry in terminal.usage_by_agent] == ["boss", "helper"]
    assert terminal.usage.requests == 3
