"""``python -m bench.anthropic_s9 [--quick]``: S9 for Claude, `AnthropicModel` against the raw ``anthropic`` SDK.

One local Messages API server (standard library, a thread of this process) answers every
``POST /v1/messages`` with the same streamed message: ``message_start``, one text block of
`TEXT_CHUNKS` ``text_delta``\\ s, ``message_delta`` with ``end_turn`` and the usage, ``message_stop``,
each frame flushed on its own over HTTP/1.1 keep-alive. Three ways of streaming it are timed, in
one run and interleaved call by call so that they share the machine's load:

- ``raw SDK``: ``AsyncAnthropic.messages.create(stream=True)``, iterating its typed events;
- ``AnthropicModel``: ``model.stream(request)``, iterating `ModelEvent`\\ s;
- ``agent``: an `LlmAgent` on that model, iterating its run's events (`TokenDelta`\\ s).

Each call notes the time to the first text (TTFT) and to the end of the stream; the first
`WARMUP` calls (clients, first connections) are dropped. The table (medians, and each way's
difference from the raw SDK) is printed and written to ``bench/results/anthropic_s9.md``; the
target is a difference within 1 ms.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anthropic
import trio

from helikon_fc import AgentInput, LlmAgent, RunContext, TokenDelta
from helikon_fc.anthropic import AnthropicModel
from helikon_fc.core import ModelRequest, ModelTextDelta, UserMessage
from helikon_fc.core.conversation import Conversation

RESULTS = Path(__file__).resolve().parent / "results"
TEXT_CHUNKS = 16
CALLS = 200
QUICK_CALLS = 30
WARMUP = 5
MODEL = "claude-bench"
PROMPT = "Say hello."
TEXT = "".join(f"w{i} " for i in range(TEXT_CHUNKS))
TARGET_MS = 1.0
WAYS = ("raw SDK", "AnthropicModel", "agent")


def _frames() -> list[bytes]:
    def event(payload: dict[str, object]) -> bytes:
        return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()

    message = {"id": "msg_bench", "type": "message", "role": "assistant", "model": MODEL, "content": []}
    payloads: list[dict[str, object]] = [
        {"type": "message_start", "message": {**message, "usage": {"input_tokens": 10, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    payloads += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": f"w{i} "}}
        for i in range(TEXT_CHUNKS)
    ]
    payloads += [
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": TEXT_CHUNKS}},
        {"type": "message_stop"},
    ]
    frames = [event(payload) for payload in payloads]
    return [f"{len(f):x}\r\n".encode() + f + b"\r\n" for f in frames] + [b"0\r\n\r\n"]


_FRAMES = _frames()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def setup(self) -> None:
        """Send each small write at once (without TCP_NODELAY, Nagle + delayed ACK add ~40 ms)."""
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        for frame in _FRAMES:
            self.wfile.write(frame)
            self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True


@contextmanager
def serving() -> Iterator[str]:
    """A running server; yields its ``base_url`` (``http://127.0.0.1:<port>``)."""
    server = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


Call = Callable[[Callable[[], None]], Awaitable[str]]
"""One streamed call: it calls its argument at the first text and returns the whole text."""


def _ways(base_url: str, client: anthropic.AsyncAnthropic) -> dict[str, Call]:
    model = AnthropicModel(MODEL, base_url=base_url, api_key="sk-bench")
    agent = LlmAgent(name="bench", model=model)
    request = ModelRequest(instructions=None, items=Conversation([UserMessage(PROMPT)]))

    async def raw(first: Callable[[], None]) -> str:
        parts: list[str] = []
        stream = await client.messages.create(
            model=MODEL, max_tokens=1024, messages=[{"role": "user", "content": PROMPT}], stream=True
        )
        async with stream:
            async for event in stream:
                if event.type == "content_block_delta" and event.delta.type == "text_delta":
                    first()
                    parts.append(event.delta.text)
        return "".join(parts)

    async def bare(first: Callable[[], None]) -> str:
        parts: list[str] = []
        async with model.stream(request) as events:
            async for event in events:
                if isinstance(event, ModelTextDelta):
                    first()
                    parts.append(event.text)
        return "".join(parts)

    async def through_agent(first: Callable[[], None]) -> str:
        parts: list[str] = []
        async with agent.run(RunContext.ephemeral(None), AgentInput.from_user_text(PROMPT)) as events:
            async for event in events:
                if isinstance(event, TokenDelta):
                    first()
                    parts.append(event.text)
        return "".join(parts)

    return {"raw SDK": raw, "AnthropicModel": bare, "agent": through_agent}


def _first(marks: list[float]) -> None:
    """Note the moment of the first text of a call (later texts leave it alone)."""
    if not marks:
        marks.append(time.perf_counter())


async def measure(base_url: str, calls: int) -> dict[str, dict[str, list[float]]]:
    """TTFT and total (ms) of each way, for `calls` rounds of one call each (warm-up rounds dropped)."""
    timings: dict[str, dict[str, list[float]]] = {way: {"ttft": [], "total": []} for way in WAYS}
    async with anthropic.AsyncAnthropic(api_key="sk-bench", base_url=base_url, max_retries=0) as client:
        ways = _ways(base_url, client)
        for n in range(calls + WARMUP):
            for way, call in ways.items():
                marks: list[float] = []
                start = time.perf_counter()
                text = await call(partial(_first, marks))
                end = time.perf_counter()
                if text != TEXT or not marks:
                    raise AssertionError(f"{way}: the streamed text was {text!r}, expected {TEXT!r}")
                if n >= WARMUP:
                    timings[way]["ttft"].append((marks[0] - start) * 1e3)
                    timings[way]["total"].append((end - start) * 1e3)
    return timings


def render(timings: dict[str, dict[str, list[float]]]) -> str:
    """A markdown table: each way's median TTFT and total, and its difference from the raw SDK's."""
    medians = {way: {k: statistics.median(v) for k, v in figures.items()} for way, figures in timings.items()}
    raw = medians["raw SDK"]
    lines = [
        "| way | calls | TTFT ms | total ms | TTFT - raw SDK | total - raw SDK | within 1 ms |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for way, figures in medians.items():
        d_ttft, d_total = figures["ttft"] - raw["ttft"], figures["total"] - raw["total"]
        met = "-" if way == "raw SDK" else ("yes" if max(d_ttft, d_total) <= TARGET_MS else "no")
        lines.append(
            f"| {way} | {len(timings[way]['ttft'])} | {figures['ttft']:.2f} | {figures['total']:.2f} "
            f"| {d_ttft:+.2f} | {d_total:+.2f} | {met} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.anthropic_s9", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_CALLS} calls per way instead of {CALLS}")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where anthropic_s9.md goes")
    args = parser.parse_args(argv)
    with serving() as base_url:
        timings = trio.run(measure, base_url, QUICK_CALLS if args.quick else CALLS)
    table = render(timings)
    sys.stdout.write(table)
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "anthropic_s9.md").write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
