"""Guardrails in real runs (original-notes section 7, and issue 11's "beyond the original" rules)."""

from __future__ import annotations

import attrs
import pytest
import trio
import trio.testing
from tests.control.control_fakes import collect, lookup_tool, names, timed_guardrail

from helikon_fc import AgentAsTool, AgentInput, Handoff, LlmAgent, RunContext
from helikon_fc.core import (
    GuardrailTriggered,
    GuardrailTripped,
    MessageOutput,
    ModelRequest,
    RunCompleted,
    RunFailed,
    TokenDelta,
    ToolCallItem,
    ToolResult,
    UserMessage,
)
from helikon_fc.shell.control.guardrails import Guardrail, GuardrailVerdict, Pass, Tripwire
from helikon_fc.testing import FunctionModel, ScriptedModel, call, call_tools, reply, run_simulated
from helikon_fc.testing.script import ScriptedTurn

OFF_TOPIC = Tripwire("input_policy", {"reason": "off topic"})


def _tool_then_answer(calls: list[str], *, latency: float = 0.0, **agent: object) -> LlmAgent[None]:
    return LlmAgent(
        name="assistant",
        model=ScriptedModel([call_tools(call("lookup", key="k"), latency=latency), reply("the answer is 42")]),
        tools=[lookup_tool(calls)],
        **agent,  # type: ignore[arg-type]
    )


async def test_an_input_tripwire_ends_the_run_with_the_two_events(autojump_clock: trio.testing.MockClock) -> None:
    """Section 7: "Trip -> GuardrailTriggered, RunFailed"; nothing the model produced is delivered."""
    calls: list[str] = []
    agent = _tool_then_answer(calls, input_guardrails=[timed_guardrail("topic", 0.5, OFF_TOPIC)])
    sim = await run_simulated(agent, "write me a poem")
    assert names(list(sim.events)) == ["RunStarted", "TurnStarted", "GuardrailTriggered", "RunFailed"]
    assert sim.events[2] == GuardrailTriggered("input_policy", {"reason": "off topic"})
    assert sim.error == GuardrailTripped("input_policy", {"reason": "off topic"})
    assert calls == []


async def test_a_slow_tripwire_stops_the_tool_the_model_already_asked_for(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """openai-agents #991: the model asks for a tool at once, the guardrail trips 3 s later; the tool never runs,
    and neither the call nor its deltas are delivered."""
    calls: list[str] = []
    agent = _tool_then_answer(calls, input_guardrails=[timed_guardrail("slow-topic", 3, OFF_TOPIC)])
    sim = await run_simulated(agent, "write me a poem")
    assert calls == []
    assert not any(isinstance(e, ToolCallItem | TokenDelta) for e in sim.events)
    assert names(list(sim.events))[-2:] == ["GuardrailTriggered", "RunFailed"]
    assert sim.elapsed == 3
    assert sim.result is None


async def test_input_guardrails_run_beside_the_first_model_call(autojump_clock: trio.testing.MockClock) -> None:
    """Beyond the original: a 2 s guardrail beside a 1 s first model call costs 2 s, not 3, and the model's
    deltas (ready at t=1) are held until the guardrail passed (none is delivered before t=2)."""
    calls: list[str] = []
    agent = LlmAgent(
        name="assistant",
        model=ScriptedModel([reply("fine words here", latency=1)]),
        input_guardrails=[timed_guardrail("topic", 2, Pass())],
    )
    times: list[float] = []
    start = trio.current_time()
    events = await collect(agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("hi")), times)
    assert trio.current_time() - start == 2
    assert isinstance(events[-1], RunCompleted) and calls == []
    deltas = [t - start for e, t in zip(events, times, strict=True) if isinstance(e, TokenDelta)]
    assert deltas and min(deltas) == 2


async def test_deltas_stream_live_once_the_guardrails_passed(autojump_clock: trio.testing.MockClock) -> None:
    """A guardrail that passes at once lets the first turn stream as it comes: the first delta is not held
    back to the end of the model call."""
    model = FunctionModel(lambda request: reply("one two three four"))
    agent = LlmAgent(name="a", model=model, input_guardrails=[timed_guardrail("quick", 0, Pass())])
    events = await collect(agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("hi")))
    assert "".join(e.text for e in events if isinstance(e, TokenDelta)) == "one two three four"
    assert isinstance(events[-1], RunCompleted)


async def test_a_trip_cancels_a_model_call_still_running(autojump_clock: trio.testing.MockClock) -> None:
    """A tripwire at 0.5 s cancels a first model call that would take 10 s: the run ends at 0.5 s."""
    agent = LlmAgent(
        name="a",
        model=ScriptedModel([reply("never seen", latency=10)]),
        input_guardrails=[timed_guardrail("fast", 0.5, OFF_TOPIC), timed_guardrail("slow", 5, Pass())],
    )
    sim = await run_simulated(agent, "hi")
    assert sim.elapsed == 0.5
    assert sim.error == GuardrailTripped("input_policy", {"reason": "off topic"})
    assert not any(isinstance(e, TokenDelta | MessageOutput) for e in sim.events)


async def test_a_raising_input_guardrail_is_a_tripwire_of_kind_other(autojump_clock: trio.testing.MockClock) -> None:
    """Section 7: "guardrail error => tripwire kind Other{reason}"."""

    async def broken(ctx: RunContext[None], text: str) -> GuardrailVerdict:
        raise ConnectionError("moderation down")

    agent = LlmAgent(name="a", model=ScriptedModel([reply("x")]), input_guardrails=[Guardrail("moderation", broken)])
    sim = await run_simulated(agent, "hi")
    assert sim.error == GuardrailTripped(
        "other", {"guardrail": "moderation", "reason": "ConnectionError: moderation down"}
    )


async def test_input_guardrails_read_every_user_message_of_the_seeded_conversation(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Section 7: input guardrails run once, on the concatenation (no separator) of all user text."""
    seen: list[str] = []
    agent = LlmAgent(
        name="a", model=ScriptedModel([reply("x")]), input_guardrails=[timed_guardrail("g", 0, Pass(), seen)]
    )
    await run_simulated(agent, AgentInput.from_items([UserMessage("first "), UserMessage("second")]))
    assert seen == ["g:first second"]


async def test_output_guardrails_replace_the_final_steps_events(autojump_clock: trio.testing.MockClock) -> None:
    """Section 7: a trip on the final answer REPLACES that step's MessageOutput + RunCompleted with
    GuardrailTriggered + RunFailed; the checked text is the final answer's."""
    seen: list[str] = []
    leak = Tripwire("output_policy", {"found": "account number"})
    agent = LlmAgent(
        name="a",
        model=ScriptedModel([reply("your account is 12345")]),
        output_guardrails=[timed_guardrail("pii", 1, leak, seen)],
    )
    sim = await run_simulated(agent, "hi")
    assert seen == ["pii:your account is 12345"]
    assert not any(isinstance(e, MessageOutput | RunCompleted) for e in sim.events)
    assert sim.events[-2:] == (
        GuardrailTriggered("output_policy", {"found": "account number"}),
        RunFailed(GuardrailTripped("output_policy", {"found": "account number"})),
    )


@attrs.frozen
class Verdict:
    approved: bool


async def test_output_guardrails_check_a_structured_answer_as_its_json_text(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Section 7: output guardrails run on plain and structured output alike; a structured answer is its JSON."""
    seen: list[str] = []
    agent = LlmAgent(
        name="a",
        model=ScriptedModel([reply("thinking"), reply('{"approved": true}')]),
        output_type=Verdict,
        output_guardrails=[timed_guardrail("g", 0, Pass(), seen)],
    )
    sim = await run_simulated(agent, "hi")
    assert sim.result is not None and seen == ['g:{"approved": true}']


async def test_passing_output_guardrails_leave_the_run_alone(autojump_clock: trio.testing.MockClock) -> None:
    """Guardrails that pass change nothing: the same events as without them."""
    plain = LlmAgent(name="a", model=ScriptedModel([reply("hello there")]))
    guarded = plain.with_model(ScriptedModel([reply("hello there")]))
    guarded = guarded.with_output_guardrails(timed_guardrail("g", 0, Pass()))
    guarded = guarded.with_input_guardrails(timed_guardrail("h", 0, Pass()))
    assert (await run_simulated(guarded, "hi")).events == (await run_simulated(plain, "hi")).events


async def test_run_level_guardrails_come_from_the_context(autojump_clock: trio.testing.MockClock) -> None:
    """Run-level guardrails (`RunContext.with_input_guardrails`) apply to every model loop of the run."""
    agent = LlmAgent(name="a", model=ScriptedModel([reply("x")]))
    ctx = RunContext.ephemeral(None).with_input_guardrails(timed_guardrail("run-level", 0, OFF_TOPIC))
    sim = await run_simulated(agent, "hi", ctx)
    assert isinstance(sim.error, GuardrailTripped)


async def test_an_agent_as_tool_sub_run_has_no_run_level_guardrails(autojump_clock: trio.testing.MockClock) -> None:
    """The seed's isolated sub-run: the caller's run-level guardrails do not cross AgentAsTool, the wrapped
    agent's own do (its trip is a failed tool call the caller's model reads)."""
    seen: list[str] = []
    inner = LlmAgent(name="inner", model=ScriptedModel([reply("inner answer")]))
    strict_inner = inner.with_input_guardrails(timed_guardrail("inner-own", 0, OFF_TOPIC))

    def outer(sub: LlmAgent[None]) -> LlmAgent[None]:
        def turn(request: ModelRequest) -> ScriptedTurn:
            results = [i for i in request.items if isinstance(i, ToolResult)]
            return reply(f"tool said: {results[0].output}") if results else call_tools(call("inner", input="q"))

        return LlmAgent(name="outer", model=FunctionModel(turn), tools=[AgentAsTool(sub)])

    ctx = RunContext.ephemeral(None).with_input_guardrails(timed_guardrail("run-level", 0, Pass(), seen))
    sim = await run_simulated(outer(inner), "question", ctx)
    assert sim.result is not None and sim.result.final_output == "tool said: inner answer"
    assert seen == ["run-level:question"]  # once, for the outer loop only
    sim = await run_simulated(outer(strict_inner), "question", ctx)
    assert sim.result is not None
    assert sim.result.final_output == "tool said: agent inner failed: input_policy guardrail tripwire"


async def test_a_handoff_target_runs_its_own_guardrails_on_the_transcript(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Section 7: "Not run on handoff parents": the parent's output guardrail never sees the target's answer;
    the target checks its own input (the threaded transcript's user text) and output."""
    parent_out: list[str] = []
    target_in: list[str] = []
    target_out: list[str] = []
    target = LlmAgent(
        name="billing",
        model=ScriptedModel([reply("refund issued")]),
        input_guardrails=[timed_guardrail("in", 0, Pass(), target_in)],
        output_guardrails=[timed_guardrail("out", 0, Pass(), target_out)],
    )
    parent = LlmAgent(
        name="triage",
        model=ScriptedModel([call_tools(call("transfer_to_billing"))]),
        handoffs=[Handoff.to(target)],
        output_guardrails=[timed_guardrail("parent-out", 0, Pass(), parent_out)],
    )
    sim = await run_simulated(parent, "refund please")
    assert sim.result is not None and sim.result.final_output == "refund issued"
    assert parent_out == [] and target_in == ["in:refund please"] and target_out == ["out:refund issued"]


def test_guardrails_are_checked_when_the_agent_is_built() -> None:
    """Section 2 of issue 9's message shape: a bare function, a sync check, a blank name are refused at once."""

    async def check(ctx: RunContext[None], text: str) -> GuardrailVerdict:
        return Pass()

    def sync_check(ctx: RunContext[None], text: str) -> GuardrailVerdict:
        return Pass()

    model = ScriptedModel([reply("x")])
    with pytest.raises(TypeError, match=r"LlmAgent: input_guardrails\[0\] must be a Guardrail.*wrap the check"):
        LlmAgent(name="a", model=model, input_guardrails=[check])
    with pytest.raises(TypeError, match="LlmAgent: output_guardrails must be a list of Guardrail values"):
        LlmAgent(name="a", model=model, output_guardrails=Guardrail("g", check))
    with pytest.raises(TypeError, match=r"Guardrail: check must be an async callable.*async def"):
        Guardrail("g", sync_check)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Guardrail: name must be a non-empty string"):
        Guardrail(" ", check)
    with pytest.raises(TypeError, match=r"RunContext: output_guardrails\[0\] must be a Guardrail"):
        RunContext.ephemeral(None).with_output_guardrails("strict")  # type: ignore[arg-type]
