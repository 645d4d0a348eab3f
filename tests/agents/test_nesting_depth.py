"""`max_agent_depth` holds across `AgentAsTool`: no level deeper than the limit ever starts, however it was set."""

from __future__ import annotations

import attrs
import pytest

from helikon_fc import AgentAsTool, LlmAgent, RunConfig, SequentialAgent
from helikon_fc.core import ModelRequest, ToolResult, UserMessage
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply, run_simulated
from helikon_fc.testing.simulation import Simulation


@attrs.define
class Chain:
    """A chain of LlmAgents, level i calling level i+1 through `AgentAsTool`; it records what each level saw."""

    length: int
    configs: dict[int, RunConfig] = attrs.field(factory=dict)
    tool_config: RunConfig | None = None
    started: list[int] = attrs.field(factory=list)
    results: dict[int, ToolResult] = attrs.field(factory=dict)

    def agent(self, level: int = 0) -> LlmAgent[None]:
        """Level `level` and everything below it."""
        tools = []
        if level + 1 < self.length:
            below = AgentAsTool[None](self.agent(level + 1)).with_run_config(self.tool_config)
            tools.append(below)
        model = FunctionModel(lambda request: self.turn(level, request), name=f"model{level}")
        return LlmAgent(name=f"level{level}", model=model, tools=tools, run_config=self.configs.get(level))

    def turn(self, level: int, request: ModelRequest) -> ScriptedTurn:
        last = request.items[-1]
        if isinstance(last, UserMessage):
            self.started.append(level)
            if level + 1 < self.length:
                return call_tools(call(f"level{level + 1}", input="go deeper"))
            return reply(f"bottom at {level}")
        assert isinstance(last, ToolResult)
        self.results[level] = last
        return reply(f"level {level} read: {last.output}")


async def simulated(agent: LlmAgent[None], config: RunConfig | None = None) -> Simulation:
    return await run_simulated(agent, "start", config=config)


async def test_a_runner_limit_caps_every_hop(autojump_clock: object) -> None:
    """Under Runner(RunConfig(max_agent_depth=2)) levels 0..2 run and level 2's model reads the refusal."""
    chain = Chain(6)
    sim = await simulated(chain.agent(), RunConfig(max_agent_depth=2))
    assert sim.error is None
    assert chain.started == [0, 1, 2]
    refusal = chain.results[2]
    assert refusal.is_error
    assert refusal.output == "agent nesting depth (3) exceeded max (2)"
    assert not chain.results[1].is_error and not chain.results[0].is_error


async def test_the_agents_own_run_config_limits_its_agent_as_tool_calls(autojump_clock: object) -> None:
    """agent.with_run_config(max_agent_depth=0): only level 0 runs; its call is a tool error its model reads."""
    chain = Chain(4, configs={0: RunConfig(max_agent_depth=0)})
    sim = await simulated(chain.agent())
    assert sim.error is None
    assert chain.started == [0]
    assert chain.results[0].is_error
    assert chain.results[0].output == "agent nesting depth (1) exceeded max (0)"


async def test_a_sub_agents_own_stricter_limit_applies_below_it(autojump_clock: object) -> None:
    """A sub-agent whose own config allows depth 1 refuses to call deeper, although the root allows 8."""
    chain = Chain(5, configs={1: RunConfig(max_agent_depth=1)})
    sim = await simulated(chain.agent())
    assert sim.error is None
    assert chain.started == [0, 1]
    assert chain.results[1].output == "agent nesting depth (2) exceeded max (1)"


@pytest.mark.parametrize("loose", [RunConfig(max_agent_depth=5), RunConfig()])
async def test_a_sub_runs_config_cannot_loosen_the_limit_above_it(loose: RunConfig, autojump_clock: object) -> None:
    """An `AgentAsTool` run_config with a larger limit does not let levels below 2 start under a limit of 2."""
    chain = Chain(6, tool_config=loose)
    sim = await simulated(chain.agent(), RunConfig(max_agent_depth=2))
    assert sim.error is None
    assert chain.started == [0, 1, 2]


async def test_the_default_limit_of_8_holds_over_a_long_chain(autojump_clock: object) -> None:
    """With no config anywhere, levels 0..8 run and level 8 is refused (the default max_agent_depth is 8)."""
    chain = Chain(12)
    sim = await simulated(chain.agent())
    assert sim.error is None
    assert chain.started == list(range(9))
    assert chain.results[8].output == "agent nesting depth (9) exceeded max (8)"


async def test_a_workflow_in_the_chain_keeps_the_limit(autojump_clock: object) -> None:
    """A SequentialAgent between two levels counts as a level and passes the limit on to its steps."""
    chain = Chain(6)
    inner = chain.agent(1)  # level1 -> level2 -> ...
    steps = SequentialAgent[None]("steps", "runs level1").then(inner)
    chain_top = FunctionModel(lambda request: chain.turn(0, request), name="model0")
    top = LlmAgent(name="level0", model=chain_top, tools=[AgentAsTool[None](steps).with_name("level1")])
    sim = await run_simulated(top, "start", config=RunConfig(max_agent_depth=3))
    assert sim.error is None
    # level0 at depth 0, the workflow at 1, level1 at 2, level2 at 3; level3 would be at 4
    assert chain.started == [0, 1, 2]
    assert chain.results[2].output == "agent nesting depth (4) exceeded max (3)"
