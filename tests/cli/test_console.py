"""`helikon_fc.console`: the live view of ``helikon run`` for any program; `run_to_completion`: a run in one call."""

from __future__ import annotations

import io

import pytest
import trio

import helikon_fc
from helikon_fc import LlmAgent, RunConfig, RunContext, RunError, Runner, run_to_completion
from helikon_fc.cli.render import EventRenderer
from helikon_fc.console import event_printer, print_events
from helikon_fc.core import AgentEvent, MaxTurnsExceeded
from helikon_fc.testing import ScriptedModel, call, call_tools, fail, reply


def _agent() -> LlmAgent[None]:
    return LlmAgent(name="budget", model=ScriptedModel([reply("You spent $212 on dining.")]))


def test_the_console_names_are_public_where_they_are_documented() -> None:
    """`print_events` and `event_printer` say they belong to `helikon_fc.console`; `run_to_completion` is exported
    from the top."""
    assert print_events.__module__ == event_printer.__module__ == "helikon_fc.console"
    assert helikon_fc.run_to_completion is run_to_completion


async def test_print_events_prints_the_live_view_and_returns_the_result() -> None:
    """`print_events(agent.run(ctx, input))` prints what ``helikon run`` prints for the same events (colour off
    when not a terminal) and returns the run's `RunResult`."""
    out = io.StringIO()
    result = await print_events(_agent().run(RunContext.ephemeral(None), "How much on dining?"), out=out)
    assert result.final_output == "You spent $212 on dining."
    expected = io.StringIO()
    renderer = EventRenderer(expected)
    for event in result.events:
        renderer.render(event)
    shown = out.getvalue().splitlines()
    assert shown[:-1] == expected.getvalue().splitlines()[:-1]
    assert shown[-1].startswith("  done in ") and shown[-1].endswith(
        " - usage: 10 input + 5 output tokens, 1 model request"
    )
    assert "\x1b[" not in out.getvalue()


async def test_print_events_raises_the_failure_after_printing_it() -> None:
    """A failed run is printed as failed, then raised as `RunError`, as `collect()` raises it."""
    out = io.StringIO()
    broken = LlmAgent(name="broken", model=ScriptedModel([fail("the model is down")]))
    with pytest.raises(RunError):
        await print_events(broken.run(RunContext.ephemeral(None), "hi"), out=out, color=False)
    assert "  failed in " in out.getvalue()


async def test_run_to_completion_runs_on_a_string_in_one_call() -> None:
    """``await run_to_completion(agent, "...")`` needs no context and no stream: it returns the result."""
    result = await run_to_completion(_agent(), "How much on dining?")
    assert result.final_output == "You spent $212 on dining." and result.usage.requests == 1


async def test_run_to_completion_goes_through_a_runner_and_reports_each_event() -> None:
    """With a `runner` its config bounds the run; `on_event` sees every event as it arrives."""
    looping = LlmAgent(name="loop", model=ScriptedModel([call_tools(call("nothing"))] * 3))
    seen: list[AgentEvent] = []
    with pytest.raises(RunError) as info:
        await run_to_completion(looping, "go", runner=Runner(RunConfig(max_turns=1)), on_event=seen.append)
    assert info.value.error == MaxTurnsExceeded(1)
    assert seen and seen == list(info.value.events)


def test_run_to_completion_refuses_other_input_naming_it() -> None:
    """Input that is neither a string nor an `AgentInput` is a `TypeError` naming the function and argument."""
    with pytest.raises(TypeError, match=r"^run_to_completion: input must be an AgentInput or a str, got 3 \(int\)"):
        trio.run(run_to_completion, _agent(), 3)  # type: ignore[arg-type]
