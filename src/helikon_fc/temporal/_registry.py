"""`AgentRegistry`: the worker's agents, found by a stable path from a registered root.

A path is the root agent's name followed by one segment per step down, ``/``-separated:
``handoff:<agent>`` (a handoff target of a model loop), ``tool:<tool>`` (the agent an `AgentAsTool`
wraps), ``step:<i>`` (a sequential or loop step), ``branch:<i>`` (a parallel branch), ``member:<name>`` (a
swarm member, with its mesh of handoffs) and ``node:<key>`` (a graph node). Paths
depend only on how the agents are built, so a path a workflow recorded resolves to the same agent
on any worker that registered the same root.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

from ..agents.agent_as_tool import AgentAsTool
from ..agents.graph import GraphAgent
from ..agents.llm_agent import LlmAgent
from ..agents.loop import LoopAgent
from ..agents.parallel import ParallelAgent
from ..agents.sequential import SequentialAgent
from ..agents.swarm import SwarmAgent
from ..core.patterns.subrun import handoff_segment
from ..shell.loop.protocol import Agent
from ..shell.tools.tool_source import ToolSource


class UnknownAgentPath(LookupError):
    """No agent is registered under a path (or a segment names nothing below its parent)."""


class AgentRegistry:
    """The root agents a worker runs, by name, and every agent below them, by path (resolved once, then cached).

    Raises:
        ValueError: no agents, two with one name, or a name with ``/``.
        TypeError: an agent, a root or any agent below one, is not one of `RUNNABLE`.
    """

    def __init__(self, agents: Iterable[Agent[Any]]) -> None:
        roots: dict[str, Agent[Any]] = {}
        for agent in agents:
            if "/" in agent.name:
                raise ValueError(f"agents: a registered agent's name may not contain '/', got {agent.name!r}")
            if agent.name in roots:
                raise ValueError(f"agents: two registered agents are named {agent.name!r}; names must be unique")
            roots[agent.name] = agent
        if not roots:
            raise ValueError("agents: register at least one agent")
        found = [source for root in roots.values() for source in _check_runnable(root)]
        self.tool_sources: tuple[ToolSource, ...] = tuple({id(source): source for source in found}.values())
        """The tool sources (MCP servers) of the agents found from the roots, each once (the worker keeps them open)."""
        self._cache: dict[str, Agent[Any]] = dict(roots)
        self._lock = threading.Lock()

    @property
    def names(self) -> tuple[str, ...]:
        """The registered roots' names."""
        return tuple(name for name in self._cache if "/" not in name)

    def resolve(self, path: str) -> Agent[Any]:
        """The agent at `path`.

        Raises:
            UnknownAgentPath: a segment of `path` names nothing.
        """
        with self._lock:
            found = self._cache.get(path)
            if found is not None:
                return found
            parent_path, _, segment = path.rpartition("/")
            if not parent_path:
                raise UnknownAgentPath(f"no agent is registered as {path!r}")
        parent = self.resolve(parent_path)
        child = _child(parent, segment)
        with self._lock:
            return self._cache.setdefault(path, child)


def _child(parent: Agent[Any], segment: str) -> Agent[Any]:
    kind, _, name = segment.partition(":")
    if isinstance(parent, LlmAgent):
        definition = parent.definition
        if kind == "handoff" and name in definition.resolvers:
            return definition.resolvers[name]()
        tool = definition.tools_by_name.get(name)
        if kind == "tool" and isinstance(tool, AgentAsTool):
            return tool.agent
    elif isinstance(parent, SequentialAgent | LoopAgent) and kind == "step":
        return _indexed(parent.steps, name)
    elif isinstance(parent, ParallelAgent) and kind == "branch":
        return _indexed(parent.branches, name)
    elif isinstance(parent, SwarmAgent) and kind == "member":
        try:
            return parent.member(name)
        except KeyError:
            pass
    elif isinstance(parent, GraphAgent) and kind == "node":
        nodes = dict(parent.nodes)
        if name in nodes:
            return nodes[name]
    raise UnknownAgentPath(f"agent {parent.name!r} has no {segment!r}")


def _indexed(children: tuple[tuple[str, Agent[Any]], ...], index: str) -> Agent[Any]:
    if index.isdigit() and int(index) < len(children):
        return children[int(index)][1]
    raise UnknownAgentPath(f"no child {index!r} among {len(children)}")


RUNNABLE = (LlmAgent, SequentialAgent, LoopAgent, ParallelAgent, SwarmAgent, GraphAgent)
"""The agents a worker can run: the workflow plans each of these; an agent class of one's own it cannot."""

_DEEPEST = 64
"""How many levels below a root `_check_runnable` looks (handoff targets built afresh on each resolve never end)."""


def _check_runnable(root: Agent[Any]) -> list[ToolSource]:
    """Refuse `root` if it, or any agent below it, is not one of `RUNNABLE`; the tool sources of those agents.

    Raises:
        TypeError: naming the first such agent by its path, its class and its name.
    """
    sources: list[ToolSource] = []
    known: set[int] = set()
    seen: set[int] = set()
    stack: list[tuple[str, Agent[Any], int]] = [(root.name, root, 0)]
    while stack:
        path, agent, depth = stack.pop()
        if id(agent) in seen or depth > _DEEPEST:
            continue
        seen.add(id(agent))
        if not isinstance(agent, RUNNABLE):
            kinds = ", ".join(kind.__name__ for kind in RUNNABLE)
            raise TypeError(
                f"agents: {path!r} is an {type(agent).__name__} ({agent.name!r}), which cannot run on Temporal: "
                f"a worker runs the library's agents only: {kinds} (and AgentAsTool around any of them)"
            )
        if isinstance(agent, LlmAgent):
            sources.extend(source for source in agent.definition.tool_sources if id(source) not in known)
            known.update(id(source) for source in agent.definition.tool_sources)
        stack.extend((f"{path}/{segment}", child, depth + 1) for segment, child in _below(agent))
    return sources


def _below(agent: Agent[Any]) -> Iterator[tuple[str, Agent[Any]]]:
    """Each agent one level below `agent`, with the path segment that finds it (`_child`'s, in reverse)."""
    if isinstance(agent, LlmAgent):
        definition = agent.definition
        for name, resolve in definition.resolvers.items():
            try:
                target = resolve()
            except Exception:
                continue
            yield handoff_segment(name), target  # the run tree's segment of that handoff, as the workflow runs it
        for tool in definition.tools:
            if isinstance(tool, AgentAsTool):
                yield f"tool:{tool.name}", tool.agent
    elif isinstance(agent, SequentialAgent | LoopAgent):
        yield from ((f"step:{i}", child) for i, (_, child) in enumerate(agent.steps))
    elif isinstance(agent, ParallelAgent):
        yield from ((f"branch:{i}", child) for i, (_, child) in enumerate(agent.branches))
    elif isinstance(agent, SwarmAgent):
        yield from ((f"member:{member.name}", agent.member(member.name)) for member in agent.members)
    elif isinstance(agent, GraphAgent):
        yield from ((f"node:{key}", child) for key, child in agent.nodes)
