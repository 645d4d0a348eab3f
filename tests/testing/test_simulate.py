"""`simulate` and `run_simulated`: whole agent runs on fake models, in virtual time, the same every run."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from helikon_fc import (
    AgentInput,
    LlmAgent,
    ModelError,
    ModelFailed,
    ModelFailureKind,
    RunCompleted,
    RunConfig,
    RunContext,
    RunFailed,
    RunStarted,
    TimedOut,
    TokenDelta,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    Usage,
    function_tool,
)
from helikon_fc.core import ModelTextDelta
from helikon_fc.testing import ScriptedModel, Simulation, broken, call, call_tools, fail, reply, run_simulated, simulate


@function_tool
async def add(a: int, b: int) -> int:
    """Add two numbers after thinking for a second.

    Args:
        a: the first number.
        b: the second number.
    """
    await trio.sleep(1)
    return a + b


def adder(model: ScriptedModel) -> LlmAgent[None]:
    return LlmAgent(name="adder", model=model, instructions="Add numbers with the add tool.", tools=[add])


def test_a_reply_runs_to_completion_with_streamed_tokens() -> None:
    """A one-turn script gives RunStarted, several TokenDeltas, the message and RunCompleted, in virtual time."""
    agent: LlmAgent[None] = LlmAgent(name="greeter", model=ScriptedModel([reply("Hello there, Ada.", latency=1.5)]))
    sim = simulate(agent, "hi")
    assert sim.error is None
    assert sim.result is not None
    assert sim.result.final_output == "Hello there, Ada."
    assert sim.events[0] == RunStarted("greeter")
    assert [e.text for e in sim.events if isinstance(e, TokenDelta)] == ["Hello", " there,", " Ada."]
    assert isinstance(sim.events[-1], RunCompleted)
    assert sim.result.usage == Usage(input_tokens=10, output_tokens=5, requests=1)
    assert sim.elapsed == 1.5


def test_a_tool_using_agent_runs_its_tool_and_answers() -> None:
    """The scripted call reaches the tool; its result reaches the next request; tool time is virtual."""
    model = ScriptedModel([call_tools(call("add", a=2, b=3), latency=0.5), reply("2 + 3 = 5", latency=0.5)])
    sim = simulate(adder(model), "What is 2 + 3?")
    assert sim.result is not None and sim.result.final_output == "2 + 3 = 5"
    calls = [e.item for e in sim.events if isinstance(e, ToolCallItem)]
    outputs = [e.item for e in sim.events if isinstance(e, ToolOutputItem)]
    assert [(c.call_id, c.name, c.arguments) for c in calls] == [("call_0_0", "add", '{"a":2,"b":3}')]
    assert outputs == [ToolResult("call_0_0", "5")]
    assert len(model.requests) == 2
    assert ToolResult("call_0_0", "5") in list(model.requests[1].items)
    assert model.requests[0].instructions == "Add numbers with the add tool."
    assert sim.elapsed == 2.0
    assert sim.result.usage == Usage(input_tokens=20, output_tokens=10, requests=2)


def test_tool_calls_of_one_turn_overlap_in_virtual_time() -> None:
    """Three one-second tool calls in one turn take one virtual second together."""
    turn = call_tools(call("add", a=1, b=1), call("add", a=2, b=2), call("add", a=3, b=3))
    model = ScriptedModel([turn, reply("ok")])
    sim = simulate(adder(model), "sums")
    assert sim.error is None
    assert [e.item.output for e in sim.events if isinstance(e, ToolOutputItem)] == ["2", "4", "6"]
    assert sim.elapsed == 1.0


def test_a_model_failure_ends_the_run_with_model_failed() -> None:
    """`fail` surfaces as `RunFailed(ModelFailed)`, with no result, after the scripted latency."""
    error = ModelError(ModelFailureKind.RATE_LIMITED, "slow down", retry_after=30.0)
    sim = simulate(LlmAgent(name="a", model=ScriptedModel([fail(error, latency=2)])), "hi")
    assert sim.result is None
    assert sim.error == ModelFailed(ModelFailureKind.RATE_LIMITED, "slow down", 30.0)
    assert sim.events[-1] == RunFailed(sim.error)
    assert sim.elapsed == 2.0


def test_a_stream_broken_mid_turn_keeps_the_tokens_seen() -> None:
    """A mid-stream failure ends the run with `ModelFailed`, after the tokens streamed before it."""
    model = ScriptedModel([broken(ModelTextDelta("Your "), ModelTextDelta("budget"))])
    sim = simulate(LlmAgent(name="a", model=model), "hi")
    assert [e.text for e in sim.events if isinstance(e, TokenDelta)] == ["Your ", "budget"]
    assert sim.error == ModelFailed(ModelFailureKind.TRANSPORT, "stream broke mid-turn (transport)")


def test_running_past_the_script_fails_the_run_naming_model_and_turn() -> None:
    """A script one turn short ends the run with a `ModelFailed` that names the model and the missing turn."""
    model = ScriptedModel([call_tools(call("add", a=1, b=2))], name="short")
    sim = simulate(adder(model), "sum")
    assert isinstance(sim.error, ModelFailed)
    assert sim.error.kind is ModelFailureKind.OTHER
    assert "scripted model 'short' has no turn 1: its script has 1 turn" in sim.error.message


def test_same_inputs_give_the_same_simulation_every_run() -> None:
    """Two runs of one scenario give equal events, results, errors and virtual time; a fresh script too."""

    def scenario() -> LlmAgent[None]:
        return adder(
            ScriptedModel(
                [
                    call_tools(call("add", a=2, b=2), call("add", a=3, b=3), text="Adding.", latency=0.25),
                    reply("4 and 6, as you asked.", latency=0.75, reasoning="two sums"),
                ]
            )
        )

    agent = scenario()
    first = simulate(agent, "two sums")
    second = simulate(agent, "two sums")
    third = simulate(scenario(), "two sums")
    assert first == second == third
    assert first.elapsed == 2.0
    assert len(first.events) > 10


def test_config_runs_through_the_runner_and_its_timeout() -> None:
    """With a config, the run goes through `Runner`: a 5 s timeout ends a 10 s model call at 5 s."""
    agent: LlmAgent[None] = LlmAgent(name="slow", model=ScriptedModel([reply("too late", latency=10)]))
    sim = simulate(agent, "hi", config=RunConfig(timeout=5))
    assert sim.error == TimedOut(5)
    assert sim.elapsed == 5.0
    assert sim.result is None


def test_ctx_and_agent_input_are_passed_through() -> None:
    """A given context reaches the agent (here its instructions); an `AgentInput` is used as is."""
    model = ScriptedModel([reply("Hi Ada")])
    agent: LlmAgent[str] = LlmAgent(name="a", model=model, instructions=lambda ctx: f"The user is {ctx.user}.")
    sim = simulate(agent, AgentInput.from_user_text("hello"), RunContext.ephemeral("Ada"))
    assert sim.result is not None
    assert model.requests[0].instructions == "The user is Ada."


def test_simulation_is_frozen() -> None:
    """A `Simulation` cannot be changed."""
    sim = simulate(LlmAgent(name="a", model=ScriptedModel([reply("x")])), "hi")
    with pytest.raises(AttributeError):
        sim.elapsed = 1.0  # type: ignore[misc]
    assert isinstance(sim, Simulation)


async def test_simulate_inside_trio_is_a_clear_error() -> None:
    """`simulate` refuses to nest a trio run and points to `run_simulated`."""
    agent: LlmAgent[None] = LlmAgent(name="a", model=ScriptedModel([reply("x")]))
    with pytest.raises(RuntimeError, match="run_simulated"):
        simulate(agent, "hi")


async def test_run_simulated_in_a_trio_test(autojump_clock: trio.testing.MockClock) -> None:
    """The async twin runs in the test's own trio run and measures virtual time."""
    agent: LlmAgent[None] = LlmAgent(name="a", model=ScriptedModel([reply("later", latency=60)]))
    sim = await run_simulated(agent, "hi")
    assert sim.result is not None and sim.result.final_output == "later"
    assert sim.elapsed == 60.0


async def test_run_simulated_needs_a_mock_clock() -> None:
    """Without a `MockClock`, `run_simulated` says how to get virtual time instead of running in real time."""
    agent: LlmAgent[None] = LlmAgent(name="a", model=ScriptedModel([reply("x")]))
    with pytest.raises(RuntimeError, match="autojump_clock"):
        await run_simulated(agent, "hi")


def test_elapsed_adds_decimal_latencies_exactly() -> None:
    """Latencies of 0.4, 0.2 and 0.6 s give an elapsed of exactly 1.2 (rounded to the nanosecond)."""
    model = ScriptedModel(
        [
            call_tools(call("add", a=1, b=1), latency=0.4),
            call_tools(call("add", a=1, b=1), latency=0.2),
            reply("2", latency=0.6),
        ]
    )
    sim = simulate(adder(model), "sum twice")
    assert sim.error is None
    assert sim.elapsed == 1.2 + 2.0


async def test_two_runs_sharing_one_model_take_turns_in_call_order(autojump_clock: trio.testing.MockClock) -> None:
    """Concurrent runs on one `ScriptedModel` get its turns in the order their requests arrive."""
    model = ScriptedModel([reply("for the first", latency=3), reply("for the second", latency=1)])
    first: LlmAgent[None] = LlmAgent(name="first", model=model)
    second: LlmAgent[None] = LlmAgent(name="second", model=model)
    outputs: dict[str, str] = {}

    async def run(agent: LlmAgent[None]) -> None:
        sim = await run_simulated(agent, "hi")
        assert sim.result is not None
        outputs[agent.name] = sim.result.final_output

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run, first)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(run, second)
    assert outputs == {"first": "for the first", "second": "for the second"}
    assert trio.current_time() == 3
