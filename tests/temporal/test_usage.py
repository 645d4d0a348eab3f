"""What model calls cost counts wherever they are made: inside a tool's activity, inside a child that fails."""

from __future__ import annotations

from helikon_fc import LlmAgent, function_tool
from helikon_fc.core import MessageOutput, ModelFailureKind, RunCompleted, UserMessage
from helikon_fc.models import FallbackModel
from helikon_fc.shell.input import AgentInput
from helikon_fc.shell.tools.tool import ToolContext
from helikon_fc.testing import ScriptedModel, call, call_tools, fail, reply, simulate

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
    assert [(share.agent, share.model) for share in terminal.usage_by_model] == [
        ("boss", "scripted"),
        ("helper", "scripted"),
    ]


def _fallback() -> LlmAgent[None]:
    primary = ScriptedModel([fail(ModelFailureKind.UNAVAILABLE)], name="primary")
    return LlmAgent(name="solo", model=FallbackModel(primary, ScriptedModel([reply("hi")], name="backup")))


def test_a_fallback_answer_counts_under_the_answering_model_as_on_trio(temporal_address: str) -> None:
    """The primary fails, the backup answers: both runtimes count the call under ``backup``."""
    outcome = on_temporal(temporal_address, [_fallback()], "solo", "go")
    expected = simulate(_fallback(), "go").events[-1]
    terminal = outcome.result.terminal
    assert isinstance(terminal, RunCompleted) and isinstance(expected, RunCompleted)
    assert terminal.usage_by_model == expected.usage_by_model
    assert [(share.agent, share.model) for share in terminal.usage_by_model] == [("solo", "backup")]
