"""`HelikonWorker`: a Temporal worker that runs helikon_fc agents (the workflow and its activities)."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterable
from types import TracebackType
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from ..shell.protocol import Agent
from ._activities import Activities
from ._portal import TrioPortal
from ._registry import AgentRegistry
from ._unsupported import refuse_controls
from .workflow import RunWorkflow

PASSTHROUGH = ("helikon_fc", "attrs", "cattrs", "jsonschema_rs")
"""Modules the workflow sandbox shares with the worker instead of re-importing: the pure core and what it uses."""


def workflow_runner() -> SandboxedWorkflowRunner:
    """The sandbox the run workflow executes in (the same for a worker and a `Replayer`)."""
    return SandboxedWorkflowRunner(restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSTHROUGH))


class HelikonWorker:
    """Runs the agents registered here for workflows on `task_queue`.

    Use as an async context manager (``async with HelikonWorker(client, "q", agents=[a]) as w: ...``
    polls until the block ends) or call `run` to poll until cancelled. The agent objects live in
    this process: a run's activities resolve them by path from `agents` (see `AgentRegistry`), so
    every worker of a task queue must register the same agents.

    Args:
        client: a connected temporalio `Client`.
        task_queue: the task queue to poll.
        agents: the root agents, their names unique.
        max_concurrent_activities: model and tool calls at once on this worker (threads of its executor).
        heartbeat_every: seconds between an activity's heartbeats (below the runs' heartbeat timeout).

    Raises:
        ValueError: an agent anywhere below `agents` has hooks or guardrails, which runs on Temporal do
            not honour (refused here rather than silently ignored).
    """

    def __init__(
        self,
        client: Client,
        task_queue: str,
        *,
        agents: Iterable[Agent[Any]],
        max_concurrent_activities: int = 64,
        heartbeat_every: float = 1.0,
    ) -> None:
        if not task_queue:
            raise ValueError("task_queue must not be empty")
        if max_concurrent_activities < 1:
            raise ValueError(f"max_concurrent_activities must be at least 1, got {max_concurrent_activities}")
        agents = tuple(agents)
        refuse_controls(agents)  # hooks and guardrails are not honoured on Temporal: refused, never ignored
        self.registry = AgentRegistry(agents)
        self._portal = TrioPortal()
        self._executor = concurrent.futures.ThreadPoolExecutor(max_concurrent_activities)
        activities = Activities(self.registry, self._portal, heartbeat_every=heartbeat_every)
        self._worker = Worker(
            client,
            task_queue=task_queue,
            workflows=[RunWorkflow],
            activities=[activities.describe, activities.call_model, activities.call_tool],
            activity_executor=self._executor,
            max_concurrent_activities=max_concurrent_activities,
            workflow_runner=workflow_runner(),
        )

    async def run(self) -> None:
        """Poll until cancelled, then shut down."""
        self._portal.start()
        try:
            await self._worker.run()
        finally:
            self._close()

    async def __aenter__(self) -> HelikonWorker:
        self._portal.start()
        await self._worker.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            await self._worker.__aexit__(exc_type, exc, tb)
        finally:
            self._close()

    def _close(self) -> None:
        self._portal.stop()
        self._executor.shutdown(wait=False, cancel_futures=True)
