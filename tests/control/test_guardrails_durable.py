"""Guardrails in recorded runs (`Runner(store=...)`): a trip is recorded as the run's end and replays as it was
delivered; a run that passed its input guardrails does not check them again when it resumes."""

from __future__ import annotations

import trio
import trio.testing
from tests.control.control_fakes import collect, lookup_tool, timed_guardrail

from helikon_fc import AgentInput, LlmAgent, RunContext, Runner
from helikon_fc.core import GuardrailTriggered, GuardrailTripped, RunCompleted, RunFailed
from helikon_fc.shell.control.guardrails import Pass, Tripwire
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


def _agent(calls: list[str], checked: list[str], verdict: Pass | Tripwire, seconds: float = 1) -> LlmAgent[None]:
    return LlmAgent(
        name="worker",
        model=ScriptedModel([call_tools(call("lookup", key="k")), reply("finished")]),
        tools=[lookup_tool(calls)],
        input_guardrails=[timed_guardrail("g", seconds, verdict, checked)],
    )


async def test_a_tripped_run_is_recorded_failed_and_replays_what_was_delivered(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The trip is the recorded terminal; resuming gives it back without checking or calling again, and
    ``replay=True`` delivers exactly what the live run delivered (not the held deltas or the tool call)."""
    store = MemoryStore()
    calls: list[str] = []
    checked: list[str] = []
    trip = Tripwire("input_policy", {"why": "no"})
    live = await collect(
        Runner(store=store).run(
            _agent(calls, checked, trip), RunContext.ephemeral(None), AgentInput.from_user_text("x"), run_id="r"
        )
    )
    assert live[-2:] == [
        GuardrailTriggered("input_policy", {"why": "no"}),
        RunFailed(GuardrailTripped("input_policy", {"why": "no"})),
    ]
    assert (await store.run_summary("r")).status == "failed"
    again = await collect(Runner(store=store).resume("r", _agent(calls, checked, trip), RunContext.ephemeral(None)))
    assert again[-1] == live[-1] and checked == ["g:x"] and calls == []
    replayed = await collect(
        Runner(store=store).resume("r", _agent(calls, checked, trip), RunContext.ephemeral(None), replay=True)
    )
    assert replayed == live


async def test_a_resumed_run_does_not_check_its_input_again_once_it_passed(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A crash after the first model answer was recorded (the gate had passed): the resumed run goes on with the
    tool round and never runs its input guardrails again."""
    store = MemoryStore()
    calls: list[str] = []
    checked: list[str] = []

    with trio.move_on_after(1.5):  # the gate passes at 1 s, the tool runs at once; the run is stopped dead
        agent = _agent(calls, checked, Pass())
        stream = Runner(store=store).run(agent, RunContext.ephemeral(None), AgentInput.from_user_text("x"), run_id="r")
        async with stream as events:
            async for event in events:
                if type(event).__name__ == "ToolOutputItem":
                    await trio.sleep_forever()
    assert checked == ["g:x"] and calls == ["k"]
    resumed = await collect(Runner(store=store).resume("r", _agent(calls, checked, Pass()), RunContext.ephemeral(None)))
    assert isinstance(resumed[-1], RunCompleted) and resumed[-1].usage.requests == 2
    assert checked == ["g:x"] and calls == ["k"]
