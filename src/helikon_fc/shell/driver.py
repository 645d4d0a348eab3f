"""The driver: runs the side effects between the pure `transition` steps of one `LlmAgent` run.

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
  stream with its events (its `RunStarted` dropped, its `RunCompleted` carrying both usages).
- `Terminate`: return the terminal event; `emit_run` sends it.

Nothing here logs, and everything a run needs that does not change per turn (tool definitions,
the transition context, the limiter) is built once per run.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, TypeAlias, assert_never, cast

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
    Usage,
    assemble_response,
    initial_state,
    transition,
)
from ..core.records import RecordLogError
from ..models.protocol import Model, ModelError
from .config import RunConfig
from .context import RunContext
from .durable import IncompatibleRunError, child_context
from .durable_llm import LlmRecording, handoff_segment
from .input import AgentInput
from .results import HandoffCollisionError, RunError
from .run_stream import RunStreamManager, Send, emit_run, sender
from .tool import Tool
from .tool_exec import execute_tool_call

if TYPE_CHECKING:
    from ..agents.llm_agent import LlmAgent

_DEFAULT_CONFIG = RunConfig()
_DEFAULT_SETTINGS = ModelSettings()


def check_can_start(agent: LlmAgent[Any]) -> None:
    """Refuse to start a run that could not work.

    Raises:
        HandoffCollisionError: two of the agent's handoffs (or a handoff and a tool) share a tool name.
    """
    if agent._collision is not None:
        raise HandoffCollisionError(agent._collision)


async def produce_llm_run(
    agent: LlmAgent[Any],
    ctx: RunContext[Any],
    input: AgentInput,
    send_channel: trio.MemorySendChannel[AgentEvent],
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """The producer of an `LlmAgent` run stream (see `open_run_stream`)."""
    task_status.started()
    async with send_channel:
        await emit_run(sender(send_channel), ctx, agent.name, partial(drive, agent, ctx, input))


async def run_llm_direct(agent: LlmAgent[Any], ctx: RunContext[Any], input: AgentInput, send: Send) -> None:
    """An `LlmAgent` run in the caller's task: every event, the terminal included, goes to `send`."""
    await emit_run(send, ctx, agent.name, partial(drive, agent, ctx, input))


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


async def drive(agent: LlmAgent[Any], ctx: RunContext[Any], input: AgentInput, send: Send) -> TerminalEvent:
    """Run `agent`'s loop on `input`, sending every non-terminal event; return the terminal event."""
    config = ctx.run_config or agent.run_config or _DEFAULT_CONFIG
    instructions = agent.instructions
    if callable(instructions):
        try:
            instructions = instructions(ctx)
        except Exception as exc:
            return RunFailed(OtherError(f"instructions of agent {agent.name!r} failed: {type(exc).__name__}: {exc}"))
    conversation = Conversation(input.items)
    # Everything but the conversation is fixed for the run; rebuilding the context with the class
    # itself is about twice as fast as `attrs.evolve`.
    name, rendered, tool_defs, handoffs = agent.name, instructions or None, agent._tool_defs, agent._handoff_targets
    settings, max_turns, schema = agent.model_settings or _DEFAULT_SETTINGS, config.max_turns, agent._output_schema
    depth, max_depth = ctx.agent_depth, config.max_agent_depth

    fixed: _FixedContext = (name, rendered, tool_defs, handoffs, settings, max_turns, schema, depth, max_depth)
    tctx = _context_with(fixed, conversation)
    limit = config.parallel_tool_call_limit
    limiter = trio.CapacityLimiter(limit) if limit is not None else None
    tools = agent._tools_by_name
    model = agent.model

    try:
        recording = await LlmRecording.open(agent, ctx, ctx.durable, input) if ctx.durable is not None else None
    except (IncompatibleRunError, RecordLogError) as exc:
        return RunFailed(OtherError(str(exc)))
    redeliver: tuple[AgentEvent, ...] = ()
    if recording is None:
        state, step, resumed = initial_state(), cast("TransitionInput", Start()), False
    else:
        point = await recording.start(send)
        if recording.finished_terminal is not None and not isinstance(point.state, ApplyingHandoff):
            return cast("TerminalEvent", recording.finished_terminal)
        # (a finished run that handed off goes on into the handoff: the target replays its own events)
        state, step, resumed, redeliver = point.state, point.step, point.resumed, point.redeliver
        conversation = point.conversation
        tctx = _context_with(fixed, conversation)
    while True:
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
                answer = await call_model(model, request, recording.collecting(send) if recording else send)
                if type(answer) is RunFailed:
                    if recording is not None:
                        await recording.finish(answer)
                    return answer
                assert type(answer) is ModelResponse
                if recording is not None:
                    recording.answered(answer)
                step = answer
            case ExecuteTools(calls=calls):
                step = ToolResults(await execute_tools(calls, tools, ctx, limiter, recording))
            case PerformHandoff(target=target, transcript=transcript):
                terminal = await hand_off(agent, target, transcript, state.usage, ctx, send)
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
        return last
    return RunFailed(OtherError("internal error: the loop terminated without a terminal event"))


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
                    return RunFailed(ModelFailed(ModelFailureKind.OTHER, message))
    except Exception as exc:
        # Also trio's BrokenResourceError: a model on a trio stream raises it when its connection
        # breaks. Should it come from `send` instead (the consumer has gone), the terminal event's
        # own send raises it again and `emit_run` stops there.
        return RunFailed(_model_failure(exc))
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
    tools: dict[str, Tool[Any]],
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    recording: LlmRecording | None = None,
) -> tuple[ToolResult, ...]:
    """Run `calls` concurrently (at most `limiter`'s tokens at once); their results, in call order.

    With a `recording`, each result is recorded as its call finishes, and a call whose result was
    recorded before a crash is not run again.
    """
    if recording is not None:
        return await _execute_recorded(calls, tools, ctx, limiter, recording)
    if len(calls) == 1 and limiter is None:
        call = calls[0]
        return (await execute_tool_call(tools.get(call.name), call, ctx, checked=True),)
    slots: list[ToolResult | None] = [None] * len(calls)

    async with trio.open_nursery() as nursery:
        for index, call in enumerate(calls):
            nursery.start_soon(_run_one, slots, index, call, tools.get(call.name), ctx, limiter)
    # Every slot is filled: `execute_tool_call` returns a result or is cancelled, and a cancelled
    # call makes the nursery raise before this line.
    return cast("tuple[ToolResult, ...]", tuple(slots))


async def _execute_recorded(
    calls: tuple[ToolCall, ...],
    tools: dict[str, Tool[Any]],
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    recording: LlmRecording,
) -> tuple[ToolResult, ...]:
    """`execute_tools` for a recorded run: skip the calls recorded as finished, record the others one by one."""
    slots: list[ToolResult | None] = [recording.recorded_result(call) for call in calls]
    recording.forget_recorded_results()
    async with trio.open_nursery() as nursery:
        for index, call in enumerate(calls):
            if slots[index] is None:
                nursery.start_soon(_run_recorded, slots, index, call, tools.get(call.name), ctx, limiter, recording)
    return cast("tuple[ToolResult, ...]", tuple(slots))


async def _run_recorded(
    slots: list[ToolResult | None],
    index: int,
    call: ToolCall,
    tool: Tool[Any] | None,
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    recording: LlmRecording,
) -> None:
    """One tool call of a recorded round: run it, record its result, then fill its slot."""
    await _run_one(slots, index, call, tool, ctx, limiter)
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
) -> None:
    """One tool call of a round, its result stored in its own slot (module-level: no closure per round)."""
    if limiter is None:
        slots[index] = await execute_tool_call(tool, call, ctx, checked=True)
    else:
        async with limiter:
            slots[index] = await execute_tool_call(tool, call, ctx, checked=True)


async def hand_off(
    agent: LlmAgent[Any],
    target: str,
    transcript: Conversation,
    usage: Usage,
    ctx: RunContext[Any],
    send: Send,
) -> TerminalEvent:
    """Run the handoff target on `transcript` one level deeper; forward its events; return its terminal.

    The target's `RunStarted` is dropped (the `HandoffItem` and `AgentUpdated` already announced it);
    its `RunCompleted` is replaced by one carrying this run's usage plus the target's.
    """
    handoff = agent._handoffs_by_agent.get(target)
    if handoff is None:
        return RunFailed(UnknownHandoffTarget(target))
    try:
        successor = handoff.resolve()
    except Exception as exc:
        return RunFailed(OtherError(f"handoff target {target!r} could not be resolved: {type(exc).__name__}: {exc}"))
    terminal: TerminalEvent | None = None

    async def forward(event: AgentEvent) -> None:
        nonlocal terminal
        if isinstance(event, RunStarted):
            return
        if isinstance(event, RunCompleted):
            terminal = RunCompleted(usage + event.usage)
        elif isinstance(event, RunFailed):
            terminal = event
        elif terminal is None:
            await send(event)

    try:
        child = child_context(ctx.handoff_child(), ctx, handoff_segment(target))
        run = successor.run(child, AgentInput.from_items(transcript))
        if isinstance(run, RunStreamManager) and run.can_drain:
            await run.drain(forward)  # an LlmAgent target runs in this task: no extra hop per event
        else:
            async with run as events:
                async for event in events:
                    await forward(event)
    except RunError as exc:
        return RunFailed(exc.error)
    if terminal is None:
        return RunFailed(OtherError(f"handoff target {target!r} ended its stream without a terminal event"))
    return terminal
