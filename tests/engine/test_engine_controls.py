"""`engine.Controls` and `engine.Held` by themselves: when hooks fire, what their answers do, and the order in
which held deltas go out. The shared loop's tests drive them only through a run; these pin each decision."""

from __future__ import annotations

from collections.abc import Sequence

from helikon_fc.core import (
    AgentError,
    AgentEvent,
    Conversation,
    GuardrailTriggered,
    HandoffItem,
    HookDenied,
    ModelRequest,
    RunFailed,
    Start,
    SystemMessage,
    TransitionCtx,
    TransitionOutcome,
    TurnStarted,
    UserMessage,
    initial_state,
    transition,
)
from helikon_fc.core.states import PerformHandoff
from helikon_fc.engine import Controls, Held

DENIED = HookDenied("run_start", "no")


class Scripted(Controls):
    """Controls whose hooks answer from fixed values and log every call."""

    def __init__(
        self,
        *,
        hooked: bool = True,
        output_guarded: bool = False,
        start: tuple[AgentError | None, Sequence[str]] = (None, ()),
        turn: tuple[AgentError | None, Sequence[str]] = (None, ()),
        handoff: AgentError | None = None,
    ) -> None:
        super().__init__(hooked=hooked, input_guarded=False, output_guarded=output_guarded)
        self.start, self.turn, self.handoff = start, turn, handoff
        self.calls: list[str] = []

    async def fire_run_start(self) -> tuple[AgentError | None, Sequence[str]]:
        self.calls.append("run_start")
        return self.start

    async def fire_turn_start(self, turn: int) -> tuple[AgentError | None, Sequence[str]]:
        self.calls.append(f"turn_start {turn}")
        return self.turn

    async def fire_handoff(self, target: str) -> AgentError | None:
        self.calls.append(f"handoff {target}")
        return self.handoff

    async def fire_run_complete(self) -> None:
        self.calls.append("run_complete")

    async def check_output(self, text: str) -> tuple[AgentEvent, ...] | None:
        self.calls.append(f"output {text}")
        return None

    async def idle(self) -> None:
        self.calls.append("idle")


REQUEST = ModelRequest(instructions=None, items=Conversation((UserMessage("hi"),)))
CTX = TransitionCtx(agent_name="a", instructions=None, conversation=Conversation((UserMessage("hi"),)))


def first_step() -> TransitionOutcome:
    """The first step of a run: its events hold a `TurnStarted`, its action calls the model."""
    outcome = transition(initial_state(), Start(), CTX)
    assert any(type(event) is TurnStarted for event in outcome.events)
    return outcome


async def test_a_run_start_refusal_aborts_and_no_run_complete_fires() -> None:
    controls = Scripted(start=(DENIED, ("kept?",)))
    assert await controls.run_started() == DENIED
    assert controls.request(REQUEST) is REQUEST  # the refusing hook's injections are dropped
    await controls.run_completed()
    assert controls.calls == ["run_start", "idle"]


async def test_run_start_injections_go_onto_the_next_request_only() -> None:
    controls = Scripted(start=(None, ("first", "second")))
    assert await controls.run_started() is None
    sent = controls.request(REQUEST)
    assert tuple(sent.items)[-2:] == (SystemMessage("first"), SystemMessage("second"))
    assert controls.request(REQUEST) is REQUEST  # used up
    await controls.run_completed()
    await controls.run_completed()  # fires once
    assert controls.calls == ["run_start", "run_complete", "idle"]


async def test_an_unhooked_run_never_fires_a_hook() -> None:
    controls = Scripted(hooked=False)
    assert await controls.run_started() is None
    outcome = first_step()
    assert await controls.review(outcome) is outcome
    await controls.run_completed()
    assert controls.calls == ["idle"]


async def test_a_handed_off_run_leaves_run_complete_to_its_target() -> None:
    controls = Scripted()
    await controls.run_started()
    controls.handed_off()
    await controls.run_completed()
    assert controls.calls == ["run_start", "idle"]


async def test_a_turn_start_refusal_keeps_the_events_before_the_turn() -> None:
    outcome = first_step()
    refusal = HookDenied("turn_start", "no")
    controls = Scripted(turn=(refusal, ()))
    reviewed = await controls.review(outcome)
    cut = next(i for i, event in enumerate(outcome.events) if type(event) is TurnStarted)
    assert reviewed.events == (*outcome.events[:cut], RunFailed(refusal))
    assert controls.calls == ["turn_start 0"]


async def test_turn_start_injections_reach_the_next_request() -> None:
    outcome = first_step()
    controls = Scripted(turn=(None, ("be brief",)))
    assert await controls.review(outcome) is outcome
    assert tuple(controls.request(REQUEST).items)[-1] == SystemMessage("be brief")


async def test_a_denied_handoff_fails_the_step_and_an_allowed_one_keeps_it() -> None:
    events: tuple[AgentEvent, ...] = (GuardrailTriggered("before"), HandoffItem("a", "b"))
    outcome = TransitionOutcome(initial_state(), events, PerformHandoff("b", Conversation()))
    refusal = HookDenied("handoff", "no")
    denied = Scripted(handoff=refusal)
    assert (await denied.review(outcome)).events == (GuardrailTriggered("before"), RunFailed(refusal))
    assert denied.calls == ["handoff b"]
    allowed = Scripted()
    assert await allowed.review(outcome) is outcome


async def test_held_events_go_out_in_order_then_everything_passes() -> None:
    held = Held()
    sent: list[AgentEvent] = []
    late = GuardrailTriggered("late")

    async def send(event: AgentEvent) -> None:
        sent.append(event)
        if len(sent) == 1:
            assert held.offer(late)  # offered while the first batch goes out: still held, sent after it

    held.send = send
    first, second = GuardrailTriggered("one"), GuardrailTriggered("two")
    assert held.offer(first) and held.offer(second)
    assert sent == [] and not held.passed
    await held.release()
    assert sent == [first, second, late]
    assert held.passed and not held.offer(GuardrailTriggered("after"))
    assert sent == [first, second, late]
