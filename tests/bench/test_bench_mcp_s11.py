"""`python -m bench.mcp_s11`: a tool round of MCP calls timed through an agent and on a raw session, and summarised."""

from __future__ import annotations

from bench.mcp_s11 import TARGET_RATIO, measure, summary


async def test_each_way_runs_its_round_and_gets_timed() -> None:
    """One measured round per way (after the warm-up), and one agent run that opens the server itself."""
    timings = await measure(1, 1)
    assert {name: len(values) for name, values in timings.items()} == {
        "raw ClientSession": 1,
        "agent": 1,
        "agent, server opened per run": 1,
    }
    assert all(value > 0 for values in timings.values() for value in values)


def test_the_summary_gives_the_ratio_of_medians_and_the_cost_of_opening_per_run() -> None:
    """The ratio is agent over raw, judged against the target; opening per run costs its median over the kept one."""
    figures = summary(
        {"raw ClientSession": [10.0, 12.0, 11.0], "agent": [13.0, 12.0, 12.5], "agent, server opened per run": [500.0]}
    )
    assert figures["median_ms"] == {"raw ClientSession": 11.0, "agent": 12.5, "agent, server opened per run": 500.0}
    assert figures["ratio_agent_to_raw"] == round(12.5 / 11.0, 3) and figures["target_ratio"] == TARGET_RATIO
    assert figures["within_target"] is (12.5 / 11.0 <= TARGET_RATIO)
    assert figures["opening_per_run_costs_ms"] == 487.5
    assert figures["median_ratio_of_pairs"] == round(12.5 / 11.0, 3)  # 1.3, 1.0, 1.136...: the middle one
    assert figures["fastest_ms"] == {"raw ClientSession": 10.0, "agent": 12.0, "agent, server opened per run": 500.0}
