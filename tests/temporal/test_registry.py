"""A worker refuses, when it is built, an agent it could not run: every agent below a root must be the library's."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from helikon_fc import AgentAsTool, Handoff, LlmAgent
from helikon_fc.agents.protocol import RunStream
from helikon_fc.agents.sequential import SequentialAgent
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput
from helikon_fc.temporal._registry import AgentRegistry
from helikon_fc.testing import ScriptedModel, reply


@attrs.frozen
class EchoAgent:
    """An agent of the application's own: it satisfies the `Agent` protocol, but no worker can plan it."""

    name: str = "echo"
    description: str = "Echoes."

    def run(self, ctx: RunContext[Any], input: AgentInput) -> RunStream:
        raise NotImplementedError


def _loop(name: str) -> LlmAgent[None]:
    return LlmAgent(name=name, model=ScriptedModel([reply("ok")]))


def test_a_custom_root_is_refused_naming_it() -> None:
    """A custom agent registered as a root is refused with its name and class, and what a worker runs."""
    with pytest.raises(TypeError, match=r"agents: 'echo' is an EchoAgent \('echo'\).*: LlmAgent, SequentialAgent"):
        AgentRegistry([EchoAgent()])


@pytest.mark.parametrize(
    ("root", "path"),
    [
        (SequentialAgent[None](name="pipe").then(_loop("a")).then(EchoAgent()), "pipe/step:1"),
        (_loop("front").with_handoffs(Handoff.to(EchoAgent())), "front/handoff:echo"),
        (_loop("lead").with_tools(AgentAsTool(EchoAgent())), "lead/tool:echo"),
    ],
)
def test_a_custom_agent_anywhere_below_a_root_is_refused_by_its_path(root: Any, path: str) -> None:
    """A custom agent as a step, a handoff target or an agent-as-tool is refused by the path a run would find it at."""
    with pytest.raises(TypeError, match=rf"agents: {path!r} is an EchoAgent \('echo'\)"):
        AgentRegistry([root])


def test_library_agents_with_cyclic_handoffs_are_accepted() -> None:
    """Agents that hand off to each other (a cycle) are walked once each and accepted."""
    agents: dict[str, LlmAgent[None]] = {}
    agents["a"] = _loop("a").with_handoffs(Handoff(agent_name="b", description="B.", resolve=lambda: agents["b"]))
    agents["b"] = _loop("b").with_handoffs(Handoff(agent_name="a", description="A.", resolve=lambda: agents["a"]))
    assert AgentRegistry([agents["a"]]).names == ("a",)


def test_the_mcp_servers_of_the_agents_are_found_once_each_at_any_depth() -> None:
    """The worker keeps these open: an agent's MCP server, at any depth, is found once however many agents share it."""
    from helikon_fc.mcp import MCPServerStdio

    server = MCPServerStdio("mcp-server-time", args=("--local-timezone", "UTC"))
    other = MCPServerStdio("mcp-server-git")
    clock = _loop("clock").with_tools(server)
    root = SequentialAgent[None](name="pipe").then(_loop("a").with_tools(other)).then(clock).then(clock)
    found = AgentRegistry([root]).tool_sources
    assert len(found) == 2 and {id(source) for source in found} == {id(server), id(other)}
    assert AgentRegistry([_loop("plain")]).tool_sources == ()
