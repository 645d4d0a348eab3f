"""``python -m bench.mcp_s11 [--quick]``: S11, a tool round of MCP calls through an agent against a raw `ClientSession`.

One MCP server over stdio (`bench.mcp_echo_server`, one read-only ``echo`` tool). Timed in one run,
interleaved round by round so that both share the machine's load:

- ``raw ClientSession``: the SDK's own client, one session kept open, `CALLS_PER_ROUND` ``tools/call``
  requests at once (a trio nursery), each awaited to its result;
- ``agent``: an `LlmAgent` on the simulator's scripted model, its server kept open (``async with
  server:``): one run whose model asks for the same calls in one turn (run at once, as every tool
  round is) and then answers: the run's whole cost, model turns, events and checks included.

The ratio of their medians is S11's figure (target: at most `TARGET_RATIO`); beside it, the median of
the ratios of the rounds taken one after the other (which shared the machine's load of the moment)
and the fastest round of each way. Then the cost of
opening the server for each run (a process and an ``initialize`` per run) against keeping it open
across runs: the median of agent runs that open it themselves. Figures are printed and written to
``bench/results/mcp_s11.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio
from mcp.client.stdio import StdioServerParameters, stdio_client

from helikon_fc import LlmAgent, RunCompleted, RunContext, ToolOutputItem
from helikon_fc.mcp import MCPServerStdio
from helikon_fc.testing import ScriptedModel, call, call_tools, reply
from mcp import ClientSession

RESULTS = Path(__file__).resolve().parent / "results"
CALLS_PER_ROUND = 4
ROUNDS = 300
QUICK_ROUNDS = 30
PER_RUN_OPENS = 20
QUICK_PER_RUN_OPENS = 3
WARMUP = 10
TARGET_RATIO = 1.2
COMMAND = (sys.executable, "-m", "bench.mcp_echo_server")
ROOT = Path(__file__).resolve().parent.parent
"""Where the server runs (``-m bench.mcp_echo_server`` finds the package from there)."""


def server() -> MCPServerStdio:
    """The bench's server as a tool source."""
    return MCPServerStdio(COMMAND[0], list(COMMAND[1:]), cwd=str(ROOT))


def agent(source: MCPServerStdio) -> LlmAgent[None]:
    """One tool round of `CALLS_PER_ROUND` ``echo`` calls, then an answer (a fresh script each run)."""
    calls = [call("echo", text=f"call {i}") for i in range(CALLS_PER_ROUND)]
    return LlmAgent(name="s11", model=ScriptedModel([call_tools(*calls), reply("done")]), tools=[source])


async def agent_round(source: MCPServerStdio) -> float:
    """Seconds one agent run takes (its round's calls checked)."""
    run_agent = agent(source)
    started = time.perf_counter()
    async with run_agent.run(RunContext.ephemeral(None), "go") as events:
        seen = [event async for event in events]
    elapsed = time.perf_counter() - started
    outputs = [event.item.output for event in seen if isinstance(event, ToolOutputItem)]
    assert isinstance(seen[-1], RunCompleted) and len(outputs) == CALLS_PER_ROUND, seen[-1]
    return elapsed


async def raw_round(session: ClientSession) -> float:
    """Seconds `CALLS_PER_ROUND` concurrent calls take on the raw session (their results checked)."""
    texts: list[str] = []

    async def one(i: int) -> None:
        result = await session.call_tool("echo", {"text": f"call {i}"})
        block = result.content[0]
        texts.append(getattr(block, "text", ""))

    started = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for i in range(CALLS_PER_ROUND):
            nursery.start_soon(one, i)
    elapsed = time.perf_counter() - started
    assert sorted(texts) == [f"call {i}" for i in range(CALLS_PER_ROUND)], texts
    return elapsed


async def measure(rounds: int, per_run_opens: int) -> dict[str, list[float]]:
    """Milliseconds of each measured round, by way (the first `WARMUP` rounds dropped)."""
    timings: dict[str, list[float]] = {"raw ClientSession": [], "agent": [], "agent, server opened per run": []}
    parameters = StdioServerParameters(command=COMMAND[0], args=list(COMMAND[1:]), cwd=str(ROOT))
    source = server()
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session, source:
        await session.initialize()
        ways: list[tuple[str, Callable[[], Awaitable[float]]]] = [
            ("raw ClientSession", lambda: raw_round(session)),
            ("agent", lambda: agent_round(source)),
        ]
        for index in range(WARMUP + rounds):
            for name, way in ways if index % 2 == 0 else ways[::-1]:
                seconds = await way()
                if index >= WARMUP:
                    timings[name].append(seconds * 1000)
    for _ in range(per_run_opens):
        timings["agent, server opened per run"].append(await agent_round(server()) * 1000)
    return timings


def summary(timings: dict[str, list[float]]) -> dict[str, Any]:
    """The medians, S11's ratio and the cost of opening the server per run."""
    medians = {name: statistics.median(values) for name, values in timings.items() if values}
    raw, kept = medians["raw ClientSession"], medians["agent"]
    per_run = medians.get("agent, server opened per run")
    pairs = [agent / raw for agent, raw in zip(timings["agent"], timings["raw ClientSession"], strict=True)]
    return {
        "calls_per_round": CALLS_PER_ROUND,
        "rounds": len(timings["raw ClientSession"]),
        "median_ms": {name: round(value, 3) for name, value in medians.items()},
        "fastest_ms": {name: round(min(values), 3) for name, values in timings.items() if values},
        "ratio_agent_to_raw": round(kept / raw, 3),
        "median_ratio_of_pairs": round(statistics.median(pairs), 3),
        "target_ratio": TARGET_RATIO,
        "within_target": kept / raw <= TARGET_RATIO,
        "opening_per_run_costs_ms": None if per_run is None else round(per_run - kept, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp_s11", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_ROUNDS} rounds instead of {ROUNDS}")
    options = parser.parse_args(argv)
    rounds, opens = (QUICK_ROUNDS, QUICK_PER_RUN_OPENS) if options.quick else (ROUNDS, PER_RUN_OPENS)
    figures = summary(trio.run(measure, rounds, opens))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mcp_s11.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    for name, value in figures["median_ms"].items():
        sys.stdout.write(f"{name:32} {value:9.3f} ms (median)\n")
    verdict = "within" if figures["within_target"] else "over"
    sys.stdout.write(f"agent / raw: {figures['ratio_agent_to_raw']:.3f}x ({verdict} the {TARGET_RATIO}x target)\n")
    sys.stdout.write(f"median ratio of the interleaved pairs: {figures['median_ratio_of_pairs']:.3f}x\n")
    fastest = figures["fastest_ms"]
    sys.stdout.write(f"fastest rounds: raw {fastest['raw ClientSession']:.3f} ms, agent {fastest['agent']:.3f} ms\n")
    sys.stdout.write(f"opening the server per run costs {figures['opening_per_run_costs_ms']} ms a run\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
