"""What the workflow agents (sequential, parallel, loop, graph, swarm) share: one outer event
stream, running a child agent into it, and writing a child's answer to the run's state.

The merge convention, the same for every workflow agent:

- the outer stream starts with one `RunStarted(<workflow name>)` and ends with exactly one
  terminal event (`RunCompleted` with the subtree's usage, or `RunFailed`), last;
- each child's own `RunStarted` becomes `AgentUpdated(<child name>)` (which agent is now active);
- a child that pauses for approval (`RunPaused`) pauses the workflow, once the children running
  beside it have ended: its `RunPaused` lists every waiting call, and a resume continues the
  paused children (finished ones replay);
- each child's terminal event is swallowed: its usage counts on the workflow's `UsageMeter` (every
  model call below counts as it is made; `run_child` settles what a custom agent only reports), so
  the workflow's `RunCompleted` carries the usage of its whole subtree, by agent (the meter is the
  one source: a body returns `COMPLETED` and `open_workflow_stream` puts the meter's totals in);
  `RunFailed.error` decides what the workflow does next;
- every other child event passes through unchanged and live;
- where children run concurrently (parallel branches, graph nodes) their events interleave, and
  `Interleaving` keeps them attributable: an `AgentUpdated(<agent>)` goes out whenever the agent
  whose event comes next differs from the last one announced, so every event on the outer stream
  belongs to the agent most recently announced before it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeAlias, TypeVar, cast

import attrs
import trio

from ..core import (
    AgentError,
    AgentEvent,
    AgentUpdated,
    HookFailed,
    JsonValue,
    MaxAgentDepthExceeded,
    OtherError,
    RunCompleted,
    RunFailed,
    TerminalEvent,
)
from ..core.patterns import (
    COMPLETED as COMPLETED,
    ChildFailed as ChildFailed,
    ChildOutcome as ChildOutcome,
    ChildPaused as ChildPaused,
    ChildSucceeded as ChildSucceeded,
    compact_json as compact_json,
    subrun,
)
from ..core.records import RecordLogError
from ..shell.context.run_context import RunContext
from ..shell.control.hooks import subagent_stopped
from ..shell.durable.run_log import (
    Durability,
    IncompatibleRunError,
    ReplayMarks,
    definition_fingerprint,
    open_log,
    relayed,
)
from ..shell.input import AgentInput
from ..shell.loop.controls import failing_on_hook
from ..shell.loop.run_stream import emit_run, open_run_stream
from ..shell.telemetry.metering import UsageMeter
from .protocol import Agent, RunStream

Ctx = TypeVar("Ctx")

Emit: TypeAlias = Callable[[AgentEvent], Awaitable[None]]
"""Sends one event to the outer stream (waits while the consumer is behind: backpressure)."""


def write_state(ctx: RunContext[Ctx], key: str, text: str) -> None:
    """Store a child's final `text` under `key` in the run's shared state (as a JSON string)."""
    ctx.state.set(key, text)


def depth_error(ctx: RunContext[Ctx]) -> MaxAgentDepthExceeded | None:
    """The error for running children one level below `ctx`, if that is deeper than allowed.

    The limit is `RunContext.max_agent_depth`: the tightest of the limits in force above (which cross
    every boundary, agent-as-tool included) and the context's run config (default 8).
    """
    return subrun.depth_error(ctx.agent_depth, ctx.max_agent_depth)


def _describe(exc: BaseException) -> str:
    error = getattr(exc, "error", None)
    return str(error) if error is not None else f"{type(exc).__name__}: {exc}"


def _error_of(exc: Exception) -> AgentError:
    """The `AgentError` an exception raised while starting a child carries, or an `OtherError`."""
    error = getattr(exc, "error", None)
    if isinstance(error, AgentError):
        return error
    return OtherError(f"could not start: {_describe(exc)}")


async def run_child(
    agent: Agent[Ctx], ctx: RunContext[Ctx], input: AgentInput, emit: Emit, segment: str = "", *, shown: bool = True
) -> ChildOutcome:
    """Run `agent` to its end, forwarding its events to `emit` by the merge convention, then fire
    `OnSubagentStop` on ``ctx.hooks`` (a workflow child's context shares its workflow's run-level hooks;
    an agent-as-tool's isolated context has none, so `AgentAsTool` fires it on its caller's).

    What is forwarded and what the end means is `core.patterns.subrun`'s (a relay): the questions of
    the child's waiting calls are qualified by its `segment`; a child that is not `shown` (an
    agent-as-tool's) forwards nothing. Never raises for a failing child: a failure to start, a
    `RunFailed`, a stream that raises, or one that ends without a terminal event all come back as
    `ChildFailed` (only cancellation, the outer consumer going away, and a raising `OnSubagentStop`
    hook's `HookFailure` propagate). The answer text is the text of the child's last `MessageOutput`
    ("" if it produced none).
    """
    kind = subrun.SubRun.CHILD if shown else subrun.SubRun.TOOL
    outcome = await _run_child(agent, ctx, input, emit, subrun.relay_of(kind, agent.name, segment))
    await subagent_stopped(ctx, agent.name)
    return outcome


async def _run_child(
    agent: Agent[Ctx], ctx: RunContext[Ctx], input: AgentInput, emit: Emit, state: subrun.Relay
) -> ChildOutcome:
    """`run_child` up to the child's end."""
    started = False
    emitting = False
    ctx, slot = ctx.with_meter_slot()
    marks = ctx.durable.marks if ctx.durable is not None else None
    try:
        async with agent.run(ctx, input) as events:
            started = True
            async for event in events:
                state, passed = relayed(marks, state, event)
                if type(event) is RunCompleted and state.terminal is event:
                    slot.settle(agent.name, event.usage)
                for each in passed:
                    emitting = True
                    await emit(each)
                    emitting = False
    except Exception as exc:
        if emitting:  # the outer consumer is gone: not the child's failure
            raise
        await trio.lowlevel.checkpoint()  # a failed child may not have waited for anything
        if not started:  # a failure to start raises from run()/__aenter__ by contract
            return ChildFailed(_error_of(exc))
        if state.terminal is None:
            return ChildFailed(OtherError(f"agent {agent.name!r} broke its stream: {_describe(exc)}"))
        # the stream failed while closing, after its terminal event: that event says how it ended
    return subrun.child_end(state)


class Interleaving:
    """Merges the events of concurrent children into one stream, keeping each event attributable.

    Each child gets its own emitter (`emitter`). A child's `AgentUpdated` only records which agent
    is active in that child; before the child's next other event, if the outer stream last
    announced a different agent, an `AgentUpdated` for this child's agent goes out first. The
    workflow's own events (`emit`) are announced the same way, as its `owner`'s, so a merged
    message never follows the announcement of one of its branches (at any depth: a nested
    workflow's announcement of itself reaches the outer one as a child's `AgentUpdated`). A lock
    keeps each announcement and its event together.
    """

    __slots__ = ("_announced", "_emit", "_lock", "_owner")

    def __init__(self, emit: Emit, owner: str) -> None:
        self._emit = emit
        self._owner = owner
        self._lock = trio.Lock()
        self._announced: str | None = owner  # the workflow's RunStarted announced it

    def emitter(self) -> Emit:
        """An emitter for one concurrent child."""
        active: str | None = None

        async def send(event: AgentEvent) -> None:
            nonlocal active
            if isinstance(event, AgentUpdated):
                active = event.agent
                return  # noqa: ASYNC910 - a pass-through per event, as `shell.loop.run_stream.sender`
            async with self._lock:
                if active is not None and active != self._announced:
                    self._announced = active
                    await self._emit(AgentUpdated(active))
                await self._emit(event)

        return send

    async def emit(self, event: AgentEvent) -> None:
        """Send an event of the workflow itself, announcing the workflow first if a child was announced last."""
        async with self._lock:
            if self._announced != self._owner:
                self._announced = self._owner
                await self._emit(AgentUpdated(self._owner))
            await self._emit(event)


Body: TypeAlias = Callable[[Emit, RunContext[Ctx]], Awaitable[TerminalEvent]]
"""A workflow's work: emits events as it goes and returns its terminal event. It runs its children in the
context it is given (the workflow's own: its usage meter and depth limit), not the one `run` was called with."""


def workflow_fingerprint(
    pattern: str, name: str, children: tuple[tuple[str, Agent[Any]], ...], **more: JsonValue
) -> str:
    """The fingerprint of a workflow's recorded runs: its kind, name, children (keys and agent names) and `more`."""
    definition: dict[str, JsonValue] = {"name": name, "children": [[key, agent.name] for key, agent in children]}
    definition.update(more)
    return definition_fingerprint(pattern, definition)


def open_workflow_stream(
    name: str,
    ctx: RunContext[Ctx],
    body: Body[Ctx],
    *,
    input: AgentInput | None = None,
    pattern: str = "workflow",
    fingerprint: str | None = None,
) -> RunStream:
    """The run stream of a workflow agent called `name` (see `open_run_stream`).

    Emits `RunStarted(name)`, fails at once with `MaxAgentDepthExceeded` if children would nest
    deeper than allowed, then runs `body` and ends with the terminal event it returns. A cancelled
    run context stops `body` and ends the stream with `RunFailed(Cancelled)`; a bug inside `body`
    ends it with `RunFailed(OtherError)` rather than a traceback out of the stream. Leaving the
    ``async with`` block early cancels every child still running.

    A recorded run (``ctx.durable``, with a `fingerprint`) opens its own log with `input`, records
    its terminal event, and on resume runs `body` again: its children find their own logs and
    continue them (finished ones give back their outcomes without running). When the workflow had
    finished, every event of that second pass is a replay, and its recorded terminal is returned.
    """
    run = _WorkflowRun(name, ctx, body, input, pattern, fingerprint)
    return open_run_stream(run.produce)


@attrs.frozen
class _WorkflowRun(Generic[Ctx]):
    """One run of a workflow agent, as `open_workflow_stream` describes it: its producer and its steps."""

    name: str
    ctx: RunContext[Ctx]
    body: Body[Ctx]
    input: AgentInput | None
    pattern: str
    fingerprint: str | None

    async def produce(
        self,
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """The stream's producer: the run's events into `send_channel`, which it closes at the end."""
        async with send_channel:
            task_status.started()
            await emit_run(send_channel.send, self.ctx, self.name, self.guarded)

    async def guarded(self, emit: Emit) -> TerminalEvent:
        """The run after its `RunStarted`: refused too deep, recorded when durable, ending with the meter's usage."""
        run_ctx = self.ctx.for_run()
        too_deep = depth_error(run_ctx)
        if too_deep is not None:
            return RunFailed(too_deep)  # noqa: ASYNC910 - `emit_run` sent RunStarted (a channel send) just before
        meter = run_ctx.meter
        assert meter is not None
        durable = run_ctx.durable
        if durable is None or self.fingerprint is None:
            return meter.completed(await self._run_body(emit, run_ctx))
        return await self._recorded(emit, run_ctx, meter, durable, self.fingerprint)

    async def _recorded(
        self, emit: Emit, run_ctx: RunContext[Ctx], meter: UsageMeter, durable: Durability, fingerprint: str
    ) -> TerminalEvent:
        """A durable run: its own log opened, and on resume of a finished run every event replayed."""
        try:
            recorder, point = await open_log(
                durable,
                agent=self.name,
                pattern=self.pattern,
                fingerprint_=fingerprint,
                input=self.input or AgentInput(()),
            )
        except (IncompatibleRunError, RecordLogError) as exc:
            return RunFailed(OtherError(str(exc)))  # noqa: ASYNC910 - reading the log was a store call
        if point.finished is not None:
            # the children replay their usage onto the meter
            await self._run_body(_replaying(emit, durable.marks), run_ctx)
            return meter.completed(cast("TerminalEvent", point.finished.terminal))
        terminal = meter.completed(await self._run_body(emit, run_ctx))
        await recorder.finish(terminal)
        return terminal

    async def _run_body(self, emit: Emit, run_ctx: RunContext[Ctx]) -> TerminalEvent:
        """The body's terminal event; a raising OnSubagentStop hook fails the run."""
        terminal = await failing_on_hook(self.body(emit, run_ctx))
        return RunFailed(terminal) if isinstance(terminal, HookFailed) else terminal


def _replaying(emit: Emit, marks: ReplayMarks) -> Emit:
    """`emit` marking every event as a replay, for the second pass of a workflow that had finished."""

    async def replaying(event: AgentEvent) -> None:
        await emit(marks.mark(event))

    return replaying
