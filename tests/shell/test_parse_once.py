"""A tool call's argument text is parsed once per call: the tool receives what `transition` parsed (issue 14)."""

from __future__ import annotations

from typing import Any

import pytest

from helikon_fc import AgentInput, LlmAgent, RunContext, RunResultStreaming, ToolContext, ToolOutput
from helikon_fc.core import JsonObject
from helikon_fc.shell import tool_exec
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

PARAMETERS: JsonObject = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}


class Recorder:
    """Records the argument objects it is invoked with."""

    name = "record"
    description = "Records its arguments."
    parameters = PARAMETERS

    def __init__(self) -> None:
        self.seen: list[JsonObject] = []

    async def invoke(self, ctx: ToolContext[Any], arguments: JsonObject) -> ToolOutput:
        self.seen.append(arguments)
        return ToolOutput(arguments["x"])


def _refuse_to_parse(text: str) -> JsonObject:
    raise AssertionError(f"the shell parsed {text!r} again")


@pytest.mark.parametrize("calls", [1, 3])
async def test_the_tools_get_the_arguments_transition_parsed(monkeypatch: pytest.MonkeyPatch, calls: int) -> None:
    """With the shell's parser broken, every call of a one-call and of a three-call round still gets its arguments."""
    monkeypatch.setattr(tool_exec, "parse_arguments", _refuse_to_parse)
    recorder = Recorder()
    model = ScriptedModel([call_tools(*(call("record", x=k) for k in range(calls))), reply("done")])
    agent = LlmAgent(name="a", model=model, tools=[recorder])
    result = await RunResultStreaming(agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("go"))).collect()
    assert result.final_output == "done"
    assert sorted(recorder.seen, key=lambda seen: str(seen["x"])) == [{"x": k} for k in range(calls)]  # any order
