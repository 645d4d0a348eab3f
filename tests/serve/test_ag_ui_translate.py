"""`AgUiTranslator` over simulated runs: every emitted event validates against the protocol package's models,
messages and tool calls open and close in pairs, and each run has exactly one RUN_STARTED and one terminal."""

from __future__ import annotations

import pytest
import trio
from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    EventType,
    ReasoningMessageContentEvent,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from hypothesis import given, strategies as st
from tests.serve.test_ag_ui_support import apply_patch, final_state, stream_problems, translate_run

from helikon_fc import (
    AgentEvent,
    AgentUpdated,
    AssistantMessage,
    Cancelled,
    Handoff,
    LlmAgent,
    MessageOutput,
    ParallelAgent,
    Permissions,
    RunCompleted,
    RunConfig,
    RunContext,
    RunFailed,
    RunStarted,
    SequentialAgent,
    TokenDelta,
    ToolCall,
    ToolCallItem,
    ToolError,
    Usage,
    function_tool,
)
from helikon_fc.serve._ag_ui_patch import json_patch
from helikon_fc.serve.ag_ui import AgUiTranslator
from helikon_fc.testing import ScriptedModel, call, call_tools, fail, reply, simulate


@function_tool
async def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: the first.
        b: the second.
    """
    await trio.lowlevel.checkpoint()
    return a + b


@function_tool
async def divide(a: int, b: int) -> float:
    """Divide.

    Args:
        a: the dividend.
        b: the divisor.
    """
    await trio.lowlevel.checkpoint()
    if b == 0:
        raise ToolError("cannot divide by zero")
    return a / b


@function_tool(name="Bash")
async def bash(command: str) -> str:
    """Run a command.

    Args:
        command: the command line.
    """
    await trio.lowlevel.checkpoint()
    return f"ran {command}"


def calculator(*turns: object) -> LlmAgent[None]:
    return LlmAgent(name="calc", model=ScriptedModel(list(turns)), tools=[add, divide])  # type: ignore[arg-type]


def of_type(events: list[BaseEvent], kind: EventType) -> list[BaseEvent]:
    return [event for event in events if event.type == kind]


def test_a_streamed_reply_is_one_message_between_run_started_and_run_finished() -> None:
    """A text reply: RUN_STARTED, the state snapshot, one message whose deltas join to the answer, RUN_FINISHED."""
    sim = simulate(calculator(reply("It is four.")), "2+2?")
    events = translate_run(sim.events)
    assert stream_problems(events) == []
    assert [event.type for event in events][:3] == [
        EventType.RUN_STARTED,
        EventType.STATE_SNAPSHOT,
        EventType.STEP_STARTED,
    ]
    starts = of_type(events, EventType.TEXT_MESSAGE_START)
    assert len(starts) == 1 and isinstance(starts[0], TextMessageStartEvent)
    assert starts[0].role == "assistant" and starts[0].name == "calc"
    contents = [e for e in events if isinstance(e, TextMessageContentEvent)]
    assert "".join(e.delta for e in contents) == "It is four."
    assert {e.message_id for e in contents} == {starts[0].message_id}
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert (finished.thread_id, finished.run_id, finished.result) == ("thread-1", "run-1", "It is four.")
    assert finished.usage is not None and [(u.model, u.input_tokens, u.output_tokens) for u in finished.usage] == [
        ("scripted", 10, 5)
    ]


def test_tool_calls_stream_their_arguments_and_results_follow_their_end() -> None:
    """Two streamed calls: each START/ARGS/END pair under the turn's message, then one RESULT per call."""
    agent = calculator(call_tools(call("add", a=1, b=2), call("add", a=3, b=4), text="Adding."), reply("3 and 7."))
    events = translate_run(simulate(agent, "go").events)
    assert stream_problems(events) == []
    starts = [e for e in events if isinstance(e, ToolCallStartEvent)]
    assert [(s.tool_call_id, s.tool_call_name) for s in starts] == [("call_0_0", "add"), ("call_0_1", "add")]
    first_message = next(e for e in events if isinstance(e, TextMessageStartEvent))
    assert {s.parent_message_id for s in starts} == {first_message.message_id}
    args = [e for e in events if isinstance(e, ToolCallArgsEvent) and e.tool_call_id == "call_0_1"]
    assert "".join(a.delta for a in args) == '{"a":3,"b":4}'
    results = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert [(r.tool_call_id, r.content, r.metadata) for r in results] == [
        ("call_0_0", "3", None),
        ("call_0_1", "7", None),
    ]
    message_ids = [e.message_id for e in events if isinstance(e, TextMessageStartEvent)]
    message_ids += [r.message_id for r in results]
    assert len(set(message_ids)) == len(message_ids) == 4


def test_a_failing_tool_is_a_result_marked_as_an_error() -> None:
    """A tool error reaches the frontend as the call's result, flagged ``is_error`` in its metadata."""
    agent = calculator(call_tools(call("divide", a=1, b=0)), reply("Cannot."))
    events = translate_run(simulate(agent, "1/0").events)
    assert stream_problems(events) == []
    (result,) = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert "cannot divide by zero" in str(result.content) and result.metadata == {"is_error": True}


def test_a_model_failure_ends_the_stream_with_run_error_in_words() -> None:
    """A failed run ends with RUN_ERROR: its message the error as a person reads it, its code the wire tag."""
    sim = simulate(calculator(fail("upstream down")), "go")
    events = translate_run(sim.events)
    assert stream_problems(events) == []
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.message == str(sim.error) and "upstream down" in error.message
    assert error.code == "model_failed"
    assert not of_type(events, EventType.RUN_FINISHED)


def test_a_failure_after_streamed_text_still_closes_the_message() -> None:
    """Running out of turns mid-conversation: the open step and message are closed before RUN_ERROR."""
    agent = calculator(call_tools(call("add", a=1, b=1), text="Let me see."), call_tools(call("add", a=2, b=2)))
    sim = simulate(agent, "go", config=RunConfig(max_turns=1))
    events = translate_run(sim.events)
    assert stream_problems(events) == []
    assert isinstance(events[-1], RunErrorEvent) and events[-1].code == "max_turns_exceeded"


def test_a_handoff_is_a_step_change_and_a_custom_event() -> None:
    """A handoff: CUSTOM ``helikon_fc.handoff_item`` with the wire event, the step moves to the target agent."""
    target = LlmAgent(name="investing specialist", model=ScriptedModel([reply("Index funds.")]))
    triage = LlmAgent(
        name="triage",
        model=ScriptedModel([call_tools(call("transfer_to_investing_specialist"))]),
        handoffs=[Handoff.to(target)],
    )
    events = translate_run(simulate(triage, "invest?").events)
    assert stream_problems(events) == []
    (custom,) = [e for e in events if isinstance(e, CustomEvent) and e.name == "helikon_fc.handoff_item"]
    assert custom.value == {"type": "handoff_item", "from": "triage", "to": "investing specialist"}
    steps = [e.step_name for e in events if isinstance(e, StepStartedEvent)]
    assert steps == ["triage", "investing specialist"]
    texts = [e.name for e in events if isinstance(e, TextMessageStartEvent)]
    assert texts == ["investing specialist"]


def test_parallel_branches_make_one_message_each_even_when_interleaved() -> None:
    """Branches streaming at once: each agent's deltas go to its own message, and the merged answer to another."""

    def lens(name: str, text: str) -> LlmAgent[None]:
        return LlmAgent(name=name, model=ScriptedModel([reply(text)]))

    fan = ParallelAgent("fan", "two takes").add(lens("o", "Markets recover soon.")).add(lens("p", "Rates stay high."))
    sim = simulate(fan, "rates?")
    assert sum(isinstance(e, AgentUpdated) for e in sim.events) > 2  # the branches did interleave
    events = translate_run(sim.events)
    assert stream_problems(events) == []
    by_message: dict[str, str] = {}
    for event in events:
        if isinstance(event, TextMessageContentEvent):
            by_message[event.message_id] = by_message.get(event.message_id, "") + event.delta
    assert sorted(by_message.values()) == sorted(
        ["Markets recover soon.", "Rates stay high.", '{"o":"Markets recover soon.","p":"Rates stay high."}']
    )


def test_a_paused_run_finishes_with_an_interrupt_per_waiting_call() -> None:
    """A call waiting for approval: RUN_FINISHED with an ``interrupt`` outcome naming the call and its tool."""
    agent = LlmAgent(name="ops", model=ScriptedModel([call_tools(call("Bash", command="rm -rf /"))]), tools=[bash])
    ctx: RunContext[None] = RunContext.ephemeral(None).with_permissions(Permissions())
    sim = simulate(agent, "list", ctx=ctx)
    events = translate_run(sim.events)
    assert stream_problems(events) == []
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent) and isinstance(finished.outcome, RunFinishedInterruptOutcome)
    (interrupt,) = finished.outcome.interrupts
    assert (interrupt.id, interrupt.tool_call_id, interrupt.reason) == ("call_0_0", "call_0_0", "tool_approval")
    assert interrupt.metadata == {"tool": "Bash", "args": '{"command":"rm -rf /"}'}
    assert [e.type for e in events if e.type == EventType.CUSTOM] == [EventType.CUSTOM]  # the ApprovalRequested


def test_reasoning_is_a_span_closed_before_the_answer() -> None:
    """Exposed reasoning streams as a reasoning span and message, closed before the answer's text starts."""
    sim = simulate(calculator(reply("Four.", reasoning="two and two")), "2+2?")
    events = translate_run(sim.events)
    assert stream_problems(events) == []
    kinds = [e.type for e in events]
    assert kinds.index(EventType.REASONING_END) < kinds.index(EventType.TEXT_MESSAGE_START)
    reasoning = "".join(e.delta for e in events if isinstance(e, ReasoningMessageContentEvent))
    assert reasoning == "two and two"


def test_a_message_that_was_not_streamed_is_sent_whole() -> None:
    """A `MessageOutput` with no deltas before it (a workflow's merged text) becomes START, CONTENT, END."""
    run: list[AgentEvent] = [
        RunStarted("flow"),
        MessageOutput(AssistantMessage("merged", agent="flow")),
        ToolCallItem(ToolCall("c1", "add", '{"a":1,"b":2}')),
        RunCompleted(Usage()),
    ]
    events = translate_run(run)
    assert stream_problems(events) == []
    assert [e.type for e in events[3:9]] == [
        EventType.TEXT_MESSAGE_START,
        EventType.TEXT_MESSAGE_CONTENT,
        EventType.TEXT_MESSAGE_END,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END,
    ]
    call_start, message_start = events[6], events[3]
    assert isinstance(call_start, ToolCallStartEvent) and isinstance(message_start, TextMessageStartEvent)
    assert call_start.parent_message_id == message_start.message_id


def test_message_ids_are_stable_and_the_translator_is_a_value() -> None:
    """The same run translates to the same events every time, and translating leaves the old translator as it was."""
    sim = simulate(calculator(call_tools(call("add", a=1, b=2)), reply("3.")), "go")
    assert translate_run(sim.events) == translate_run(sim.events)
    start = AgUiTranslator(thread_id="t", run_id="r")
    after, _ = start.translate(RunStarted("calc"))
    assert start == AgUiTranslator(thread_id="t", run_id="r") and after != start and after.agent == "calc"


def test_events_outside_a_run_are_refused() -> None:
    """An event before `RunStarted`, or after the terminal event, is a misuse named in a ValueError."""
    with pytest.raises(ValueError, match="TokenDelta before RunStarted"):
        AgUiTranslator(thread_id="t", run_id="r").translate(TokenDelta("x"))
    translator = AgUiTranslator(thread_id="t", run_id="r")
    for event in (RunStarted("a"), RunCompleted(Usage())):
        translator, _ = translator.translate(event)
    with pytest.raises(ValueError, match="after the run's terminal event"):
        translator.translate(TokenDelta("x"))


def test_state_changes_become_deltas_that_rebuild_the_state() -> None:
    """Observed states: the snapshot first, a STATE_DELTA per change (none when unchanged), the last state rebuilt."""
    agent = (
        SequentialAgent("flow", "two steps")
        .then(LlmAgent(name="first", model=ScriptedModel([reply("one")])))
        .then(LlmAgent(name="second", model=ScriptedModel([reply("two")])))
    )
    sim = simulate(agent, "go")
    translator = AgUiTranslator(thread_id="t", run_id="r", state={"user": {"name": "Ada"}})
    events: list[BaseEvent] = []
    state: dict[str, object] = {"user": {"name": "Ada"}}
    for event in sim.events:
        if isinstance(event, AgentUpdated) and event.agent == "second":
            state = {**state, "first": "one"}
        if isinstance(event, RunCompleted):
            state = {"first": "one", "second": "two", "user": {"name": "Ada", "seen": True}}
        translator, out = translator.translate(event, state=state)  # type: ignore[arg-type]
        events.extend(out)
    assert stream_problems(events) == []
    snapshot = events[1]
    assert isinstance(snapshot, StateSnapshotEvent) and snapshot.snapshot == {"user": {"name": "Ada"}}
    deltas = [e for e in events if isinstance(e, StateDeltaEvent)]
    assert len(deltas) == 2
    assert final_state(events) == state
    kinds = [e.type for e in events]
    assert kinds.index(EventType.STATE_DELTA, kinds.index(EventType.STATE_DELTA) + 1) < kinds.index(
        EventType.RUN_FINISHED
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=4), json_values, max_size=4)


@given(json_objects, json_objects)
def test_a_patch_turns_the_old_state_into_the_new(old: dict[str, object], new: dict[str, object]) -> None:
    """For any two JSON objects, applying ``json_patch(old, new)`` to `old` gives `new` (and nothing when equal)."""
    patch = json_patch(old, new)  # type: ignore[arg-type]
    assert apply_patch(old, patch) == new
    assert json_patch(new, new) == []  # type: ignore[arg-type]


def test_a_run_cancelled_from_outside_finishes_with_a_cancelled_outcome() -> None:
    """`RunFailed(Cancelled)` is no failure to AG-UI: RUN_FINISHED with the ``cancelled`` outcome, the reason kept."""
    events = translate_run([RunStarted("calc"), TokenDelta("Wor"), RunFailed(Cancelled("server shutting down"))])
    assert stream_problems(events) == []
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent) and isinstance(finished.outcome, RunFinishedCancelledOutcome)
    assert finished.metadata == {"reason": "server shutting down"}
