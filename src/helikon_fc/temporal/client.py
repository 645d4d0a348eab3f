"""`HelikonClient` and `RunHandle`: start a run on Temporal, stream its events, cancel it, wait for its result.

A client needs no agent code: it names the agent registered on the workers and reads everything
back in the wire format. Events stream by polling the workflow's ``events`` query: a query writes
nothing to the run's history (an update would add events to it per call, and a run's history is
bounded), any number of watchers can follow one run, and a watcher that connects late or
reconnects reads from any offset.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from datetime import timedelta
from typing import Any

import attrs
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy
from temporalio.service import RPCError, RPCStatusCode

from ..core import (
    AgentEvent,
    ApprovalRequested,
    Item,
    PermissionConfig,
    RunCompleted,
    RunFailed,
    TerminalEvent,
    Usage,
    UserMessage,
    from_json,
    to_json,
)
from ..shell.context.config import RunConfig
from ..shell.control.permissions import ApprovalAnswer
from ..shell.durable.storage import RunNotFound
from ._decisions import decisions_of
from ._payloads import DECIDE, PENDING, WORKFLOW_NAME, ActivityPolicy, RunOutcome, RunRequest
from ._settings import settings_of
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


@contextlib.contextmanager
def _found(run_id: str) -> Iterator[None]:
    """Turn Temporal's "workflow not found" into `RunNotFound` naming `run_id`."""
    try:
        yield
    except RPCError as exc:
        if exc.status != RPCStatusCode.NOT_FOUND:
            raise
        raise RunNotFound(f"no run {run_id!r} on Temporal ({exc.message})") from None


_NO_ANSWER = frozenset(
    {
        RPCStatusCode.FAILED_PRECONDITION,  # "no poller seen for task queue recently, worker may be down"
        RPCStatusCode.DEADLINE_EXCEEDED,
        RPCStatusCode.UNAVAILABLE,  # the server itself is restarting
        RPCStatusCode.CANCELLED,  # the client's own deadline for the query, below
    }
)
"""The query failures that mean nobody could answer yet, not that the question was wrong."""


class _Outage:
    """Rides out a stretch of queries no worker answers, for at most `limit` seconds (`None`: no limit).

    The stretch starts when its first unanswered query was sent (the server holds such a query for
    about 30 s before it fails) and ends with the next answer. Each query is given the time left
    (all of `limit` outside a stretch), so the follower gives up at its deadline, not a server
    timeout later.
    """

    __slots__ = ("_limit", "_since")

    def __init__(self, limit: float | None) -> None:
        self._limit = limit
        self._since: float | None = None

    async def ask(self, query: Callable[[int, timedelta | None], Awaitable[list[str]]], after: int) -> list[str]:
        """`query` from `after`, asked again while no worker answers and time is left."""
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            left = self._limit
            if left is not None and self._since is not None:
                left = self._since + left - asked
            try:
                batch = await query(after, None if left is None else timedelta(seconds=max(left, 0.1)))
            except RPCError as exc:
                if exc.status not in _NO_ANSWER:
                    raise
                if self._since is None:
                    self._since = asked
                if self._limit is not None and loop.time() >= self._since + self._limit:
                    raise
                await asyncio.sleep(_RETRY_EVERY)
                continue
            self._since = None
            return batch


_RETRY_EVERY = 0.5
"""Seconds between a query that found no worker and the next."""


class RunHandle:
    """One run on Temporal, by id.

    Every method raises `RunNotFound` (naming the id) when Temporal has no such run.
    """

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

    async def events(
        self, *, after: int = 0, poll_every: float = 0.05, outage: float | None = 300.0
    ) -> AsyncIterator[AgentEvent]:
        """The run's events from the `after`-th on, as they happen, up to and including its terminal event.

        Polls the ``events`` query every `poll_every` seconds while nothing new has come. The events
        are the trio runner's, in its order, deltas included: they arrive while a model call runs, in
        batches with adjacent fragments joined (`ActivityPolicy.delta_interval`). A workflow closed
        without a terminal event (terminated from outside, say) ends the iteration once its last
        events are read (its status is checked about once a second).

        A query needs a worker to answer it. While none does (the workers are down or restarting, or
        the server is unreachable), the follower waits and asks again from the last event it gave,
        so nothing is lost or repeated, for at most `outage` seconds at a stretch (`None`: as long as
        it takes); then the last error is raised.

        Raises:
            RunNotFound: Temporal has no run with this id.
            temporalio.service.RPCError: no worker answered for `outage` seconds, or another failure.
        """
        seen = after
        idle = 0
        closed = False
        riding = _Outage(outage)
        while True:
            batch = await riding.ask(self._query_events, seen)
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
                with _found(self.run_id):
                    closed = (await self._handle.describe()).status != WorkflowExecutionStatus.RUNNING
            await asyncio.sleep(poll_every)

    async def _query_events(self, after: int, rpc_timeout: timedelta | None) -> list[str]:
        """The run's events from the `after`-th on, as the ``events`` query has them now."""
        with _found(self.run_id):
            batch: list[str] = await self._handle.query("events", after, result_type=list[str], rpc_timeout=rpc_timeout)
        return batch

    async def pending(self) -> tuple[ApprovalRequested, ...]:
        """What the run's waiting calls ask now, its sub-runs' included, each under the id to decide it by.

        A call waits when its permission decision asks a human (`Ask`); the run waits, durably and
        under its deadline, until `decide` answers it. The ids are qualified by the sub-run that asks,
        as for ``runner.resume`` on trio (``tool:CALL/ID`` for a call of an agent-as-tool sub-run,
        ``NODE/ID`` in a graph node); the same requests appear as `ApprovalRequested` events.

        Order: once a round waits, its calls are listed in call order, as on trio. While the round's other
        calls still run (a sub-run, say), each call is listed as soon as it is held, so the order is the order
        their permission checks ended in; compare them as a set until the run waits.
        """
        with _found(self.run_id):
            texts: list[str] = await self._handle.query(PENDING, result_type=list[str])
        return tuple(from_json(ApprovalRequested, text) for text in texts)

    async def decide(self, decisions: Mapping[str, ApprovalAnswer]) -> None:
        """Answer waiting calls, by the ids `pending` lists: `Approve()` runs the call (``Approve(arguments=...)``
        with replaced arguments, which are checked again), `Reject(reason)` answers it with
        ``permission denied: reason``. Calls left out wait on; a decision reaches the sub-run whose call
        waits, and one given before its call waits is kept for it.

        Raises:
            TypeError: `decisions` maps something other than call ids to `Approve`/`Reject` (nothing is sent).
        """
        answers = decisions_of(decisions)
        with _found(self.run_id):
            await self._handle.signal(DECIDE, answers)

    async def cancel(self) -> None:
        """Cancel the run: it stops at once and ends with `RunFailed(Cancelled)`."""
        with _found(self.run_id):
            await self._handle.cancel()

    async def result(self) -> TemporalRunResult:
        """Wait for the run to end; its terminal event and output."""
        with _found(self.run_id):
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
        task_timeout: seconds a worker has for one workflow task of a run (Temporal's workflow task
            timeout; at most 120) before the task is handed to another worker.

    Raises:
        ValueError: `task_timeout` is not a positive number.
    """

    def __init__(
        self,
        client: Client,
        task_queue: str,
        *,
        policy: ActivityPolicy | None = None,
        user_codec: UserCodec | None = None,
        task_timeout: float = 10.0,
    ) -> None:
        if not task_timeout > 0:
            raise ValueError(f"task_timeout must be a positive number of seconds, got {task_timeout!r}")
        self._client = client
        self._task_queue = task_queue
        self._policy = policy or ActivityPolicy()
        self._codec = user_codec or UserCodec()
        self._task_timeout = timedelta(seconds=task_timeout)

    async def start(
        self,
        agent: str,
        input: str | Iterable[Item],
        *,
        config: RunConfig | None = None,
        run_id: str | None = None,
        user: Any = None,
        permissions: PermissionConfig | None = None,
    ) -> RunHandle:
        """Start a run of the registered agent named `agent` on `input` (a user message, or items).

        `config` bounds the run as a `Runner`'s config does (it wins over the agent's own); its
        ``timeout`` is the run's deadline, a durable timer in the workflow. `user` is the run
        context's user value its tools and instructions see, carried to the workers as JSON by the
        client's `UserCodec` (`None`: no user value). `permissions` decides the run's tool calls
        (its sub-runs' too), with the workers' policy and redaction (`HelikonWorker(permissions=...)`);
        `None`: the workers' own permissions, if any.

        Raises:
            TypeError: `user` does not encode as JSON, or `permissions` is not a `PermissionConfig`;
                nothing was started.
        """
        if permissions is not None and not isinstance(permissions, PermissionConfig):
            raise TypeError(
                "permissions must be a PermissionConfig or None (the policy and redaction are the workers'), "
                f"got {permissions!r} ({type(permissions).__name__})"
            )
        user_json = None if user is None else self._codec.to_text(user)
        items = (UserMessage(input),) if isinstance(input, str) else tuple(input)
        request = RunRequest(
            path=agent,
            input_json=to_json(items),
            config=settings_of(config),
            policy=self._policy,
            user_json=user_json,
            permissions_json=to_json(permissions) if permissions is not None else None,
        )
        handle = await self._client.start_workflow(
            WORKFLOW_NAME,
            request,
            id=run_id or f"helikon-{uuid.uuid4()}",
            task_queue=self._task_queue,
            result_type=RunOutcome,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            task_timeout=self._task_timeout,
        )
        return RunHandle(handle)

    def handle(self, run_id: str) -> RunHandle:
        """A handle on an existing run."""
        return RunHandle(self._client.get_workflow_handle(run_id, result_type=RunOutcome))
