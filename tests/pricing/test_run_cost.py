"""`RunResult.cost`: the price of whole runs, by the model that answered and by agent across nested runs."""

from __future__ import annotations

from decimal import Decimal

from tests.compaction.fakes import config, summariser, worker

from helikon_fc import AgentAsTool, Handoff, LlmAgent, Usage
from helikon_fc.core import ModelFailureKind, ModelShare, RunCompleted
from helikon_fc.models import FallbackModel
from helikon_fc.pricing import Price, Prices
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput
from helikon_fc.shell.loop.runner import Runner
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import ScriptedModel, call, call_tools, fail, reply, simulate

ONE = Usage(input_tokens=1_000_000, output_tokens=1_000_000, requests=1)
PRICES = Prices({"primary": Price(input="100", output="100"), "backup": Price(input="1", output="2")})


def test_a_fallback_answer_is_priced_at_the_answering_models_rates() -> None:
    """The primary fails, the backup answers: its tokens count under ``backup`` and cost its rates."""
    primary = ScriptedModel([fail(ModelFailureKind.UNAVAILABLE)], name="primary")
    backup = ScriptedModel([reply("hi", usage=Usage(input_tokens=1_000_000, output_tokens=1_000_000))], name="backup")
    agent = LlmAgent(name="solo", model=FallbackModel(primary, backup))
    sim = simulate(agent, "go")
    assert sim.result is not None, sim.error
    assert sim.result.events[-1].usage_by_model == (ModelShare("solo", "backup", ONE),)  # type: ignore[union-attr]
    cost = sim.result.cost_with(PRICES)
    assert (cost.total, cost.unpriced) == (Decimal(3), ())


def test_the_model_asked_answers_under_its_own_name() -> None:
    """Without a fallback the calls count under the agent's model's name (``scripted``: no price by default)."""
    sim = simulate(LlmAgent(name="solo", model=ScriptedModel([reply("hi")])), "go")
    assert sim.result is not None, sim.error
    assert sim.result.cost.unpriced == ("scripted",)
    assert sim.result.cost.total is None


def test_nested_runs_are_priced_by_agent() -> None:
    """A handoff target and an agent-as-tool sub-run each cost their own model's rates, under their own names."""
    helper = LlmAgent(name="helper", model=ScriptedModel([reply("42", usage=Usage(input_tokens=1_000_000))], name="b"))
    billing = LlmAgent(
        name="billing",
        model=ScriptedModel(
            [
                call_tools(call("helper", input="sum?"), usage=Usage(output_tokens=1_000_000)),
                reply("paid", usage=Usage()),
            ],
            name="b",
        ),
        tools=[AgentAsTool[None](helper)],
    )
    triage = LlmAgent(
        name="triage",
        model=ScriptedModel([call_tools(call("transfer_to_billing"), usage=Usage(input_tokens=500_000))], name="a"),
        handoffs=[Handoff.to(billing)],
    )
    sim = simulate(triage, "help")
    assert sim.result is not None, sim.error
    cost = sim.result.cost_with(Prices({"a": Price(input="2", output="2"), "b": Price(input="1", output="3")}))
    assert [(agent.agent, agent.cost) for agent in cost.by_agent] == [
        ("billing", Decimal(3)),
        ("helper", Decimal(1)),
        ("triage", Decimal(1)),
    ]
    assert cost.total == Decimal(5)
    assert [(agent.agent, [part.model for part in agent.models]) for agent in cost.by_agent] == [
        ("billing", ["b"]),
        ("helper", ["b"]),
        ("triage", ["a"]),
    ]


def test_a_run_that_paused_or_has_no_usage_costs_nothing_priced() -> None:
    """`cost` of a result whose last event is not `RunCompleted` splits nothing: a total of 0, nothing unpriced."""
    sim = simulate(LlmAgent(name="solo", model=ScriptedModel([reply("hi")])), "go")
    assert sim.result is not None, sim.error
    paused = type(sim.result)(final_output="", events=(), usage=Usage())
    assert (paused.cost_with(PRICES).total, paused.cost_with(PRICES).unpriced) == (Decimal(0), ())


async def test_a_summary_models_calls_count_under_its_own_name_live_and_resumed() -> None:
    """Compaction summaries count under the summary model, in the live run and in its replay from the records."""
    store = MemoryStore()
    summary_model = summariser()
    agent, _ = worker(max_tokens=200, summariser=summary_model)
    runner = Runner(config(200, summary_model), store=store)
    async with runner.run(agent, RunContext.ephemeral(None), AgentInput.from_user_text("go"), run_id="r") as stream:
        live = [event async for event in stream]
    completed = live[-1]
    assert isinstance(completed, RunCompleted)
    assert [(share.model, share.usage.requests) for share in completed.usage_by_model] == [
        ("summariser", len(summary_model.requests)),
        ("worker-model", completed.usage.requests - len(summary_model.requests)),
    ]
    async with runner.resume("r", agent, RunContext.ephemeral(None), replay=True) as stream:
        resumed = [event async for event in stream]
    assert resumed[-1] == completed
