"""Compaction in a run, on the simulator: the summary call, the view the model gets, skips, usage, config checks."""

from __future__ import annotations

import pytest
from tests.compaction.fakes import STEPS, summariser, worker

from helikon_fc import (
    Compaction,
    CompactionSkipped,
    ConversationCompacted,
    LlmAgent,
    RunCompleted,
    RunConfig,
    TokenDelta,
)
from helikon_fc.core import Compacted, ModelFailureKind, SystemMessage, estimate_tokens, last_turn_start
from helikon_fc.testing import FunctionModel, ScriptedModel, fail, reply, simulate


def test_a_long_tool_loop_compacts_and_the_model_sees_the_summary() -> None:
    """Past the budget the run summarises with the compaction's model and the worker sees the summary in place."""
    summary_model = summariser()
    agent, model = worker(max_tokens=200, summariser=summary_model)
    sim = simulate(agent, "do the job")
    assert sim.result is not None and sim.result.final_output == f"finished {STEPS} steps"
    compactions = [event for event in sim.events if isinstance(event, ConversationCompacted)]
    assert len(compactions) >= 2 and len(summary_model.requests) == len(compactions)
    heads = [request.items[0] for request in model.requests]
    summaries = [head.text for head in heads if isinstance(head, SystemMessage)]
    assert summaries and summaries[-1].endswith(compactions[-1].summary)
    for request in model.requests:  # never more than the budget plus one turn
        items = tuple(request.items)
        assert estimate_tokens(items) <= 200 + estimate_tokens(items[last_turn_start(items) :])


def test_a_later_summary_covers_the_earlier_one() -> None:
    """Consecutive compactions chain: the second summary request holds the first summary."""
    summary_model = summariser()
    agent, _ = worker(max_tokens=200, summariser=summary_model)
    sim = simulate(agent, "do the job")
    first = next(event for event in sim.events if isinstance(event, ConversationCompacted))
    second_prompt = summary_model.requests[1].items[-1]
    assert first.summary in getattr(second_prompt, "text", "")
    assert sim.result is not None


def test_the_summary_call_streams_nothing_into_the_run() -> None:
    """The summary's deltas are not part of the answer: only the worker's final answer streams as tokens."""
    agent, _ = worker(max_tokens=200, summariser=summariser())
    sim = simulate(agent, "do the job")
    tokens = "".join(event.text for event in sim.events if isinstance(event, TokenDelta))
    assert tokens == f"finished {STEPS} steps"


def test_without_a_compaction_model_the_agent_summarises() -> None:
    """`Compaction.model=None`: the agent's own model writes the summary."""
    calls: list[str] = []

    def turn(request):  # type: ignore[no-untyped-def]
        if request.instructions and "compress" in request.instructions:
            calls.append("summary")
            return reply("what happened so far")
        from tests.compaction.fakes import worker_turn

        return worker_turn(request)

    agent, _ = worker(max_tokens=200)
    agent = LlmAgent(
        name="worker", model=FunctionModel(turn), tools=agent.definition.tools, run_config=agent.definition.run_config
    )
    sim = simulate(agent, "do the job")
    assert (
        sim.result is not None
        and calls
        and len(calls) == sum(isinstance(event, ConversationCompacted) for event in sim.events)
    )


def test_a_failed_summary_is_skipped_with_a_warning_and_the_run_goes_on() -> None:
    """A failing summary model: `CompactionSkipped` says why, the run still finishes, uncompacted."""
    broken = ScriptedModel([fail(ModelFailureKind.UNAVAILABLE)] * 10)
    agent, model = worker(max_tokens=200, summariser=broken)
    sim = simulate(agent, "do the job")
    assert sim.result is not None and sim.result.final_output == f"finished {STEPS} steps"
    skipped = [event for event in sim.events if isinstance(event, CompactionSkipped)]
    assert skipped and all(event.reason.startswith("the summary call failed: ") for event in skipped)
    assert "unavailable" in skipped[0].reason
    assert not any(isinstance(event, ConversationCompacted) for event in sim.events)
    assert all(not isinstance(request.items[0], SystemMessage) for request in model.requests)


def test_a_blank_summary_is_skipped_too() -> None:
    """A summary with no text is a skip, with its reason."""
    agent, _ = worker(max_tokens=200, summariser=FunctionModel(lambda request: reply("   ")))
    sim = simulate(agent, "do the job")
    reasons = {event.reason for event in sim.events if isinstance(event, CompactionSkipped)}
    assert reasons == {"the summary came back blank"}
    assert sim.result is not None


def test_usage_counts_each_summary_call_once() -> None:
    """The run's requests are the worker's calls plus one per summary."""
    summary_model = summariser()
    agent, model = worker(max_tokens=200, summariser=summary_model)
    sim = simulate(agent, "do the job")
    terminal = sim.events[-1]
    assert isinstance(terminal, RunCompleted)
    assert terminal.usage.requests == len(model.requests) + len(summary_model.requests)


def test_a_run_under_budget_never_compacts() -> None:
    """A big budget: no summary call, no marker, no compaction event."""
    summary_model = summariser()
    agent, _ = worker(max_tokens=100_000, summariser=summary_model)
    sim = simulate(agent, "do the job")
    assert not summary_model.requests
    assert not any(isinstance(event, ConversationCompacted | CompactionSkipped) for event in sim.events)


def test_the_markers_never_reach_the_model() -> None:
    """Every request the worker gets is a view: no `Compacted` item in it."""
    agent, model = worker(max_tokens=200, summariser=summariser())
    simulate(agent, "do the job")
    assert all(not isinstance(item, Compacted) for request in model.requests for item in request.items)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_tokens": "4000"}, TypeError, "Compaction: max_tokens must be an int >= 17, got '4000' (str)"),
        ({"max_tokens": 10}, ValueError, "Compaction: max_tokens must be an int >= 17, got 10 (int)"),
        (
            {"max_tokens": 100, "summary_tokens": 100},
            ValueError,
            "Compaction: summary_tokens must be an int < max_tokens (100), got 100 (int)",
        ),
        ({"max_tokens": 100, "summary_tokens": 8}, ValueError, "Compaction: summary_tokens must be an int >= 16"),
        ({"max_tokens": 100, "instructions": " "}, ValueError, "Compaction: instructions must be a non-empty string"),
        ({"max_tokens": 100, "model": "gpt-5-mini"}, TypeError, "Compaction: model must be a Model"),
    ],
)
def test_bad_compaction_arguments_are_refused_when_built(
    kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    """Each bad argument is refused at construction, named, with what it got and what is allowed."""
    with pytest.raises(error) as info:
        Compaction(**kwargs)  # type: ignore[arg-type]
    assert str(info.value).startswith(message)


def test_run_config_takes_a_compaction_only() -> None:
    """`RunConfig(compaction=...)` refuses anything but a `Compaction`."""
    with pytest.raises(TypeError, match=r"RunConfig: compaction must be a Compaction or None, got 4000 \(int\)"):
        RunConfig(compaction=4000)  # type: ignore[arg-type]
    assert Compaction(max_tokens=4000).summary_tokens == 1000
    assert RunConfig().with_compaction(Compaction(max_tokens=100)).compaction == Compaction(max_tokens=100)
