"""The original's `transition_unit` scenarios (original-notes.md section 13, items 1-12), ported to this design.

Each docstring names the scenario and quotes the issue 2 rule it exercises.
"""

from __future__ import annotations

from properties.reference import ADD, ANSWER, BILLING, WEATHER, drive, make_ctx

from helikon_fc.core import (
    ApplyingHandoff,
    AssistantMessage,
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
    MaxTurnsExceeded,
    MessageOutput,
    ModelResponse,
    ModelSettings,
    NeedsApproval,
    PerformHandoff,
    RunCompleted,
    RunFailed,
    Start,
    Terminate,
    ToolCall,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    ToolResults,
    TurnStarted,
    Usage,
    transition,
)

CALL_A = ToolCall("a", "get_weather", '{"city": "Oslo"}')
CALL_B = ToolCall("b", "add", '{"a": 1, "b": 2}')


def test_01_start_seeds_turn_zero_and_emits_call_model() -> None:
    """start_seeds_turn_zero_and_emits_call_model. Rule: "`turn` counts model calls in the tool loop"."""
    ctx = make_ctx()
    outcome = transition(CallingModel(0), Start(), ctx)
    assert outcome.events == (TurnStarted(0),)
    assert outcome.next_state == CallingModel(0)
    assert isinstance(outcome.next_action, CallModel)
    request = outcome.next_action.request
    assert request.items == ctx.conversation
    assert request.tools == (WEATHER, ADD)
    assert request.instructions == "Be brief."
    assert request.output_schema is None
    assert outcome.conversation_appends == ()


def test_02_model_response_without_tool_calls_terminates() -> None:
    """model_response_without_tool_calls_terminates. Rule: "Exactly one terminal event per run (`RunCompleted` or
    `RunFailed`), and it is the last one."."""
    outcome = transition(CallingModel(0), ModelResponse(text="Hello!"), make_ctx())
    message = AssistantMessage("Hello!", "assistant")
    assert outcome.events == (MessageOutput(message), RunCompleted(Usage(requests=1)))
    assert outcome.next_state == Done(FinalOutput("Hello!"), Usage(requests=1))
    assert outcome.next_action == Terminate()
    assert outcome.conversation_appends == (message,)


def test_03_model_response_with_tool_calls_fans_out() -> None:
    """model_response_with_tool_calls_fans_out. Rule: "A response with tool calls leads to `ExecutingTools` and one
    `ToolCallItem` per call"."""
    outcome = transition(CallingModel(0), ModelResponse(text="Checking.", tool_calls=(CALL_A, CALL_B)), make_ctx())
    assert outcome.events == (
        MessageOutput(AssistantMessage("Checking.", "assistant")),
        ToolCallItem(CALL_A),
        ToolCallItem(CALL_B),
    )
    assert outcome.next_action == ExecuteTools((CALL_A, CALL_B))
    assert isinstance(outcome.next_state, ExecutingTools)


def test_04_tool_results_advance_to_next_call_model() -> None:
    """tool_results_advance_to_next_call_model. Rule: "tool results come back through `ToolResults`"."""
    state = ExecutingTools((CALL_A, CALL_B), (), 0, Usage(requests=1))
    results = (ToolResult("a", "sunny"), ToolResult("b", "3"))
    outcome = transition(state, ToolResults(results), make_ctx())
    assert outcome.events == (ToolOutputItem(results[0]), ToolOutputItem(results[1]), TurnStarted(1))
    assert outcome.next_state == CallingModel(1, Usage(requests=1))
    assert isinstance(outcome.next_action, CallModel)


def test_05_calling_model_at_max_turns_fails() -> None:
    """calling_model_at_max_turns_fails. Rule: "reaching `max_turns` fails with `MaxTurnsExceeded`"."""
    for given in (Start(), ModelResponse(text="late"), ToolResults(())):
        outcome = transition(CallingModel(3, Usage(requests=3)), given, make_ctx(max_turns=3))
        assert outcome.next_state == Failed(MaxTurnsExceeded(3), Usage(requests=3))
        assert outcome.events == (RunFailed(MaxTurnsExceeded(3)),)
        assert outcome.next_action == Terminate()


def test_06_tool_results_at_max_turns_preserves_outputs_before_failing() -> None:
    """tool_results_at_max_turns_preserves_outputs_before_failing. Rule: "the last round's `ToolOutputItem` events
    are still emitted before `RunFailed`"."""
    state = ExecutingTools((CALL_A, CALL_B), (), 1, Usage(requests=2))
    results = (ToolResult("a", "sunny"), ToolResult("b", "3"))
    outcome = transition(state, ToolResults(results), make_ctx(max_turns=2))
    assert outcome.events == (ToolOutputItem(results[0]), ToolOutputItem(results[1]), RunFailed(MaxTurnsExceeded(2)))
    assert outcome.conversation_appends == results
    assert outcome.next_state == Failed(MaxTurnsExceeded(2), Usage(requests=2))


def test_07_reserved_states_surface_not_implemented() -> None:
    """compacting_surfaces_not_implemented. Rule: "`LoopState` (all nine variants, including the reserved
    `Compacting`)"; `NeedsApproval` is driven now: `Start` on it asks for the approvals again."""
    compacting = transition(Compacting(1), Start(), make_ctx())
    assert compacting.next_state == CallingModel(1)  # driven now: with no budget it goes straight on
    approval = transition(NeedsApproval((CALL_A,), 1), Start(), make_ctx())
    assert approval.next_action == AwaitApproval((CALL_A,))


def test_08_finalizing_request_carries_the_schema_and_no_tools() -> None:
    """finalizing_request_carries_response_format_and_no_tools. Rule: "an agent with no tools goes straight to the
    `Finalizing` turn" which "asks for output fitting the schema (no tools offered)"."""
    outcome = transition(CallingModel(0), Start(), make_ctx(tools=(), output_schema=ANSWER))
    assert outcome.next_state == Finalizing(0)
    assert isinstance(outcome.next_action, CallModel)
    assert outcome.next_action.request.output_schema == ANSWER
    assert outcome.next_action.request.output_schema.strict
    assert outcome.next_action.request.tools == ()


def test_09_output_type_overrides_caller_tool_settings_on_finalizing_turn() -> None:
    """output_type_overrides_caller_response_format_on_finalizing_turn (here: the schema is attached and the caller's
    tool choice is dropped). Rule: "a `Finalizing` turn that asks for output fitting the schema (no tools offered)"."""
    settings = ModelSettings(temperature=0.5, tool_choice="get_weather", parallel_tool_calls=False)
    ctx = make_ctx(output_schema=ANSWER, settings=settings)
    outcome = transition(CallingModel(0), ModelResponse(text="It is sunny."), ctx)
    assert outcome.next_state == Finalizing(1, Usage(requests=1))
    assert isinstance(outcome.next_action, CallModel)
    request = outcome.next_action.request
    assert request.settings == ModelSettings(temperature=0.5)
    assert request.output_schema == ANSWER and request.tools == ()
    assert request.items[-1] == AssistantMessage("It is sunny.", "assistant")


def test_10_usage_accumulates_across_turns() -> None:
    """usage_accumulates_across_turns. Rule: "the run's usage is the sum of every model call's usage"."""
    first = Usage(input_tokens=100, output_tokens=20)
    second = Usage(input_tokens=180, output_tokens=28)
    script = [ModelResponse(tool_calls=(CALL_A,), usage=first), ModelResponse(text="ok", usage=second)]
    trace = drive(make_ctx(), script)
    total = Usage(input_tokens=280, output_tokens=48, requests=2)
    assert total.total_tokens == 120 + 208
    assert trace.final_state == Done(FinalOutput("ok"), total)
    assert trace.events[-1] == RunCompleted(total)
    tool_step = trace.steps[2]
    assert isinstance(tool_step.input, ToolResults)
    assert tool_step.outcome.next_state == CallingModel(1, Usage(input_tokens=100, output_tokens=20, requests=1))


def test_11_model_response_with_transfer_call_routes_to_applying_handoff() -> None:
    """model_response_with_transfer_call_routes_to_applying_handoff. Rule: "A call to a handoff tool
    (`transfer_to_<slug>`) leads to `ApplyingHandoff`"."""
    ctx = make_ctx(handoffs=(BILLING,))
    call = ToolCall("h", "transfer_to_billing", "{}")
    outcome = transition(CallingModel(0), ModelResponse(tool_calls=(call,)), ctx)
    assert isinstance(outcome.next_state, ApplyingHandoff)
    transcript = outcome.next_state.transcript
    assert list(transcript) == [*ctx.conversation, call, ToolResult("h", '{"assistant": "billing"}')]
    assert outcome.next_action == PerformHandoff("billing", transcript)
    resumed = transition(outcome.next_state, Start(), ctx)
    assert resumed.next_action == PerformHandoff("billing", transcript)


def test_12_model_response_prefers_handoff_over_regular_tool_call() -> None:
    """model_response_prefers_handoff_over_regular_tool_call. Rule: "the first such call in the response wins; every
    other call of that response is answered with an error result"."""
    ctx = make_ctx(handoffs=(BILLING,))
    handoff = ToolCall("h", "transfer_to_billing", "{}")
    trace = drive(ctx, [ModelResponse(tool_calls=(CALL_A, handoff))])
    assert trace.tool_batches == ()
    assert isinstance(trace.final_state, ApplyingHandoff)
    outputs = [e.item for e in trace.events if isinstance(e, ToolOutputItem)]
    assert outputs[0].call_id == "a" and outputs[0].is_error
