"""The ``path`` of an envelope: the agent names from the served (top-level) agent down to the emitting one.

A run's stream is flat: a workflow child's, a handoff target's or a swarm member's events pass through it
after an `AgentUpdated` naming the agent they belong to (the merge convention of ``agents/_workflow.py``),
and nothing on the stream says how deep that agent sits. The server knows the served agent's definition,
so it derives the depth from it: `agent_paths` walks the tree (workflow steps, branches and nodes, swarm
members, handoff targets, agent-as-tool agents), shallowest first, and `PathTracker` follows the announcements of a run.
An agent the tree does not name (a custom agent's own children) is placed directly under the top. The
terminal event is always the top-level run's own (a sub-run's is swallowed by the agent above it).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ..core import AgentEvent, AgentUpdated, RunCompleted, RunFailed, RunPaused, RunStarted


def agent_paths(top: Any) -> dict[str, tuple[str, ...]]:
    """Every agent name reachable from `top`, with its path from `top` (the shallowest, when reachable twice)."""
    paths: dict[str, tuple[str, ...]] = {top.name: (top.name,)}
    queue: deque[tuple[Any, tuple[str, ...]]] = deque([(top, (top.name,))])
    while queue:
        agent, path = queue.popleft()
        for child in children(agent):
            name = getattr(child, "name", None)
            if isinstance(name, str) and name not in paths:
                paths[name] = (*path, name)
                queue.append((child, paths[name]))
    return paths


def children(agent: Any) -> list[Any]:
    """The agents `agent` runs below it, as far as its public attributes say."""
    found: list[Any] = []
    for attribute in ("steps", "branches", "nodes"):  # workflows: (key, agent) pairs
        for pair in getattr(agent, attribute, ()) or ():
            if isinstance(pair, tuple) and len(pair) == 2:
                found.append(pair[1])
    found.extend(getattr(agent, "members", ()) or ())  # a swarm's members
    for tool in getattr(agent, "tools", ()) or ():  # an agent-as-tool's agent (its sub-runs: see `subruns`)
        inner = getattr(tool, "agent", None)
        if inner is not None and callable(getattr(inner, "run", None)):
            found.append(inner)
    for handoff in getattr(agent, "handoffs", ()) or ():
        try:
            found.append(handoff.resolve())
        except Exception:  # a resolver that fails now fails at run time too; the path falls back then
            continue
    return found


class PathTracker:
    """Follows one run's announcements: `path` is the path of the agent its next event belongs to."""

    __slots__ = ("_known", "_path", "_top")

    def __init__(self, paths: dict[str, tuple[str, ...]], top: str) -> None:
        self._known = paths
        self._top = top
        self._path: tuple[str, ...] = (top,)

    @property
    def agent(self) -> str:
        """The agent the run's next event belongs to, as far as its announcements say."""
        return self._path[-1]

    def see(self, event: AgentEvent) -> tuple[str, ...]:
        """The path of `event`, after taking in what it announces."""
        if isinstance(event, RunCompleted | RunFailed | RunPaused):
            return (self._top,)  # a sub-run's terminal event never reaches the stream: this one is the run's own
        if isinstance(event, RunStarted | AgentUpdated):
            name = event.agent
            self._path = self._known.get(name) or ((self._top,) if name == self._top else (self._top, name))
        return self._path
