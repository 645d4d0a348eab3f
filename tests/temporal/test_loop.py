"""A model loop on Temporal: the same events, result and usage as the trio runner; tools as activities."""

from __future__ import annotations

import trio

from helikon_fc import LlmAgent, function_tool
from helikon_fc.core import RunCompleted, ToolOutputItem
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

from .harness import on_temporal, trio_events


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _agent() -> LlmAgent[None]:
    model = ScriptedModel([call_tools(call("add", a=1, b=2), call("add", a=3, b=4)), reply("3 and 7")])
    return LlmAgent(name="adder", model=model, tools=[add])


def test_a_tool_loop_runs_as_on_trio(temporal_address: str) -> None:
    agent = _agent()
    outcome = on_temporal(temporal_address, [agent], "adder", "add twice")
    assert outcome.events == trio_events(agent, "add twice")
    assert outcome.result.output == "3 and 7"
    assert isinstance(outcome.result.terminal, RunCompleted)
    assert outcome.result.usage.input_tokens == 20
    outputs = [e.item.output for e in outcome.events if isinstance(e, ToolOutputItem)]
    assert outputs == ["3", "7"]


def test_the_run_config_bounds_turns(temporal_address: str) -> None:
    agent = _agent()
    config = RunConfig(max_turns=1)
    outcome = on_temporal(temporal_address, [agent], "adder", "add twice", config=config)
    assert outcome.events == trio_events(agent, "add twice", config)
    assert outcome.events[-1] == trio_events(agent, "add twice", config)[-1]


ACTIVE = [0, 0]
"""Tool calls running now, and the most at once (the worker's tools run in this process)."""


@function_tool
async def busy(n: int) -> str:
    """Stay busy a moment."""
    ACTIVE[0] += 1
    ACTIVE[1] = max(ACTIVE)
    await trio.sleep(0.3)
    ACTIVE[0] -= 1
    return f"busy {n}"


def _most_at_once(address: str, limit: int | None) -> int:
    ACTIVE[:] = [0, 0]
    model = ScriptedModel([call_tools(*(call("busy", n=n) for n in range(4))), reply("done")])
    agent = LlmAgent[None](name="busy", model=model, tools=[busy])
    config = RunConfig(parallel_tool_call_limit=limit)
    outcome = on_temporal(address, [agent], "busy", "go", config=config)
    assert outcome.result.output == "done"
    return ACTIVE[1]


def test_a_turns_tool_activities_run_at_once_up_to_the_limit(temporal_address: str) -> None:
    assert _most_at_once(temporal_address, None) == 4
    assert _most_at_once(temporal_address, 2) == 2
