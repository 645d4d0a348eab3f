"""`HelikonWorker`: a Temporal worker that runs helikon_fc agents (the workflow and its activities)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Iterable
from datetime import timedelta
from functools import partial
from types import TracebackType
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from ..shell.control.guardrails import Guardrail
from ..shell.control.hooks import Hook
from ..shell.control.permissions import Permissions
from ..shell.loop.protocol import Agent
from ._activities import Activities
from ._decisions import check_worker_permissions
from ._portal import TrioPortal
from ._registry import AgentRegistry
from ._run_level import RunLevel
from ._tool_sources import kept_open
from ._user import UserCodec
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
    every worker of a task queue must register the same agents. The MCP servers the agents take tools
    from are started when the worker starts and stopped when it stops (one session each for all its
    runs); a run's tools are listed once, by its ``describe`` activity, into its history, and every
    call is an activity (see ``helikon_fc.temporal._tool_sources``).

    Args:
        client: a connected temporalio `Client`.
        task_queue: the task queue to poll.
        agents: the root agents, their names unique.
        max_concurrent_activities: model and tool calls at once on this worker (threads of its executor).
        heartbeat_every: seconds between an activity's heartbeats (below the runs' heartbeat timeout).
        sticky_timeout: seconds a run's next workflow task waits for this worker (which holds the run
            cached) before any worker of the queue may take it: how long a run whose worker died waits
            for its workflow to move, beside the heartbeat timeout of the call in flight.
        user_codec: decodes each run's user value for its tools and instructions (the same codec as
            the clients'); the default takes JSON values as they are.
        permissions: decide every tool call of the runs on this worker, as ``ctx.with_permissions`` does
            on trio: the config (which a run's own `PermissionConfig`, given to `HelikonClient.start`,
            replaces), the async policy and the redaction. A human answers through
            `RunHandle.decide`, so an ``approval_handler`` is refused.
        hooks: run-level hooks, as ``ctx.with_hooks`` on trio: they fire after each agent's own in every
            model loop of every run here (handoff targets and workflow children included; an agent-as-tool
            sub-run gets none) and hear `OnSubagentStop`. They run in the worker's activities.
        input_guardrails: run-level input guardrails (``ctx.with_input_guardrails``), beside each agent's own.
        output_guardrails: run-level output guardrails (``ctx.with_output_guardrails``), beside each agent's own.

    Raises:
        ValueError: `permissions` has an approval handler.
        TypeError: `permissions` is not a `Permissions`, or an agent (a root, or any agent below one) is
            not one of the library's agents, which are the only ones a worker can run.
        MCPServerError: when the worker starts, an MCP server of its agents could not be started.
    """

    def __init__(
        self,
        client: Client,
        task_queue: str,
        *,
        agents: Iterable[Agent[Any]],
        max_concurrent_activities: int = 64,
        heartbeat_every: float = 1.0,
        sticky_timeout: float = 10.0,
        user_codec: UserCodec | None = None,
        permissions: Permissions | None = None,
        hooks: Iterable[Hook[Any]] = (),
        input_guardrails: Iterable[Guardrail[Any]] = (),
        output_guardrails: Iterable[Guardrail[Any]] = (),
    ) -> None:
        if not task_queue:
            raise ValueError("task_queue must not be empty")
        if max_concurrent_activities < 1:
            raise ValueError(f"max_concurrent_activities must be at least 1, got {max_concurrent_activities}")
        if not sticky_timeout > 0:
            raise ValueError(f"sticky_timeout must be a positive number of seconds, got {sticky_timeout!r}")
        check_worker_permissions(permissions)
        agents = tuple(agents)
        self.registry = AgentRegistry(agents)
        self._portal = TrioPortal(partial(kept_open, self.registry.tool_sources))
        self._executor = concurrent.futures.ThreadPoolExecutor(max_concurrent_activities)
        run_level = RunLevel(tuple(hooks), tuple(input_guardrails), tuple(output_guardrails))
        activities = Activities(
            self.registry,
            self._portal,
            heartbeat_every=heartbeat_every,
            user_codec=user_codec,
            permissions=permissions,
            run_level=run_level,
        )
        self._activities = activities
        self._client = client
        self._worker = Worker(
            client,
            task_queue=task_queue,
            workflows=[RunWorkflow],
            activities=[
                activities.describe,
                activities.call_model,
                activities.call_tool,
                activities.control,
                activities.authorize_tool,
                activities.finish_tool,
            ],
            activity_executor=self._executor,
            max_concurrent_activities=max_concurrent_activities,
            workflow_runner=workflow_runner(),
            sticky_queue_schedule_to_start_timeout=timedelta(seconds=sticky_timeout),
        )

    async def run(self) -> None:
        """Poll until cancelled, then shut down."""
        self._start()
        try:
            await self._worker.run()
        finally:
            self._close()

    async def __aenter__(self) -> HelikonWorker:
        self._start()
        await self._worker.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            await self._worker.__aexit__(exc_type, exc, tb)
        finally:
            self._close()

    def _start(self) -> None:
        self._activities.bind(self._client, asyncio.get_running_loop())
        self._portal.start()

    def _close(self) -> None:
        self._portal.stop()
        self._executor.shutdown(wait=False, cancel_futures=True)
