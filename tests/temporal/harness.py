"""Run a scenario on Temporal (an in-process worker) and next to it on the plain trio runner."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import attrs
from temporalio.client import Client, WorkflowHistory
from temporalio.worker import Replayer

from helikon_fc.core import AgentEvent, PermissionConfig, ReasoningDelta, TokenDelta, ToolCallDelta
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.shell.control.permissions import Permissions
from helikon_fc.shell.loop.protocol import Agent
from helikon_fc.temporal import (
    ActivityPolicy,
    HelikonClient,
    HelikonWorker,
    RunHandle,
    RunWorkflow,
    TemporalRunResult,
    UserCodec,
    workflow_runner,
)
from helikon_fc.testing import simulate

FAST = ActivityPolicy(heartbeat_timeout=2.0, retry_interval=0.1)
"""Short retry waits, so a retried call costs the tests little real time."""


@attrs.frozen
class Outcome:
    """What a run on Temporal did: its streamed events, its result, and its histories (replayed clean).

    `events` leaves the live deltas out (compare them with `trio_events`); `streamed` has them.
    """

    streamed: tuple[AgentEvent, ...]
    result: TemporalRunResult
    histories: tuple[WorkflowHistory, ...]

    @property
    def events(self) -> tuple[AgentEvent, ...]:
        """The streamed events without the deltas (batched on Temporal, fragment by fragment on trio)."""
        return without_deltas(self.streamed)


def without_deltas(events: Sequence[AgentEvent]) -> tuple[AgentEvent, ...]:
    """`events` without the live deltas (how finely they are split depends on the runner)."""
    return tuple(e for e in events if not isinstance(e, TokenDelta | ToolCallDelta | ReasoningDelta))


def trio_events(agent: Agent[Any], text: str, config: RunConfig | None = None) -> tuple[AgentEvent, ...]:
    """The same run on the plain trio runner (the simulator), deltas dropped."""
    return without_deltas(simulate(agent, text, config=config).events)


async def replay(client: Client, run_ids: Sequence[str]) -> tuple[WorkflowHistory, ...]:
    """Fetch each run's history and replay it through the workflow; raises on nondeterminism."""
    histories = []
    for run_id in run_ids:
        histories.append(await client.get_workflow_handle(run_id).fetch_history())
    replayer = Replayer(workflows=[RunWorkflow], workflow_runner=workflow_runner())
    for history in histories:
        await replayer.replay_workflow(history)
    return tuple(histories)


async def _children(client: Client, run_id: str) -> list[str]:
    """The ids of the child workflows a run started (agent-as-tool sub-runs), recursively."""
    found = []
    async for execution in client.list_workflows(f"WorkflowId STARTS_WITH '{run_id}.'"):
        found.append(execution.id)
    return found


def on_temporal(
    address: str,
    agents: Sequence[Agent[Any]],
    agent: str,
    text: str,
    *,
    config: RunConfig | None = None,
    during: Callable[[RunHandle], Awaitable[None]] | None = None,
    user: Any = None,
    codec: UserCodec | None = None,
    permissions: Permissions | None = None,
    run_permissions: PermissionConfig | None = None,
    worker_options: Mapping[str, Any] | None = None,
) -> Outcome:
    """Run `agent` on a fresh task queue with an in-process worker; stream, wait, replay.

    `user` is the run's user value, crossing by `codec` (on the client and the worker alike);
    `permissions` are the worker's, `run_permissions` the run's own config (given to the client);
    `worker_options` more keyword arguments of the `HelikonWorker` (its run-level hooks, say).
    """

    async def main() -> Outcome:
        client = await Client.connect(address)
        queue = f"q-{uuid.uuid4()}"
        worker = HelikonWorker(
            client,
            queue,
            agents=agents,
            heartbeat_every=0.2,
            user_codec=codec,
            permissions=permissions,
            **(worker_options or {}),
        )
        async with worker:
            runs = HelikonClient(client, queue, policy=FAST, user_codec=codec)
            handle = await runs.start(agent, text, config=config, user=user, permissions=run_permissions)
            if during is not None:
                await during(handle)
            events = tuple([event async for event in handle.events()])
            result = await handle.result()
            children = await _children(client, handle.run_id)
            histories = await replay(client, [handle.run_id, *children])
        return Outcome(events, result, histories)

    return asyncio.run(main())
