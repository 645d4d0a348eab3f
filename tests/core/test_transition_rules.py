"""The rules of issue 2 section 2, one or more tests each; every docstring quotes the rule it exercises."""

from __future__ import annotations

import json

from properties.reference import ADD, ANSWER, BILLING, SUPPORT, WEATHER, Trace, drive, make_ctx

from helikon_fc.core import (
    AgentUpdated,
    ApplyingHandoff,
    AssistantMessage,
    CallingModel,
    CallModel,
    Compacting,
    Done,
    ExecuteTools,
    ExecutingTools,
    Failed,
    Finalizing,
    FinalOutput,
    HandoffItem,
    InvalidTransition,
    LoopState,
    MaxAgentDepthExceeded,
    MaxTurnsExceeded,
    MessageOutput,
    ModelResponse,
    NeedsApproval,
    PerformHandoff,
    RepairingOutput,
    RunCompleted,
    RunFailed,
    Start,
    StructuredOutputFailed,
    StructuredOutputInvalid,
    Terminate,
    ToolCall,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    ToolResults,
    TransitionInput,
    TransitionOutcome,
    TurnStarted,
    Usage,
    UserMessage,
    transition,
)


def weather(call_id: str, city: str = "Oslo") -> ToolCall:
    return ToolCall(call_id, "get_weather", json.dumps({"city": city}))


def tool_turn(*calls: ToolCall, usage: Usage | None = None) -> ModelResponse:
    return ModelResponse(tool_calls=calls, usage=usage or Usage())


def text_turn(text: str, usage: Usage | None = None) -> ModelResponse:
    return ModelResponse(text=text, usage=usage or Usage())


def kinds(trace: Trace) -> list[str]:
    return [type(event).__name__ for event in trace.events]


def answered_before_each_call(trace: Trace) -> None:
    for request in trace.requests:
        calls = [item.call_id for item in request.items if isinstance(item, ToolCall)]
        results = [item.call_id for item in request.items if isinstance(item, ToolResult)]
        assert sorted(calls) == sorted(results)


# The machine


def test_impossible_pairs_fail_instead_of_raising() -> None:
    """Rule: "Impossible (state, input) pairs return a `Failed` outcome; they never raise."."""
    ctx = make_ctx()
    pairs: list[tuple[LoopState, TransitionInput]] = [
        (CallingModel(0), ToolResults(())),
        (ExecutingTools((weather("a"),), (), 0), text_turn("hi")),
        (ApplyingHandoff("billing", ctx.conversation), text_turn("hi")),
        (Finalizing(1), ToolResults(())),
        (RepairingOutput(1), ToolResults(())),
    ]
    for state, given in pairs:
        outcome = transition(state, given, ctx)
        assert isinstance(outcome.next_state, Failed)
        assert isinstance(outcome.next_state.error, InvalidTransition)
        assert outcome.events == (RunFailed(outcome.next_state.error),)
        assert outcome.next_action == Terminate()


def test_tool_results_for_the_wrong_calls_are_an_invalid_transition() -> None:
    """Rule: "Impossible (state, input) pairs return a `Failed` outcome; they never raise."."""
    state = ExecutingTools((weather("a"), weather("b")), (), 0)
    for results in [(ToolResult("a", "x"),), (ToolResult("a", "x"), ToolResult("c", "y")), ()]:
        outcome = transition(state, ToolResults(results), make_ctx())
        assert isinstance(outcome.next_state, Failed)
        assert isinstance(outcome.next_state.error, InvalidTransition)
        assert "expected exactly" in outcome.next_state.error.detail


def test_a_result_for_an_already_rejected_call_is_an_invalid_transition() -> None:
    """Rule: "every `ToolCall` in the conversation is answered by exactly one `ToolResult`": the driver may not
    answer a call the core already rejected, so a second answer fails the step instead of entering the transcript."""
    rejected = (ToolResult("b", "unknown tool", is_error=True),)
    state = ExecutingTools((weather("a"), ToolCall("b", "nope", "{}")), rejected, 0)
    outcome = transition(state, ToolResults((ToolResult("a", "sun"), ToolResult("b", "ran anyway"))), make_ctx())
    assert isinstance(outcome.next_state, Failed)
    assert isinstance(outcome.next_state.error, InvalidTransition)
    assert outcome.next_state.error.detail == "tool results answer ['a', 'b'], expected exactly ['a']"
    assert outcome.conversation_appends == ()


def test_the_once_reserved_states_are_driven() -> None:
    """Rule: "`LoopState` (all nine variants, including the reserved `Compacting` and `NeedsApproval`)": both are
    driven now; `Start` on a waiting `NeedsApproval` asks for the approvals again and stays where it is."""
    waiting = NeedsApproval((weather("a"),), 2)
    assert transition(waiting, Start(), make_ctx()).next_state == waiting


def test_compacting_without_a_budget_goes_back_to_its_phase() -> None:
    """`Compacting` is driven now: with nothing to compact it makes the model call it interrupted."""
    outcome = transition(Compacting(2), Start(), make_ctx())
    assert outcome.next_state == CallingModel(2)
    assert isinstance(outcome.next_action, CallModel)


# Turns and max_turns


def test_turn_counts_model_calls_in_the_tool_loop() -> None:
    """Rule: "`turn` counts model calls in the tool loop"."""
    trace = drive(make_ctx(), [tool_turn(weather("a")), tool_turn(weather("b")), text_turn("done")])
    turns = [event.turn for event in trace.events if isinstance(event, TurnStarted)]
    assert turns == [0, 1, 2]
    assert len(trace.requests) == 3
    assert isinstance(trace.final_state, Done)
    assert trace.final_state.usage == Usage(requests=3)


def test_max_turns_zero_fails_before_any_model_call() -> None:
    """Rule: "`max_turns=0` fails before any model call"."""
    trace = drive(make_ctx(max_turns=0), [text_turn("never asked")])
    assert trace.requests == ()
    assert trace.events == (RunFailed(MaxTurnsExceeded(0)),)
    assert trace.final_state == Failed(MaxTurnsExceeded(0))


def test_always_calling_tools_gets_exactly_max_turns_calls() -> None:
    """Rule: "a model that always calls tools gets exactly `max_turns` calls, and the last round's
    `ToolOutputItem` events are still emitted before `RunFailed`"."""
    for max_turns in (1, 2, 5):
        script = [tool_turn(weather(f"c{i}")) for i in range(10)]
        trace = drive(make_ctx(max_turns=max_turns), script)
        assert len(trace.requests) == max_turns
        assert trace.final_state == Failed(MaxTurnsExceeded(max_turns), Usage(requests=max_turns))
        last = trace.steps[-1].outcome.events
        last_output = ToolOutputItem(ToolResult(f"c{max_turns - 1}", "ok from get_weather"))
        assert last == (last_output, RunFailed(MaxTurnsExceeded(max_turns)))


def test_a_rejected_round_also_counts_against_max_turns() -> None:
    """Rule: "reaching `max_turns` fails with `MaxTurnsExceeded`" (a round of only invalid calls counts too)."""
    script = [tool_turn(ToolCall(f"c{i}", "nope", "{}")) for i in range(4)]
    trace = drive(make_ctx(max_turns=3), script)
    assert len(trace.requests) == 3
    assert trace.tool_batches == ()
    assert isinstance(trace.events[-2], ToolOutputItem) and trace.events[-2].item.is_error
    assert trace.events[-1] == RunFailed(MaxTurnsExceeded(3))


# Tool calls


def test_tool_calls_lead_to_executing_tools_with_one_item_per_call() -> None:
    """Rule: "A response with tool calls leads to `ExecutingTools` and one `ToolCallItem` per call"."""
    calls = (weather("a"), ToolCall("b", "add", '{"a": 1, "b": 2}'))
    outcome = transition(CallingModel(0), ModelResponse(text="let me see", tool_calls=calls), make_ctx())
    assert outcome.next_state == ExecutingTools(calls, (), 0, Usage(requests=1))
    assert outcome.events == (
        MessageOutput(AssistantMessage("let me see", "assistant")),
        ToolCallItem(calls[0]),
        ToolCallItem(calls[1]),
    )
    assert outcome.next_action == ExecuteTools(calls)
    assert outcome.conversation_appends == (AssistantMessage("let me see", "assistant"), *calls)


def test_tool_results_come_back_through_tool_results_in_any_order() -> None:
    """Rule: "tool results come back through `ToolResults`"; they are settled in call order."""
    calls = (weather("a"), weather("b"))
    state = ExecutingTools(calls, (), 0, Usage(requests=1))
    results = (ToolResult("b", "rain"), ToolResult("a", "sun"))
    outcome = transition(state, ToolResults(results), make_ctx())
    assert outcome.conversation_appends == (ToolResult("a", "sun"), ToolResult("b", "rain"))
    assert outcome.events == (
        ToolOutputItem(ToolResult("a", "sun")),
        ToolOutputItem(ToolResult("b", "rain")),
        TurnStarted(1),
    )
    assert outcome.next_state == CallingModel(1, Usage(requests=1))
    assert isinstance(outcome.next_action, CallModel)
    assert outcome.next_action.request.items[-2:] == (ToolResult("a", "sun"), ToolResult("b", "rain"))


def test_every_tool_call_is_answered_once_before_the_next_model_call() -> None:
    """Rule: "every `ToolCall` in the conversation is answered by exactly one `ToolResult` before the next
    model call"."""
    script = [
        tool_turn(weather("a"), ToolCall("b", "nope", "{}"), ToolCall("c", "add", "{oops")),
        tool_turn(ToolCall("d", "add", '{"a": 1, "b": 2}')),
        text_turn("done"),
    ]
    trace = drive(make_ctx(), script)
    answered_before_each_call(trace)
    assert trace.tool_batches == ((weather("a"),), (ToolCall("d", "add", '{"a": 1, "b": 2}'),))
    outputs = [event.item.call_id for event in trace.events if isinstance(event, ToolOutputItem)]
    assert outputs == ["a", "b", "c", "d"]


def test_resuming_executing_tools_reissues_the_runnable_calls() -> None:
    """Rule: a persisted state resumes with `Start` ("the whole agent loop as one pure function", resumable):
    `ExecutingTools` asks again for the calls not already answered."""
    calls = (weather("a"), ToolCall("b", "nope", "{}"))
    rejected = (ToolResult("b", "unknown tool", is_error=True),)
    outcome = transition(ExecutingTools(calls, rejected, 3), Start(), make_ctx())
    assert outcome.next_action == ExecuteTools((weather("a"),))
    assert outcome.next_state == ExecutingTools(calls, rejected, 3)
    assert outcome.events == () and outcome.conversation_appends == ()


# Invalid calls


def _problems(outcome: TransitionOutcome) -> dict[str, str | None]:
    action = outcome.next_action
    assert isinstance(action, ExecuteTools)
    return {call.call_id: problem for call, problem in zip(action.calls, action.problems, strict=True)}


def test_invalid_calls_are_answered_with_readable_errors_and_the_run_goes_on() -> None:
    """Rule: "Tool-call arguments that are not valid JSON, unknown tool names, and arguments that do not fit
    the tool's schema are answered with an error `ToolResult` the model can read; the run goes on.
    They never fail the run and never raise." Every call goes to the driver, an invalid one with its
    problem: the driver answers it with that text after `PreToolUse` and the permission decision."""
    calls = (
        ToolCall("json", "get_weather", '{"city": '),
        ToolCall("unknown", "launch_rockets", "{}"),
        ToolCall("schema", "add", '{"a": "one", "c": 3}'),
        ToolCall("array", "add", "[1, 2]"),
        ToolCall("ok", "get_weather", '{"city": "Oslo"}'),
    )
    outcome = transition(CallingModel(0), tool_turn(*calls), make_ctx())
    assert isinstance(outcome.next_state, ExecutingTools) and outcome.next_state.rejected == ()
    assert outcome.next_action == ExecuteTools(calls)
    errors = _problems(outcome)
    assert errors["ok"] is None
    assert "not valid JSON" in (errors["json"] or "")
    assert errors["unknown"] == "unknown tool: 'launch_rockets' (available tools: add, get_weather)"
    assert "$.a: expected integer, got string" in (errors["schema"] or "")
    assert "$.b: missing required field" in (errors["schema"] or "")
    assert "$.c: unexpected field" in (errors["schema"] or "")
    assert "arguments must be a JSON object, got array" in (errors["array"] or "")
    answers = tuple(ToolResult(c, e or "sun", is_error=e is not None) for c, e in errors.items())
    follow = transition(outcome.next_state, ToolResults(answers), make_ctx())
    assert [e.item.call_id for e in follow.events if isinstance(e, ToolOutputItem)] == [c.call_id for c in calls]
    assert isinstance(follow.next_state, CallingModel)


def test_a_round_of_only_invalid_calls_goes_to_the_driver_then_to_the_next_turn() -> None:
    """Rule: "answered with an error `ToolResult` the model can read; the run goes on": the driver answers it
    (hooks and permissions see it first), then the next turn starts."""
    call = ToolCall("x", "", "{}")
    outcome = transition(CallingModel(0), tool_turn(call), make_ctx())
    assert outcome.next_state == ExecutingTools((call,), (), 0, Usage(requests=1))
    assert [type(e).__name__ for e in outcome.events] == ["ToolCallItem"]
    assert _problems(outcome) == {"x": "unknown tool: '' (available tools: add, get_weather)"}
    answer = ToolResult("x", "unknown tool: '' (available tools: add, get_weather)", is_error=True)
    follow = transition(outcome.next_state, ToolResults((answer,)), make_ctx())
    assert follow.next_state == CallingModel(1, Usage(requests=1))
    assert isinstance(follow.next_action, CallModel)
    assert [type(e).__name__ for e in follow.events] == ["ToolOutputItem", "TurnStarted"]
    assert follow.conversation_appends == (answer,)


def test_blank_arguments_mean_an_empty_object() -> None:
    """Rule: "arguments that do not fit the tool's schema are answered with an error `ToolResult`" — blank is `{}`."""
    outcome = transition(CallingModel(0), tool_turn(ToolCall("x", "get_weather", "  ")), make_ctx())
    assert _problems(outcome) == {"x": "invalid arguments for tool 'get_weather': $.city: missing required field"}


def test_deeply_nested_arguments_are_an_error_result_not_a_crash() -> None:
    """Rule: "They never fail the run and never raise." — even for arguments nested past the recursion limit."""
    deep = "[" * 50_000 + "]" * 50_000
    outcome = transition(CallingModel(0), tool_turn(ToolCall("x", "add", deep)), make_ctx())
    assert isinstance(outcome.next_state, ExecutingTools)
    assert _problems(outcome) == {"x": "invalid arguments for tool 'add': nested too deeply"}


# Handoffs


def test_a_handoff_call_leads_to_applying_handoff() -> None:
    """Rule: "A call to a handoff tool (`transfer_to_<slug>`) leads to `ApplyingHandoff`"."""
    ctx = make_ctx(handoffs=(BILLING,))
    call = ToolCall("h", "transfer_to_billing", "{}")
    outcome = transition(CallingModel(0), tool_turn(call), ctx)
    winner = ToolResult("h", json.dumps({"assistant": "billing"}))
    transcript = ctx.conversation.extend((call, winner))
    assert outcome.next_state == ApplyingHandoff("billing", transcript, Usage(requests=1))
    assert outcome.next_action == PerformHandoff("billing", transcript)
    assert outcome.events == (
        ToolCallItem(call),
        ToolOutputItem(winner),
        HandoffItem("assistant", "billing"),
        AgentUpdated("billing"),
    )
    assert outcome.conversation_appends == (call, winner)


def test_the_first_handoff_call_wins_and_siblings_are_answered_as_not_run() -> None:
    """Rule: "the first such call in the response wins; every other call of that response is answered with an
    error result saying it was not run because control was handed off (the transcript stays valid for the target)"."""
    ctx = make_ctx(handoffs=(BILLING, SUPPORT))
    calls = (
        weather("w"),
        ToolCall("s", "transfer_to_support", "{}"),
        ToolCall("b", "transfer_to_billing", "{}"),
    )
    outcome = transition(CallingModel(0), tool_turn(*calls), ctx)
    assert isinstance(outcome.next_state, ApplyingHandoff)
    assert outcome.next_state.target == "support"
    results = [e.item for e in outcome.events if isinstance(e, ToolOutputItem)]
    assert [r.call_id for r in results] == ["w", "s", "b"]
    assert results[1] == ToolResult("s", '{"assistant": "support"}')
    for sibling in (results[0], results[2]):
        assert sibling.is_error
        assert sibling.output == "not run: control was handed off to 'support' by call 's'"
    transcript = outcome.next_state.transcript
    assert sorted(i.call_id for i in transcript if isinstance(i, ToolCall)) == sorted(
        i.call_id for i in transcript if isinstance(i, ToolResult)
    )


def test_a_handoff_past_max_agent_depth_fails() -> None:
    """Rule: "`AgentError` (every failure the seed chapters and the original name ...)": a handoff deeper than
    `max_agent_depth` fails with `MaxAgentDepthExceeded(depth, limit)`."""
    ctx = make_ctx(handoffs=(BILLING,), agent_depth=2, max_agent_depth=2)
    outcome = transition(CallingModel(0), tool_turn(ToolCall("h", "transfer_to_billing", "{}")), ctx)
    assert outcome.next_state == Failed(MaxAgentDepthExceeded(3, 2), Usage(requests=1))
    assert outcome.events[-1] == RunFailed(MaxAgentDepthExceeded(3, 2))
    assert str(MaxAgentDepthExceeded(3, 2)) == "agent nesting depth (3) exceeded max (2)"


def test_handoff_tools_are_offered_to_the_model() -> None:
    """Rule: "A call to a handoff tool (`transfer_to_<slug>`)": each handoff is offered as a transfer tool."""
    outcome = transition(CallingModel(0), Start(), make_ctx(handoffs=(BILLING,)))
    assert isinstance(outcome.next_action, CallModel)
    assert [tool.name for tool in outcome.next_action.request.tools] == ["get_weather", "add", "transfer_to_billing"]
    transfer = outcome.next_action.request.tools[-1]
    closed = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert transfer.parameters == closed and transfer.strict  # no arguments: any given is refused


# Structured output


def test_no_tools_and_an_output_type_go_straight_to_finalizing() -> None:
    """Rule: "With an `output_type`: an agent with no tools goes straight to the `Finalizing` turn"."""
    outcome = transition(CallingModel(0), Start(), make_ctx(tools=(), handoffs=(BILLING,), output_schema=ANSWER))
    assert outcome.next_state == Finalizing(0)
    assert outcome.events == (TurnStarted(0),)
    assert isinstance(outcome.next_action, CallModel)
    request = outcome.next_action.request
    assert request.tools == () and request.output_schema == ANSWER


def test_with_tools_the_first_tool_free_answer_leads_to_finalizing() -> None:
    """Rule: "an agent with tools runs the normal loop, and its first answer without tool calls (kept in context)
    leads to a `Finalizing` turn that asks for output fitting the schema (no tools offered)"."""
    script = [tool_turn(weather("a")), text_turn("It is sunny."), text_turn('{"answer": "sunny", "score": 7}')]
    trace = drive(make_ctx(output_schema=ANSWER), script)
    assert [r.output_schema for r in trace.requests] == [None, None, ANSWER]
    assert trace.requests[0].tools == (WEATHER, ADD)
    assert trace.requests[2].tools == ()
    assert AssistantMessage("It is sunny.", "assistant") in trace.requests[2].items
    assert [e.turn for e in trace.events if isinstance(e, TurnStarted)] == [0, 1, 2]
    assert isinstance(trace.final_state, Done)
    assert trace.final_state.output.value == {"answer": "sunny", "score": 7}
    assert trace.final_state.output.structured


def test_the_finalizing_request_drops_tool_choice() -> None:
    """Rule: "a `Finalizing` turn that asks for output fitting the schema (no tools offered)"."""
    from helikon_fc.core import ModelSettings

    for settings in (
        ModelSettings(temperature=0.2, tool_choice="required", parallel_tool_calls=True),
        ModelSettings(temperature=0.2, tool_choice="required"),
        ModelSettings(temperature=0.2, parallel_tool_calls=False),
    ):
        outcome = transition(CallingModel(0), Start(), make_ctx(tools=(), output_schema=ANSWER, settings=settings))
        assert isinstance(outcome.next_action, CallModel)
        assert outcome.next_action.request.settings == ModelSettings(temperature=0.2)


def test_a_validation_failure_leads_to_exactly_one_repair() -> None:
    """Rule: "validation failure leads to exactly one `RepairingOutput` turn (`RepairStarted`)"."""
    script = [text_turn('{"answer": "x"}'), text_turn('{"answer": "x", "score": 1}')]
    trace = drive(make_ctx(tools=(), output_schema=ANSWER), script)
    assert kinds(trace).count("RepairStarted") == 1
    repair_step = trace.steps[1]
    assert repair_step.outcome.next_state == RepairingOutput(0, Usage(requests=1))
    repair_prompt = repair_step.outcome.conversation_appends[-1]
    assert isinstance(repair_prompt, UserMessage) and "$.score: missing required field" in repair_prompt.text
    assert trace.requests[1].items[-1] == repair_prompt
    assert isinstance(trace.final_state, Done)
    assert trace.final_state.output.value == {"answer": "x", "score": 1}


def test_a_failed_repair_emits_structured_output_failed_then_run_failed() -> None:
    """Rule: "whose failure emits `StructuredOutputFailed` then `RunFailed(StructuredOutputInvalid)`"."""
    script = [text_turn("not json"), text_turn('{"answer": 3, "score": 1, "extra": true}')]
    trace = drive(make_ctx(tools=(), output_schema=ANSWER), script)
    errors = ("$.answer: expected string, got integer", "$.extra: unexpected field")
    final_text = '{"answer": 3, "score": 1, "extra": true}'
    assert trace.events[-2:] == (
        StructuredOutputFailed(errors, final_text),
        RunFailed(StructuredOutputInvalid(errors, final_text)),
    )
    assert kinds(trace).count("RepairStarted") == 1
    assert len(trace.requests) == 2
    assert trace.final_state == Failed(StructuredOutputInvalid(errors, final_text), Usage(requests=2))


def test_validation_names_each_problem() -> None:
    """Rule: "Validation is pure and lives in the core: it decodes the JSON into the declared type and names each
    problem (missing field, wrong type, unexpected field) in `schema_errors`"."""
    from helikon_fc.core import validate_output

    value, errors = validate_output('  {"score": "high", "mood": "ok"}  ', ANSWER)
    assert value == {"score": "high", "mood": "ok"}
    assert errors == (
        "$.answer: missing required field",
        "$.score: expected integer, got string",
        "$.mood: unexpected field",
    )
    assert validate_output('{"answer": "a", "score": 2}', ANSWER) == ({"answer": "a", "score": 2}, ())
    _, not_json = validate_output("```json\n{}\n```", ANSWER)
    assert len(not_json) == 1 and not_json[0].startswith("response was not valid JSON")


def test_an_answer_nested_too_deeply_leads_to_the_repair_turn() -> None:
    """An answer nested deeper than the JSON decoder goes is not valid JSON: it never raises, the
    run repairs it like any other unfit answer and ends with the repaired value."""
    from helikon_fc.core import validate_output

    deep = "[" * 100_000 + "]" * 100_000
    assert validate_output(deep, ANSWER) == (None, ("response was not valid JSON: nested too deeply",))
    trace = drive(make_ctx(tools=(), output_schema=ANSWER), [text_turn(deep), text_turn('{"answer": "x", "score": 1}')])
    assert kinds(trace).count("RepairStarted") == 1
    repair_prompt = trace.steps[1].outcome.conversation_appends[-1]
    assert isinstance(repair_prompt, UserMessage) and "nested too deeply" in repair_prompt.text
    assert isinstance(trace.final_state, Done) and trace.final_state.output.value == {"answer": "x", "score": 1}


def test_tools_are_never_run_on_structured_output_turns() -> None:
    """Rule: "Tools are never run in these turns."."""
    call = weather("a")
    script = [tool_turn(call), tool_turn(weather("b"))]
    trace = drive(make_ctx(tools=(), output_schema=ANSWER), script)
    assert trace.tool_batches == ()
    assert isinstance(trace.final_state, Failed)
    assert isinstance(trace.final_state.error, StructuredOutputInvalid)
    refusals = [e.item for e in trace.events if isinstance(e, ToolOutputItem)]
    assert [r.call_id for r in refusals] == ["a", "b"] and all(r.is_error for r in refusals)
    answered_before_each_call(trace)


# Usage


def test_run_usage_is_the_sum_of_every_model_call() -> None:
    """Rule: "Usage: the run's usage is the sum of every model call's usage, finalizing and repair included;
    `requests` counts model calls and is counted by the loop itself, whatever the provider reports"."""
    script = [
        tool_turn(weather("a"), usage=Usage(input_tokens=10, output_tokens=2, requests=7)),
        text_turn("sunny", usage=Usage(input_tokens=20, output_tokens=3, cached_input_tokens=5)),
        text_turn("{}", usage=Usage(input_tokens=30, output_tokens=4, reasoning_tokens=1)),
        text_turn('{"answer": "a", "score": 1}', usage=Usage(input_tokens=40, output_tokens=5)),
    ]
    trace = drive(make_ctx(output_schema=ANSWER), script)
    expected = Usage(input_tokens=100, output_tokens=14, cached_input_tokens=5, reasoning_tokens=1, requests=4)
    assert isinstance(trace.final_state, Done)
    assert trace.final_state.usage == expected
    assert trace.events[-1] == RunCompleted(expected)


# Terminal events


def test_exactly_one_terminal_event_and_it_is_last() -> None:
    """Rule: "Exactly one terminal event per run (`RunCompleted` or `RunFailed`), and it is the last one."."""
    scripts = [
        [text_turn("hi")],
        [tool_turn(weather("a")), text_turn("done")],
        [tool_turn(weather(f"c{i}")) for i in range(20)],
    ]
    for script in scripts:
        trace = drive(make_ctx(max_turns=4), script)
        terminal = [e for e in trace.events if isinstance(e, RunCompleted | RunFailed)]
        assert len(terminal) == 1
        assert trace.events[-1] is terminal[0]


def test_terminal_states_absorb_every_input() -> None:
    """Rule: "Exactly one terminal event per run": a terminal state emits nothing more, whatever it is fed."""
    for state in (Done(FinalOutput("hi")), Failed(MaxTurnsExceeded(1))):
        for given in (Start(), text_turn("late"), ToolResults(())):
            assert transition(state, given, make_ctx()) == transition(state, Start(), make_ctx())
            outcome = transition(state, given, make_ctx())
            assert outcome.next_state is state and outcome.events == () and outcome.next_action == Terminate()
