"""The driver: runs the side effects between the pure `transition` steps of one model loop.

It runs a `LoopDefinition` (an `LlmAgent` builds one) and reads nothing else of the agent.

One loop: feed the machine, emit the outcome's events, extend the conversation with its appends,
then perform its `NextAction` —

- `CallModel`: stream the model; forward its deltas live (`TokenDelta`, `ReasoningDelta`,
  `ToolCallDelta`) and fold the stream into a `ModelResponse` for the next step. A model failure
  ends the run with `RunFailed(ModelFailed)`; a stream that ends without `ModelFinish` was cut
  short (rule 2 of the `Model` protocol) and fails with kind ``TRANSPORT``.
- `ExecuteTools`: run every call of the turn at once in one nursery, at most
  ``parallel_tool_call_limit`` at a time (a `trio.CapacityLimiter`); each call writes its result
  into its own slot, so results keep call order. Tool failures are results the model reads.
- `PerformHandoff`: run the target agent on the transcript in a child context and continue this
  stream with its events (its `RunStarted` dropped, its `RunCompleted` carrying both usages),
  through `forward_run` like any other consumer of a run.
- `Terminate`: return the terminal event; `emit_run` sends it.

Nothing here logs, and everything a run needs that does not change per turn (tool definitions,
the transition context, the limiter) is built once per run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, TypeAlias, assert_never, cast

import trio

from ..core import (
    AgentEvent,
    ApplyingHandoff,
    CallModel,
    Conversation,
    ExecuteTools,
    HandoffTarget,
    ModelEvent,
    ModelFailed,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelRequest,
    ModelResponse,
    ModelSettings,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    OtherError,
    OutputSchema,
    PerformHandoff,
    ReasoningDelta,
    RunCompleted,
    RunFailed,
    RunStarted,
    Start,
    TerminalEvent,
    Terminate,
    TokenDelta,
    ToolCall,
    ToolCallDelta,
    ToolDef,
    ToolResult,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    UnknownHandoffTarget,
    assemble_response,
    initial_state,
    transition,
)
from ..core.records import RecordLogError
from ..core.usage import one_call
from ..models.protocol import Model, ModelError
from .config import RunConfig
from .context import RunContext
from .definition import LoopDefinition
from .durable import IncompatibleRunError, child_context
from .durable_llm import LlmRecording, handoff_segment
from .input import AgentInput
from .results import HandoffCollisionError, RunError
from .run_stream import RunStreamManager, Send, emit_run, forward_run, open_run_stream, sender
from .tool import Tool
from .tool_exec import execute_tool_call
from .tracing import trace_model_call, traced_tool_call

_DEFAULT_CONFIG = RunConfig()


def open_loop_run(definition: LoopDefinition, ctx: RunContext[Any], input: AgentInput) -> RunStreamManager:
    """The run stream of one model loop (what `LlmAgent.run` returns); it also has a direct form (`forward_run`)."""
    return open_run_stream(
        partial(_produce, definition, ctx, input),
        check=partial(check_can_start, definition),
        wait_started=False,
        direct=partial(_run_direct, definition, ctx, input),
    )


def check_can_start(definition: LoopDefinition) -> None:
    """Refuse to start a run that could not work.

    Raises:
        HandoffCollisionError: two of the agent's handoffs (or a handoff and a tool) share a tool name.
    """
    if definition.collision is not None:
        raise HandoffCollisionError(definition.collision)


async def _produce(
    definition: LoopDefinition,
    ctx: RunContext[Any],
    input: AgentInput,
    send_channel: trio.MemorySendChannel[AgentEvent],
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """The producer of a model loop's run stream (see `open_run_stream`)."""
    task_status.started()
    async with send_channel:
        await emit_run(sender(send_channel), ctx, definition.name, partial(drive, definition, ctx, input))


async def _run_direct(definition: LoopDefinition, ctx: RunContext[Any], input: AgentInput, send: Send) -> None:
    """A model loop run in the caller's task: every event, the terminal included, goes to `send`."""
    await emit_run(send, ctx, definition.name, partial(drive, definition, ctx, input))


_FixedContext: TypeAlias = tuple[
    str, str | None, tuple[ToolDef, ...], tuple[HandoffTarget, ...], ModelSettings, int, OutputSchema | None, int, int
]
"""What a run's `TransitionCtx` keeps from step to step: everything but the conversation."""


def _context_with(fixed: _FixedContext, conversation: Conversation) -> TransitionCtx:
    """The run's transition context over `conversation`.

    A module-level function over a tuple rather than a closure in `drive`: a closure would turn the
    variables it captures into cells and cost a function object per run, both tracked by the garbage
    collector for as long as the run lives (which shows with thousands of concurrent runs).
    """
    name, rendered, tool_defs, handoffs, settings, max_turns, schema, depth, max_depth = fixed
    return TransitionCtx(
        agent_name=name,
        instructions=rendered,
        conversation=conversation,
        tools=tool_defs,
        handoffs=handoffs,
        settings=settings,
        max_turns=max_turns,
        output_schema=schema,
        agent_depth=depth,
        max_agent_depth=max_depth,
    )


async def drive(definition: LoopDefinition, ctx: RunContext[Any], input: AgentInput, send: Send) -> TerminalEvent:
    """Run the loop of `definition` on `input`, sending every non-terminal event; return the terminal event.

    Checkpoints: the run starts with a schedule point (so thousands of concurrent runs take turns even
    when their models and tools never wait) and every step with a cancel point (a cancelled run stops
    at the next step, whatever its model does).
    """
    await trio.lowlevel.checkpoint()
    config = ctx.run_config or definition.run_config or _DEFAULT_CONFIG
    ctx = ctx.for_run(definition.run_config)  # what its tools, sub-runs and handoffs see
    meter = ctx.meter
    assert meter is not None
    return meter.completed(await _loop(definition, config, ctx, input, send))


async def _loop(
    definition: LoopDefinition, config: RunConfig, ctx: RunContext[Any], input: AgentInput, send: Send
) -> TerminalEvent:
    """The loop of `drive`; a `RunCompleted` it returns is completed with the run's meter."""
    name, instructions = definition.name, definition.instructions
    if callable(instructions):
        try:
            instructions = instructions(ctx)
        except Exception as exc:
            message = f"instructions of agent {name!r} failed: {type(exc).__name__}: {exc}"
            return RunFailed(OtherError(message))  # noqa: ASYNC910 - `drive` passed a schedule point just before
    conversation = Conversation(input.items)
    # Everything but the conversation is fixed for the run; rebuilding the context with the class
    # itself is about twice as fast as `attrs.evolve`.
    fixed: _FixedContext = (
        name,
        instructions or None,
        definition.tool_defs,
        definition.handoff_targets,
        definition.settings,
        config.max_turns,
        definition.output_schema,
        ctx.agent_depth,
        ctx.max_agent_depth,
    )
    tctx = _context_with(fixed, conversation)
    limit = config.parallel_tool_call_limit
    limiter = trio.CapacityLimiter(limit) if limit is not None else None
    tools = definition.tools_by_name
    model = definition.model
    tracer = ctx.tracer
    meter = ctx.meter
    assert meter is not None

    try:
        recording = await LlmRecording.open(definition, ctx, ctx.durable, input) if ctx.durable is not None else None
    except (IncompatibleRunError, RecordLogError) as exc:
        return RunFailed(OtherError(str(exc)))  # noqa: ASYNC910 - `drive` passed a schedule point just before
    redeliver: tuple[AgentEvent, ...] = ()
    if recording is None:
        state, step, resumed = initial_state(), cast("TransitionInput", Start()), False
    else:
        point = await recording.start(send)
        for answered in recording.point.answers:  # the recorded model calls count as if made now
            meter.add(name, one_call(answered.usage))
        if recording.finished_terminal is not None and not isinstance(point.state, ApplyingHandoff):
            return cast("TerminalEvent", recording.finished_terminal)
        # (a finished run that handed off goes on into the handoff: the target replays its own events)
        state, step, resumed, redeliver = point.state, point.step, point.resumed, point.redeliver
        conversation = point.conversation
        tctx = _context_with(fixed, conversation)
    while True:
        await trio.lowlevel.checkpoint_if_cancelled()
        outcome = transition(state, step, tctx)
        events = outcome.events
        action = outcome.next_action
        if resumed:  # `Start` re-asked a recorded boundary's action: it is recorded, its events went out
            events, resumed = redeliver, False
        elif recording is not None:
            await recording.boundary(outcome)
        if type(action) is Terminate:
            return await _finish_recorded(events, send, recording)
        for event in events:
            await send(event)
        appends = outcome.conversation_appends
        if appends:
            conversation = conversation.extend(appends)
            tctx = _context_with(fixed, conversation)
        state = outcome.next_state
        match action:
            case CallModel(request=request):
                sink = recording.collecting(send) if recording else send
                if tracer is None:
                    answer = await call_model(model, request, sink)
                else:
                    answer = await trace_model_call(tracer, call_model, model, request, sink)
                if type(answer) is RunFailed:
                    if recording is not None:
                        await recording.finish(answer)
                    return answer
                assert type(answer) is ModelResponse
                meter.add(name, one_call(answer.usage))
                if recording is not None:
                    recording.answered(answer)
                step = answer
            case ExecuteTools(calls=calls):
                step = ToolResults(await execute_tools(calls, tools, ctx, limiter, recording))
            case PerformHandoff(target=target, transcript=transcript):
                terminal = await hand_off(definition, target, transcript, ctx, send)
                if recording is not None:
                    await recording.finish(terminal)
                    if recording.finished_terminal is not None:
                        return cast("TerminalEvent", recording.finished_terminal)
                return terminal
            case Terminate():
                return await _finish_recorded(events, send, recording)
            case _:
                assert_never(action)


async def _finish_recorded(events: tuple[AgentEvent, ...], send: Send, recording: LlmRecording | None) -> TerminalEvent:
    """`_finish`, then the terminal event recorded (after the events it follows went out)."""
    terminal = await _finish(events, send)
    if recording is not None:
        await recording.finish(terminal)
    return terminal


async def _finish(events: tuple[AgentEvent, ...], send: Send) -> TerminalEvent:
    """Send all but the last event of the final step and return the last, the terminal."""
    for event in events[:-1]:
        await send(event)
    last = events[-1] if events else None
    if type(last) is RunCompleted or type(last) is RunFailed:
        return last  # noqa: ASYNC910 - only `drive` calls this, at a step that began with a cancel point
    return RunFailed(OtherError("internal error: the loop terminated without a terminal event"))  # noqa: ASYNC910


async def call_model(model: Model, request: ModelRequest, send: Send) -> ModelResponse | RunFailed:
    """Stream `model`'s answer to `request`, forwarding deltas live; return the assembled response."""
    received: list[ModelEvent] = []
    finished = False
    try:
        async with model.stream(request) as stream:
            async for event in stream:
                received.append(event)
                if isinstance(event, ModelTextDelta):
                    await send(TokenDelta(event.text))
                elif isinstance(event, ModelToolCallDelta):
                    await send(ToolCallDelta(event.call_id, event.name, event.args_delta))
                elif isinstance(event, ModelReasoningDelta):
                    await send(ReasoningDelta(event.text))
                elif isinstance(event, ModelFinish):
                    finished = True
                elif not isinstance(event, ModelUsage):  # ModelUsage needs no forwarding
                    message = f"model {model.name!r} streamed {type(event).__name__}, which is not a ModelEvent"
                    return RunFailed(ModelFailed(ModelFailureKind.OTHER, message))  # noqa: ASYNC910 - see below
    except Exception as exc:
        # Also trio's BrokenResourceError: a model on a trio stream raises it when its connection
        # breaks. Should it come from `send` instead (the consumer has gone), the terminal event's
        # own send raises it again and `emit_run` stops there.
        # No checkpoint of its own on these paths: the step that called the model began with a cancel point.
        return RunFailed(_model_failure(exc))  # noqa: ASYNC910
    if not finished:
        return RunFailed(
            ModelFailed(
                ModelFailureKind.TRANSPORT,
                f"the stream of model {model.name!r} ended without a finish reason (truncated)",
            )
        )
    return assemble_response(received)


def _model_failure(exc: Exception) -> ModelFailed:
    """A model failure as data: `ModelError` keeps its kind; anything else is ``OTHER``."""
    while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, ModelError):
        return exc.to_agent_error()
    return ModelFailed(ModelFailureKind.OTHER, f"{type(exc).__name__}: {exc}")


async def execute_tools(
    calls: tuple[ToolCall, ...],
    tools: Mapping[str, Tool[Any]],
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    recording: LlmRecording | None = None,
) -> tuple[ToolResult, ...]:
    """Run `calls` concurrently (at most `limiter`'s tokens at once); their results, in call order.

    With a `recording`, each result is recorded as its call finishes, and a call whose result was
    recorded before a crash is not run again.
    """
    run = execute_tool_call if ctx.tracer is None else traced_tool_call
    if recording is not None:
        return await _execute_recorded(calls, tools, ctx, limiter, recording, run)
    if len(calls) == 1 and limiter is None:
        call = calls[0]
        return (await run(tools.get(call.name), call, ctx, checked=True),)
    slots: list[ToolResult | None] = [None] * len(calls)

    async with trio.open_nursery() as nursery:
        for index, call in enumerate(calls):
            nursery.start_soon(_run_one, slots, index, call, tools.get(call.name), ctx, limiter, run)
    # Every slot is filled: `execute_tool_call` returns a result or is cancelled, and a cancelled
    # call makes the nursery raise before this line.
    return cast("tuple[ToolResult, ...]", tuple(slots))


async def _execute_recorded(
    calls: tuple[ToolCall, ...],
    tools: Mapping[str, Tool[Any]],
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    recording: LlmRecording,
    run: Callable[..., Awaitable[ToolResult]],
) -> tuple[ToolResult, ...]:
    """`execute_tools` for a recorded run: skip the calls recorded as finished, record the others one by one."""
    slots: list[ToolResult | None] = [recording.recorded_result(call) for call in calls]
    recording.round_started(slots.count(None))
    async with trio.open_nursery() as nursery:
        for index, call in enumerate(calls):
            if slots[index] is None:
                nursery.start_soon(
                    _run_recorded, slots, index, call, tools.get(call.name), ctx, limiter, recording, run
                )
    return cast("tuple[ToolResult, ...]", tuple(slots))


async def _run_recorded(
    slots: list[ToolResult | None],
    index: int,
    call: ToolCall,
    tool: Tool[Any] | None,
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    recording: LlmRecording,
    run: Callable[..., Awaitable[ToolResult]],
) -> None:
    """One tool call of a recorded round: run it, record its result, then fill its slot."""
    await _run_one(slots, index, call, tool, ctx, limiter, run)
    result = slots[index]
    assert result is not None
    await recording.tool_finished(result)


async def _run_one(
    slots: list[ToolResult | None],
    index: int,
    call: ToolCall,
    tool: Tool[Any] | None,
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    run: Callable[..., Awaitable[ToolResult]] = execute_tool_call,
) -> None:
    """One tool call of a round, its result stored in its own slot (module-level: no closure per round)."""
    if limiter is None:
        slots[index] = await run(tool, call, ctx, checked=True)
    else:
        async with limiter:
            slots[index] = await run(tool, call, ctx, checked=True)


async def hand_off(
    definition: LoopDefinition,
    target: str,
    transcript: Conversation,
    ctx: RunContext[Any],
    send: Send,
) -> TerminalEvent:
    """Run the handoff target on `transcript` one level deeper; forward its events; return its terminal.

    The target's `RunStarted` is dropped (the `HandoffItem` and `AgentUpdated` already announced it);
    its usage counts on this run's meter (see `UsageMeter.settle`), which completes the terminal.
    """
    await trio.lowlevel.checkpoint()
    resolve = definition.resolvers.get(target)
    if resolve is None:
        return RunFailed(UnknownHandoffTarget(target))
    try:
        successor = resolve()
    except Exception as exc:
        return RunFailed(OtherError(f"handoff target {target!r} could not be resolved: {type(exc).__name__}: {exc}"))
    forward = _HandoffForward(send)
    child_ctx, slot = ctx.handoff_child().with_meter_slot()
    try:
        child = child_context(child_ctx, ctx, handoff_segment(target))
        await forward_run(successor.run(child, AgentInput.from_items(transcript)), forward)
    except RunError as exc:
        return RunFailed(exc.error)
    terminal = forward.terminal
    if terminal is None:
        return RunFailed(OtherError(f"handoff target {target!r} ended its stream without a terminal event"))
    if type(terminal) is RunCompleted:
        slot.settle(successor.name, terminal.usage)
    return terminal


class _HandoffForward:
    """Passes a handoff target's events on: its `RunStarted` dropped, its terminal kept."""

    __slots__ = ("_send", "terminal")

    def __init__(self, send: Send) -> None:
        self._send = send
        self.terminal: TerminalEvent | None = None

    async def __call__(self, event: AgentEvent) -> None:  # noqa: ASYNC910 - a pass-through per event, as `sender`
        if type(event) is RunStarted:
            return  # noqa: ASYNC910
        if type(event) is RunCompleted or type(event) is RunFailed:
            self.terminal = event
        elif self.terminal is None:
            await self._send(event)
