"""`AgUiTranslator`: a helikon_fc run's events as AG-UI events. Pure: no IO, no clock, no mutation.

``translator.translate(event, state=...)`` returns the next translator and the AG-UI events `event`
becomes; feed it every event of one run, `RunStarted` first, in order. What becomes what:

| helikon_fc event | AG-UI events |
| --- | --- |
| `RunStarted` | ``RUN_STARTED``, ``STATE_SNAPSHOT`` (the run's shared state), ``STEP_STARTED`` (the agent) |
| `AgentUpdated` | ``STEP_FINISHED`` (the agent that was active), ``STEP_STARTED`` (the new one) |
| `TokenDelta` | ``TEXT_MESSAGE_START`` (first of a message), ``TEXT_MESSAGE_CONTENT`` |
| `MessageOutput` | ``TEXT_MESSAGE_END`` (or START/CONTENT/END for a message that was not streamed) |
| `ReasoningDelta` | ``REASONING_START`` and ``REASONING_MESSAGE_START`` (first), ``REASONING_MESSAGE_CONTENT`` |
| `ToolCallDelta` | ``TOOL_CALL_START`` (first of a call), ``TOOL_CALL_ARGS`` |
| `ToolCallItem` | ``TOOL_CALL_END`` (or START/ARGS/END for a call that was not streamed) |
| `ToolOutputItem` | ``TOOL_CALL_RESULT`` |
| `RunCompleted` | ``RUN_FINISHED`` (its ``result`` the answer, ``usage`` per model) |
| `RunPaused` | ``RUN_FINISHED`` with an ``interrupt`` outcome: one interrupt per waiting call |
| `RunFailed` | ``RUN_ERROR``: the error in words, its wire tag as ``code`` |
| `RunFailed(Cancelled)` | ``RUN_FINISHED`` with a ``cancelled`` outcome (stopped from outside, not a failure) |
| anything else but `TurnStarted` | ``CUSTOM`` named ``helikon_fc.<wire tag>``, the event's wire JSON as value |

Every message and tool call that was opened is closed before the run's last event (and reasoning
before the text or calls that follow it); message ids are ``<run id>-<n>``, numbered in order, so
the same run always gets the same ids. Texts are tracked per agent: the interleaved events of
parallel branches (told apart by `AgentUpdated`) make separate messages.

The shared state is the run's `RunState` (``ctx.state``), a JSON object: ``translate(event,
state=snapshot)`` compares `snapshot` with the state the consumer was last sent and adds a
``STATE_DELTA`` (an RFC 6902 patch) when they differ; ``state=None`` means "not looked at".
"""

from __future__ import annotations

import copy

import attrs
from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    CustomEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from ..core import (
    AgentEvent,
    AgentUpdated,
    JsonValue,
    MessageOutput,
    ReasoningDelta,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    TokenDelta,
    ToolCallDelta,
    ToolCallItem,
    ToolOutputItem,
    TurnStarted,
)
from ..core.wire import unstructure_data
from ._ag_ui_outcome import terminal_event, wire_tag
from ._ag_ui_patch import json_patch

JsonObject = dict[str, JsonValue]


@attrs.frozen(kw_only=True)
class _Turn:
    """What is open of one agent's current model turn."""

    message_id: str | None = None
    """The turn's assistant message: its text's id, and the parent of its tool calls."""
    text_open: bool = False
    """TEXT_MESSAGE_START went out for `message_id`, TEXT_MESSAGE_END not yet."""
    text_sent: bool = False
    """Some text of `message_id` went out (so its `MessageOutput` only closes it)."""
    reasoning: tuple[str, str] | None = None
    """The open reasoning span and message ids."""


_NO_TURN = _Turn()


@attrs.frozen(kw_only=True)
class AgUiTranslator:
    """Translates the events of one helikon_fc run into AG-UI events (see the module docstring).

    Build one per run with the AG-UI thread and run ids; each `translate` returns the next
    translator, this one is left as it was. `finished` tells when the run's last event was seen.

    Attributes:
        thread_id: the AG-UI thread (conversation) the run belongs to.
        run_id: the AG-UI run id, on ``RUN_STARTED``/``RUN_FINISHED`` and in every message id.
        state: the shared state as the consumer was last sent it (the initial state until ``RUN_STARTED``);
            give a copy (``ctx.state.snapshot()`` is one): the translator keeps what it is given.
    """

    thread_id: str
    run_id: str
    state: JsonObject = attrs.field(factory=dict)
    agent: str | None = None
    """The agent active now (`None` before `RunStarted`)."""
    recorded_as: str | None = None
    """The id the run is recorded under (`RunStarted.run_id`: a durable run's), named on its interrupts."""
    finished: bool = False
    """Whether the run's terminal event was translated."""
    answer: str | None = None
    """The text of the last `MessageOutput` (the run's answer when it completes)."""
    _counter: int = 0
    _turns: tuple[tuple[str, _Turn], ...] = ()
    _open_calls: tuple[str, ...] = ()

    def translate(
        self, event: AgentEvent, *, state: JsonObject | None = None
    ) -> tuple[AgUiTranslator, tuple[BaseEvent, ...]]:
        """The translator after `event`, and the AG-UI events `event` becomes.

        Args:
            event: the run's next event.
            state: the run's shared state as it is now (``ctx.state.snapshot()``), or `None` when not
                looked at: when it differs from `state`, a ``STATE_DELTA`` follows the event's own
                translation (before the run's last event, when `event` ends the run).

        Raises:
            ValueError: `event` comes before `RunStarted` or after the run's terminal event.
        """
        if self.finished:
            raise ValueError(f"translate got {type(event).__name__} after the run's terminal event")
        if self.agent is None and not isinstance(event, RunStarted):
            raise ValueError(f"translate got {type(event).__name__} before RunStarted: a run starts with it")
        step = _Step(self)
        step.take(event, state)
        return step.result()


class _Step:
    """One `translate` call at work: a scratch copy of the translator's fields and the events so far."""

    def __init__(self, start: AgUiTranslator) -> None:
        self.start = start
        self.state = start.state
        self.agent = start.agent or ""
        self.answer = start.answer
        self.recorded_as = start.recorded_as
        self.counter = start._counter
        self.turns = dict(start._turns)
        self.calls = list(start._open_calls)
        self.finished = False
        self.out: list[BaseEvent] = []

    def result(self) -> tuple[AgUiTranslator, tuple[BaseEvent, ...]]:
        """The translator after this step, and the events it produced."""
        after = attrs.evolve(
            self.start,
            state=self.state,
            agent=self.agent,
            finished=self.finished,
            answer=self.answer,
            recorded_as=self.recorded_as,
            counter=self.counter,
            turns=tuple((agent, turn) for agent, turn in self.turns.items() if turn != _NO_TURN),
            open_calls=tuple(self.calls),
        )
        return after, tuple(self.out)

    def new_id(self) -> str:
        self.counter += 1
        return f"{self.start.run_id}-{self.counter}"

    @property
    def turn(self) -> _Turn:
        return self.turns.get(self.agent, _NO_TURN)

    @turn.setter
    def turn(self, value: _Turn) -> None:
        self.turns[self.agent] = value

    def take(self, event: AgentEvent, state: JsonObject | None) -> None:
        match event:
            case RunStarted(agent=agent, run_id=recorded_as):
                self.agent = agent
                self.recorded_as = recorded_as
                self.out.append(_run_started(self.start))
                self.out.append(StateSnapshotEvent(snapshot=self.state))
                self.out.append(StepStartedEvent(step_name=agent))
            case AgentUpdated(agent=agent):
                if agent != self.agent:
                    self.out.append(StepFinishedEvent(step_name=self.agent))
                    self.agent = agent
                    self.out.append(StepStartedEvent(step_name=agent))
            case TurnStarted():
                self.close_turn()
            case TokenDelta(text=text):
                self.text(text)
            case ReasoningDelta(text=text):
                self.reasoning(text)
            case MessageOutput(item=item):
                self.message(item.text)
            case ToolCallDelta(call_id=call_id, name=name, args_delta=delta):
                self.call_delta(call_id, name, delta)
            case ToolCallItem(item=call):
                self.call_item(call.call_id, call.name, call.arguments)
            case ToolOutputItem(item=result):
                self.end_call(result.call_id)
                metadata: dict[str, object] | None = {"is_error": True} if result.is_error else None
                self.out.append(
                    ToolCallResultEvent(
                        message_id=self.new_id(),
                        tool_call_id=result.call_id,
                        content=result.output,
                        role="tool",
                        metadata=metadata,
                    )
                )
            case RunCompleted() | RunFailed() | RunPaused():
                self.finish(event, state)
                return
            case _:
                self.out.append(CustomEvent(name=f"helikon_fc.{wire_tag(event)}", value=_wire(event)))
        self.observe(state)

    def observe(self, state: JsonObject | None) -> None:
        if state is None:
            return
        patch = json_patch(self.state, state)
        if patch:
            self.out.append(StateDeltaEvent.model_validate({"type": "STATE_DELTA", "delta": patch}))
            self.state = copy.deepcopy(state)  # kept as sent: the caller's dict may change after

    # text and reasoning

    def text(self, text: str) -> None:
        self.close_reasoning()
        turn = self.turn
        if not turn.text_open:
            message_id = turn.message_id if turn.message_id is not None and not turn.text_sent else self.new_id()
            self.out.append(TextMessageStartEvent(message_id=message_id, role="assistant", name=self.agent))
            turn = self.turn = _Turn(message_id=message_id, text_open=True, text_sent=True)
        assert turn.message_id is not None
        self.out.append(TextMessageContentEvent(message_id=turn.message_id, delta=text))

    def message(self, text: str) -> None:
        self.close_reasoning()
        turn = self.turn
        if turn.text_sent:
            self.close_text()
        elif text:
            message_id = turn.message_id or self.new_id()
            self.out.append(TextMessageStartEvent(message_id=message_id, role="assistant", name=self.agent))
            self.out.append(TextMessageContentEvent(message_id=message_id, delta=text))
            self.out.append(TextMessageEndEvent(message_id=message_id))
            self.turn = attrs.evolve(turn, message_id=message_id, text_sent=True)
        self.answer = text

    def close_text(self) -> None:
        turn = self.turn
        if turn.text_open and turn.message_id is not None:
            self.out.append(TextMessageEndEvent(message_id=turn.message_id))
            self.turn = attrs.evolve(turn, text_open=False)

    def reasoning(self, text: str) -> None:
        turn = self.turn
        if turn.reasoning is None:
            turn = self.turn = attrs.evolve(turn, reasoning=(self.new_id(), self.new_id()))
            assert turn.reasoning is not None
            span, message = turn.reasoning
            self.out.append(ReasoningStartEvent(message_id=span))
            self.out.append(ReasoningMessageStartEvent(message_id=message, role="reasoning"))
        assert turn.reasoning is not None
        self.out.append(ReasoningMessageContentEvent(message_id=turn.reasoning[1], delta=text))

    def close_reasoning(self) -> None:
        turn = self.turn
        if turn.reasoning is not None:
            span, message = turn.reasoning
            self.out.append(ReasoningMessageEndEvent(message_id=message))
            self.out.append(ReasoningEndEvent(message_id=span))
            self.turn = attrs.evolve(turn, reasoning=None)

    def close_turn(self) -> None:
        """End what the active agent's turn left open (a new turn starts, or the agent's stream moved on)."""
        self.close_reasoning()
        self.close_text()
        self.turn = _NO_TURN

    # tool calls

    def parent_id(self) -> str:
        """The active turn's assistant message, which holds its tool calls (named now if it has no id yet)."""
        turn = self.turn
        if turn.message_id is None:
            turn = self.turn = attrs.evolve(turn, message_id=self.new_id())
        assert turn.message_id is not None
        return turn.message_id

    def open_call(self, call_id: str, name: str) -> None:
        self.close_reasoning()
        self.close_text()
        self.out.append(
            ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name, parent_message_id=self.parent_id())
        )
        self.calls.append(call_id)

    def call_delta(self, call_id: str, name: str | None, delta: str) -> None:
        if call_id not in self.calls:
            self.open_call(call_id, name or "")
        self.out.append(ToolCallArgsEvent(tool_call_id=call_id, delta=delta))

    def call_item(self, call_id: str, name: str, arguments: str) -> None:
        if call_id not in self.calls:
            self.open_call(call_id, name)
            self.out.append(ToolCallArgsEvent(tool_call_id=call_id, delta=arguments))
        self.end_call(call_id)

    def end_call(self, call_id: str) -> None:
        if call_id in self.calls:
            self.calls.remove(call_id)
            self.out.append(ToolCallEndEvent(tool_call_id=call_id))

    # the end

    def finish(self, event: RunCompleted | RunFailed | RunPaused, state: JsonObject | None) -> None:
        active = self.agent
        for agent in list(self.turns):  # every agent's: parallel branches may have left several open
            self.agent = agent
            self.close_turn()
        self.agent = active
        for call_id in list(self.calls):
            self.end_call(call_id)
        self.observe(state)
        self.out.append(StepFinishedEvent(step_name=self.agent))
        self.finished = True
        start = self.start
        self.out.append(terminal_event(event, start.thread_id, start.run_id, self.answer, self.recorded_as))


def _run_started(translator: AgUiTranslator) -> RunStartedEvent:
    return RunStartedEvent(thread_id=translator.thread_id, run_id=translator.run_id, protocol_version=PROTOCOL_VERSION)


def _wire(value: object) -> JsonValue:
    data: JsonValue = unstructure_data(value)
    return data
