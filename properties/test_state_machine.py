"""Law: driven step by step by any sequence of model answers, tool results, resumes and stray inputs, `transition`
agrees after every step with a tiny reference model of the loop (phase, turn, usage, pending calls)."""

from __future__ import annotations

import json

import attrs
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from properties.reference import ADD, ANSWER, BILLING, WEATHER, make_ctx
from properties.strategies import texts, transition_inputs, usages

from helikon_fc.core import (
    AgentEvent,
    ApplyingHandoff,
    CallingModel,
    CallModel,
    Conversation,
    Done,
    ExecuteTools,
    ExecutingTools,
    Failed,
    Finalizing,
    InvalidTransition,
    LoopState,
    MaxTurnsExceeded,
    ModelResponse,
    NextAction,
    PerformHandoff,
    RepairingOutput,
    RunCompleted,
    RunFailed,
    Start,
    StructuredOutputInvalid,
    Terminate,
    ToolCall,
    ToolResult,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    TransitionOutcome,
    Usage,
    initial_state,
    transition,
)

USAGES = usages()
TEXTS = texts()
INPUTS = transition_inputs()

PHASES: dict[str, type] = {
    "loop": CallingModel,
    "tools": ExecutingTools,
    "final": Finalizing,
    "repair": RepairingOutput,
    "handoff": ApplyingHandoff,
    "done": Done,
    "failed": Failed,
}


@attrs.define
class Reference:
    """The loop reduced to what the rules talk about."""

    phase: str
    turn: int
    max_turns: int
    usage: Usage = Usage()
    pending: tuple[str, ...] = ()

    def spend(self, usage: Usage) -> None:
        """One model call: add its tokens, count one request."""
        self.usage = self.usage + attrs.evolve(usage, requests=1)

    def next_turn(self) -> None:
        """A tool round settled: the next turn, or the end of the budget."""
        self.pending = ()
        if self.turn + 1 >= self.max_turns:
            self.phase = "failed"
        else:
            self.turn += 1
            self.phase = "loop"


class LoopMachine(RuleBasedStateMachine):
    """Drives `transition` with answers and results and checks it against `Reference` after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.ctx: TransitionCtx = make_ctx()
        self.state: LoopState = initial_state()
        self.conversation = Conversation()
        self.action: NextAction = Terminate()
        self.events: list[AgentEvent] = []
        self.reference = Reference("loop", 0, 1)
        self.call_count = 0
        self.patience = 0

    def step(self, given: TransitionInput) -> TransitionOutcome:
        outcome = transition(self.state, given, attrs.evolve(self.ctx, conversation=self.conversation))
        self.events.extend(outcome.events)
        self.conversation = self.conversation.extend(outcome.conversation_appends)
        self.state = outcome.next_state
        self.action = outcome.next_action
        return outcome

    def call_id(self) -> str:
        self.call_count += 1
        return f"call_{self.call_count}"

    @property
    def live(self) -> bool:
        return self.reference.phase in ("loop", "tools", "final", "repair", "handoff")

    @initialize(
        tools=st.booleans(),
        schema=st.booleans(),
        handoff=st.booleans(),
        max_turns=st.integers(min_value=1, max_value=5),
        patience=st.integers(min_value=0, max_value=6),
    )
    def begin(self, tools: bool, schema: bool, handoff: bool, max_turns: int, patience: int) -> None:
        """Configure the agent; `patience` is how many tool calls the model makes before it may answer or hand off."""
        self.patience = patience if tools else 0
        self.ctx = make_ctx(
            tools=(WEATHER, ADD) if tools else (),
            handoffs=(BILLING,) if handoff else (),
            output_schema=ANSWER if schema else None,
            max_turns=max_turns,
        )
        self.conversation = self.ctx.conversation
        self.reference = Reference("final" if schema and not tools else "loop", 0, max_turns)
        self.step(Start())

    # The model answers a tool-loop turn.

    @precondition(lambda self: self.reference.phase == "loop" and self.call_count >= self.patience)
    @rule(text=TEXTS, usage=USAGES)
    def model_answers_with_text(self, text: str, usage: Usage) -> None:
        self.step(ModelResponse(text=text, usage=usage))
        self.reference.spend(usage)
        if self.ctx.output_schema is not None:
            self.reference.phase = "final"
            self.reference.turn += 1
        else:
            self.reference.phase = "done"

    @precondition(lambda self: self.reference.phase == "loop" and bool(self.ctx.tools))
    @rule(
        valid=st.integers(min_value=0, max_value=2),
        invalid=st.integers(min_value=0, max_value=2),
        reuse=st.booleans(),
        usage=USAGES,
    )
    def model_calls_tools(self, valid: int, invalid: int, reuse: bool, usage: Usage) -> None:
        """With `reuse`, every call of the response has one id (as some models send); the machine must then ask
        for them as ``ID``, ``ID#2``, ... in call order. Every call goes to the driver, the invalid ones too (with
        their problems, which the driver answers them with)."""
        shared = self.call_id() if reuse else None

        def next_id() -> str:
            return shared if shared is not None else self.call_id()

        good = tuple(ToolCall(next_id(), "add", json.dumps({"a": n, "b": 1})) for n in range(valid))
        bad = tuple(ToolCall(next_id(), "add", '{"a": "x"}') for _ in range(invalid))
        calls = good + bad or (ToolCall(next_id(), "nope", "{}"),)
        self.step(ModelResponse(tool_calls=calls, usage=usage))
        self.reference.spend(usage)
        self.reference.phase = "tools"
        ids = [call.call_id for call in calls]
        if shared is not None:
            ids = [shared if index == 0 else f"{shared}#{index + 1}" for index in range(len(calls))]
        self.reference.pending = tuple(ids)

    @precondition(
        lambda self: self.reference.phase == "loop" and bool(self.ctx.handoffs) and self.call_count >= self.patience
    )
    @rule(usage=USAGES)
    def model_hands_off(self, usage: Usage) -> None:
        calls = (
            ToolCall(self.call_id(), "add", '{"a": 1, "b": 2}'),
            ToolCall(self.call_id(), "transfer_to_billing", ""),
        )
        self.step(ModelResponse(tool_calls=calls, usage=usage))
        self.reference.spend(usage)
        self.reference.phase = "handoff"

    # The driver reports tool results.

    @precondition(lambda self: self.reference.phase == "tools")
    @rule(data=st.data())
    def tools_report_results(self, data: st.DataObject) -> None:
        order = data.draw(st.permutations(self.reference.pending))
        self.step(ToolResults(tuple(ToolResult(call_id, f"result {call_id}") for call_id in order)))
        self.reference.next_turn()

    # The model answers a structured-output turn.

    @precondition(lambda self: self.reference.phase in ("final", "repair"))
    @rule(fits=st.booleans(), usage=USAGES)
    def model_answers_structured(self, fits: bool, usage: Usage) -> None:
        text = '{"answer": "ok", "score": 3}' if fits else '{"answer": 3}'
        self.step(ModelResponse(text=text, usage=usage))
        self.reference.spend(usage)
        if fits:
            self.reference.phase = "done"
        elif self.reference.phase == "final":
            self.reference.phase = "repair"
        else:
            self.reference.phase = "failed"

    # Resumes and stray inputs.

    @precondition(lambda self: self.live)
    @rule()
    def resume_from_the_stored_state(self) -> None:
        outcome = transition(self.state, Start(), attrs.evolve(self.ctx, conversation=self.conversation))
        assert outcome.next_state == self.state
        assert outcome.next_action == self.action
        assert outcome.conversation_appends == ()

    @precondition(lambda self: self.live and self.call_count >= 3)
    @rule()
    def driver_feeds_the_wrong_input(self) -> None:
        wrong: TransitionInput = ModelResponse() if self.reference.phase in ("tools", "handoff") else ToolResults(())
        outcome = self.step(wrong)
        assert isinstance(outcome.next_state, Failed)
        assert isinstance(outcome.next_state.error, InvalidTransition)
        self.reference.phase = "failed"

    @precondition(lambda self: not self.live)
    @rule(given=INPUTS)
    def anything_after_the_end(self, given: TransitionInput) -> None:
        outcome = transition(self.state, given, attrs.evolve(self.ctx, conversation=self.conversation))
        assert outcome == TransitionOutcome(self.state, (), Terminate(), ())

    # After every step.

    @invariant()
    def machine_agrees_with_the_reference(self) -> None:
        reference = self.reference
        assert isinstance(self.state, PHASES[reference.phase]), (reference, self.state)
        assert self.state.usage == reference.usage
        match self.state:
            case CallingModel(turn=turn) | Finalizing(turn=turn) | RepairingOutput(turn=turn):
                assert turn == reference.turn <= reference.max_turns
                assert isinstance(self.action, CallModel)
            case ExecutingTools(turn=turn):
                assert turn == reference.turn
                assert isinstance(self.action, ExecuteTools)
                assert sorted(call.call_id for call in self.action.calls) == sorted(reference.pending)
            case Failed(error=error) if self.events.count(RunFailed(error)) == 1:
                if isinstance(error, MaxTurnsExceeded):
                    assert error.limit == reference.max_turns
                if isinstance(error, StructuredOutputInvalid):
                    assert error.schema_errors
            case _:
                pass

    @invariant()
    def one_terminal_event_last_and_only_at_the_end(self) -> None:
        terminal = [event for event in self.events if isinstance(event, RunCompleted | RunFailed)]
        if self.live:
            assert terminal == []
        else:
            assert len(terminal) == 1 and self.events[-1] is terminal[0]

    @invariant()
    def calls_are_answered_before_the_model_or_the_target_runs(self) -> None:
        match self.action:
            case CallModel(request=request):
                items: Conversation = request.items
            case PerformHandoff(transcript=transcript):
                items = transcript
            case _:
                return
        calls = sorted(item.call_id for item in items if isinstance(item, ToolCall))
        results = sorted(item.call_id for item in items if isinstance(item, ToolResult))
        assert calls == results


TestLoopMachine = LoopMachine.TestCase
