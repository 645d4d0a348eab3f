"""The served agents by name, as `create_app` and `ag_ui_endpoint` take them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..shell.loop.protocol import Agent


def agents_by_name(agents: object, where: str) -> dict[str, Agent[Any]]:
    """One agent, several (each under its ``name``) or a mapping of names to agents, checked; `where` names the caller.

    Raises:
        TypeError: something that is not an agent, or not one of the three shapes.
        ValueError: no agent, or two in a sequence with one name.
    """
    if isinstance(agents, Mapping):
        served = dict(agents)
    elif _is_agent(agents):
        served = {agents.name: agents}  # type: ignore[attr-defined]
    elif isinstance(agents, Iterable) and not isinstance(agents, str | bytes):
        served = {}
        for index, agent in enumerate(agents):
            if not _is_agent(agent):
                raise TypeError(f"{where}: agents[{index}] must be an agent (LlmAgent, a workflow, ...), got {agent!r}")
            if agent.name in served:
                raise ValueError(f"{where}: two agents are named {agent.name!r}; give a mapping to name them apart")
            served[agent.name] = agent
    else:
        raise TypeError(f"{where}: agents must be an agent, agents or a mapping of them, got {agents!r}")
    if not served:
        raise ValueError(f"{where}: agents is empty: give at least one agent to serve")
    for name, agent in served.items():
        if not isinstance(name, str) or not _is_agent(agent):
            raise TypeError(f"{where}: agents[{name!r}] must be an agent (LlmAgent, a workflow, ...), got {agent!r}")
    return served


def _is_agent(value: object) -> bool:
    return isinstance(getattr(value, "name", None), str) and callable(getattr(value, "run", None))
