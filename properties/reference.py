"""A small pure reference driver: runs `transition` against a scripted model and records every step.

It does what the trio driver does, minus the IO: feed `Start`, emit events, extend the
conversation with `conversation_appends`, then perform `next_action` — `CallModel` answers with
the next scripted `ModelResponse` (an empty answer once the script runs out), `ExecuteTools`
answers every call with an ok result (in reverse order: results may come back in any order), or,
for a call with a problem (`ExecuteTools.problems`), with its problem as the trio driver does
without hooks or permissions; `PerformHandoff` and `Terminate` end this agent's loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import assert_never

import attrs

from helikon_fc.core import (
    AgentEvent,
    AwaitApproval,
    CallModel,
    Conversation,
    ExecuteTools,
    HandoffTarget,
    LoopState,
    ModelRequest,
    ModelResponse,
    ModelSettings,
    OutputSchema,
    PerformHandoff,
    Start,
    Terminate,
    ToolCall,
    ToolDef,
    ToolResult,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    TransitionOutcome,
    UserMessage,
    initial_state,
    transition,
)


@attrs.frozen
class Step:
    """One call of `transition`: what it was given and what it returned."""

    state: LoopState
    input: TransitionInput
    conversation: Conversation
    outcome: TransitionOutcome


@attrs.frozen
class Trace:
    """Everything that happened in one driven run."""

    steps: tuple[Step, ...]
    requests: tuple[ModelRequest, ...]
    responses: tuple[ModelResponse, ...]
    tool_batches: tuple[tuple[ToolCall, ...], ...]
    """The calls the driver ran, per round (those with a problem are answered with it, not run; a round
    where none ran is left out)."""
    conversation: Conversation
    stopped_by_bound: bool

    @property
    def final_state(self) -> LoopState:
        """The state the run ended in."""
        return self.steps[-1].outcome.next_state

    @property
    def events(self) -> tuple[AgentEvent, ...]:
        """Every event the run emitted, in order."""
        return tuple(event for step in self.steps for event in step.outcome.events)


@attrs.frozen
class Answer:
    """A scripted answer that depends on the request: one for a tool-loop turn, one for a structured-output turn."""

    tool_loop: ModelResponse
    structured: ModelResponse

    def to(self, request: ModelRequest) -> ModelResponse:
        """The answer to `request`."""
        return self.structured if request.output_schema is not None else self.tool_loop


def ok_result(call: ToolCall) -> ToolResult:
    """The result a well-behaved tool returns."""
    return ToolResult(call.call_id, f"ok from {call.name}")


def answer_of(
    call: ToolCall, problem: str | None, tool_output: Callable[[ToolCall], ToolResult] = ok_result
) -> ToolResult:
    """A call's result: its problem if it has one, else what the tool returns."""
    return tool_output(call) if problem is None else ToolResult(call.call_id, problem, is_error=True)


def drive(
    ctx: TransitionCtx,
    script: Sequence[ModelResponse | Answer],
    *,
    tool_output: Callable[[ToolCall], ToolResult] = ok_result,
    max_steps: int = 1_000,
) -> Trace:
    """Run the machine from `initial_state()` in `ctx`, the model answering from `script` (an empty answer after it)."""
    state = initial_state()
    conversation = ctx.conversation
    given: TransitionInput = Start()
    steps: list[Step] = []
    requests: list[ModelRequest] = []
    responses: list[ModelResponse] = []
    batches: list[tuple[ToolCall, ...]] = []
    for _ in range(max_steps):
        outcome = transition(state, given, attrs.evolve(ctx, conversation=conversation))
        steps.append(Step(state, given, conversation, outcome))
        conversation = conversation.extend(outcome.conversation_appends)
        state = outcome.next_state
        match outcome.next_action:
            case CallModel(request=request):
                requests.append(request)
                scripted = script[len(responses)] if len(responses) < len(script) else ModelResponse()
                response = scripted.to(request) if isinstance(scripted, Answer) else scripted
                responses.append(response)
                given = response
            case ExecuteTools(calls=calls, problems=problems):
                ran = tuple(call for call, problem in zip(calls, problems, strict=True) if problem is None)
                if ran:
                    batches.append(ran)
                given = ToolResults(
                    tuple(
                        answer_of(call, problem, tool_output)
                        for call, problem in zip(reversed(calls), reversed(problems), strict=True)
                    )
                )
            case AwaitApproval(pending=pending, problems=problems):  # every waiting call approved, and run
                given = ToolResults(
                    tuple(
                        answer_of(call, problem, tool_output) for call, problem in zip(pending, problems, strict=True)
                    )
                )
            case PerformHandoff() | Terminate():
                break
            case _:
                assert_never(outcome.next_action)
    else:
        return Trace(tuple(steps), tuple(requests), tuple(responses), tuple(batches), conversation, True)
    return Trace(tuple(steps), tuple(requests), tuple(responses), tuple(batches), conversation, False)


# A small world to run the machine in: two tools, an output schema, handoff targets.

WEATHER = ToolDef(
    "get_weather",
    "The weather in a city.",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    strict=True,
)
"""A tool taking one required string."""

ADD = ToolDef(
    "add",
    "Add two integers.",
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    },
    strict=True,
)
"""A tool taking two required integers."""

ANSWER = OutputSchema(
    "Answer",
    {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "score": {"type": "integer"}},
        "required": ["answer", "score"],
        "additionalProperties": False,
    },
)
"""The structured output: an answer and an integer score."""

BILLING = HandoffTarget("transfer_to_billing", "billing", "Hand off to billing.")
SUPPORT = HandoffTarget("transfer_to_support", "support", "Hand off to support.")


def make_ctx(
    *,
    tools: tuple[ToolDef, ...] = (WEATHER, ADD),
    handoffs: tuple[HandoffTarget, ...] = (),
    output_schema: OutputSchema | None = None,
    max_turns: int = 16,
    agent_depth: int = 0,
    max_agent_depth: int = 8,
    conversation: Conversation | None = None,
    settings: ModelSettings | None = None,
) -> TransitionCtx:
    """A context for agent ``"assistant"`` whose conversation is one user message unless given."""
    return TransitionCtx(
        agent_name="assistant",
        instructions="Be brief.",
        conversation=conversation if conversation is not None else Conversation([UserMessage("hello")]),
        tools=tools,
        handoffs=handoffs,
        settings=settings if settings is not None else ModelSettings(),
        max_turns=max_turns,
        output_schema=output_schema,
        agent_depth=agent_depth,
        max_agent_depth=max_agent_depth,
    )
