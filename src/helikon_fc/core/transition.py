"""`transition(state, input, ctx)`: the whole agent loop as one pure function.

Pure means: no IO, no clock, no randomness, no trio, and no argument is changed (a
`Conversation` is only ever extended into a new value). The same arguments always give an
equal outcome, so a run can be persisted as (state, conversation) and resumed at any
transition boundary by feeding `Start` to the stored state.

Shape: an outer ``match`` on the state, budgets checked first, then a ``match`` on the input.
Every (state, input) pair the loop cannot accept yields a `Failed` outcome with an
`InvalidTransition` error; nothing here raises.
"""

from __future__ import annotations

import json
from typing import assert_never

import attrs

from .compaction import (
    BLANK_SUMMARY,
    ResumePhase,
    compaction_report,
    failed_summary,
    plan_compaction,
    skipped_marker,
    splice,
    summary_request,
    visible,
)
from .conversation import Conversation
from .errors import (
    AgentError,
    InvalidTransition,
    MaxAgentDepthExceeded,
    MaxTurnsExceeded,
    StructuredOutputInvalid,
)
from .events import (
    AgentEvent,
    AgentUpdated,
    ApprovalRequested,
    CompactionSkipped,
    HandoffItem,
    MessageOutput,
    RepairStarted,
    RunCompleted,
    RunFailed,
    StructuredOutputFailed,
    ToolCallItem,
    ToolOutputItem,
    TurnStarted,
)
from .items import AssistantMessage, Item, Reasoning, ToolCall, ToolResult, UserMessage
from .json_value import JsonObject, JsonValue
from .model import ModelRequest, ModelResponse, OutputSchema, ToolDef
from .schema import parse_arguments, validate
from .states import (
    ApplyingHandoff,
    AwaitApproval,
    CallingModel,
    CallModel,
    Compacting,
    Done,
    ExecuteTools,
    ExecutingTools,
    Failed,
    Finalizing,
    FinalOutput,
    HandoffTarget,
    LoopState,
    NeedsApproval,
    PerformHandoff,
    RepairingOutput,
    Start,
    SummaryFailed,
    Terminate,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    TransitionOutcome,
)
from .usage import Usage


def _no_arguments() -> dict[str, JsonValue]:
    """The schema of a transfer tool (no arguments), a fresh value each time: core values share no mutable state."""
    return {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


def transition(state: LoopState, input: TransitionInput, ctx: TransitionCtx) -> TransitionOutcome:
    """Advance the loop by one step: from `state`, given what just happened (`input`), in `ctx`.

    With a compaction budget in `ctx`, a step about to call the model goes to `Compacting` first
    when the conversation the model would see passes it.
    """
    outcome = _step(state, input, ctx)
    if ctx.compaction is None or type(outcome.next_action) is not CallModel:
        return outcome
    return _compact_first(outcome, ctx)


def _step(state: LoopState, input: TransitionInput, ctx: TransitionCtx) -> TransitionOutcome:
    """One step of the machine, before compaction is considered."""
    match state:
        case Done() | Failed():
            return TransitionOutcome(state, (), Terminate())
        case Compacting(usage=usage):
            match input:
                case Start():
                    return _ask_summary(state, ctx)
                case ModelResponse():
                    return _on_summary(state, input, ctx)
                case SummaryFailed(error=error):
                    return _skip_compaction(state, state.usage, failed_summary(error), ctx)
                case ToolResults():
                    return _invalid(state, input, usage)
                case _:
                    assert_never(input)
        case NeedsApproval(usage=usage):
            match input:
                case Start():
                    return TransitionOutcome(state, (), _await(state.pending, ctx))
                case ToolResults():
                    return _on_approvals(state, input, ctx)
                case ModelResponse() | SummaryFailed():
                    return _invalid(state, input, usage)
                case _:
                    assert_never(input)
        case CallingModel(turn=turn, usage=usage):
            if turn >= ctx.max_turns:
                return _fail(MaxTurnsExceeded(ctx.max_turns), usage)
            match input:
                case Start():
                    return _begin(state, ctx)
                case ModelResponse():
                    return _on_tool_loop_response(state, input, ctx)
                case ToolResults() | SummaryFailed():
                    return _invalid(state, input, usage)
                case _:
                    assert_never(input)
        case ExecutingTools(usage=usage):
            match input:
                case ToolResults():
                    return _on_tool_results(state, input, ctx)
                case Start():
                    return TransitionOutcome(state, (), _execute(_runnable(state.calls, state.rejected), ctx))
                case ModelResponse() | SummaryFailed():
                    return _invalid(state, input, usage)
                case _:
                    assert_never(input)
        case ApplyingHandoff(target=target, transcript=transcript, usage=usage):
            match input:
                case Start():
                    return TransitionOutcome(state, (), PerformHandoff(target, transcript))
                case ModelResponse() | ToolResults() | SummaryFailed():
                    return _invalid(state, input, usage)
                case _:
                    assert_never(input)
        case Finalizing(turn=turn, usage=usage) | RepairingOutput(turn=turn, usage=usage):
            match input:
                case Start():
                    return TransitionOutcome(state, (), CallModel(_constrained_request(ctx, ctx.conversation)))
                case ModelResponse():
                    return _on_structured_response(state, input, ctx)
                case ToolResults() | SummaryFailed():
                    return _invalid(state, input, usage)
                case _:
                    assert_never(input)
        case _:
            assert_never(state)


# Starting a turn


def _begin(state: CallingModel, ctx: TransitionCtx) -> TransitionOutcome:
    """Start (or resume) the tool loop; with an output schema and no tools, go straight to finalizing."""
    if ctx.output_schema is not None and not ctx.tools:
        return TransitionOutcome(
            Finalizing(state.turn, state.usage),
            (TurnStarted(state.turn),),
            CallModel(_constrained_request(ctx, ctx.conversation)),
        )
    return TransitionOutcome(
        state, (TurnStarted(state.turn),), CallModel(_tool_loop_request(ctx, ctx.conversation, state.turn))
    )


def _tool_loop_request(ctx: TransitionCtx, conversation: Conversation, turn: int) -> ModelRequest:
    """The request of a tool-loop turn: real tools plus one transfer tool per handoff."""
    return ModelRequest(
        instructions=ctx.instructions,
        items=visible(conversation),
        tools=_offered_tools(ctx),
        settings=ctx.settings.for_turn(turn),
    )


def _constrained_request(ctx: TransitionCtx, conversation: Conversation) -> ModelRequest:
    """The request of a structured-output turn: no tools, no tool choice, the output schema attached."""
    settings = ctx.settings
    if settings.tool_choice is not None or settings.parallel_tool_calls is not None:
        settings = attrs.evolve(settings, tool_choice=None, parallel_tool_calls=None)
    return ModelRequest(
        instructions=ctx.instructions,
        items=visible(conversation),
        tools=(),
        settings=settings,
        output_schema=ctx.output_schema,
    )


def _offered_tools(ctx: TransitionCtx) -> tuple[ToolDef, ...]:
    if not ctx.handoffs:
        return ctx.tools
    return ctx.tools + tuple(_handoff_tool(h) for h in ctx.handoffs)


def _handoff_tool(handoff: HandoffTarget) -> ToolDef:
    """The synthetic transfer tool the model calls to hand off to `handoff.agent`."""
    return ToolDef(handoff.tool_name, handoff.description, _no_arguments(), strict=True)


# The tool loop


def _read_response(response: ModelResponse, agent: str) -> tuple[tuple[Item, ...], list[AgentEvent]]:
    """A response as conversation items (reasoning, then the assistant text, then the tool calls) and
    the events it opens with (the `MessageOutput` of its text, if any)."""
    items: list[Item] = []
    events: list[AgentEvent] = []
    if response.reasoning_blocks:
        items.extend(response.reasoning_blocks)
    elif response.reasoning:
        items.append(Reasoning(response.reasoning))
    if response.text:
        message = AssistantMessage(response.text, agent)
        items.append(message)
        events.append(MessageOutput(message))
    items.extend(response.tool_calls)
    return tuple(items), events


def _with_unique_call_ids(response: ModelResponse) -> ModelResponse:
    """`response` with each reused call id renamed ``ID#2``, ``ID#3``, ... (the first call keeps it).

    Every call must be answerable on its own, and OpenAI refuses a request whose tool messages share
    an id; a renamed id never takes one another call of the response already has.
    """
    calls = response.tool_calls
    taken = {call.call_id for call in calls}
    if len(taken) == len(calls):
        return response
    seen: set[str] = set()
    renamed: list[ToolCall] = []
    for call in calls:
        if call.call_id in seen:
            n = 2
            while f"{call.call_id}#{n}" in taken:
                n += 1
            call = attrs.evolve(call, call_id=f"{call.call_id}#{n}")
            taken.add(call.call_id)
        seen.add(call.call_id)
        renamed.append(call)
    return attrs.evolve(response, tool_calls=tuple(renamed))


def _counted(usage: Usage, response: ModelResponse) -> Usage:
    """Add one model call's usage; the loop counts the request itself, whatever the provider said.

    ``usage + one_call(response.usage)``, written out: one `Usage` built instead of two.
    """
    reported = response.usage
    return Usage(
        input_tokens=usage.input_tokens + reported.input_tokens,
        output_tokens=usage.output_tokens + reported.output_tokens,
        cached_input_tokens=usage.cached_input_tokens + reported.cached_input_tokens,
        reasoning_tokens=usage.reasoning_tokens + reported.reasoning_tokens,
        requests=usage.requests + 1,
        unreported_requests=usage.unreported_requests + reported.unreported_requests,
    )


def _on_tool_loop_response(state: CallingModel, response: ModelResponse, ctx: TransitionCtx) -> TransitionOutcome:
    response = _with_unique_call_ids(response)
    usage = _counted(state.usage, response)
    items, events = _read_response(response, ctx.agent_name)
    calls = response.tool_calls
    conversation = ctx.conversation.extend(items)

    if calls:
        events += [ToolCallItem(call) for call in calls]
        if ctx.handoffs:
            handoffs = {h.tool_name: h for h in ctx.handoffs}
            winner = next((call for call in calls if call.name in handoffs), None)
            if winner is not None:
                return _hand_off(winner, handoffs[winner.name], calls, usage, events, items, conversation, ctx)
        return TransitionOutcome(
            ExecutingTools(calls, (), state.turn, usage), tuple(events), _execute(calls, ctx), items
        )

    if ctx.output_schema is not None:
        turn = state.turn + 1
        events.append(TurnStarted(turn))
        return TransitionOutcome(
            Finalizing(turn, usage), tuple(events), CallModel(_constrained_request(ctx, conversation)), items
        )
    events.append(RunCompleted(usage))
    return TransitionOutcome(Done(FinalOutput(response.text), usage), tuple(events), Terminate(), items)


def _execute(calls: tuple[ToolCall, ...], ctx: TransitionCtx) -> ExecuteTools:
    """Run every one of `calls`, each with what checking it found (`ExecuteTools.arguments` and `problems`).

    A call that cannot run goes to the driver too, its problem attached: `PreToolUse` and the permission
    decision see it first (original-notes section 3.2), and the problem answers it in place of the tool.
    """
    arguments, problems = _check_calls(calls, ctx)
    return ExecuteTools(calls, arguments, problems)


def _await(pending: tuple[ToolCall, ...], ctx: TransitionCtx) -> AwaitApproval:
    """Wait for a human on `pending`, each with its problem (`AwaitApproval.problems`)."""
    return AwaitApproval(pending, _check_calls(pending, ctx)[1])


def _check_calls(
    calls: tuple[ToolCall, ...], ctx: TransitionCtx
) -> tuple[tuple[JsonObject | None, ...], tuple[str | None, ...]]:
    """Per call in order: its parsed and checked arguments (`None` if it cannot run), and why it cannot run
    (unknown tool, arguments not JSON or off the schema; `None` if it can)."""
    tools = {tool.name: tool for tool in ctx.tools}
    arguments: list[JsonObject | None] = []
    problems: list[str | None] = []
    for call in calls:
        checked = _checked_arguments(call, tools, ctx)
        if isinstance(checked, str):
            arguments.append(None)
            problems.append(checked)
        else:
            arguments.append(checked)
            problems.append(None)
    return tuple(arguments), tuple(problems)


def _offered(tools: dict[str, ToolDef], ctx: TransitionCtx) -> str:
    """Every tool name the model was offered, its handoffs' transfer tools included (for an unknown tool's answer)."""
    return ", ".join(sorted([*tools, *(handoff.tool_name for handoff in ctx.handoffs)])) or "none"


def _runnable(calls: tuple[ToolCall, ...], rejected: tuple[ToolResult, ...]) -> tuple[ToolCall, ...]:
    """The calls the driver must run: those not already answered by a rejection (only records of older versions,
    whose transition answered calls that cannot run itself, have any)."""
    if not rejected:
        return calls
    rejected_ids = {result.call_id for result in rejected}
    return tuple(call for call in calls if call.call_id not in rejected_ids)


def _checked_arguments(call: ToolCall, tools: dict[str, ToolDef], ctx: TransitionCtx) -> JsonObject | str:
    """The arguments of `call`, parsed and checked against its tool's schema; or why it cannot run, in
    words the model can act on (an unknown tool's answer lists every tool name the model was offered)."""
    tool = tools.get(call.name)
    if tool is None:
        return f"unknown tool: {call.name!r} (available tools: {_offered(tools, ctx)})"
    try:
        arguments = parse_arguments(call.arguments)
    except json.JSONDecodeError as exc:
        return f"invalid arguments for tool {call.name!r}: not valid JSON ({exc})"
    except ValueError as exc:
        return f"invalid arguments for tool {call.name!r}: {exc}"
    except RecursionError:
        return f"invalid arguments for tool {call.name!r}: nested too deeply"
    errors = validate(arguments, tool.compiled)
    if errors:
        return f"invalid arguments for tool {call.name!r}: " + "; ".join(errors)
    return arguments


def _on_tool_results(state: ExecutingTools, input: ToolResults, ctx: TransitionCtx) -> TransitionOutcome:
    expected = [call.call_id for call in _runnable(state.calls, state.rejected)]
    problem = _answers_problem(input, expected)
    if problem is not None:
        return _invalid(state, input, state.usage, problem)
    return _settle_round(state.turn, state.usage, state.calls, state.rejected + input.results, input, ctx)


def _settle_round(
    turn: int,
    usage: Usage,
    calls: tuple[ToolCall, ...],
    results: tuple[ToolResult, ...],
    input: ToolResults,
    ctx: TransitionCtx,
) -> TransitionOutcome:
    """The round's calls answered so far are `results`: wait for the ones still pending, or go on."""
    if input.pending:
        return _await_approval(turn, usage, calls, results, input, ctx)
    return _after_tools(turn, usage, calls, results, list(input.events), (), ctx.conversation, ctx)


def _answers_problem(input: ToolResults, expected: list[str]) -> str | None:
    """Why `input` does not answer exactly the calls `expected` (each by a result or as pending), or `None`."""
    given = [result.call_id for result in input.results]
    waiting = [call.call_id for call in input.pending]
    if (given == expected and not waiting) or sorted(given + waiting) == sorted(expected):
        return None  # (equal lists sort equal: the first test only spares the sorting in the common case)
    pending = f" (pending {waiting})" if waiting else ""
    return f"tool results answer {given}{pending}, expected exactly {expected}"


def _await_approval(
    turn: int,
    usage: Usage,
    calls: tuple[ToolCall, ...],
    settled: tuple[ToolResult, ...],
    input: ToolResults,
    ctx: TransitionCtx,
) -> TransitionOutcome:
    """Some calls of the round wait for a human: enter `NeedsApproval`, one `ApprovalRequested` per waiting call."""
    pending = input.pending
    events = (*input.events, *(ApprovalRequested(call.call_id, call.name, call.arguments) for call in pending))
    return TransitionOutcome(NeedsApproval(pending, turn, usage, calls, settled), events, _await(pending, ctx))


def _on_approvals(state: NeedsApproval, input: ToolResults, ctx: TransitionCtx) -> TransitionOutcome:
    """Decisions came for (some of) the waiting calls: settle the round, or wait on for the undecided ones."""
    problem = _answers_problem(input, [call.call_id for call in state.pending])
    if problem is not None:
        return _invalid(state, input, state.usage, problem)
    return _settle_round(state.turn, state.usage, state.calls, state.settled + input.results, input, ctx)


def _after_tools(
    turn: int,
    usage: Usage,
    calls: tuple[ToolCall, ...],
    results: tuple[ToolResult, ...],
    events: list[AgentEvent],
    appends: tuple[Item, ...],
    conversation: Conversation,
    ctx: TransitionCtx,
) -> TransitionOutcome:
    """Settle a tool round: results in call order, then the next turn, or `MaxTurnsExceeded` at the budget."""
    by_id = {result.call_id: result for result in results}
    ordered = tuple([by_id[call.call_id] for call in calls])
    events += [ToolOutputItem(result) for result in ordered]
    appends = appends + ordered
    conversation = conversation.extend(ordered)
    next_turn = turn + 1
    if next_turn >= ctx.max_turns:
        error = MaxTurnsExceeded(ctx.max_turns)
        events.append(RunFailed(error))
        return TransitionOutcome(Failed(error, usage), tuple(events), Terminate(), appends)
    events.append(TurnStarted(next_turn))
    return TransitionOutcome(
        CallingModel(next_turn, usage),
        tuple(events),
        CallModel(_tool_loop_request(ctx, conversation, next_turn)),
        appends,
    )


def _hand_off(
    winner: ToolCall,
    target: HandoffTarget,
    calls: tuple[ToolCall, ...],
    usage: Usage,
    events: list[AgentEvent],
    items: tuple[Item, ...],
    conversation: Conversation,
    ctx: TransitionCtx,
) -> TransitionOutcome:
    """The first transfer call wins; every other call is answered as not run, so the transcript stays valid."""
    results = tuple(
        ToolResult(call.call_id, json.dumps({"assistant": target.agent}))
        if call is winner
        else ToolResult(
            call.call_id,
            f"not run: control was handed off to {target.agent!r} by call {winner.call_id!r}",
            is_error=True,
        )
        for call in calls
    )
    events.extend(ToolOutputItem(result) for result in results)
    appends = items + results
    depth = ctx.agent_depth + 1
    if depth > ctx.max_agent_depth:
        error = MaxAgentDepthExceeded(depth, ctx.max_agent_depth)
        events.append(RunFailed(error))
        return TransitionOutcome(Failed(error, usage), tuple(events), Terminate(), appends)
    transcript = conversation.extend(results)
    events.append(HandoffItem(ctx.agent_name, target.agent))
    events.append(AgentUpdated(target.agent))
    return TransitionOutcome(
        ApplyingHandoff(target.agent, transcript, usage),
        tuple(events),
        PerformHandoff(target.agent, transcript),
        appends,
    )


# Structured output


def _on_structured_response(
    state: Finalizing | RepairingOutput, response: ModelResponse, ctx: TransitionCtx
) -> TransitionOutcome:
    response = _with_unique_call_ids(response)
    usage = _counted(state.usage, response)
    appends, events = _read_response(response, ctx.agent_name)
    schema = ctx.output_schema
    if response.tool_calls:
        events.extend(ToolCallItem(call) for call in response.tool_calls)
        refusals = tuple(
            ToolResult(call.call_id, "not run: no tools are offered on the structured-output turn", is_error=True)
            for call in response.tool_calls
        )
        events.extend(ToolOutputItem(result) for result in refusals)
        appends = appends + refusals
        errors: tuple[str, ...] = ("model called a tool on the structured-output turn instead of answering",)
        value: JsonValue = None
    elif schema is None:
        errors = ("no output schema is configured for the structured-output turn",)
        value = None
    else:
        value, errors = validate_output(response.text, schema)

    if not errors:
        events.append(RunCompleted(usage))
        output = FinalOutput(response.text.strip(), value, structured=True)
        return TransitionOutcome(Done(output, usage), tuple(events), Terminate(), appends)

    if isinstance(state, Finalizing):
        name = schema.name if schema is not None else "the output"
        repair = UserMessage(_repair_prompt(name, errors))
        appends = (*appends, repair)
        events.append(RepairStarted(1))
        conversation = ctx.conversation.extend(appends)
        return TransitionOutcome(
            RepairingOutput(state.turn, usage),
            tuple(events),
            CallModel(_constrained_request(ctx, conversation)),
            appends,
        )
    error = StructuredOutputInvalid(errors, response.text)
    events.append(StructuredOutputFailed(errors, response.text))
    events.append(RunFailed(error))
    return TransitionOutcome(Failed(error, usage), tuple(events), Terminate(), appends)


def validate_output(text: str, schema: OutputSchema) -> tuple[JsonValue, tuple[str, ...]]:
    """Decode a structured-output answer and check it against `schema`: the value, and each problem found."""
    try:
        value: JsonValue = json.loads(text.strip())
    except ValueError as exc:
        return None, (f"response was not valid JSON: {exc}",)
    except RecursionError:
        return None, ("response was not valid JSON: nested too deeply",)
    return value, tuple(validate(value, schema.compiled))


def _repair_prompt(name: str, errors: tuple[str, ...]) -> str:
    return (
        f"Your reply did not match the JSON schema for {name}: {'; '.join(errors)}. "
        "Reply again with only a JSON value that fits the schema, with no code fences and no other text."
    )


# Compaction


def _compact_first(outcome: TransitionOutcome, ctx: TransitionCtx) -> TransitionOutcome:
    """`outcome`, or, when the conversation its model call would see passes the budget, `Compacting` first."""
    state = outcome.next_state
    match state:
        case CallingModel():
            resume = ResumePhase.CALLING_MODEL
        case Finalizing():
            resume = ResumePhase.FINALIZING
        case RepairingOutput():
            resume = ResumePhase.REPAIRING_OUTPUT
        case _:
            return outcome
    assert ctx.compaction is not None
    plan = plan_compaction(ctx.conversation.extend(outcome.conversation_appends), ctx.compaction)
    if plan is None:
        return outcome
    compacting = Compacting(state.turn, state.usage, resume)
    request = summary_request(plan, ctx.compaction)
    return TransitionOutcome(compacting, outcome.events, CallModel(request), outcome.conversation_appends)


def _ask_summary(state: Compacting, ctx: TransitionCtx) -> TransitionOutcome:
    """(Re-)ask for the summary; with nothing left to compact (the budget changed), go straight on."""
    plan = plan_compaction(ctx.conversation, ctx.compaction) if ctx.compaction is not None else None
    if plan is None or ctx.compaction is None:
        return _after_compaction(state, state.usage, (), (), ctx)
    return TransitionOutcome(state, (), CallModel(summary_request(plan, ctx.compaction)))


def _on_summary(state: Compacting, response: ModelResponse, ctx: TransitionCtx) -> TransitionOutcome:
    """Splice the summary in (a marker appended to the log) and make the model call it was made for."""
    usage = _counted(state.usage, response)
    policy = ctx.compaction
    plan = plan_compaction(ctx.conversation, policy) if policy is not None else None
    if plan is None or policy is None:
        return _after_compaction(state, usage, (), (), ctx)
    marker = splice(plan, response.text, policy)
    if marker is None:
        return _skip_compaction(state, usage, BLANK_SUMMARY, ctx)
    event = compaction_report(ctx.conversation, plan, marker)
    return _after_compaction(state, usage, (event,), (marker,), ctx)


def _skip_compaction(state: Compacting, usage: Usage, reason: str, ctx: TransitionCtx) -> TransitionOutcome:
    """Go on uncompacted, with a warning; the marker appended records the skip and changes no view."""
    marker = skipped_marker(ctx.conversation)
    return _after_compaction(state, usage, (CompactionSkipped(reason),), (marker,), ctx)


def _after_compaction(
    state: Compacting, usage: Usage, events: tuple[AgentEvent, ...], appends: tuple[Item, ...], ctx: TransitionCtx
) -> TransitionOutcome:
    """Back to the phase compaction interrupted, making its model call over the compacted view."""
    conversation = ctx.conversation.extend(appends)
    turn = state.turn
    match state.resume:
        case ResumePhase.CALLING_MODEL:
            request = _tool_loop_request(ctx, conversation, turn)
            return TransitionOutcome(CallingModel(turn, usage), events, CallModel(request), appends)
        case ResumePhase.FINALIZING:
            request = _constrained_request(ctx, conversation)
            return TransitionOutcome(Finalizing(turn, usage), events, CallModel(request), appends)
        case ResumePhase.REPAIRING_OUTPUT:
            request = _constrained_request(ctx, conversation)
            return TransitionOutcome(RepairingOutput(turn, usage), events, CallModel(request), appends)
        case _:
            assert_never(state.resume)


# Failures


def _fail(error: AgentError, usage: Usage) -> TransitionOutcome:
    return TransitionOutcome(Failed(error, usage), (RunFailed(error),), Terminate())


def _invalid(state: LoopState, input: TransitionInput, usage: Usage, detail: str = "") -> TransitionOutcome:
    return _fail(InvalidTransition(type(state).__name__, type(input).__name__, detail), usage)
