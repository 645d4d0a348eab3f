"""The trio driver: the trio performer of the shared model loop (`helikon_fc.engine.run_loop`).

It runs a `LoopDefinition` (an `LlmAgent` builds one) and reads nothing else of the agent. The loop
decides (which step, what its events and appends are, when the run ends, what usage counts); the
run's `_Steps` performs each action it asks for, on trio:

- `call_model`: stream the model; forward its deltas live (`TokenDelta`, `ReasoningDelta`,
  `ToolCallDelta`) and fold the stream into a `ModelResponse`. A model failure is a
  `RunFailed(ModelFailed)`; a stream that ends without `ModelFinish` was cut short (rule 2 of the
  `Model` protocol) and fails with kind ``TRANSPORT``;
- `summarise`: the summary call of a compaction, with the compaction's model, its deltas dropped;
- `run_tools`: every call of the turn at once in one nursery, at most ``parallel_tool_call_limit``
  at a time (a `trio.CapacityLimiter`); each call writes its result into its own slot, so results
  keep call order. Tool failures are results the model reads;
- `await_approval`: the approval phase (`shell.loop.tool_round.ApprovalPhase`);
- `hand_off`: run the target agent on the transcript in a child context and continue this stream
  with its events (its `RunStarted` dropped, its `RunCompleted` carrying both usages), through
  `forward_run` like any other consumer of a run;
- `beside`: one nursery, the check cancelling the call; `boundary` / `answered` / `ended`: the
  run's durable log (`LlmRecording`), when it has one.

Nothing here logs, and everything a run needs that does not change per turn (tool definitions,
the transition context, the limiter) is built once per run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, TypeAlias, TypeVar, cast

import trio

from ...core import (
    AgentEvent,
    ApplyingHandoff,
    ApprovalRequested,
    Conversation,
    HookFailed,
    JsonObject,
    ModelRequest,
    ModelResponse,
    OtherError,
    RunCompleted,
    RunFailed,
    Start,
    TerminalEvent,
    ToolCall,
    ToolResult,
    ToolResults,
    TransitionCtx,
    TransitionOutcome,
    UnknownHandoffTarget,
    initial_state,
)
from ...core.loop_steps import credited_model, problems_by_call
from ...core.patterns.subrun import Relay, SubRun, handoff_end, handoff_segment, relay_of
from ...core.records import RecordLogError
from ...core.usage import one_call
from ...engine import Begin, Held, run_loop
from ...models.call import call_model
from ...models.protocol import Model
from ..context.config import RunConfig
from ..context.run_context import RunContext
from ..control.hooks import HookFailure, Hooks, after_tool_call, before_tool_call, subagent_stopped
from ..control.permissions import ApprovalAnswer
from ..durable.compaction import discard
from ..durable.run_log import IncompatibleRunError, ReplayMarks, relayed
from ..input import AgentInput
from ..telemetry.metering import UsageMeter
from ..telemetry.tracing import Tracer, trace_model_call
from ..tools.tool import Tool
from ..tools.tool_exec import execute_tool_call, traced_tool_call
from .controls import LoopControls, failing_on_hook
from .definition import LoopDefinition
from .listed_tools import with_listed_tools
from .recording import LlmRecording
from .results import HandoffCollisionError, RunError
from .run_stream import RunStreamManager, Send, emit_run, forward_run, open_run_stream, sender
from .tool_round import ApprovalPhase, CallDone, CallOutcome, invoke_call, round_results, run_call

A = TypeVar("A")
B = TypeVar("B")

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
        ctx = ctx.for_run(definition.run_config, send)  # what its tools, sub-runs and handoffs see
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


async def _loop(
    definition: LoopDefinition,
    config: RunConfig,
    ctx: RunContext[Any],
    input: AgentInput,
    send: Send,
    controls: LoopControls | None = None,
) -> TerminalEvent:
    """The loop of `_LoopRun.drive` (`engine.run_loop` with this run's `_Steps`); a `RunCompleted` it
    returns is completed with the run's meter."""
    instructions = definition.instructions
    if callable(instructions):
        try:
            instructions = instructions(ctx)
        except Exception as exc:
            message = f"instructions of agent {definition.name!r} failed: {type(exc).__name__}: {exc}"
            return RunFailed(OtherError(message))  # noqa: ASYNC910 - `drive` passed a schedule point just before
    base = transition_context(definition, config, instructions or None, ctx.agent_depth, ctx.max_agent_depth)
    try:
        recording = await LlmRecording.open(definition, ctx, ctx.durable, input) if ctx.durable is not None else None
    except (IncompatibleRunError, RecordLogError) as exc:
        return RunFailed(OtherError(str(exc)))  # noqa: ASYNC910 - `drive` passed a schedule point just before
    steps = _Steps(definition, config, ctx, send, recording)
    begin = await steps.start(Conversation(input.items))
    if type(begin) is not Begin:
        return cast("TerminalEvent", begin)
    return await run_loop(steps, controls, base, begin)


def transition_context(
    definition: LoopDefinition, config: RunConfig, instructions: str | None, depth: int, max_depth: int
) -> TransitionCtx:
    """The transition context of a run of `definition` over an empty conversation (`engine.contexts` puts
    the run's in), on every runtime: `config` is the one in force (the run's, else the agent's own: its
    turns and its compaction), `instructions` the agent's for this run, `depth` the run's level and
    `max_depth` the deepest a child of it may start at."""
    return TransitionCtx(
        agent_name=definition.name,
        instructions=instructions,
        conversation=_EMPTY,
        tools=definition.tool_defs,
        handoffs=definition.handoff_targets,
        settings=definition.settings,
        max_turns=config.max_turns,
        output_schema=definition.output_schema,
        agent_depth=depth,
        max_agent_depth=max_depth,
        compaction=config.compaction.policy() if config.compaction is not None else None,
    )


_EMPTY = Conversation()


class _Steps:
    """The trio performer of one model loop run (`engine.Performer`): what it does for each action the
    loop asks for (one object per run, slotted: no closures, so a suspended run holds as few tracked
    objects as it can)."""

    __slots__ = (
        "agent",
        "ctx",
        "definition",
        "limiter",
        "meter",
        "model",
        "phase",
        "recording",
        "records",
        "send",
        "summary_model",
    )

    checkpoint = staticmethod(trio.lowlevel.checkpoint_if_cancelled)
    """Where a cancelled run stops: every step, whatever its model does."""

    def __init__(
        self,
        definition: LoopDefinition,
        config: RunConfig,
        ctx: RunContext[Any],
        send: Send,
        recording: LlmRecording | None,
    ) -> None:
        self.definition = definition
        self.agent = definition.name
        self.model: str | None = definition.model.name
        self.ctx = ctx
        self.send = send
        self.recording = recording
        self.records = recording is not None
        limit = config.parallel_tool_call_limit
        self.limiter = trio.CapacityLimiter(limit) if limit is not None else None
        self.summary_model = config.compaction.model if config.compaction is not None else None
        meter = ctx.meter
        assert meter is not None
        self.meter: UsageMeter = meter
        self.phase = ApprovalPhase() if ctx.permissions is not None else None

    async def start(self, conversation: Conversation) -> Begin | TerminalEvent:
        """Where the loop begins (a recorded run: its last boundary), or the terminal a finished run ended with."""
        recording = self.recording
        if recording is None:
            return Begin(initial_state(), Start(), conversation)  # noqa: ASYNC910 - `drive` passed a schedule point
        point = await recording.start(self.send)
        for answered in recording.point.answers:  # the recorded model calls count as if made now
            self.meter.add(self.agent, one_call(answered.usage), credited_model(answered, self.model))
        if recording.finished_terminal is not None and not isinstance(point.state, ApplyingHandoff):
            return cast("TerminalEvent", recording.finished_terminal)
        # (a finished run that handed off goes on into the handoff: the target replays its own events)
        fresh = not recording.point.answers  # a recorded answer means the input guardrails had passed
        return Begin(
            point.state, point.step, point.conversation, resumed=point.resumed, redeliver=point.redeliver, fresh=fresh
        )

    def asking(self, own: ModelRequest, injected: int) -> None:
        """The next model call's request as the log keeps it (without the hooks' `injected` items)."""
        assert self.recording is not None
        self.recording.asking(own, injected)

    def call_model(self, request: ModelRequest, held: Held | None) -> Awaitable[ModelResponse | RunFailed]:
        """The agent's model on `request`, its deltas sent (and collected for the log, when the run has one)."""
        recording, send = self.recording, self.send
        sink = recording.collecting(send) if recording is not None else send
        if held is not None:
            held.send = sink
            sink = _HeldSend(sink, held)
        return _ask_model(self.ctx.tracer, self.definition.model, request, sink)

    async def summarise(self, request: ModelRequest) -> ModelResponse | RunFailed:
        """The summary call: the compaction's model, its deltas dropped; an answer is marked as that model's."""
        definition = self.definition
        summary_model = self.summary_model or definition.model
        answer = await _ask_model(self.ctx.tracer, summary_model, request, discard)
        if type(answer) is ModelResponse and answer.model is None and summary_model is not definition.model:
            return _answered_by(answer, summary_model.name)  # counted and recorded as its model's answer
        return answer

    def answered(self, answer: ModelResponse) -> None:
        if self.recording is not None:
            self.recording.answered(answer)

    async def run_tools(
        self, calls: tuple[ToolCall, ...], arguments: tuple[JsonObject | None, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed:
        """`ExecuteTools`: the round's results (held calls pending), or the failure a tool hook caused."""
        definition = self.definition
        tools, hooks = definition.tools_by_name, definition.hooks
        outcomes = await failing_on_hook(
            execute_tools(
                calls, tools, self.ctx, self.limiter, self.recording, hooks, arguments=arguments, problems=problems
            )
        )
        if type(outcomes) is HookFailed:
            return outcomes
        outcomes = cast("tuple[CallOutcome, ...]", outcomes)
        if self.phase is not None:
            self.phase.note(outcomes)
        return round_results(outcomes)

    async def await_approval(
        self, pending: tuple[ToolCall, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed | tuple[ApprovalRequested, ...]:
        """`AwaitApproval`: the decided calls' results, or what the run pauses asking (no decision for some)."""
        definition = self.definition
        phase = self.phase = self.phase or ApprovalPhase()
        tools = definition.tools_by_name
        found = problems_by_call(pending, problems)
        decided = partial(_execute_answered, tools, self.ctx, self.limiter, self.recording, definition.hooks, found)
        settled = await failing_on_hook(phase.settle(pending, tools, self.ctx, decided))
        return settled

    async def hand_off(self, target: str, transcript: Conversation) -> TerminalEvent:
        """`PerformHandoff`: the target's run, continuing this stream; its terminal ends this run."""
        terminal = await hand_off(self.definition, target, transcript, self.ctx, self.send)
        recording = self.recording
        if recording is not None:
            await recording.finish(terminal)
            if recording.finished_terminal is not None:
                return cast("TerminalEvent", recording.finished_terminal)
        return terminal

    async def beside(
        self, call: Callable[[], Awaitable[A]], check: Callable[[], Awaitable[B | None]]
    ) -> tuple[A | None, B | None]:
        """`call` and `check` in one nursery; an answer of `check` cancels `call` (`engine.Performer.beside`)."""
        answers: list[A] = []
        checked: list[B] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_checking, check, checked, nursery.cancel_scope)
            answers.append(await call())
        return (answers[0] if answers else None), (checked[0] if checked else None)

    async def boundary(self, outcome: TransitionOutcome) -> None:
        """Write the step to the run's log (`records`: only a recorded run is asked)."""
        assert self.recording is not None
        await self.recording.boundary(outcome)

    async def ended(self, terminal: TerminalEvent) -> None:  # noqa: ASYNC910 - the step before it checkpointed
        """Write the terminal to the run's log, if it has one."""
        if self.recording is not None:
            await self.recording.finish(terminal)


async def _checking(check: Callable[[], Awaitable[B | None]], checked: list[B], scope: trio.CancelScope) -> None:
    """`check`, its answer (if any) kept and the nursery cancelled (`_Steps.beside`)."""
    answer = await check()
    if answer is not None:
        checked.append(answer)
        scope.cancel()


class _HeldSend:
    """A `Send` offering each event to `held` first (the input guardrails have not passed yet), else sending it."""

    __slots__ = ("_held", "_send")

    def __init__(self, send: Send, held: Held) -> None:
        self._send = send
        self._held = held

    async def __call__(self, event: AgentEvent) -> None:  # noqa: ASYNC910 - a pass-through per event, as `sender`
        if not self._held.offer(event):
            await self._send(event)


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


def _ask_model(
    tracer: Tracer | None, model: Model, request: ModelRequest, send: Send
) -> Awaitable[ModelResponse | RunFailed]:
    """`call_model`, inside a model-call span when the run is traced (returned to be awaited: no coroutine
    frame of its own stays alive while the model answers)."""
    if tracer is None:
        return call_model(model, request, send)
    return trace_model_call(tracer, call_model, model, request, send)


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
    (`call_tool`: the agent's `hooks`, then ``ctx.hooks``, around `shell.loop.tool_round.run_call`); their
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
    marks = ctx.durable.marks if ctx.durable is not None else None
    forward = _HandoffForward(send, relay_of(SubRun.HANDOFF, target, segment), marks)
    child, slot = ctx.child("handoff", segment).with_meter_slot()
    try:
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
    """Passes a handoff target's events on as its relay says (`core.patterns.subrun`), a replayed question's
    qualified copy marked as a replay (`relayed`)."""

    __slots__ = ("_marks", "_send", "state")

    def __init__(self, send: Send, state: Relay, marks: ReplayMarks | None) -> None:
        self._send = send
        self.state = state
        self._marks = marks

    async def __call__(self, event: AgentEvent) -> None:  # noqa: ASYNC910 - a pass-through per event, as `sender`
        self.state, passed = relayed(self._marks, self.state, event)
        for each in passed:
            await self._send(each)
