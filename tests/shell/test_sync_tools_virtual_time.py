"""Sync tools under virtual time run inline, so the mock clock cannot race past deadlines while they work."""

from __future__ import annotations

import time

from helikon_fc import LlmAgent, RunConfig, function_tool
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate


@function_tool
def slow_lookup(account: str) -> str:
    """Look up an account the slow, blocking way.

    Args:
        account: the account's name.
    """
    time.sleep(0.05)  # real time: a blocking call, as sync tools make
    return f"{account}: 120.00"


def test_a_blocking_sync_tool_does_not_time_out_a_simulated_run() -> None:
    """A sync tool that blocks for real is not mistaken for a run waiting until its timeout in virtual time."""
    agent = LlmAgent(
        name="bookkeeper",
        model=ScriptedModel([call_tools(call("slow_lookup", account="savings")), reply("Savings hold 120.00.")]),
        tools=[slow_lookup],
    )
    sim = simulate(agent, "How much is in savings?", config=RunConfig(timeout=100))
    assert sim.error is None, sim.error
    assert sim.result is not None and sim.result.final_output == "Savings hold 120.00."
    assert sim.elapsed == 0.0
