"""Laws of `ParallelAgent`: what it ends with does not depend on the order its branches finish in."""

from __future__ import annotations

import json

import trio
import trio.testing
from hypothesis import given, settings, strategies as st
from tests.agents.workflow_fakes import FakeAgent, drain

from helikon_fc.agents.parallel import ParallelAgent
from helikon_fc.core import (
    AgentEvent,
    BranchFailure,
    MessageOutput,
    OtherError,
    ParallelFailed,
    RunCompleted,
    RunFailed,
)
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput

KEYS = st.lists(st.text(alphabet="abcdefxyz", min_size=1, max_size=3), min_size=1, max_size=6, unique=True)


def run_parallel(
    keys: list[str], latency: dict[str, float], failing: frozenset[str]
) -> tuple[list[AgentEvent], dict[str, object]]:
    agent = ParallelAgent[None]("fan")
    for key in keys:
        error = OtherError(f"{key} broke") if key in failing else None
        agent = agent.branch(key, FakeAgent(f"agent-{key}", answer=f"out-{key}", latency=latency[key], error=error))

    async def main() -> tuple[list[AgentEvent], dict[str, object]]:
        ctx = RunContext.ephemeral(None)
        events = await drain(agent.run(ctx, AgentInput.from_user_text("go")))
        return events, dict(ctx.state.snapshot())

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[str], dict[str, float], dict[str, float], frozenset[str]]:
    keys = draw(KEYS)
    times = st.integers(min_value=0, max_value=5).map(float)
    first = {key: draw(times) for key in keys}
    second = {key: draw(times) for key in keys}
    failing = draw(st.frozensets(st.sampled_from(keys)))
    return keys, first, second, failing


@settings(deadline=None)
@given(scenario=scenarios())
def test_output_and_aggregate_error_do_not_depend_on_finish_order(
    scenario: tuple[list[str], dict[str, float], dict[str, float], frozenset[str]],
) -> None:
    """For random branch latencies and failures, ParallelAgent ends with the same merged output, or the same
    aggregate error naming exactly the failed branches sorted by key, whatever order the branches finish in."""
    keys, first, second, failing = scenario
    one, state_one = run_parallel(keys, first, failing)
    two, state_two = run_parallel(keys, second, failing)
    assert one[-1] == two[-1]
    assert state_one == state_two == {key: f"out-{key}" for key in keys if key not in failing}
    if failing:
        expected = ParallelFailed(tuple(BranchFailure(k, OtherError(f"{k} broke")) for k in sorted(failing)))
        assert one[-1] == RunFailed(expected)
    else:
        assert isinstance(one[-1], RunCompleted)
        assert one[-2] == two[-2]
        assert isinstance(one[-2], MessageOutput)
        assert one[-2].item.text == json.dumps({k: f"out-{k}" for k in keys}, sort_keys=True, separators=(",", ":"))
