"""What a Temporal worker refuses to run: agents with hooks or guardrails, which its workflow does not honour.

The workflow drives `transition` itself and runs model and tool calls as activities; it has no place
to fire a hook or check a guardrail deterministically, so an agent that has them would run as if it
had none. `refuse_controls` finds such an agent anywhere below the registered roots (handoff targets,
agent-as-tool agents, workflow children) so the worker refuses to start instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..agents.agent_as_tool import AgentAsTool
from ..agents.graph import GraphAgent
from ..agents.llm_agent import LlmAgent
from ..agents.loop import LoopAgent
from ..agents.parallel import ParallelAgent
from ..agents.sequential import SequentialAgent
from ..agents.swarm import SwarmAgent
from ..shell.protocol import Agent

_DEEPEST = 64
"""Levels walked at most (a handoff resolver that builds a new agent per call would otherwise never end)."""


def refuse_controls(agents: Iterable[Agent[Any]]) -> None:
    """Raise `ValueError` naming the first agent (by path) that has hooks or guardrails."""
    seen: set[int] = set()
    for path, agent in _walk(((agent.name, agent) for agent in agents), seen):
        if isinstance(agent, LlmAgent):
            what = [
                label
                for label, present in (
                    ("hooks", bool(agent.hooks)),
                    ("input_guardrails", bool(agent.input_guardrails)),
                    ("output_guardrails", bool(agent.output_guardrails)),
                )
                if present
            ]
            if what:
                raise ValueError(
                    f"agents: {path!r} has {' and '.join(what)}, which runs on Temporal do not honour yet; "
                    "run this agent with the trio Runner, or register a copy without them"
                )


def _walk(pending: Iterable[tuple[str, Agent[Any]]], seen: set[int]) -> Iterator[tuple[str, Agent[Any]]]:
    for path, agent in pending:
        if id(agent) in seen or path.count("/") > _DEEPEST:
            continue
        seen.add(id(agent))
        yield path, agent
        yield from _walk(_children(path, agent), seen)


def _children(path: str, agent: Agent[Any]) -> Iterator[tuple[str, Agent[Any]]]:
    if isinstance(agent, LlmAgent):
        definition = agent.definition
        for tool in definition.tools:
            if isinstance(tool, AgentAsTool):
                yield f"{path}/tool:{tool.name}", tool.agent
        for name, resolve in definition.resolvers.items():
            try:
                target = resolve()
            except Exception:  # a target that cannot be found fails its run when it is handed off to
                continue
            yield f"{path}/handoff:{name}", target
    elif isinstance(agent, SequentialAgent | LoopAgent):
        for index, (_, child) in enumerate(agent.steps):
            yield f"{path}/step:{index}", child
    elif isinstance(agent, ParallelAgent):
        for index, (_, child) in enumerate(agent.branches):
            yield f"{path}/branch:{index}", child
    elif isinstance(agent, SwarmAgent):
        for member in agent.members:
            yield f"{path}/member:{member.name}", agent.member(member.name)
    elif isinstance(agent, GraphAgent):
        for key, child in agent.nodes:
            yield f"{path}/node:{key}", child
