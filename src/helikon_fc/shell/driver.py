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
- `CallModel` from `Compacting`: the summary call, made with the compaction's model and without
  forwarding its deltas; a failure is fed back as `SummaryFailed` and the run goes on uncompacted.
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
    ApprovalRequested,
    AwaitApproval,
    CallModel,
    Compacting,
    CompactionPolicy,
    Conversation,
    ExecuteTools,
    HandoffTarget,
    HookFailed,
    JsonObject,
    LoopState,
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
    RunPaused,
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
    usage_problem,
)
from ..core.loop_steps import credited_model, ending, failed_step, model_step, problems_by_call
from ..core.patterns.subrun import Relay, SubRun, handoff_end, handoff_segment, relay, relay_of
from ..core.records import RecordLogError
from ..core.usage import one_call
from ..models.protocol import Model, ModelError
from .compaction import discard
from .config import RunConfig
from .context import RunContext, child_context
from .controls import InputGate, LoopControls, failing_on_hook
from .definition import LoopDefinition
from .durable import IncompatibleRunError
from .durable_llm import LlmRecording
from .guardrails import Tripped
from .hooks import HookFailure, Hooks, after_tool_call, before_tool_call, subagent_stopped
from .input import AgentInput
from .listed_tools import with_listed_tools
from .metering import UsageMeter
from .permissions import ApprovalAnswer
from .results import HandoffCollisionError, RunError
from .run_stream import RunStreamManager, Send, emit_run, forward_run, open_run_stream, sender
from .tool import Tool
from .tool_exec import execute_tool_call, traced_tool_call
from .tool_round import ApprovalPhase, CallDone, CallOutcome, invoke_call, round_results, run_call
from .tracing import Tracer, trace_model_call

_DEFAULT_CONFIG = RunConfig()
_NO_HOOKS: Hooks[Any] = Hooks()


def open_loop_run(definition: LoopDefinition, ctx: RunContext[Any], input: AgentInput) -> RunStreamManager:
    """The run stream of one model loop (what `LlmAgent.run` returns); it also has a direct form (`forward_run`)."""
    run = _LoopRun(definition, ctx, input)
    return open_run_stream(
        run.produce,
        check=partial(check_can_start, definition) if definition.collision is not None else None,
        wait_started=False,
        direct=run,
    )


def check_can_start(definition: LoopDefinition) -> None:
    """Refuse to start a run that could not work.

    Raises:
        HandoffCollisionError: two of the agent's handoffs (or a handoff and a tool) share a tool name.
    """
    if definition.collision is not None:
        raise HandoffCollisionError(definition.collision)


class _LoopRun:
    """One model loop run, as its stream runs it: called with a `Send`, it is the direct form (the run in
    the caller's task, every event, the terminal included, to `send`); `produce` is the producer.

    One slotted object per run instead of a partial per form, each with its own argument tuple: a
    suspended run holds fewer objects for the garbage collector to walk.
    """

    __slots__ = ("controls", "ctx", "definition", "input")

    def __init__(self, definition: LoopDefinition, ctx: RunContext[Any], input: AgentInput) -> None:
        self.definition = definition
        self.ctx = ctx
        self.input = input
        self.controls: LoopControls | None = None

    async def __call__(self, send: Send) -> None:
        controls = self.controls = LoopControls.of(self.definition, self.ctx)
        await emit_run(send, self.ctx, self.definition.name, self.drive)
        if controls is not None:
            await controls.run_completed()

    async def produce(
        self,
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """The producer of the run stream (see `open_run_stream`)."""
        task_status.started()
        async with send_channel:
            await self(sender(send_channel))

    async def drive(self, send: Send) -> TerminalEvent:
        """Run the loop on the run's input, sending every non-terminal event; return the terminal event.

        Checkpoints: the run starts with a schedule point (so thousands of concurrent runs take turns even
        when their models and tools never wait) and every step with a cancel point (a cancelled run stops
        at the next step, whatever its model does).
        """
        await trio.lowlevel.checkpoint()
        if self.definition.tool_sources:  # tools listed when the run starts (MCP servers): run a copy with them
            return await with_listed_tools(self.definition, partial(self._drive_listed, send), self.ctx.durable)
        definition, ctx = self.definition, self.ctx
        config = ctx.run_config or definition.run_config or _DEFAULT_CONFIG
        ctx = ctx.for_run(definition.run_config)  # what its tools, sub-runs and handoffs see
        meter = ctx.meter
        assert meter is not None
        controls = self.controls  # the run's hooks and guardrails (`LoopControls.of`), or `None`
        if controls is not None:
            controls.ctx = ctx
        return meter.completed(await _loop(definition, config, ctx, self.input, send, controls))

    async def _drive_listed(self, send: Send, definition: LoopDefinition) -> TerminalEvent:
        """`drive` over `definition`, the run's own copy of this definition with its sources' tools."""
        run = _LoopRun(definition, self.ctx, self.input)
        run.controls = self.controls
        return await run.drive(send)


_FixedContext: TypeAlias = tuple[
    str,
    str | None,
    tuple[ToolDef, ...],
    tuple[HandoffTarget, ...],
    ModelSettings,
    int,
    OutputSchema | None,
    int,
    int,
    CompactionPolicy | None,
]
"""What a run's `TransitionCtx` keeps from step to step: everything but the conversation."""


def _context_with(fixed: _FixedContext, conversation: Conversation) -> TransitionCtx:
    """The run's transition context over `conversation`.

    A module-level function over a tuple rather than a closure in `drive`: a closure would turn the
    variables it captures into cells and cost a function object per run, both tracked by the garbage
    collector for as long as the run lives (which shows with thousands of concurrent runs).
    """
    name, rendered, tool_defs, handoffs, settings, max_turns, schema, depth, max_depth, compaction = fixed
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
        compaction=compaction,
    )


async def _loop(
    definition: LoopDefinition,
    config: RunConfig,
    ctx: RunContext[Any],
    input: AgentInput,
    send: Send,
    controls: LoopControls | None = None,
) -> TerminalEvent:
    """The loop of `_LoopRun.drive`; a `RunCompleted` it returns is completed with the run's meter."""
    instructions = definition.instructions
    if callable(instructions):
        try:
            instructions = instructions(ctx)
        except Exception as exc:
            message = f"instructions of agent {definition.name!r} failed: {type(exc).__name__}: {exc}"
            return RunFailed(OtherError(message))  # noqa: ASYNC910 - `drive` passed a schedule point just before
    fixed = _fixed_context(definition, config, ctx, instructions or None)
    try:
        recording = await LlmRecording.open(definition, ctx, ctx.durable, input) if ctx.durable is not None else None
    except (IncompatibleRunError, RecordLogError) as exc:
        return RunFailed(OtherError(str(exc)))  # noqa: ASYNC910 - `drive` passed a schedule point just before
    steps = _Steps(definition, config, ctx, send, controls, recording)
    start = await steps.start(Conversation(input.items))
    if not isinstance(start, tuple):
        return start
    state, step, resumed, redeliver, conversation = start
    del start  # not held while the run waits
    tctx = _context_with(fixed, conversation)
    while True:
        await trio.lowlevel.checkpoint_if_cancelled()
        outcome = transition(state, step, tctx)
        if controls is not None and not resumed:
            outcome = await controls.review(outcome)
        events = outcome.events
        action = outcome.next_action
        if resumed:  # `Start` re-asked a recorded boundary's action: it is recorded (and reviewed), its events went out
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
        del step, outcome, events, appends  # fed, sent and applied: not held while the action runs
        match action:
            case CallModel(request=request):
                done = await steps.call_model(state, request)
                del request
            case ExecuteTools(calls=calls, arguments=arguments, problems=problems):
                done = await steps.run_tools(state, calls, arguments, problems)
                del calls, arguments, problems
            case AwaitApproval(pending=pending, problems=problems):
                done = await steps.await_approval(state, pending, problems)
                del pending, problems
            case PerformHandoff(target=target, transcript=transcript):
                return await steps.hand_off(target, transcript)
            case Terminate():
                raise AssertionError("unreachable: a Terminate action returns before its events are sent")
            case _:
                assert_never(action)
        if isinstance(done, RunCompleted | RunFailed | RunPaused):
            return done
        step = done
        del done


def _fixed_context(
    definition: LoopDefinition, config: RunConfig, ctx: RunContext[Any], instructions: str | None
) -> _FixedContext:
    """Everything of the run's transition context but the conversation (fixed for the run).

    Rebuilding the context from this tuple with the class itself is about twice as fast as `attrs.evolve`.
    """
    return (
        definition.name,
        instructions,
        definition.tool_defs,
        definition.handoff_targets,
        definition.settings,
        config.max_turns,
        definition.output_schema,
        ctx.agent_depth,
        ctx.max_agent_depth,
        config.compaction.policy() if config.compaction is not None else None,
    )


_Resumed: TypeAlias = tuple[LoopState, TransitionInput, bool, tuple[AgentEvent, ...], Conversation]
"""Where the loop starts: the state, its input, whether it re-asks a recorded action, the events to
deliver for it, and the conversation."""


class _Steps:
    """What one model loop run does for each action `transition` asks for (one object per run, slotted:
    no closures, so a suspended run holds as few tracked objects as it can)."""

    __slots__ = (
        "controls",
        "ctx",
        "definition",
        "gate",
        "limiter",
        "meter",
        "phase",
        "recording",
        "send",
        "summary_model",
    )

    def __init__(
        self,
        definition: LoopDefinition,
        config: RunConfig,
        ctx: RunContext[Any],
        send: Send,
        controls: LoopControls | None,
        recording: LlmRecording | None,
    ) -> None:
        self.definition = definition
        self.ctx = ctx
        self.send = send
        self.controls = controls
        self.recording = recording
        limit = config.parallel_tool_call_limit
        self.limiter = trio.CapacityLimiter(limit) if limit is not None else None
        self.summary_model = config.compaction.model if config.compaction is not None else None
        meter = ctx.meter
        assert meter is not None
        self.meter: UsageMeter = meter
        self.phase = ApprovalPhase() if ctx.permissions is not None else None
        self.gate: InputGate | None = None

    async def start(self, conversation: Conversation) -> _Resumed | TerminalEvent:
        """Where the loop starts (a recorded run: its last boundary), or the terminal it ends with at once."""
        recording, name = self.recording, self.definition.name
        resumed: _Resumed = (initial_state(), Start(), False, (), conversation)
        if recording is not None:
            point = await recording.start(self.send)
            for answered in recording.point.answers:  # the recorded model calls count as if made now
                self.meter.add(name, one_call(answered.usage), credited_model(answered, self.definition.model.name))
            if recording.finished_terminal is not None and not isinstance(point.state, ApplyingHandoff):
                return cast("TerminalEvent", recording.finished_terminal)
            # (a finished run that handed off goes on into the handoff: the target replays its own events)
            resumed = (point.state, point.step, point.resumed, point.redeliver, point.conversation)
        controls = self.controls
        if controls is not None:
            refused = await controls.run_started()
            if refused is not None:
                return await _stop(resumed[0], (RunFailed(refused),), self.send, recording)
            if recording is None or not recording.point.answers:  # a recorded answer means the gate had passed
                self.gate = controls.input_gate(resumed[4])
        return resumed  # noqa: ASYNC910 - `drive` passed a schedule point just before

    async def call_model(self, state: LoopState, request: ModelRequest) -> TransitionInput | TerminalEvent:
        """`CallModel`: the model's answer for the next step (from `Compacting`: the summary's)."""
        definition, recording, tracer = self.definition, self.recording, self.ctx.tracer
        agent_model = definition.model.name
        if type(state) is Compacting:  # the summary: its model, no hooks or guardrails, deltas not the answer's
            summary_model = self.summary_model or definition.model
            answer = await _ask_model(tracer, summary_model, request, discard)
            if type(answer) is RunFailed:
                return model_step(state, answer)  # skipped: the run goes on
            if type(answer) is ModelResponse and answer.model is None and summary_model is not definition.model:
                answer = _answered_by(answer, summary_model.name)  # counted and recorded as its model's answer
        else:
            own = request  # what the log may keep: the hooks' injections are never recorded, only counted
            if self.controls is not None:
                request = self.controls.request(request)
            sink = recording.collecting(self.send, own, len(request.items) - len(own.items)) if recording else self.send
            gate, self.gate = self.gate, None
            if gate is None:
                answer = await _ask_model(tracer, definition.model, request, sink)
            else:
                asking: Callable[[Send], Awaitable[ModelResponse | RunFailed]] = partial(
                    _ask_model, tracer, definition.model, request
                )
                gated = await _ask_beside_guardrails(gate, asking, sink, self.meter, definition.name, agent_model)
                if type(gated) is Tripped:  # nothing of this call is delivered, no tool of it runs
                    return await _stop(state, gated.events, self.send, recording)
                answer = cast("ModelResponse | RunFailed", gated)
        if type(answer) is RunFailed:
            if recording is not None:
                await recording.finish(answer)
            return answer
        assert type(answer) is ModelResponse
        self.meter.add(definition.name, one_call(answer.usage), credited_model(answer, agent_model))
        if recording is not None:
            recording.answered(answer)
        return answer

    async def run_tools(
        self,
        state: LoopState,
        calls: tuple[ToolCall, ...],
        arguments: tuple[JsonObject | None, ...],
        problems: tuple[str | None, ...],
    ) -> TransitionInput | TerminalEvent:
        """`ExecuteTools`: the round's results (held calls pending), or the failure a tool hook caused."""
        definition = self.definition
        tools, hooks = definition.tools_by_name, definition.hooks
        outcomes = await failing_on_hook(
            execute_tools(
                calls, tools, self.ctx, self.limiter, self.recording, hooks, arguments=arguments, problems=problems
            )
        )
        if type(outcomes) is HookFailed:
            return await _stop(state, (RunFailed(outcomes),), self.send, self.recording)
        outcomes = cast("tuple[CallOutcome, ...]", outcomes)
        if self.phase is not None:
            self.phase.note(outcomes)
        return round_results(outcomes)

    async def await_approval(
        self, state: LoopState, pending: tuple[ToolCall, ...], problems: tuple[str | None, ...]
    ) -> TransitionInput | TerminalEvent:
        """`AwaitApproval`: the decided calls' results, or the pause (no decision for some)."""
        definition, recording = self.definition, self.recording
        phase = self.phase = self.phase or ApprovalPhase()
        tools = definition.tools_by_name
        found = problems_by_call(pending, problems)
        decided = partial(_execute_answered, tools, self.ctx, self.limiter, recording, definition.hooks, found)
        settled = await failing_on_hook(phase.settle(pending, tools, self.ctx, decided))
        if type(settled) is HookFailed:
            return await _stop(state, (RunFailed(settled),), self.send, recording)
        if type(settled) is ToolResults:
            return settled
        paused = RunPaused(cast("tuple[ApprovalRequested, ...]", settled), state.usage)
        if recording is not None:
            await recording.finish(paused)
        return paused

    async def hand_off(self, target: str, transcript: Conversation) -> TerminalEvent:
        """`PerformHandoff`: the target's run, continuing this stream; its terminal ends this run."""
        if self.controls is not None:
            self.controls.handed_off()
        terminal = await hand_off(self.definition, target, transcript, self.ctx, self.send)
        recording = self.recording
        if recording is not None:
            await recording.finish(terminal)
            if recording.finished_terminal is not None:
                return cast("TerminalEvent", recording.finished_terminal)
        return terminal


async def _ask_beside_guardrails(
    gate: InputGate,
    asking: Callable[[Send], Awaitable[ModelResponse | RunFailed]],
    send: Send,
    meter: UsageMeter,
    name: str,
    model: str,
) -> ModelResponse | RunFailed | Tripped:
    """The first model call, beside the input guardrails (`InputGate.beside`): its answer, or the trip.

    A call that answered before the trip still counts on the meter: the model served it.
    """
    answer, tripped = await gate.beside(asking, send)
    if tripped is None:
        assert answer is not None
        return answer
    if type(answer) is ModelResponse:
        meter.add(name, one_call(answer.usage), credited_model(answer, model))
    return tripped


def _answered_by(answer: ModelResponse, model: str) -> ModelResponse:
    """`answer` marked as given by `model` (a summary model's answer, counted and recorded under its name)."""
    return ModelResponse(
        text=answer.text,
        reasoning=answer.reasoning,
        tool_calls=answer.tool_calls,
        usage=answer.usage,
        finish_reason=answer.finish_reason,
        model=model,
    )


async def _stop(
    state: LoopState, events: tuple[AgentEvent, ...], send: Send, recording: LlmRecording | None
) -> TerminalEvent:
    """End the run in `state` with `events` (the last a `RunFailed`): recorded as a `Failed` step, then sent."""
    stop = failed_step(state, events)
    if recording is not None:
        await recording.boundary(stop)
    return await _finish_recorded(stop.events, send, recording)


async def _finish_recorded(events: tuple[AgentEvent, ...], send: Send, recording: LlmRecording | None) -> TerminalEvent:
    """`_finish`, then the terminal event recorded (after the events it follows went out)."""
    terminal = await _finish(events, send)
    if recording is not None:
        await recording.finish(terminal)
    return terminal


async def _finish(events: tuple[AgentEvent, ...], send: Send) -> TerminalEvent:
    """Send the final step's events before its end (`core.loop_steps.ending`) and return its terminal."""
    delivered, terminal = ending(events)
    for event in delivered:
        await send(event)
    return terminal  # noqa: ASYNC910 - only `drive` calls this, at a step that began with a cancel point


def _ask_model(
    tracer: Tracer | None, model: Model, request: ModelRequest, send: Send
) -> Awaitable[ModelResponse | RunFailed]:
    """`call_model`, inside a model-call span when the run is traced (returned to be awaited: no coroutine
    frame of its own stays alive while the model answers)."""
    if tracer is None:
        return call_model(model, request, send)
    return trace_model_call(tracer, call_model, model, request, send)


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
                elif isinstance(event, ModelUsage):  # needs no forwarding; counted into the run's usage
                    problem = usage_problem(event.usage)
                    if problem is not None:
                        message = f"model {model.name!r} reported {problem}"
                        return RunFailed(ModelFailed(ModelFailureKind.OTHER, message))  # noqa: ASYNC910 - see below
                else:
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
    hooks: Hooks[Any] = _NO_HOOKS,
    answers: Mapping[str, ApprovalAnswer | None] | None = None,
    *,
    arguments: tuple[JsonObject | None, ...] = (),
    problems: tuple[str | None, ...] = (),
) -> tuple[CallOutcome, ...]:
    """Run `calls` concurrently (at most `limiter`'s tokens at once) through the per-call pipeline
    (`call_tool`: the agent's `hooks`, then ``ctx.hooks``, around `shell.tool_round.run_call`); their
    outcomes, in call order.

    With a `recording`, each result is recorded as its call finishes, and a call whose result was
    recorded before a crash is not run again. `answers` holds a human's answer per call id (the
    approval phase's calls). `arguments` are the calls' parsed arguments (`ExecuteTools.arguments`;
    empty: each call parses its own) and `problems` why a call cannot run (`ExecuteTools.problems`): after
    `PreToolUse` and the permission decision, such a call is answered with its problem, not run.

    Raises:
        HookFailure: a tool hook raised (the round's other calls are cancelled; the run fails with it).
    """
    run: RunCall
    if ctx.tracer is None and ctx.permissions is None and not (hooks.hooks or ctx.hooks.hooks):
        run = _call_plainly
    else:
        run = partial(call_tool, execute_tool_call if ctx.tracer is None else traced_tool_call, hooks)
    parsed = arguments if len(arguments) == len(calls) else _UNPARSED * len(calls)
    found = problems if len(problems) == len(calls) else _UNPARSED * len(calls)
    if recording is not None:
        return await _execute_recorded(calls, tools, ctx, limiter, recording, run, answers, parsed, found)
    if len(calls) == 1 and limiter is None:
        call = calls[0]
        return (await run(tools.get(call.name), call, ctx, _answer(answers, call), parsed[0], found[0]),)
    slots: list[CallOutcome | None] = [None] * len(calls)

    async with trio.open_nursery() as nursery:
        for index, call in enumerate(calls):
            nursery.start_soon(
                _run_one,
                slots,
                index,
                call,
                tools.get(call.name),
                ctx,
                limiter,
                run,
                answers,
                parsed[index],
                found[index],
            )
    # Every slot is filled: `run_call` returns an outcome or is cancelled, and a cancelled
    # call makes the nursery raise before this line.
    return cast("tuple[CallOutcome, ...]", tuple(slots))


async def _execute_answered(
    tools: Mapping[str, Tool[Any]],
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    recording: LlmRecording | None,
    hooks: Hooks[Any],
    problems: Mapping[str, str],
    calls: tuple[ToolCall, ...],
    answers: Mapping[str, ApprovalAnswer | None],
) -> tuple[CallOutcome, ...]:
    """`execute_tools` for the decided calls of an approval phase (`problems`: theirs, by call id)."""
    found = tuple(problems.get(call.call_id) for call in calls) if problems else ()
    return await execute_tools(calls, tools, ctx, limiter, recording, hooks, answers, problems=found)


def _answer(answers: Mapping[str, ApprovalAnswer | None] | None, call: ToolCall) -> ApprovalAnswer | None:
    return answers.get(call.call_id) if answers is not None else None


RunCall: TypeAlias = Callable[
    [Tool[Any] | None, ToolCall, RunContext[Any], ApprovalAnswer | None, JsonObject | None, str | None],
    Awaitable[CallOutcome],
]
"""One call through the whole per-call pipeline (`call_tool` with its invoke and hooks bound)."""

_UNPARSED: tuple[None] = (None,)


def _call_plainly(
    tool: Tool[Any] | None,
    call: ToolCall,
    ctx: RunContext[Any],
    answer: ApprovalAnswer | None = None,
    arguments: JsonObject | None = None,
    problem: str | None = None,
) -> Awaitable[CallOutcome]:
    """`call_tool` in a run with no hooks, permissions or tracer, where its pipeline is the invoke step alone
    (`answer` only matters to permissions; a `problem` answers the call): that step, without the layers around it."""
    return invoke_call(tool, call, ctx, execute_tool_call, arguments, checked=True, problem=problem)


async def call_tool(
    invoke: Callable[..., Awaitable[ToolResult]],
    hooks: Hooks[Any],
    tool: Tool[Any] | None,
    call: ToolCall,
    ctx: RunContext[Any],
    answer: ApprovalAnswer | None = None,
    arguments: JsonObject | None = None,
    problem: str | None = None,
) -> CallOutcome:
    """One call of a round through its pipeline (original-notes section 3.2): `PreToolUse` (which may block
    the call or replace its arguments), authorize (`run_call`: permissions decide on the arguments the hooks
    left, so a hook can never slip a call past them), `invoke` (the call's `problem` — an unknown tool, or
    arguments off the schema unless a hook or the permissions replaced them, which are checked afresh —
    else the tool itself), `PostToolUse` (successful calls only: it may block or replace the output), and
    redaction last (`run_call`). `arguments` and `problem` are what `transition` found checking the call."""
    if not (hooks.hooks or ctx.hooks.hooks):  # the common case, at the cost of two tuple checks
        return await run_call(tool, call, ctx, invoke, answer, arguments, problem)
    before = await before_tool_call(ctx, hooks, call)
    if type(before) is ToolResult:
        return CallDone(before)
    assert type(before) is ToolCall
    replaced = before is not call
    hooked = partial(_invoke_hooked, invoke, hooks, replaced)
    return await run_call(
        tool, before, ctx, hooked, answer, None if replaced else arguments, problem, call if replaced else None
    )


async def _invoke_hooked(
    invoke: Callable[..., Awaitable[ToolResult]],
    hooks: Hooks[Any],
    replaced: bool,
    tool: Tool[Any] | None,
    call: ToolCall,
    ctx: RunContext[Any],
    *,
    checked: bool,
    arguments: JsonObject | None = None,
    problem: str | None = None,
) -> ToolResult:
    """`invoke`, then `PostToolUse`; arguments a `PreToolUse` hook replaced are checked again."""
    if replaced:
        checked, arguments = False, None
    result = await invoke(tool, call, ctx, checked=checked, arguments=arguments, problem=problem)
    return await after_tool_call(ctx, hooks, call, result)


async def _execute_recorded(
    calls: tuple[ToolCall, ...],
    tools: Mapping[str, Tool[Any]],
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    recording: LlmRecording,
    run: RunCall,
    answers: Mapping[str, ApprovalAnswer | None] | None,
    parsed: tuple[JsonObject | None, ...],
    problems: tuple[str | None, ...],
) -> tuple[CallOutcome, ...]:
    """`execute_tools` for a recorded run: skip the calls recorded as finished, record the others one by one."""
    slots: list[CallOutcome | None] = []
    for call in calls:
        recorded = recording.recorded_result(call)
        slots.append(CallDone(recorded, recording.recorded_events(call)) if recorded is not None else None)
    recording.round_started(slots.count(None))
    async with trio.open_nursery() as nursery:
        for index, call in enumerate(calls):
            if slots[index] is None:
                nursery.start_soon(
                    _run_recorded,
                    slots,
                    index,
                    call,
                    tools.get(call.name),
                    ctx,
                    limiter,
                    recording,
                    run,
                    answers,
                    parsed[index],
                    problems[index],
                )
    return cast("tuple[CallOutcome, ...]", tuple(slots))


async def _run_recorded(
    slots: list[CallOutcome | None],
    index: int,
    call: ToolCall,
    tool: Tool[Any] | None,
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    recording: LlmRecording,
    run: RunCall,
    answers: Mapping[str, ApprovalAnswer | None] | None,
    arguments: JsonObject | None,
    problem: str | None,
) -> None:
    """One tool call of a recorded round: run it, record its result (a held call has none), then fill its slot."""
    await _run_one(slots, index, call, tool, ctx, limiter, run, answers, arguments, problem)
    outcome = slots[index]
    if type(outcome) is CallDone:
        await recording.tool_finished(outcome.result, outcome.events)


async def _run_one(
    slots: list[CallOutcome | None],
    index: int,
    call: ToolCall,
    tool: Tool[Any] | None,
    ctx: RunContext[Any],
    limiter: trio.CapacityLimiter | None,
    run: RunCall,
    answers: Mapping[str, ApprovalAnswer | None] | None = None,
    arguments: JsonObject | None = None,
    problem: str | None = None,
) -> None:
    """One tool call of a round, its outcome stored in its own slot (module-level: no closure per round)."""
    if limiter is None:
        slots[index] = await run(tool, call, ctx, _answer(answers, call), arguments, problem)
    else:
        async with limiter:
            slots[index] = await run(tool, call, ctx, _answer(answers, call), arguments, problem)


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
    segment = handoff_segment(target)
    forward = _HandoffForward(send, relay_of(SubRun.HANDOFF, target, segment))
    child_ctx, slot = ctx.handoff_child().with_meter_slot()
    try:
        child = child_context(child_ctx, ctx, segment)
        await forward_run(successor.run(child, AgentInput.from_items(transcript)), forward)
    except RunError as exc:
        return RunFailed(exc.error)
    try:
        await subagent_stopped(ctx, successor.name)  # the run-level hooks, which the target shared
    except HookFailure as exc:
        return RunFailed(exc.error)
    terminal = handoff_end(forward.state)
    if type(terminal) is RunCompleted:
        slot.settle(successor.name, terminal.usage)
    return terminal


class _HandoffForward:
    """Passes a handoff target's events on as its relay says (`core.patterns.subrun`)."""

    __slots__ = ("_send", "state")

    def __init__(self, send: Send, state: Relay) -> None:
        self._send = send
        self.state = state

    async def __call__(self, event: AgentEvent) -> None:  # noqa: ASYNC910 - a pass-through per event, as `sender`
        self.state, passed = relay(self.state, event)
        for each in passed:
            await self._send(each)
