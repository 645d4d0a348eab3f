"""Every sentence of ``seed-agent-loop.txt``, each cited (quoted) by the test that checks it."""

from __future__ import annotations

import ast
import inspect
import pathlib
from typing import Any, get_args

import attrs
import pytest
import trio
from tests.shell.loop_fakes import FuncTool, SleepTool, drain, ephemeral, kinds, record_transitions

from helikon_fc import (
    AgentEvent,
    AgentInput,
    AgentUpdated,
    ApprovalRequested,
    GuardrailTriggered,
    Handoff,
    HandoffCollisionError,
    HandoffItem,
    LlmAgent,
    MaxAgentDepthExceeded,
    MaxTurnsExceeded,
    MessageOutput,
    ModelFailed,
    PermissionDenied,
    RepairStarted,
    RunCompleted,
    RunConfig,
    RunContext,
    RunError,
    RunFailed,
    Runner,
    RunResult,
    RunResultStreaming,
    RunStarted,
    StructuredOutputFailed,
    TimedOut,
    TokenDelta,
    ToolCallDelta,
    ToolCallItem,
    ToolOutputItem,
    TurnStarted,
    Usage,
)
from helikon_fc.core import (
    ApplyingHandoff,
    AwaitApproval,
    CallingModel,
    CallModel,
    Compacting,
    Conversation,
    Done,
    ExecuteTools,
    ExecutingTools,
    Failed,
    Finalizing,
    FinalOutput,
    LoopState,
    ModelFailureKind,
    ModelFinish,
    ModelResponse,
    ModelTextDelta,
    NeedsApproval,
    NextAction,
    PerformHandoff,
    Start,
    SummaryFailed,
    Terminate,
    ToolCall,
    ToolResult,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    TransitionOutcome,
    UserMessage,
    from_json,
    initial_state,
    to_json,
    transition,
)
from helikon_fc.testing import ScriptedModel, ScriptedTurn, call, call_tools, fail, pause, raw, reply

QUESTION = AgentInput.from_user_text("How am I doing on my dining budget this month?")


@attrs.frozen
class Verdict:
    """A structured answer."""

    on_track: bool
    spent: int


def tool_agent(model: ScriptedModel, *tools: Any, **kwargs: Any) -> LlmAgent[None]:
    return LlmAgent(
        name="budget-assistant", model=model, instructions="You are a budgeting assistant.", tools=tools, **kwargs
    )


# The introduction


async def test_loop_is_a_loopstate_driven_by_transition_surfaced_as_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "The agent loop is an explicit enum LoopState, driven by a pure transition function and surfaced as a
    typed AgentEvent stream."
    """
    log = record_transitions(monkeypatch)
    agent = tool_agent(ScriptedModel([reply("On track.")]))
    events = await drain(agent.run(ephemeral(), QUESTION))
    members = get_args(LoopState)
    assert log.steps and all(isinstance(state, members) for state, _, _ in log.steps)
    event_types = get_args(AgentEvent)
    assert all(isinstance(event, event_types) for event in events)
    assert kinds(events) == ["RunStarted", "TurnStarted", "TokenDelta", "TokenDelta", "MessageOutput", "RunCompleted"]


def test_transition_is_synchronous_pure_and_ioless() -> None:
    """Seed: "The state machine is data: transition is async-free, allocation-light, and never touches IO." """
    assert not inspect.iscoroutinefunction(transition)
    ctx = TransitionCtx(agent_name="a", instructions=None, conversation=Conversation([UserMessage("hi")]))
    state = initial_state()
    first, second = transition(state, Start(), ctx), transition(state, Start(), ctx)
    assert first == second
    assert state == initial_state() and list(ctx.conversation) == [UserMessage("hi")]
    core = pathlib.Path(inspect.getfile(transition)).parent
    imported: set[str] = set()
    for source in core.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    assert not imported & {"trio", "httpx", "httpx2", "openai", "anyio", "asyncio", "socket", "os", "time", "random"}


async def test_async_driver_runs_side_effects_between_transitions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "An async driver runs the side effects between transitions." """
    log = record_transitions(monkeypatch)
    seen_steps: list[int] = []

    async def look(ctx: Any, arguments: Any) -> str:
        seen_steps.append(len(log.steps))
        return "120 of 300 spent"

    tool = FuncTool("spending", look)
    model = ScriptedModel([call_tools(call("spending")), reply("On track.")])
    await drain(tool_agent(model, tool).run(ephemeral(), QUESTION))
    # The tool ran after the step that asked for it and before the step that consumed its result.
    assert seen_steps == [2]
    assert isinstance(log.steps[1][2].next_action, ExecuteTools)
    assert isinstance(log.steps[2][1], ToolResults)
    assert len(model.requests) == 2


def test_state_plus_conversation_can_be_persisted_and_resumed() -> None:
    """Seed: "This is what makes the loop resumable — a durable runner can persist the state plus the conversation and
    rehydrate at any transition boundary."
    """
    tools = tool_agent(ScriptedModel([]), SleepTool("spending")).definition.tool_defs
    ctx = TransitionCtx(agent_name="a", instructions=None, conversation=Conversation([UserMessage("hi")]), tools=tools)
    response = ModelResponse(tool_calls=(ToolCall("c1", "spending", "{}"),))
    first = transition(initial_state(), Start(), ctx)
    second = transition(first.next_state, response, ctx)
    conversation = ctx.conversation.extend(second.conversation_appends)
    # Persist at this boundary, then rehydrate from JSON.
    stored_state, stored_items = to_json(second.next_state), [to_json(item) for item in conversation]
    state = from_json(ExecutingTools, stored_state)
    restored = Conversation(
        from_json(ToolCall, text) if "tool_call" in text else from_json(UserMessage, text) for text in stored_items
    )
    resumed_ctx = attrs.evolve(ctx, conversation=restored)
    results = ToolResults((ToolResult("c1", "120"),))
    assert transition(state, results, resumed_ctx) == transition(
        second.next_state, results, attrs.evolve(ctx, conversation=conversation)
    )


def test_all_of_this_lives_in_the_core() -> None:
    """Seed: "All of this lives in paigasus-helikon-core." """
    import helikon_fc.core as core

    for name in ("LoopState", "transition", "TransitionCtx", "TransitionOutcome", "NextAction", "AgentEvent"):
        assert hasattr(core, name), name


# The state machine


def test_loopstate_has_one_variant_per_phase() -> None:
    """Seed: "LoopState has one variant per high-level phase:" """
    assert {cls.__name__ for cls in get_args(LoopState)} == {
        "CallingModel",
        "ExecutingTools",
        "ApplyingHandoff",
        "Finalizing",
        "RepairingOutput",
        "Compacting",
        "NeedsApproval",
        "Done",
        "Failed",
    }


async def test_calling_model_is_about_to_invoke_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "CallingModel { turn, usage } — about to invoke the model for turn." """
    log = record_transitions(monkeypatch)
    model = ScriptedModel([call_tools(call("spending")), reply("ok")])
    await drain(tool_agent(model, SleepTool("spending")).run(ephemeral(), QUESTION))
    calling = [outcome.next_state for _, _, outcome in log.steps if isinstance(outcome.next_state, CallingModel)]
    assert [state.turn for state in calling] == [0, 1]
    assert all(
        isinstance(outcome.next_action, CallModel)
        for _, _, outcome in log.steps
        if isinstance(outcome.next_state, CallingModel)
    )
    assert calling[1].usage.requests == 1


async def test_executing_tools_runs_calls_concurrently(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed: "ExecutingTools { calls, turn, usage } — the model requested tool calls; run them concurrently." """
    log = record_transitions(monkeypatch)
    tools = [SleepTool(f"t{i}", seconds=1.0) for i in range(3)]
    model = ScriptedModel([call_tools(*(call(t.name) for t in tools)), reply("done")])
    start = trio.current_time()
    await drain(tool_agent(model, *tools).run(ephemeral(), QUESTION))
    assert trio.current_time() - start == pytest.approx(1.0)
    executing = [o.next_state for _, _, o in log.steps if isinstance(o.next_state, ExecutingTools)]
    assert len(executing) == 1 and len(executing[0].calls) == 3 and executing[0].turn == 0


async def test_applying_handoff_threads_the_transcript(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "ApplyingHandoff { target, transcript, usage } — delegate to another agent, threading the transcript." """
    log = record_transitions(monkeypatch)
    target_model = ScriptedModel([reply("Billing here.")])
    billing = LlmAgent(name="Billing", model=target_model, description="Billing questions.")
    triage = LlmAgent(
        name="triage", model=ScriptedModel([call_tools(call("transfer_to_billing"))]), handoffs=[Handoff.to(billing)]
    )
    events = await drain(triage.run(ephemeral(), QUESTION))
    applying = [o.next_state for _, _, o in log.steps if isinstance(o.next_state, ApplyingHandoff)]
    assert len(applying) == 1 and applying[0].target == "Billing"
    assert applying[0].usage.requests == 1
    # The target's model sees the whole transcript: the question, the transfer call and its result.
    items = list(target_model.requests[0].items)
    assert items[0] == UserMessage(QUESTION.items[0].text)  # type: ignore[union-attr]
    assert isinstance(items[1], ToolCall) and items[1].name == "transfer_to_billing"
    assert isinstance(items[2], ToolResult)
    assert isinstance(events[-1], RunCompleted)


async def test_finalizing_is_a_constrained_turn_for_the_output_type(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "Finalizing { turn, usage } — a constrained turn that asks the model to emit the configured
    output_type."
    """
    log = record_transitions(monkeypatch)
    model = ScriptedModel([reply('{"on_track": true, "spent": 120}')])
    agent = tool_agent(model, output_type=Verdict)
    result = await RunResultStreaming(agent.run(ephemeral(), QUESTION)).collect_typed(Verdict)
    assert any(isinstance(o.next_state, Finalizing) for _, _, o in log.steps)
    request = model.requests[0]
    assert request.output_schema is not None and request.output_schema.name == "Verdict"
    assert request.tools == ()
    assert result.final_output == Verdict(on_track=True, spent=120)


async def test_repairing_output_is_the_one_repair_turn() -> None:
    """Seed: "RepairingOutput { turn, usage } — the one allowed repair turn after a failed structured-output
    validation."
    """
    model = ScriptedModel([reply("on track!"), reply('{"on_track": true, "spent": 120}')])
    agent = tool_agent(model, output_type=Verdict)
    result = await RunResultStreaming(agent.run(ephemeral(), QUESTION)).collect_typed(Verdict)
    assert [e for e in result.events if isinstance(e, RepairStarted)] == [RepairStarted(1)]
    assert result.final_output == Verdict(True, 120)
    assert model.requests[1].output_schema == model.requests[0].output_schema

    failing = ScriptedModel([reply("nope"), reply("still nope")])
    with pytest.raises(RunError) as info:
        await RunResultStreaming(tool_agent(failing, output_type=Verdict).run(ephemeral(), QUESTION)).collect()
    assert len(failing.requests) == 2
    assert type(info.value.error).__name__ == "StructuredOutputInvalid"


def test_compacting_and_needs_approval_are_driven() -> None:
    """Seed: "Compacting and NeedsApproval { pending } — reserved phases, not yet driven"; both are driven now
    (docs/agent-loop.md, Compaction; docs/control.md, approval)."""
    ctx = TransitionCtx(agent_name="a", instructions=None, conversation=Conversation())
    assert isinstance(transition(Compacting(0), Start(), ctx).next_action, CallModel)
    waiting = transition(NeedsApproval((), 0), Start(), ctx)
    assert isinstance(waiting.next_action, AwaitApproval)


async def test_done_is_terminal_success(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "Done(FinalOutput) — terminal success." """
    log = record_transitions(monkeypatch)
    await drain(tool_agent(ScriptedModel([reply("On track.")])).run(ephemeral(), QUESTION))
    final = log.steps[-1][2]
    assert isinstance(final.next_state, Done) and final.next_state.output == FinalOutput("On track.")
    assert isinstance(final.next_action, Terminate)


async def test_failed_is_terminal_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "Failed(AgentError) — terminal failure." """
    log = record_transitions(monkeypatch)
    agent = tool_agent(ScriptedModel([]), run_config=RunConfig(max_turns=0))
    events = await drain(agent.run(ephemeral(), QUESTION))
    assert log.steps[-1][2].next_state == Failed(MaxTurnsExceeded(0))
    assert events == [RunStarted("budget-assistant"), RunFailed(MaxTurnsExceeded(0))]


def test_transition_is_the_whole_machine() -> None:
    """Seed: "transition is the whole machine:" """
    params = list(inspect.signature(transition).parameters)
    assert params == ["state", "input", "ctx"]
    assert inspect.signature(transition).return_annotation in ("TransitionOutcome", TransitionOutcome)


def test_transition_takes_state_input_and_ctx() -> None:
    """Seed: "It takes the current state, the most recent TransitionInput (Start, ModelResponse, or ToolResults), and a
    TransitionCtx (the tool defs, ModelSettings, max_turns, the accumulated conversation, the optional OutputType,
    and any handoff descriptors)."
    """
    assert set(get_args(TransitionInput)) == {Start, ModelResponse, ToolResults, SummaryFailed}  # + compaction's
    fields = {field.name for field in attrs.fields(TransitionCtx)}
    assert {"tools", "settings", "max_turns", "conversation", "output_schema", "handoffs"} <= fields


def test_transition_returns_an_outcome() -> None:
    """Seed: "It returns a TransitionOutcome:" """
    assert [f.name for f in attrs.fields(TransitionOutcome)] == [
        "next_state",
        "events",
        "next_action",
        "conversation_appends",
    ]


async def test_next_action_tells_the_driver_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "next_action tells the driver what side effect to run before the next step:" """
    assert set(get_args(NextAction)) == {CallModel, ExecuteTools, AwaitApproval, PerformHandoff, Terminate}
    log = record_transitions(monkeypatch)
    model = ScriptedModel([call_tools(call("spending")), reply("ok")])
    await drain(tool_agent(model, SleepTool("spending")).run(ephemeral(), QUESTION))
    assert [type(o.next_action).__name__ for _, _, o in log.steps] == [
        "CallModel",
        "ExecuteTools",
        "CallModel",
        "Terminate",
    ]


async def test_call_model_feeds_back_a_model_response(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "CallModel { request } — call the model, feed the result back as TransitionInput::ModelResponse." """
    log = record_transitions(monkeypatch)
    model = ScriptedModel([reply("On track.")])
    await drain(tool_agent(model).run(ephemeral(), QUESTION))
    action = log.steps[0][2].next_action
    assert isinstance(action, CallModel) and model.requests[0] == action.request
    fed = log.steps[1][1]
    assert isinstance(fed, ModelResponse) and fed.text == "On track."


async def test_execute_tools_feeds_back_tool_results(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "ExecuteTools { calls } — fan out the tool calls, feed outcomes back as TransitionInput::ToolResults." """
    log = record_transitions(monkeypatch)
    model = ScriptedModel([call_tools(call("a"), call("b")), reply("ok")])
    await drain(tool_agent(model, SleepTool("a"), SleepTool("b")).run(ephemeral(), QUESTION))
    fed = log.steps[2][1]
    assert isinstance(fed, ToolResults)
    assert [(r.call_id, r.output) for r in fed.results] == [("call_0_0", "a"), ("call_0_1", "b")]


async def test_handoff_action_runs_the_target(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "Handoff — read the target/transcript from ApplyingHandoff and run the target agent." """
    log = record_transitions(monkeypatch)
    billing = LlmAgent(name="billing", model=ScriptedModel([reply("Billing here.")]), description="Billing.")
    triage = LlmAgent(
        name="triage", model=ScriptedModel([call_tools(call("transfer_to_billing"))]), handoffs=[Handoff.to(billing)]
    )
    result = await RunResultStreaming(triage.run(ephemeral(), QUESTION)).collect()
    handoffs = [o.next_action for _, _, o in log.steps if isinstance(o.next_action, PerformHandoff)]
    assert [h.target for h in handoffs] == ["billing"]
    assert result.final_output == "Billing here."


async def test_terminate_stops_driving(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "Terminate — the state is terminal; stop driving." """
    log = record_transitions(monkeypatch)
    events = await drain(tool_agent(ScriptedModel([reply("ok")])).run(ephemeral(), QUESTION))
    assert isinstance(log.steps[-1][2].next_action, Terminate)
    assert len(log.steps) == 2 and isinstance(events[-1], RunCompleted)


async def test_typical_run_walks_calling_executing_calling_done(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "A typical run walks CallingModel → ExecutingTools → CallingModel → … → Done." """
    log = record_transitions(monkeypatch)
    model = ScriptedModel([call_tools(call("a")), call_tools(call("a")), reply("ok")])
    await drain(tool_agent(model, SleepTool("a")).run(ephemeral(), QUESTION))
    assert log.states() == [
        "CallingModel",
        "CallingModel",
        "ExecutingTools",
        "CallingModel",
        "ExecutingTools",
        "CallingModel",
        "Done",
    ]


async def test_each_tool_round_bumps_turn_until_max_turns() -> None:
    """Seed: "Each tool round bumps turn; reaching RunConfig::max_turns fails the run with
    AgentError::MaxTurnsExceeded."
    """
    model = ScriptedModel([call_tools(call("a")) for _ in range(5)])
    agent = tool_agent(model, SleepTool("a", seconds=0), run_config=RunConfig(max_turns=3))
    events = await drain(agent.run(ephemeral(), QUESTION))
    assert [e.turn for e in events if isinstance(e, TurnStarted)] == [0, 1, 2]
    assert events[-1] == RunFailed(MaxTurnsExceeded(3))
    assert len(model.requests) == 3


async def test_output_type_adds_finalizing_and_one_repair(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed: "With an output_type configured, the loop adds a Finalizing (and, on a validation miss, one
    RepairingOutput) turn before Done."
    """
    log = record_transitions(monkeypatch)
    model = ScriptedModel(
        [call_tools(call("a")), reply("You are on track."), reply("{}"), reply('{"on_track": true, "spent": 1}')]
    )
    agent = tool_agent(model, SleepTool("a", seconds=0), output_type=Verdict)
    await drain(agent.run(ephemeral(), QUESTION))
    assert log.states()[-3:] == ["Finalizing", "RepairingOutput", "Done"]
    assert [r.output_schema is not None for r in model.requests] == [False, False, True, True]


# The event stream


async def test_run_returns_a_stream_of_events() -> None:
    """Seed: "Agent::run returns a BoxStream<'static, AgentEvent>." """
    run = tool_agent(ScriptedModel([reply("ok")])).run(ephemeral(), QUESTION)
    async with run as events:
        first = await events.__anext__()
        rest = [event async for event in events]
    assert first == RunStarted("budget-assistant")
    assert isinstance(rest[-1], RunCompleted)


async def test_failure_to_start_raises_but_mid_run_failure_is_an_event() -> None:
    """Seed: "The outer Result only covers failure to start the stream; a fatal error mid-run arrives as an
    AgentEvent::RunFailed inside the stream, not as an Err."
    """
    a = LlmAgent(name="Billing", model=ScriptedModel([]))
    b = LlmAgent(name="billing!", model=ScriptedModel([]))
    colliding = LlmAgent(name="triage", model=ScriptedModel([]), handoffs=[Handoff.to(a), Handoff.to(b)])
    with pytest.raises(HandoffCollisionError) as info:
        async with colliding.run(ephemeral(), QUESTION):
            pytest.fail("a run that cannot start must not enter its block")  # pragma: no cover
    assert info.value.error.tool_name == "transfer_to_billing"

    failing = tool_agent(ScriptedModel([fail(ModelFailureKind.UNAVAILABLE)]))
    events = await drain(failing.run(ephemeral(), QUESTION))  # does not raise
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, ModelFailed)
    assert events[-1].error.kind is ModelFailureKind.UNAVAILABLE


async def test_agent_event_is_one_serializable_union() -> None:
    """Seed: "AgentEvent is a single, serializable enum spanning lifecycle, raw deltas, post-aggregation semantic items,
    transitions, control signals, and terminal outcomes."
    """
    model = ScriptedModel([call_tools(call("a", category="dining"), text="Checking."), reply("ok")])
    events = await drain(tool_agent(model, SleepTool("a", seconds=0)).run(ephemeral(), QUESTION))
    for event in events:
        assert from_json(AgentEvent, to_json(event)) == event
    # the seed's 17, PermissionGranted and RunPaused (docs/control.md), ConversationCompacted and CompactionSkipped
    assert len(get_args(AgentEvent)) == 21


def test_event_families_exist_with_their_fields() -> None:
    """Seed: "Lifecycle: RunStarted { agent }, TurnStarted { turn }.
    Raw deltas (for low-latency UIs): TokenDelta { text }, ReasoningDelta { text },
    ToolCallDelta { call_id, name, args_delta }.
    Semantic items (carry a full Item): MessageOutput { item }, ToolCallItem { item },
    ToolOutputItem { item }, HandoffItem { from, to }.
    Transitions: AgentUpdated { agent }.
    Control: GuardrailTriggered { kind, info }, ApprovalRequested { call_id, tool, args },
    PermissionDenied { tool, reason }, RepairStarted { attempt }, StructuredOutputFailed { schema_errors, final_text }.
    Terminal: RunCompleted { usage }, RunFailed { error }."
    """
    expected = {
        RunStarted: ["agent", "run_id"],
        TurnStarted: ["turn"],
        TokenDelta: ["text"],
        ToolCallDelta: ["call_id", "name", "args_delta"],
        MessageOutput: ["item"],
        ToolCallItem: ["item"],
        ToolOutputItem: ["item"],
        HandoffItem: ["from_agent", "to_agent"],
        AgentUpdated: ["agent"],
        GuardrailTriggered: ["kind", "info"],
        ApprovalRequested: ["call_id", "tool", "args"],
        PermissionDenied: ["tool", "reason"],
        RepairStarted: ["attempt"],
        StructuredOutputFailed: ["schema_errors", "final_text"],
        RunCompleted: ["usage", "usage_by_agent"],
        RunFailed: ["error"],
    }
    for cls, fields in expected.items():
        # The seed's fields, in order; PermissionDenied adds optional call_id and rule after them.
        assert [f.name for f in attrs.fields(cls)][: len(fields)] == fields, cls
        assert all(f.default is not attrs.NOTHING for f in attrs.fields(cls)[len(fields) :]), cls
    assert "from" in to_json(HandoffItem("a", "b"))


async def test_raw_deltas_stream_live_and_items_reaggregate(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "The raw TokenDelta / ToolCallDelta events stream as the provider emits them; the MessageOutput /
    ToolCallItem / ToolOutputItem events carry the same content re-aggregated into a complete Item once the turn
    settles."
    """
    slow = raw(
        ModelTextDelta("On "),
        pause(1.0),
        ModelTextDelta("track."),
        pause(1.0),
        ModelFinish(__import__("helikon_fc").core.FinishReason.STOP),
    )
    model = ScriptedModel([call_tools(call("a", category="dining")), slow])
    agent = tool_agent(model, SleepTool("a", seconds=0))
    start = trio.current_time()
    arrivals: list[tuple[str, float]] = []
    events: list[AgentEvent] = []
    async with agent.run(ephemeral(), QUESTION) as stream:
        async for event in stream:
            events.append(event)
            arrivals.append((type(event).__name__, trio.current_time() - start))
    assert [t for name, t in arrivals if name == "TokenDelta"] == [0.0, 1.0]  # live, not at the end of the turn
    assert dict(arrivals)["MessageOutput"] == 2.0
    text = "".join(e.text for e in events if isinstance(e, TokenDelta))
    message = next(e for e in events if isinstance(e, MessageOutput))
    assert message.item.text == text == "On track."
    args = "".join(e.args_delta for e in events if isinstance(e, ToolCallDelta))
    call_item = next(e for e in events if isinstance(e, ToolCallItem))
    assert call_item.item.arguments == args == '{"category":"dining"}'
    output = next(e for e in events if isinstance(e, ToolOutputItem))
    assert output.item.call_id == call_item.item.call_id


# Driving a run to completion


async def test_common_case_collects_into_a_run_result() -> None:
    """Seed: "The common case: call run, then drain the stream into a RunResult with RunResultStreaming." """
    agent = LlmAgent(
        name="budget-assistant",
        model=ScriptedModel([reply("You are on track.")]),
        instructions="You are a budgeting assistant.",
    )
    ctx: RunContext[None] = RunContext.ephemeral(None)
    result = await RunResultStreaming(agent.run(ctx, QUESTION)).collect()
    assert isinstance(result, RunResult)
    assert result.final_output == "You are on track."


async def test_collect_returns_last_message_text_events_and_usage() -> None:
    """Seed: "RunResultStreaming::new(stream).collect().await? drains every event, returning a RunResult whose
    final_output: String is the concatenated text of the last MessageOutput assistant message, alongside the full
    events vector and aggregated usage."
    """
    model = ScriptedModel(
        [
            call_tools(call("a"), text="Let me look.", usage=Usage(input_tokens=100, output_tokens=20)),
            reply("You spent 120 of 300.", usage=Usage(input_tokens=208, output_tokens=9)),
        ]
    )
    run = tool_agent(model, SleepTool("a", seconds=0)).run(ephemeral(), QUESTION)
    result = await RunResultStreaming(run).collect()
    assert result.final_output == "You spent 120 of 300."
    assert isinstance(result.events[0], RunStarted) and isinstance(result.events[-1], RunCompleted)
    assert "ToolOutputItem" in kinds(result.events)
    assert result.usage == Usage(input_tokens=308, output_tokens=29, requests=2)


async def test_run_failed_surfaces_as_run_error() -> None:
    """Seed: "A terminal RunFailed surfaces as Err(RunError)." """
    model = ScriptedModel([call_tools(call("a")) for _ in range(2)])
    agent = tool_agent(model, SleepTool("a", seconds=0), run_config=RunConfig(max_turns=2))
    with pytest.raises(RunError) as info:
        await RunResultStreaming(agent.run(ephemeral(), QUESTION)).collect()
    assert info.value.error == MaxTurnsExceeded(2)
    assert str(info.value) == "max turns (2) exceeded"


async def test_collect_typed_for_structured_output() -> None:
    """Seed: "For structured output, use collect_typed::<T>() instead." """
    agent = tool_agent(ScriptedModel([reply(' {"on_track": false, "spent": 340} ')]), output_type=Verdict)
    result = await RunResultStreaming(agent.run(ephemeral(), QUESTION)).collect_typed(Verdict)
    verdict: Verdict = result.final_output
    assert verdict == Verdict(on_track=False, spent=340)


# Consuming events live


async def test_match_on_the_stream_to_react_live() -> None:
    """Seed: "To react as the run unfolds — for example streaming tokens to a console — match on the stream directly
    instead of collecting:"
    """
    printed: list[str] = []
    failure = None
    agent = tool_agent(ScriptedModel([reply("You are on track this month.")]))
    async with agent.run(ephemeral(), QUESTION) as events:
        async for event in events:
            match event:
                case TokenDelta(text=text):
                    printed.append(text)
                case RunFailed(error=error):  # pragma: no cover - this run succeeds
                    failure = error
    assert "".join(printed) == "You are on track this month." and len(printed) > 1
    assert failure is None


async def test_drain_yourself_then_build_the_result() -> None:
    """Seed: "You can drain the stream yourself and still build a RunResult later, or mix the two —
    RunResultStreaming::collect is just one consumer of the same AgentEvent stream."
    """

    def agent() -> LlmAgent[None]:
        script: list[ScriptedTurn] = [call_tools(call("a")), reply("You are on track.")]
        return tool_agent(ScriptedModel(script), SleepTool("a", seconds=0))

    drained = await drain(agent().run(ephemeral(), QUESTION))
    built = RunResult.from_events(drained)
    collected = await RunResultStreaming(agent().run(ephemeral(), QUESTION)).collect()
    assert built == collected
    # Mixing: observe each event live while collecting.
    seen: list[str] = []
    mixed = await RunResultStreaming(agent().run(ephemeral(), QUESTION)).collect(
        on_event=lambda event: seen.append(type(event).__name__)
    )
    assert mixed == collected and seen == kinds(collected.events)


# Tuning the loop


async def test_run_config_through_a_runner_or_on_the_agent() -> None:
    """Seed: "RunConfig controls the run; pass it through a Runner, or set it on the agent via the builder." """
    script = [call_tools(call("a")) for _ in range(4)]
    on_agent = tool_agent(ScriptedModel(script), SleepTool("a", seconds=0), run_config=RunConfig(max_turns=2))
    events = await drain(on_agent.run(ephemeral(), QUESTION))
    assert events[-1] == RunFailed(MaxTurnsExceeded(2))
    # A Runner's config wins over the agent's own.
    again = on_agent.with_model(ScriptedModel(script))
    events = await drain(Runner(RunConfig(max_turns=3)).run(again, ephemeral(), QUESTION))
    assert events[-1] == RunFailed(MaxTurnsExceeded(3))


async def test_max_turns_default_16_honoured_by_bare_run() -> None:
    """Seed: "max_turns: u32 — model turns before the loop fails with MaxTurnsExceeded. Default 16. Honored by the core
    loop driver, including a bare agent.run()."
    """
    assert RunConfig().max_turns == 16
    model = ScriptedModel([call_tools(call("a")) for _ in range(20)])
    events = await drain(tool_agent(model, SleepTool("a", seconds=0)).run(ephemeral(), QUESTION))
    assert events[-1] == RunFailed(MaxTurnsExceeded(16))
    assert len(model.requests) == 16


@pytest.mark.parametrize(("limit", "elapsed", "peak"), [(None, 1.0, 4), (2, 2.0, 2), (1, 4.0, 1)])
async def test_parallel_tool_call_limit_caps_concurrency(
    autojump_clock: trio.testing.MockClock, limit: int | None, elapsed: float, peak: int
) -> None:
    """Seed: "parallel_tool_call_limit: Option<NonZeroUsize> — cap on concurrently-executing tool calls.
    None = unbounded. Honored by the core loop driver."
    """
    from tests.shell.loop_fakes import GaugedSleepTool, SharedGauge

    gauge = SharedGauge()
    tools = [GaugedSleepTool(f"t{i}", gauge) for i in range(4)]
    model = ScriptedModel([call_tools(*(call(t.name) for t in tools)), reply("done")])
    agent = tool_agent(model, *tools, run_config=RunConfig(parallel_tool_call_limit=limit))
    start = trio.current_time()
    result = await RunResultStreaming(agent.run(ephemeral(), QUESTION)).collect()
    assert trio.current_time() - start == pytest.approx(elapsed)
    assert gauge.peak == peak
    outputs = [e.item.output for e in result.events if isinstance(e, ToolOutputItem)]
    assert outputs == ["t0", "t1", "t2", "t3"]  # call order, whatever the finishing order


async def test_max_agent_depth_default_8_bounds_handoff_chains() -> None:
    """Seed: "max_agent_depth: u32 — maximum agent-nesting depth across handoff chains and agent-as-tool sub-runs.
    Default 8; exceeding it fails with MaxAgentDepthExceeded."
    """
    assert RunConfig().max_agent_depth == 8
    agents: dict[str, LlmAgent[None]] = {}

    def ping_pong(name: str, other: str) -> LlmAgent[None]:
        model = ScriptedModel([call_tools(call(f"transfer_to_{other}")) for _ in range(10)], name=name)
        handoff: Handoff[None] = Handoff(agent_name=other, description="the other one", resolve=lambda: agents[other])
        return LlmAgent(name=name, model=model, handoffs=[handoff])

    agents["ping"] = ping_pong("ping", "pong")
    agents["pong"] = ping_pong("pong", "ping")
    events = await drain(agents["ping"].run(ephemeral(), QUESTION))
    assert events[-1] == RunFailed(MaxAgentDepthExceeded(9, 8))
    assert sum(isinstance(e, HandoffItem) for e in events) == 8
    events = await drain(Runner(RunConfig(max_agent_depth=2)).run(agents["ping"], ephemeral(), QUESTION))
    assert events[-1] == RunFailed(MaxAgentDepthExceeded(3, 2))


async def test_timeout_only_honoured_by_a_runner(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "timeout: Option<Duration> — wall-clock deadline for the whole run. Honored only by a runtime backend
    such as the runtime-tokio runner; a bare agent.run() has no timer and cannot time out."
    """
    agent = tool_agent(ScriptedModel([reply("slow answer", latency=10.0)]), run_config=RunConfig(timeout=5.0))
    start = trio.current_time()
    result = await RunResultStreaming(agent.run(ephemeral(), QUESTION)).collect()
    assert result.final_output == "slow answer" and trio.current_time() - start == 10.0

    start = trio.current_time()
    agent = agent.with_model(ScriptedModel([reply("slow answer", latency=10.0)]))
    events = await drain(Runner(RunConfig(timeout=5.0)).run(agent, ephemeral(), QUESTION))
    assert trio.current_time() - start == 5.0
    assert events[-1] == RunFailed(TimedOut(5.0))


def test_run_config_builders_chain() -> None:
    """Seed: "The builders are chainable:" """
    config = RunConfig().with_timeout(30).with_parallel_tool_call_limit(4).with_max_agent_depth(4).with_max_turns(5)
    assert config == RunConfig(max_turns=5, parallel_tool_call_limit=4, max_agent_depth=4, timeout=30)
