"""The one `Agent[Ctx]` protocol every agent type satisfies, so they nest freely.

The shell owns it: the runner and the driver run any `Agent` without knowing the agent types built
on top of them (`helikon_fc.agents`), which is what keeps the layer order one way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Protocol, TypeAlias, TypeVar

from ...core import AgentEvent
from ..context.run_context import RunContext
from ..input import AgentInput

Ctx = TypeVar("Ctx")

RunStream: TypeAlias = AbstractAsyncContextManager[AsyncIterator[AgentEvent]]
"""A run in progress: ``async with agent.run(ctx, input) as events: async for event in events: ...``.

The run lives inside the ``async with`` block (in a trio nursery); leaving the block early cancels
it and leaves no task behind. A failure mid-run arrives as a `RunFailed` event, never as an
exception out of the iterator.
"""


class Agent(Protocol[Ctx]):
    """Anything that can run: `LlmAgent`, the workflow agents, `SwarmAgent`, `GraphAgent`."""

    @property
    def name(self) -> str:
        """The agent's name: shown in events and used for state keys and handoff tools."""
        ...

    @property
    def description(self) -> str:
        """What the agent does, in one sentence (shown to models that may hand off to it or call it)."""
        ...

    def run(self, ctx: RunContext[Ctx], input: AgentInput) -> RunStream:
        """Start a run; see `RunStream`."""
        ...
