"""`Runner`: runs any agent under a `RunConfig`, with a deadline, the context's session history, and
(with a store) a durable record of every transition boundary that `Runner.resume` continues from."""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, TypeVar

import attrs
import trio

from ...core import (
    AgentEvent,
    AgentUpdated,
    Cancelled,
    Item,
    MessageOutput,
    OtherError,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    SessionFailed,
    TerminalEvent,
    TimedOut,
    ToolCallItem,
    ToolOutputItem,
)
from .. import _checks
from ..context.config import RunConfig
from ..context.run_context import RunContext
from ..control.permissions import ApprovalAnswer, Approvals
from ..durable.run_log import Durability, ReplayMarks, check_compatible, paused_run, read_opened, records_under
from ..durable.storage import RunRecordConflict, RunStore, Session, require_run_store
from ..input import AgentInput, as_input
from ..telemetry.tracing import run_deadline
from .protocol import Agent, RunStream
from .run_stream import Send, forward_run, open_run_stream, sender

Ctx = TypeVar("Ctx")


@attrs.frozen
class Runner:
    """Runs agents under `config`, which wins over each agent's own `run_config`.

    ``Runner(config).run(agent, ctx, input)`` returns a run stream like ``agent.run``. Besides
    installing the config on the run context it:

    - honours ``config.timeout``: when the deadline passes the run is cancelled and ends with
      `RunFailed(TimedOut)` as its last event (a bare ``agent.run`` has no timer);
    - prepends the context's session history to the input, and appends the run's new items (its
      input, then every message, tool call and tool result it produced) to the session when the
      run ends — before the terminal event is delivered, and also when the run fails or is left
      early.

    With a `store` (``Runner(config, store=SQLiteStore(path))``) every run is recorded under a run
    id at every transition boundary (see ``docs/durability.md``), and `resume` continues a recorded
    run — after a crash, in another process — from its last boundary.
    """

    config: RunConfig = attrs.field(
        default=RunConfig(), validator=_checks.field(_checks.instance_of(RunConfig, "a RunConfig"))
    )
    store: RunStore | None = attrs.field(default=None, validator=_checks.field(_checks.optional(require_run_store)))

    def run(
        self, agent: Agent[Ctx], ctx: RunContext[Ctx], input: AgentInput | str, *, run_id: str | None = None
    ) -> RunStream:
        """Start `agent` on `input` under this runner's config; see the class docstring.

        Args:
            agent: any `Agent` (``LlmAgent``, a workflow, a swarm, ...).
            ctx: the run context; the runner installs its config on a copy.
            input: the new input (a string is one user message); the session history goes before it.
            run_id: the id to record the run under (only with a store); a new UUID when `None`.
                It is on the run's `RunStarted` (and `RunResult.run_id`).

        Returns:
            A run stream: ``async with runner.run(agent, ctx, input) as events: ...``.

        Raises:
            ValueError: `run_id` was given to a runner without a store, or is empty.
            TypeError: `input` is neither an `AgentInput` nor a string.
            RunRecordConflict: on entering the stream, when a run is recorded under `run_id` already.
        """
        input = as_input("Runner.run", input)
        run_ctx = _root(ctx, self.config)
        if self.store is None:
            if run_id is not None:
                raise ValueError(f"run_id={run_id!r} needs a store to record the run in: Runner(config, store=...)")
        else:
            if run_id is not None and (not isinstance(run_id, str) or not run_id):
                raise ValueError(f"run_id must be a non-empty str or None, got {run_id!r}")
            # a new UUID names nothing recorded yet: the run is fresh (`_drive` checks a given id)
            durable = Durability(self.store, run_id or str(uuid.uuid4()), fresh=run_id is None)
            run_ctx = attrs.evolve(run_ctx, durable=durable)
        return self._stream(agent, run_ctx, input, _Mode())

    def resume(
        self,
        run_id: str,
        agent: Agent[Ctx],
        ctx: RunContext[Ctx],
        *,
        replay: bool = False,
        approvals: Mapping[str, ApprovalAnswer] | None = None,
    ) -> RunStream:
        """Continue the run recorded under `run_id` from its last boundary.

        Nothing that finished is done again: a recorded model call or tool call is not made again,
        a finished sub-run gives back its recorded outcome; the call in flight at the crash is made
        again with the same ``(run_id, call_id)`` idempotency key. A finished run gives back its
        answer (its last `MessageOutput`) and terminal event.

        Args:
            run_id: the recorded run.
            agent: the agent that ran it (its definition must match the recorded one).
            ctx: the run context (the session's history is not prepended again: the recorded input has it).
            replay: also deliver the events recorded before the crash, so the stream is the whole run's;
                by default only what was not delivered yet comes (after a fresh `RunStarted`), each event
                after an `AgentUpdated` naming its agent when the one announced last was dropped.
            approvals: for a run that paused (`RunPaused`), a decision per waiting call id: `Approve()`
                (optionally ``Approve(arguments=...)``, checked again) runs the call, `Reject(reason)`
                answers it with ``permission denied: reason``; calls left out wait on, and the run
                pauses again. A decision reaches the sub-run whose call waits (an agent-as-tool
                sub-run, a workflow's child). The run's permissions come from `ctx`, as for `run`.

        Raises:
            ValueError: this runner has no store.
            RunNotFound: on entering the stream, when nothing is recorded under `run_id`.
            IncompatibleRunError: on entering the stream, when `agent`'s definition differs from the recorded one.
            TypeError: `approvals` maps something other than call ids to `Approve`/`Reject`.
        """
        if self.store is None:
            raise ValueError("resume needs the store the run was recorded in: Runner(config, store=...)")
        run_ctx = attrs.evolve(
            _root(ctx, self.config),
            durable=Durability(self.store, run_id),
            approvals=Approvals(approvals) if approvals else ctx.approvals,
        )
        return self._stream(agent, run_ctx, AgentInput(()), _Mode(resume=True, replay=replay))

    def _stream(self, agent: Agent[Any], ctx: RunContext[Any], input: AgentInput, mode: _Mode) -> RunStream:
        return open_run_stream(
            partial(self._produce, agent, ctx, input, mode),
            direct=partial(self._drive, agent, ctx, input, mode, _ignore),
        )

    async def _produce(  # noqa: ASYNC128 - `_drive` calls `task_status.started` once the run has started
        self,
        agent: Agent[Any],
        ctx: RunContext[Any],
        input: AgentInput,
        mode: _Mode,
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        async with send_channel:
            await self._drive(agent, ctx, input, mode, task_status.started, sender(send_channel))

    async def _drive(
        self,
        agent: Agent[Any],
        ctx: RunContext[Any],
        input: AgentInput,
        mode: _Mode,
        started: Callable[[], None],
        send: Send,
    ) -> None:
        """Run `agent` under the deadline, forwarding its events to `send` and recording its items.

        `started` is called once the run has started; whatever is raised before that is a failure
        to start and propagates.
        """
        opening = await _open(agent, ctx, input, mode)
        ctx = opening.ctx
        relay = _Relay(send, opening.new_items, opening.kept, _resumed_stream(ctx, mode))
        start = _Start(started)
        recorded = False
        terminal: TerminalEvent
        try:
            terminal = await self._run(agent, ctx, opening.input, relay, start)
        except Exception as exc:
            # Also trio's BrokenResourceError: the agent's own stream may break that way. Should it
            # come from `send` instead (the consumer has gone), sending the terminal raises it again.
            if not start.done:
                recorded = True  # a run that never started leaves the session as it was
                raise
            terminal = RunFailed(OtherError(f"internal error: {type(exc).__name__}: {exc}"))
        finally:
            if not recorded:
                await relay.record(ctx.session)  # noqa: ASYNC102 - shielded inside; a store bounds its own waits (busy/pool timeouts)
        failure = relay.session_failure
        await relay.finish(terminal if failure is None else failure)

    async def _run(
        self, agent: Agent[Any], ctx: RunContext[Any], input: AgentInput, relay: _Relay, start: _Start
    ) -> TerminalEvent:
        """Forward the agent's run under the deadline; a run that gave no terminal event still gets one, and starts."""
        timeout = self.config.timeout
        deadline = trio.current_time() + timeout if timeout is not None else math.inf
        with trio.CancelScope(deadline=deadline) as scope:
            if ctx.tracer is None or timeout is None:
                await forward_run(agent.run(ctx, input), relay.forward, started=start)
            else:
                with run_deadline(deadline):  # so the tracer can tell a timeout from a cancel
                    await forward_run(agent.run(ctx, input), relay.forward, started=start)
        terminal = relay.terminal
        if terminal is None:
            terminal = _missing_terminal(agent, ctx, timeout, timed_out=scope.cancelled_caught)
        if not start.done:
            start()
            await relay.send(RunStarted(agent.name, ctx.run_id))
        return terminal


def _root(ctx: RunContext[Ctx], config: RunConfig) -> RunContext[Ctx]:
    """`ctx` as the context of a run of its own: `config` installed, at the top of its tree (a context taken from
    inside a sub-run, a tool's, keeps no place of it: its scope and its loop's stream stay behind)."""
    return attrs.evolve(ctx, run_config=config, scope="", stream=None)


@attrs.frozen
class _Opening:
    """What `Runner._drive` starts a run from."""

    ctx: RunContext[Any]
    """The run context (a given run id found unused is marked fresh on it)."""
    input: AgentInput
    """The agent's whole input: the session history then the new input, or a recorded run's input."""
    new_items: tuple[Item, ...]
    """The items of the input that are the run's own, for the session."""
    kept: ReplayMarks | None = None
    """A paused run's replay marks: its replayed items are in the session already."""


async def _open(agent: Agent[Any], ctx: RunContext[Any], input: AgentInput, mode: _Mode) -> _Opening:
    """Where a run starts: the session history before its input, or, resumed, the recorded run's input."""
    history = await ctx.session.items()
    durable = ctx.durable
    if durable is not None and mode.resume:
        return await _reopen(agent, ctx, durable, history)
    if durable is not None and not durable.fresh:
        ctx = await _claim(ctx, durable)
    full_input = AgentInput.from_items(history + input.items) if history else input
    return _Opening(ctx, full_input, input.items)


async def _reopen(agent: Agent[Any], ctx: RunContext[Any], durable: Durability, history: tuple[Item, ...]) -> _Opening:
    """A recorded run's opening, checked against `agent`'s definition so a changed agent is refused."""
    opened = await read_opened(durable.store, durable.run_id)
    expected = getattr(agent, "durable_fingerprint", None)
    if callable(expected):
        check_compatible(opened, durable.run_id, agent.name, expected())
    full_input = AgentInput(opened.input)
    if await paused_run(durable.store, durable.run_id):
        return _Opening(ctx, full_input, (), durable.marks)  # its pause appended them, and every replayed item
    # the recorded input is the history then the new input: only the new part is the run's own
    own = opened.input[len(history) :] if opened.input[: len(history)] == history else opened.input
    return _Opening(ctx, full_input, own)


async def _claim(ctx: RunContext[Any], durable: Durability) -> RunContext[Any]:
    """Refuse a given run id that has records; one with nothing under it names a fresh run (so do its sub-runs')."""
    recorded = await records_under(durable.store, durable.run_id)
    if recorded:
        raise RunRecordConflict(
            f"a run is recorded under {durable.run_id!r} already; continue it with runner.resume(run_id, agent, ctx)"
        )
    if recorded is None:  # nothing under this id, so nothing under its sub-runs' ids either
        return attrs.evolve(ctx, durable=attrs.evolve(durable, fresh=True))
    return ctx


def _resumed_stream(ctx: RunContext[Any], mode: _Mode) -> _ResumedStream | None:
    """The filter of a resumed run that does not replay; a fresh run replays nothing, so it marks nothing."""
    durable = ctx.durable
    if durable is None or not mode.resume or mode.replay:
        return None
    return _ResumedStream(durable.marks)


def _missing_terminal(agent: Agent[Any], ctx: RunContext[Any], timeout: float | None, *, timed_out: bool) -> RunFailed:
    """The terminal event of a run that gave none: it timed out, was cancelled, or its agent is broken."""
    if timed_out:
        return RunFailed(TimedOut(timeout or 0.0))
    if ctx.cancelled:
        return RunFailed(Cancelled(ctx.cancel_token.reason or "run cancelled"))
    return RunFailed(OtherError(f"agent {agent.name!r} ended its stream without a terminal event"))


class _Start:
    """The run's `started` callback, remembering that it was called: a failure before it propagates."""

    __slots__ = ("_started", "done")

    def __init__(self, started: Callable[[], None]) -> None:
        self._started = started
        self.done = False

    def __call__(self) -> None:
        self.done = True
        self._started()


class _Relay:
    """Passes a run's events on: each to the consumer (through a resumed run's filter), its items to the
    session's list, and its terminal event held back until the session is written."""

    __slots__ = ("_kept", "_resumed", "new_items", "send", "session_failure", "terminal")

    def __init__(
        self, send: Send, new_items: tuple[Item, ...], kept: ReplayMarks | None, resumed: _ResumedStream | None
    ) -> None:
        self.send = send
        self.new_items: list[Item] = list(new_items)
        self._kept = kept
        self._resumed = resumed
        self.terminal: TerminalEvent | None = None
        """The agent's terminal event: nothing after it is forwarded."""
        self.session_failure: RunFailed | None = None
        """Set when the session could not be written: it replaces the run's terminal event."""

    async def forward(self, event: AgentEvent) -> None:  # noqa: ASYNC910 - a pass-through per event, as `sender`
        """Deliver `event` and keep its item, or hold it back when it is the terminal event."""
        if self.terminal is not None:
            return  # noqa: ASYNC910 - a pass-through per event, as `sender`
        match event:
            case RunCompleted() | RunFailed() | RunPaused():
                self.terminal = event
                return  # noqa: ASYNC910
            case MessageOutput(item=item) | ToolCallItem(item=item) | ToolOutputItem(item=item):
                if self._kept is None or not self._kept.has(event):
                    self.new_items.append(item)
        if self._resumed is None:
            await self.send(event)
            return
        for delivered in self._resumed.deliver(event):  # (none: delivered before the crash; a replay takes no turn)
            await self.send(delivered)

    async def record(self, session: Session) -> None:  # noqa: ASYNC910 - the append is the checkpoint (a failure comes out of it)
        """Append the run's new items to `session`, also when the run was cancelled or timed out."""
        try:
            with trio.CancelScope(shield=True):  # a cancelled or timed-out run is recorded too
                await session.append(self.new_items)
        except Exception as exc:
            self.session_failure = RunFailed(SessionFailed(f"{type(exc).__name__}: {exc}"))

    async def finish(self, terminal: TerminalEvent) -> None:
        """Deliver a resumed run's dropped answer, then `terminal`, unless the consumer has gone."""
        try:
            if self._resumed is not None and type(terminal) is RunCompleted:
                for delivered in self._resumed.answer():
                    await self.send(delivered)
            await self.send(terminal)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return  # noqa: ASYNC910 - the consumer has gone; the run passed checkpoints before


class _ResumedStream:
    """What a resumed run's stream delivers of its events when it does not replay: what was not delivered
    before the crash, each after the announcement of the agent it belongs to, and the run's answer.

    The events recorded before the crash come out of the run marked (`ReplayMarks`) and are dropped, and
    with them the `AgentUpdated` that announced the agent still active (a handoff target, at any depth):
    so before an event that is delivered, the agent announced last in the whole run (dropped or not) is
    announced again if the consumer was last told of another. The run's last `MessageOutput` is its
    answer (`RunResult.final_output`): when it was a dropped replay, it goes out again before a
    `RunCompleted`, so a finished run resumed gives back its answer.
    """

    __slots__ = ("_active", "_announced", "_answer", "_marks")

    def __init__(self, marks: ReplayMarks) -> None:
        self._marks = marks
        self._active = ""
        """The agent announced last in the whole run, replays included."""
        self._announced = ""
        """The agent announced last on the delivered stream."""
        self._answer: tuple[str, MessageOutput] | None = None
        """The run's last `MessageOutput` if it was dropped, with the agent active then."""

    def deliver(self, event: AgentEvent) -> tuple[AgentEvent, ...]:
        """What goes out for `event`: nothing (a replay), the event, or an announcement then the event."""
        replayed = self._marks.take(event)
        if type(event) is RunStarted or type(event) is AgentUpdated:
            self._active = event.agent
            if replayed:
                return ()
            self._announced = event.agent
            return (event,)
        if type(event) is MessageOutput:
            self._answer = (self._active, event) if replayed else None
        if replayed:
            return ()
        return (*self._announce(self._active), event)

    def answer(self) -> tuple[AgentEvent, ...]:
        """What goes out before the run's `RunCompleted`: its answer, when it was a dropped replay."""
        if self._answer is None:
            return ()
        agent, message = self._answer
        self._answer = None
        return (*self._announce(agent), message)

    def _announce(self, agent: str) -> tuple[AgentEvent, ...]:
        if agent == self._announced:
            return ()
        self._announced = agent
        return (AgentUpdated(agent),)


@attrs.frozen
class _Mode:
    """How `Runner._drive` starts: a new run, or a resumed one (replaying its recorded events or not)."""

    resume: bool = False
    replay: bool = False


def _ignore() -> None:
    """A `started` callback for runs drained in the caller's task, which have no task status to report."""
