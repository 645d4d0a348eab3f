"""`HelikonClient` and `RunHandle`: start a run on Temporal, stream its events, cancel it, wait for its result.

A client needs no agent code: it names the agent registered on the workers and reads everything
back in the wire format. Events stream by polling the workflow's ``events`` query: a query writes
nothing to the run's history (an update would add events to it per call, and a run's history is
bounded), any number of watchers can follow one run, and a watcher that connects late or
reconnects reads from any offset.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterable
from datetime import timedelta
from typing import Any

import attrs
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy

from ..core import AgentEvent, Item, RunCompleted, RunFailed, TerminalEvent, Usage, UserMessage, from_json, to_json
from ..shell.config import RunConfig
from ._payloads import WORKFLOW_NAME, ActivityPolicy, RunOutcome, RunRequest, RunSettings
from ._user import UserCodec


@attrs.frozen
class TemporalRunResult:
    """How a run on Temporal ended.

    Attributes:
        terminal: its terminal event (`RunCompleted` or `RunFailed`).
        output: the text of its last `MessageOutput` (``""`` if none).
        usage: the usage of a completed run (zero for a failed one).
    """

    terminal: TerminalEvent
    output: str
    usage: Usage


class RunHandle:
    """One run on Temporal, by id."""

    def __init__(self, handle: WorkflowHandle[object, RunOutcome]) -> None:
        self._handle = handle

    @property
    def run_id(self) -> str:
        """The run's id (its Temporal workflow id)."""
        return self._handle.id

    @property
    def workflow(self) -> WorkflowHandle[object, RunOutcome]:
        """The underlying temporalio handle (histories, describe, terminate)."""
        return self._handle

    async def events(self, *, after: int = 0, poll_every: float = 0.05) -> AsyncIterator[AgentEvent]:
        """The run's events from the `after`-th on, as they happen, up to and including its terminal event.

        Polls the ``events`` query every `poll_every` seconds while nothing new has come. The events
        are the trio runner's, in its order, deltas included: they arrive while a model call runs, in
        batches with adjacent fragments joined (`ActivityPolicy.delta_interval`). A workflow closed
        without a terminal event (terminated from outside, say) ends the iteration once its last
        events are read (its status is checked about once a second).
        """
        seen = after
        idle = 0
        closed = False
        while True:
            batch: list[str] = await self._handle.query("events", seen, result_type=list[str])
            for text in batch:
                event: AgentEvent = from_json(AgentEvent, text)
                yield event
                if isinstance(event, RunCompleted | RunFailed):
                    return
            seen += len(batch)
            if batch:
                idle = 0
                continue
            if closed:
                return
            idle += 1
            if idle * poll_every >= 1.0:
                idle = 0
                closed = (await self._handle.describe()).status != WorkflowExecutionStatus.RUNNING
            await asyncio.sleep(poll_every)

    async def cancel(self) -> None:
        """Cancel the run: it stops at once and ends with `RunFailed(Cancelled)`."""
        await self._handle.cancel()

    async def result(self) -> TemporalRunResult:
        """Wait for the run to end; its terminal event and output."""
        outcome = await self._handle.result()
        terminal: TerminalEvent = from_json(TerminalEvent, outcome.terminal_json)
        usage = terminal.usage if isinstance(terminal, RunCompleted) else Usage()
        return TemporalRunResult(terminal, outcome.output, usage)


class HelikonClient:
    """Starts and follows runs of the agents the workers on `task_queue` registered.

    Args:
        client: a connected temporalio `Client`.
        task_queue: where the workers poll.
        policy: how runs schedule their model and tool activities (timeouts, retries, heartbeats).
        user_codec: encodes a run's user value for the workers (the same codec as theirs); the
            default takes JSON values as they are.
    """

    def __init__(
        self,
        client: Client,
        task_queue: str,
        *,
        policy: ActivityPolicy | None = None,
        user_codec: UserCodec | None = None,
    ) -> None:
        self._client = client
        self._task_queue = task_queue
        self._policy = policy or ActivityPolicy()
        self._codec = user_codec or UserCodec()

    async def start(
        self,
        agent: str,
        input: str | Iterable[Item],
        *,
        config: RunConfig | None = None,
        run_id: str | None = None,
        user: Any = None,
    ) -> RunHandle:
        """Start a run of the registered agent named `agent` on `input` (a user message, or items).

        `config` bounds the run as a `Runner`'s config does (it wins over the agent's own); its
        ``timeout`` is the run's deadline, a durable timer in the workflow. `user` is the run
        context's user value its tools and instructions see, carried to the workers as JSON by the
        client's `UserCodec` (`None`: no user value).

        Raises:
            TypeError: `user` does not encode as JSON; nothing was started.
        """
        user_json = None if user is None else self._codec.to_text(user)
        items = (UserMessage(input),) if isinstance(input, str) else tuple(input)
        settings = None
        if config is not None:
            settings = RunSettings(
                config.max_turns, config.parallel_tool_call_limit, config.max_agent_depth, config.timeout
            )
        request = RunRequest(
            path=agent, input_json=to_json(items), config=settings, policy=self._policy, user_json=user_json
        )
        handle = await self._client.start_workflow(
            WORKFLOW_NAME,
            request,
            id=run_id or f"helikon-{uuid.uuid4()}",
            task_queue=self._task_queue,
            result_type=RunOutcome,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            task_timeout=timedelta(seconds=10),
        )
        return RunHandle(handle)

    def handle(self, run_id: str) -> RunHandle:
        """A handle on an existing run."""
        return RunHandle(self._client.get_workflow_handle(run_id, result_type=RunOutcome))
