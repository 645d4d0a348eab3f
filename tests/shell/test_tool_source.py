"""The tool-source seam: tools listed when each run starts, released when it ends, names unique across owners."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import attrs
import pytest

from helikon_fc import LlmAgent, RunConfig, RunContext, ToolOutputItem, function_tool
from helikon_fc.core import JsonObject, OtherError, RunFailed, TimedOut
from helikon_fc.shell.tools.tool import Tool, ToolContext, ToolOutput
from helikon_fc.shell.tools.tool_source import ToolSourceError
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate


@attrs.frozen
class Named:
    """A tool answering with its own name."""

    name: str
    description: str = "says its name"
    parameters: JsonObject = attrs.field(factory=lambda: {"type": "object"})

    async def invoke(self, ctx: ToolContext[Any], arguments: JsonObject) -> ToolOutput:
        return ToolOutput(self.name)


class Source:
    """A tool source that records when runs open and close it; `names` may change between runs."""

    source_name = "source 'test'"

    def __init__(self, *names: str, broken: bool = False) -> None:
        self.names, self.broken, self.log = list(names), broken, list[str]()

    @asynccontextmanager
    async def run_tools(self) -> AsyncIterator[Sequence[Tool[Any]]]:
        if self.broken:
            raise ToolSourceError("source 'test' cannot list its tools")
        self.log.append("open")
        try:
            yield [Named(name) for name in self.names]
        finally:
            self.log.append("close")


def _agent(source: Source, *names: str, tools: Sequence[Tool[Any]] = ()) -> LlmAgent[None]:
    model = ScriptedModel([*(call_tools(call(name)) for name in names), reply("done")])
    return LlmAgent(name="a", model=model, tools=[*tools, source])


def _outputs(events: Sequence[object]) -> list[str]:
    return [event.item.output for event in events if isinstance(event, ToolOutputItem)]


def test_each_run_lists_the_sources_tools_and_releases_them_when_it_ends() -> None:
    """A source's tools are called like any tool; each run opens the source once and closes it at its end."""
    source = Source("one")
    agent = _agent(source, "one")
    first = simulate(agent, "go")
    source.names.append("two")
    second = simulate(_agent(source, "one", "two"), "go")
    assert _outputs(first.events) == ["one"] and _outputs(second.events) == ["one", "two"]
    assert source.log == ["open", "close", "open", "close"]


def test_a_name_offered_twice_fails_the_run_naming_both_owners() -> None:
    """A source's tool named like a function tool is refused before any model call; the source is released."""

    @function_tool
    def one() -> str:
        """A function tool."""
        return "function"

    source = Source("one")
    run = simulate(_agent(source, "one", tools=[one]), "go")
    assert isinstance(run.events[-1], RunFailed) and isinstance(run.events[-1].error, OtherError)
    assert "tool name 'one' is offered twice, by tool 'one' and by tool 'one' of source 'test'" in str(
        run.events[-1].error
    )
    assert source.log == ["open", "close"] and len(run.events) == 2  # RunStarted, RunFailed: no model turn


def test_a_source_that_cannot_list_fails_the_run_with_its_message() -> None:
    """A `ToolSourceError` becomes the run's failure, as data, before any model call."""
    run = simulate(_agent(Source(broken=True), "one"), "go")
    assert run.events[-1] == RunFailed(OtherError("source 'test' cannot list its tools"))


def test_a_run_stopped_mid_turn_releases_its_sources() -> None:
    """Stopped by its timeout while the model is slow, the run still closes what it opened."""
    source = Source("one")
    agent = LlmAgent(name="a", model=ScriptedModel([reply("late", latency=10.0)]), tools=[source])
    run = simulate(agent, "go", RunContext.ephemeral(None), RunConfig(timeout=1.0))
    assert isinstance(run.events[-1], RunFailed) and isinstance(run.events[-1].error, TimedOut)
    assert source.log == ["open", "close"]


def test_an_agent_refuses_the_same_source_twice() -> None:
    """Listing one source twice is a definition error, raised when the agent is built."""
    source = Source("one")
    with pytest.raises(ValueError, match="has source 'test' twice in its tools"):
        LlmAgent(name="a", model=ScriptedModel([reply("x")]), tools=[source, source])
