"""``python -m bench.serve_s10 --runs N``: S10, runs served over HTTP under load.

N concurrent runs, each started with ``POST /runs`` and streamed to its own SSE client on loopback, against
a real ``helikon serve`` process (its SQLite store in a temporary folder); then the same with a third of
the clients dropping half-way and reconnecting with ``Last-Event-ID``; then the same runs in process
(``Runner(store=SQLiteStore)``, events read from the run stream), for the server's overhead as a ratio.

Measured: events per second received by all clients; p50/p99 latency from an event's emission (the model
stamps each text delta with ``time.monotonic_ns()``, one clock for both processes on Linux) to its receipt
by the client; the server's resident memory per open stream (RSS with every stream open, minus before);
and lost or duplicated events (every client must see positions 1..n exactly once, and every delta).

The served agent (`agent`) runs on `StampingModel`, a model of its own rather than the simulator's
`FunctionModel`: a scripted turn is built before it streams, so it cannot carry the moment each delta
leaves. Results go to ``bench/results/serve_s10.md`` and stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType

import attrs
import httpx2
import trio

from helikon_fc import LlmAgent, RunContext, Runner
from helikon_fc.core import FinishReason, ModelEvent, ModelFinish, ModelRequest, ModelTextDelta, ModelUsage, Usage
from helikon_fc.stores import SQLiteStore

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
DELTAS = int(os.environ.get("S10_DELTAS", "20"))
"""Text deltas per run (the served process reads them from its environment)."""
GAP = float(os.environ.get("S10_GAP_MS", "20")) / 1000
"""Seconds between two deltas of a run."""


class _Stream:
    """One turn: `DELTAS` text deltas, each stamped when it leaves, `GAP` apart; usage; finish."""

    def __init__(self) -> None:
        self._events = self._produce()

    async def __aenter__(self) -> AsyncIterator[ModelEvent]:
        await trio.lowlevel.checkpoint()
        return self._events

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._events.aclose()

    async def _produce(self) -> AsyncGenerator[ModelEvent, None]:
        for index in range(DELTAS):
            await trio.sleep(GAP if index else 0)
            yield ModelTextDelta(f"{time.monotonic_ns()} ")
        await trio.lowlevel.checkpoint()
        yield ModelUsage(Usage(input_tokens=5, output_tokens=DELTAS))
        await trio.lowlevel.checkpoint()
        yield ModelFinish(FinishReason.STOP)
        await trio.lowlevel.checkpoint()


class StampingModel:
    """A model whose every text delta is the `time.monotonic_ns()` of its emission."""

    @property
    def name(self) -> str:
        return "stamping"

    def stream(self, request: ModelRequest) -> _Stream:
        return _Stream()


agent = LlmAgent(name="s10", model=StampingModel())
"""The served agent (``helikon serve bench.serve_s10:agent``)."""


@attrs.define
class Tally:
    """What the clients of one phase received."""

    latencies_ns: list[int] = attrs.Factory(list)
    events: int = 0
    lost_or_duplicated: int = 0
    reconnects: int = 0
    first_event: int = 0
    all_open: trio.Event = attrs.Factory(trio.Event)
    """Set when every client of the phase has received its first event (all streams are open)."""
    clients: int = 0


def _stamp(data: dict[str, object]) -> int | None:
    event = data["event"]
    if isinstance(event, dict) and event.get("type") == "token_delta":
        return int(str(event["text"]).strip())
    return None


async def _read(response: httpx2.Response, seen: list[int], tally: Tally, stop_after: int | None) -> str | None:
    """Read SSE messages into `seen` (positions) and `tally`; the `end` status, or None when stopped early."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if line:
            if not line.startswith(":"):
                name, _, value = line.partition(": ")
                fields[name] = value
            continue
        if "data" not in fields:
            fields = {}
            continue
        data = json.loads(fields["data"])
        if fields.get("event") == "end":
            return str(data["status"])
        received = time.monotonic_ns()
        seen.append(int(fields["id"]))
        if len(seen) == 1:
            tally.first_event += 1
            if tally.first_event == tally.clients:
                tally.all_open.set()
        tally.events += 1
        stamp = _stamp(data)
        if stamp is not None:
            tally.latencies_ns.append(received - stamp)
        fields = {}
        if stop_after is not None and len(seen) >= stop_after:
            return None
    return None


async def _client(client: httpx2.AsyncClient, index: int, tally: Tally, drop: bool) -> None:
    seen: list[int] = []
    run_id = f"{'d' if drop else 'c'}{index}"
    accept = {"accept": "text/event-stream"}
    stop_after = DELTAS // 2 + 2 if drop and index % 3 == 0 else None
    async with client.stream("POST", "/runs", json={"input": "go", "run_id": run_id}, headers=accept) as response:
        status = await _read(response, seen, tally, stop_after)
    if status is None:  # dropped half-way: reconnect from the last position seen
        tally.reconnects += 1
        headers = {**accept, "last-event-id": str(seen[-1])}
        async with client.stream("GET", f"/runs/{run_id}/events", headers=headers) as response:
            status = await _read(response, seen, tally, None)
    deltas = DELTAS  # every delta once, positions 1..n once each, and the run completed
    wanted = list(range(1, len(seen) + 1))
    if seen != wanted or status != "completed" or len(seen) < deltas + 3:
        tally.lost_or_duplicated += 1


def _cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far (from ``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kib(pid: int) -> int:
    found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(found.group(1)) if found else 0


@asynccontextmanager
async def _server(folder: Path) -> AsyncIterator[tuple[str, trio.Process]]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    env.update(S10_DELTAS=str(DELTAS), S10_GAP_MS=str(GAP * 1000))
    log = folder / "serve.log"
    command = [sys.executable, "-m", "helikon_fc", "serve", "bench.serve_s10:agent", "--port", "0"]
    command += ["--store", str(folder / "runs.db")]
    with log.open("wb") as err:
        process = await trio.lowlevel.open_process(command, stderr=err, stdout=subprocess.DEVNULL, cwd=ROOT, env=env)
    try:
        with trio.fail_after(60):
            while not (found := re.search(r" at (http://\S+) ", log.read_text())):
                if process.returncode is not None:
                    raise RuntimeError(f"helikon serve exited: {log.read_text()}")
                await trio.sleep(0.05)
        yield found.group(1), process
    finally:
        process.kill()
        with trio.CancelScope(shield=True):
            await process.wait()


@attrs.frozen
class Phase:
    label: str
    runs: int
    seconds: float
    tally: Tally
    rss_per_stream_kib: float | None
    server_cpu: float | None = None
    """CPU seconds the server process spent in the phase (`None` in process)."""
    client_cpu: float = 0.0
    """CPU seconds this process (the clients, or the runs in process) spent in the phase."""

    def row(self) -> str:
        lat = sorted(self.tally.latencies_ns)
        p50 = lat[len(lat) // 2] / 1e6 if lat else float("nan")
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] / 1e6 if lat else float("nan")
        memory = f"{self.rss_per_stream_kib:.1f}" if self.rss_per_stream_kib is not None else "-"
        return (
            f"| {self.label} | {self.runs} | {self.tally.events} | {self.seconds:.2f} | "
            f"{self.tally.events / self.seconds:,.0f} | {p50:.1f} | {p99:.1f} | {memory} | "
            f"{self.tally.reconnects} | {self.tally.lost_or_duplicated} | "
            f"{'-' if self.server_cpu is None else f'{self.server_cpu:.2f}'} | {self.client_cpu:.2f} |"
        )


async def _served_phase(url: str, pid: int, runs: int, drop: bool, baseline_kib: int) -> Phase:
    tally = Tally(clients=runs)
    peak = 0
    limits = httpx2.Limits(max_connections=runs + 16, max_keepalive_connections=runs + 16)
    timeout = httpx2.Timeout(120, connect=60)
    cpu, own = _cpu_seconds(pid), time.process_time()
    async with httpx2.AsyncClient(base_url=url, limits=limits, timeout=timeout) as client:
        start = time.perf_counter()
        async with trio.open_nursery() as nursery:
            for index in range(runs):
                nursery.start_soon(_client, client, index, tally, drop)

            async def sample() -> None:
                nonlocal peak
                await tally.all_open.wait()
                peak = _rss_kib(pid)

            nursery.start_soon(sample)
        seconds = time.perf_counter() - start
    label = "served, a third reconnecting" if drop else "served"
    memory = (peak - baseline_kib) / runs if peak else None
    return Phase(label, runs, seconds, tally, memory, _cpu_seconds(pid) - cpu, time.process_time() - own)


async def _in_process_phase(folder: Path, runs: int) -> Phase:
    tally = Tally()
    async with SQLiteStore(folder / "in-process.db") as store:
        runner = Runner(store=store)

        async def one(index: int) -> None:
            count = 0
            async with runner.run(agent, RunContext.ephemeral(None), "go", run_id=f"p{index}") as events:
                async for event in events:
                    received = time.monotonic_ns()
                    count += 1
                    text = getattr(event, "text", None)
                    if type(event).__name__ == "TokenDelta" and isinstance(text, str):
                        tally.latencies_ns.append(received - int(text.strip()))
            tally.events += count

        start, own = time.perf_counter(), time.process_time()
        async with trio.open_nursery() as nursery:
            for index in range(runs):
                nursery.start_soon(one, index)
        seconds = time.perf_counter() - start
    return Phase("in process (Runner + SQLiteStore)", runs, seconds, tally, None, None, time.process_time() - own)


async def measure(runs: int) -> list[Phase]:
    with tempfile.TemporaryDirectory(prefix="helikon-s10-") as name:
        folder = Path(name)
        async with _server(
            folder,
        ) as (url, process):
            async with httpx2.AsyncClient(base_url=url, timeout=30) as client:  # warm-up: imports, tables, caches
                for index in range(3):
                    async with client.stream(
                        "POST",
                        "/runs",
                        json={"input": "go", "run_id": f"w{index}"},
                        headers={"accept": "text/event-stream"},
                    ) as response:
                        await response.aread()
            baseline = _rss_kib(process.pid)
            phases = [await _served_phase(url, process.pid, runs, False, baseline)]
            phases.append(await _served_phase(url, process.pid, runs, True, baseline))
        phases.append(await _in_process_phase(folder, runs))
    return phases


def report(phases: list[Phase], runs: int) -> str:
    served, in_process = phases[0], phases[-1]
    lines = [
        f"S10: {runs} concurrent runs, {DELTAS} text deltas each {GAP * 1000:.0f} ms apart, each streamed to its own",
        "SSE client on loopback (`helikon serve`, SQLite store), then with a third of the clients dropping half-way",
        "and reconnecting with Last-Event-ID, then the same runs in process. Latency: delta emission to receipt.",
        "",
        "| phase | runs | events | wall s | events/s | p50 ms | p99 ms | server KiB/stream | reconnects | lost/dup"
        " | server CPU s | client CPU s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *(phase.row() for phase in phases),
        "",
        f"Served / in process: wall {served.seconds / in_process.seconds:.2f}x, "
        f"events/s {(served.tally.events / served.seconds) / (in_process.tally.events / in_process.seconds):.2f}x.",
        f"Machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the end; Python {sys.version.split()[0]}.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve_s10", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="concurrent runs (default %(default)s)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 30 runs")
    parser.add_argument("--out", type=Path, default=RESULTS / "serve_s10.md", help="where the table goes")
    args = parser.parse_args(argv)
    runs = 30 if args.quick else args.runs
    if runs < 1:
        parser.error(f"--runs must be at least 1, got {runs}")
    phases = trio.run(measure, runs)
    text = report(phases, runs)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    return 1 if any(phase.tally.lost_or_duplicated for phase in phases[:-1]) else 0


if __name__ == "__main__":
    sys.exit(main())
