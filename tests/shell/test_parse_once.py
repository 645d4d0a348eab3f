"""Issue 14's hot path: a call's argument text is parsed once (the tool receives what `transition` parsed); a
collected run is drained without a guard around a send that cannot fail."""

from __future__ import annotations

from typing import Any

import pytest

from helikon_fc import AgentInput, LlmAgent, RunContext, RunResultStreaming, ToolContext, ToolOutput
from helikon_fc.core import JsonObject
from helikon_fc.shell.tools import tool_exec
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


async def test_collect_gives_the_same_events_with_and_without_a_guarded_send() -> None:
    """Without `on_event` the run is drained unguarded (its send only keeps events): the same events either way."""
    runs = []
    for on_event in (None, lambda event: None):
        model = ScriptedModel([call_tools(call("record", x=1), call("record", x=2)), reply("done")])
        agent = LlmAgent(name="a", model=model, tools=[Recorder()])
        stream = RunResultStreaming(agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("go")))
        runs.append((await stream.collect(on_event=on_event)).events)
    unguarded, guarded = runs
    assert [type(event).__name__ for event in unguarded] == [type(event).__name__ for event in guarded]
    assert type(unguarded[-1]).__name__ == "RunCompleted" and len(unguarded) > 6
