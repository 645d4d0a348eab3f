"""What `engine.Controls`, `engine.Held` and `engine.with_injections` promise a runtime: the calls it must supply,
`Held`'s state before a sink is set and after the guardrails passed, a request left alone when nothing is injected."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from helikon_fc.core import AgentEvent, Conversation, ModelRequest, SystemMessage, TokenDelta, UserMessage
from helikon_fc.engine import Controls, Held, with_injections


def bare() -> Controls:
    return Controls(hooked=True, input_guarded=True, output_guarded=True)


CALLS: tuple[Callable[[Controls], Awaitable[object]], ...] = (
    lambda c: c.fire_run_start(),
    lambda c: c.fire_turn_start(0),
    lambda c: c.fire_handoff("b"),
    lambda c: c.fire_run_complete(),
    lambda c: c.check_input((UserMessage("hi"),)),
    lambda c: c.check_output("text"),
    lambda c: c.idle(),
)


@pytest.mark.parametrize(
    "call", CALLS, ids=["run_start", "turn_start", "handoff", "run_complete", "input", "output", "idle"]
)
async def test_a_runtime_must_supply_every_call(call: Callable[[Controls], Awaitable[object]]) -> None:
    """`Controls` itself answers none of the runtime's calls: each refuses, so a runtime that forgot one fails
    loudly instead of reading "no hook, nothing tripped"."""
    with pytest.raises(NotImplementedError):
        await call(bare())


async def test_held_starts_without_a_sink_and_lets_everything_through_once_released() -> None:
    """A fresh `Held` has no sink and holds what is offered; released, it sends that and answers `False` (send it
    on yourself) for every later event."""
    held = Held()
    assert held.send is None and held.passed is False
    sent: list[AgentEvent] = []

    async def sink(event: AgentEvent) -> None:
        sent.append(event)

    held.send = sink
    assert held.offer(TokenDelta("a")) is True
    await held.release()
    assert sent == [TokenDelta("a")]
    assert held.offer(TokenDelta("b")) is False
    assert sent == [TokenDelta("a")]


def test_with_no_injections_the_request_is_the_same_object() -> None:
    """`with_injections` with nothing to add hands the request back itself (no copy); with texts, a new one
    ending in them as system messages."""
    request = ModelRequest(instructions=None, items=Conversation((UserMessage("hi"),)))
    assert with_injections(request, ()) is request
    assert tuple(with_injections(request, ("x",)).items) == (UserMessage("hi"), SystemMessage("x"))
