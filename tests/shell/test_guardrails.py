"""Guardrails run concurrently, the first tripwire cancels the rest, a raising guardrail trips as "other"."""

from __future__ import annotations

import trio
import trio.testing

from helikon_fc import RunContext
from helikon_fc.core import (
    AssistantMessage,
    GuardrailTriggered,
    GuardrailTripped,
    Item,
    RunFailed,
    SystemMessage,
    UserMessage,
    from_json,
    to_json,
)
from helikon_fc.core.events import AgentEvent
from helikon_fc.shell.control.guardrails import (
    Guardrail,
    GuardrailVerdict,
    Pass,
    Tripped,
    Tripwire,
    input_text,
    run_guardrails,
    run_input_guardrails,
    run_output_guardrails,
)

CTX: RunContext[None] = RunContext.ephemeral(None)


def after(seconds: float, verdict: GuardrailVerdict, log: list[str], name: str) -> Guardrail[None]:
    async def check(ctx: RunContext[None], text: str) -> GuardrailVerdict:
        await trio.sleep(seconds)
        log.append(name)
        return verdict

    return Guardrail(name, check)


async def test_guardrails_run_concurrently(autojump_clock: trio.testing.MockClock) -> None:
    """Beyond the original (one by one): three 1-second guardrails that pass take 1 second, not 3."""
    log: list[str] = []
    guardrails = [after(1, Pass(), log, name) for name in ("a", "b", "c")]
    assert await run_guardrails(guardrails, CTX, "hello") is None
    assert trio.current_time() == 1 and sorted(log) == ["a", "b", "c"]


async def test_the_first_tripwire_cancels_the_rest(autojump_clock: trio.testing.MockClock) -> None:
    """The earliest tripwire wins and the slower guardrails are cancelled, never finishing."""
    log: list[str] = []
    guardrails = [
        after(5, Pass(), log, "slow"),
        after(2, Tripwire("input_policy", {"reason": "off topic"}), log, "topic"),
        after(3, Tripwire("pii", None), log, "pii"),
    ]
    tripped = await run_guardrails(guardrails, CTX, "hello")
    assert tripped == Tripped("topic", Tripwire("input_policy", {"reason": "off topic"}))
    assert trio.current_time() == 2 and log == ["topic"]


async def test_a_raising_guardrail_is_a_tripwire_of_kind_other(autojump_clock: trio.testing.MockClock) -> None:
    """Rule: "guardrail error => tripwire kind Other"; the info names the guardrail and the error."""

    async def broken(ctx: RunContext[None], text: str) -> GuardrailVerdict:
        raise ValueError("moderation service down")

    tripped = await run_guardrails([Guardrail("moderation", broken)], CTX, "x")
    assert tripped == Tripped(
        "moderation", Tripwire("other", {"guardrail": "moderation", "reason": "ValueError: moderation service down"})
    )


async def test_a_guardrail_returning_nonsense_trips() -> None:
    """A check that answers neither Pass nor Tripwire stops the run rather than letting it through."""

    async def sloppy(ctx: RunContext[None], text: str) -> GuardrailVerdict:
        return True  # type: ignore[return-value]

    tripped = await run_guardrails([Guardrail("sloppy", sloppy)], CTX, "x")
    assert tripped is not None and tripped.tripwire.kind == "other"


async def test_no_guardrails_pass() -> None:
    """An empty list passes."""
    assert await run_guardrails([], CTX, "x") is None


async def test_input_guardrails_read_the_user_text_concatenated() -> None:
    """Rule: input guardrails run "on the concatenation (no separator) of all Text parts of all UserMessage items"."""
    seen: list[str] = []

    async def record(ctx: RunContext[None], text: str) -> GuardrailVerdict:
        seen.append(text)
        return Pass()

    items: list[Item] = [
        SystemMessage("sys"),
        UserMessage("Hello, "),
        AssistantMessage("Hi!"),
        UserMessage("transfer $5k"),
    ]
    assert input_text(items) == "Hello, transfer $5k"
    assert await run_input_guardrails([Guardrail("r", record)], CTX, items) is None
    assert await run_output_guardrails([Guardrail("r", record)], CTX, "final answer") is None
    assert seen == ["Hello, transfer $5k", "final answer"]


async def test_a_trip_ends_the_run_with_two_events_that_round_trip() -> None:
    """Rule: "Trip -> GuardrailTriggered, RunFailed"; both are wire values."""
    tripped = Tripped("topic", Tripwire("input_policy", {"score": 0.9}))
    assert tripped.events == (
        GuardrailTriggered("input_policy", {"score": 0.9}),
        RunFailed(GuardrailTripped("input_policy", {"score": 0.9})),
    )
    for event in tripped.events:
        read: AgentEvent = from_json(AgentEvent, to_json(event))
        assert read == event


async def test_cancelling_the_caller_cancels_every_guardrail(autojump_clock: trio.testing.MockClock) -> None:
    """A run cancelled while its guardrails run leaves no guardrail task behind."""
    log: list[str] = []
    with trio.move_on_after(1) as scope:
        await run_guardrails([after(5, Pass(), log, "a"), after(6, Pass(), log, "b")], CTX, "x")
    assert scope.cancelled_caught and log == [] and trio.current_time() == 1
