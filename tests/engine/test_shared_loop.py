"""`engine.run_loop` driven by a tiny in-test performer: the loop decides, the performer only answers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import attrs
import pytest

from helikon_fc.core import (
    AgentError,
    AgentEvent,
    ApprovalRequested,
    Conversation,
    GuardrailTriggered,
    GuardrailTripped,
    HandoffTarget,
    HookDenied,
    HookFailed,
    Item,
    JsonObject,
    MessageOutput,
    ModelFailed,
    ModelFailureKind,
    ModelRequest,
    ModelResponse,
    RunCompleted,
    RunFailed,
    Start,
    SystemMessage,
    TerminalEvent,
    ToolCall,
    ToolResults,
    TransitionCtx,
    TransitionOutcome,
    Usage,
    UserMessage,
    initial_state,
    transition,
)
from helikon_fc.engine import Begin, Controls, Held, run_loop

A = TypeVar("A")
B = TypeVar("B")

CTX = TransitionCtx(agent_name="a", instructions=None, conversation=Conversation())
QUESTION: tuple[Item, ...] = (UserMessage("hi"),)


class Meter:
    def __init__(self) -> None:
        self.counted: list[tuple[str, Usage, str | None]] = []

    def add(self, agent: str, usage: Usage, model: str | None) -> None:
        self.counted.append((agent, usage, model))


class Performer:
    """Answers from a script; logs every effect it is asked for, in order."""

    agent = "a"
    model: str | None = "m"

    def __init__(self, answers: Sequence[ModelResponse | RunFailed], *, records: bool = False) -> None:
        self.answers = list(answers)
        self.records = records
        self.meter = Meter()
        self.log: list[tuple[str, object]] = []
        self.handoff_terminal: TerminalEvent = RunCompleted(Usage())

    async def checkpoint(self) -> None:
        pass

    async def send(self, event: AgentEvent) -> None:
        self.log.append(("send", event))

    def asking(self, own: ModelRequest, injected: int) -> None:
        self.log.append(("asking", (own, injected)))

    async def call_model(self, request: ModelRequest, held: Held | None) -> ModelResponse | RunFailed:
        self.log.append(("call_model", request))
        return self.answers.pop(0)

    async def summarise(self, request: ModelRequest) -> ModelResponse | RunFailed:
        raise AssertionError("no compaction here")

    def answered(self, answer: ModelResponse) -> None:
        self.log.append(("answered", answer))

    async def run_tools(
        self, calls: tuple[ToolCall, ...], arguments: tuple[JsonObject | None, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed:
        raise AssertionError("no tools here")

    async def await_approval(
        self, pending: tuple[ToolCall, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed | tuple[ApprovalRequested, ...]:
        raise AssertionError("no approvals here")

    async def hand_off(self, target: str, transcript: Conversation) -> TerminalEvent:
        self.log.append(("hand_off", target))
        return self.handoff_terminal

    async def beside(
        self, call: Callable[[], Awaitable[A]], check: Callable[[], Awaitable[B | None]]
    ) -> tuple[A | None, B | None]:
        checked = await check()  # one after the other is enough here: a trip means the call never ran
        return (None, checked) if checked is not None else (await call(), None)

    async def boundary(self, outcome: TransitionOutcome) -> None:
        self.log.append(("boundary", outcome))

    async def ended(self, terminal: TerminalEvent) -> None:
        self.log.append(("ended", terminal))

    def kinds(self) -> list[str]:
        return [kind if kind != "send" else type(what).__name__ for kind, what in self.log]


class Tripping(Controls):
    """Controls with output guardrails that trip on every answer, and nothing else."""

    def __init__(self) -> None:
        super().__init__(hooked=False, input_guarded=False, output_guarded=True)

    async def check_output(self, text: str) -> tuple[AgentEvent, ...] | None:
        return (GuardrailTriggered("output_policy", text), RunFailed(GuardrailTripped("output_policy", text)))

    async def idle(self) -> None:
        pass


def fresh() -> Begin:
    return Begin(initial_state(), Start(), Conversation(QUESTION))


async def test_terminate_delivers_the_events_then_records_and_returns_the_terminal() -> None:
    """A final answer: every event of the last step is sent, then the terminal is recorded (`ended`), never sent."""
    p = Performer([ModelResponse(text="hello", usage=Usage(input_tokens=3))])
    terminal = await run_loop(p, None, CTX, fresh())
    assert type(terminal) is RunCompleted
    kinds = p.kinds()
    assert kinds[-1] == "ended" and p.log[-1][1] is terminal
    assert "MessageOutput" in kinds and kinds.index("MessageOutput") < kinds.index("ended")
    assert not any(kind == "send" and type(what) is RunCompleted for kind, what in p.log)
    assert p.meter.counted == [("a", Usage(input_tokens=3, requests=1), "m")]


async def test_review_replaces_the_step() -> None:
    """A tripped output guardrail replaces the final step: its events go out instead, and the run fails."""
    p = Performer([ModelResponse(text="secret")])
    terminal = await run_loop(p, Tripping(), CTX, fresh())
    assert terminal == RunFailed(GuardrailTripped("output_policy", "secret"))
    sent = [what for kind, what in p.log if kind == "send"]
    assert GuardrailTriggered("output_policy", "secret") in sent
    assert not any(isinstance(event, MessageOutput) for event in sent)


async def test_a_resumed_boundary_redelivers_its_recorded_events_unrecorded() -> None:
    """Resuming at a recorded boundary re-asks its action: the recorded events go out again, no boundary is
    written for it (the next step's is)."""
    first = transition(initial_state(), Start(), attrs.evolve(CTX, conversation=Conversation(QUESTION)))
    marker = GuardrailTriggered("marker")  # any event: what the log held for the boundary
    begin = Begin(initial_state(), Start(), Conversation(QUESTION), resumed=True, redeliver=(marker,))
    p = Performer([ModelResponse(text="done")], records=True)
    await run_loop(p, None, CTX, begin)
    assert p.log[0] == ("send", marker)
    assert [kind for kind, _ in p.log[1:3]] == ["asking", "call_model"]
    assert not any(kind == "send" and what in first.events for kind, what in p.log[:3])
    assert [kind for kind, _ in p.log].count("boundary") == 1


async def test_a_model_failure_ends_the_run() -> None:
    """A failed model call is the run's terminal: recorded, returned, nothing counted, no further call."""
    failed = RunFailed(ModelFailed(ModelFailureKind.TRANSPORT, "gone"))
    p = Performer([failed, ModelResponse(text="never")])
    assert await run_loop(p, None, CTX, fresh()) is failed
    assert p.log[-1] == ("ended", failed)
    assert [kind for kind, _ in p.log].count("call_model") == 1
    assert p.meter.counted == []


async def test_a_handoff_returns_the_targets_terminal() -> None:
    """A handoff ends the loop with what the target's run ended with."""
    ctx = TransitionCtx(
        agent_name="a",
        instructions=None,
        conversation=Conversation(),
        handoffs=(HandoffTarget("transfer_to_b", "b", "b"),),
    )
    call = ToolCall("c1", "transfer_to_b", "{}")
    p = Performer([ModelResponse(tool_calls=(call,))])
    p.handoff_terminal = RunCompleted(Usage(output_tokens=7))
    terminal = await run_loop(p, None, ctx, fresh())
    assert terminal is p.handoff_terminal
    assert ("hand_off", "b") in p.log


class InputTripping(Controls):
    """Controls whose input guardrails trip, and nothing else."""

    def __init__(self) -> None:
        super().__init__(hooked=False, input_guarded=True, output_guarded=False)

    async def check_input(self, items: tuple[Item, ...]) -> tuple[AgentEvent, ...] | None:
        return (GuardrailTriggered("input_policy"), RunFailed(GuardrailTripped("input_policy")))

    async def idle(self) -> None:
        pass


class AnswerFirst(Performer):
    """`beside` that lets the model answer before the guardrails trip."""

    async def beside(
        self, call: Callable[[], Awaitable[A]], check: Callable[[], Awaitable[B | None]]
    ) -> tuple[A | None, B | None]:
        answer = await call()
        return answer, await check()


async def test_an_input_trip_after_the_answer_counts_it_and_fails_the_run() -> None:
    """The first call runs beside the input guardrails: a trip fails the run with its events, none of the
    answer's, and an answer that came first is still counted (the model served it) but never recorded."""
    p = AnswerFirst([ModelResponse(text="too late", usage=Usage(output_tokens=2))])
    terminal = await run_loop(p, InputTripping(), CTX, fresh())
    assert terminal == RunFailed(GuardrailTripped("input_policy"))
    assert ("send", GuardrailTriggered("input_policy")) in p.log
    assert not any(kind == "send" and isinstance(what, MessageOutput) for kind, what in p.log)
    assert p.meter.counted == [("a", Usage(output_tokens=2, requests=1), "m")]
    assert "answered" not in [kind for kind, _ in p.log]


async def test_a_fresh_begin_sends_and_records_its_first_step() -> None:
    """`Begin`'s defaults are a fresh run: the first step's events go out and it is recorded (nothing resumed,
    nothing redelivered), so there is one boundary per step."""
    first = transition(initial_state(), Start(), attrs.evolve(CTX, conversation=Conversation(QUESTION)))
    p = Performer([ModelResponse(text="done")], records=True)
    await run_loop(p, None, CTX, fresh())
    assert p.log[0][0] == "boundary" and p.log[0][1] == first
    assert [what for kind, what in p.log[1 : 1 + len(first.events)]] == list(first.events)
    assert [kind for kind, _ in p.log].count("boundary") == 2


def test_begin_takes_its_options_by_keyword_only() -> None:
    """`resumed`, `redeliver` and `fresh` are keyword-only: a positional flag is refused, not taken as another."""
    for extra in ((True,), (True, ()), (True, (), False)):
        with pytest.raises(TypeError):
            Begin(initial_state(), Start(), Conversation(QUESTION), *extra)


class RefusingStart(Controls):
    """Controls whose `OnRunStart` hook denies the run."""

    def __init__(self) -> None:
        super().__init__(hooked=True, input_guarded=False, output_guarded=False)

    async def fire_run_start(self) -> tuple[AgentError | None, Sequence[str]]:
        return HookDenied("run_start", "closed"), ()

    async def idle(self) -> None:
        pass


async def test_a_refused_run_start_fails_the_run_before_any_model_call() -> None:
    """A `Deny` from `OnRunStart` is the run's end: recorded as a failed step, returned, no model called."""
    p = Performer([ModelResponse(text="never")], records=True)
    terminal = await run_loop(p, RefusingStart(), CTX, fresh())
    assert terminal == RunFailed(HookDenied("run_start", "closed"))
    assert [kind for kind, _ in p.log] == ["boundary", "ended"]
    assert p.log[-1] == ("ended", terminal)


class Injecting(Controls):
    """Controls whose `OnRunStart` injects one system message, and nothing else."""

    def __init__(self) -> None:
        super().__init__(hooked=True, input_guarded=False, output_guarded=False)

    async def fire_run_start(self) -> tuple[AgentError | None, Sequence[str]]:
        return None, ("be brief",)

    async def fire_turn_start(self, turn: int) -> tuple[AgentError | None, Sequence[str]]:
        return None, ()

    async def fire_run_complete(self) -> None:
        pass

    async def idle(self) -> None:
        pass


async def test_a_recording_performer_is_told_the_request_without_its_injections() -> None:
    """The model is asked with the hooks' injections; a performer that records is told the agent's own request
    and how many items were injected (the log never keeps them), one that does not is not told."""
    for records in (True, False):
        p = Performer([ModelResponse(text="done")], records=records)
        await run_loop(p, Injecting(), CTX, fresh())
        sent = next(what for kind, what in p.log if kind == "call_model")
        assert isinstance(sent, ModelRequest) and sent.items[-1] == SystemMessage("be brief")
        told = [what for kind, what in p.log if kind == "asking"]
        if records:
            assert told == [(attrs.evolve(sent, items=Conversation(tuple(sent.items)[:-1])), 1)]
        else:
            assert told == []
