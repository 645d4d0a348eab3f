"""S9 for Gemini: one streamed answer over real HTTP, `GeminiModel` against raw HTTP, on one local server.

``python -m bench.gemini_s9 [--quick]`` starts a local server that answers every
``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` with the same streamed answer (the
`bench.http_fixture.TEXT_CHUNKS` text chunks of S9, the last with ``finishReason`` and
``usageMetadata``), each event flushed on its own over HTTP/1.1 keep-alive with chunked encoding.
In one process it then makes the same number of calls three ways, interleaved round by round so
that machine noise falls on all three alike:

- ``raw``: the floor. One shared ``httpx2.AsyncClient``, the SSE lines read and each event's JSON
  decoded by hand (Google's ``google-genai`` SDK cannot run on trio, so raw HTTP is what the
  provider is measured against);
- ``model``: `GeminiModel.stream`, used bare (its client built on the first call and reused);
- ``agent``: an `LlmAgent` on that model, its run's events read as they come, up to its first
  ``TokenDelta`` and to the end of the run.

Each way notes every call's time to the first text (TTFT) and to the end of the stream; the first
`bench.http_fixture.WARMUP` calls are dropped. The last stdout line is the JSON result; the target
is ``model`` TTFT within 1 ms of ``raw``.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import trio

from bench import http_fixture
from helikon_fc import AgentInput, LlmAgent, RunContext
from helikon_fc.core import ModelRequest, ModelTextDelta, TokenDelta, UserMessage
from helikon_fc.core.conversation import Conversation
from helikon_fc.gemini import GeminiModel

TARGET_MS = 1.0
"""How much later than raw HTTP the model's first text may come (median TTFT, milliseconds)."""


def _frames() -> list[bytes]:
    def response(text: str, *, last: bool) -> dict[str, object]:
        candidate: dict[str, object] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
        body: dict[str, object] = {"candidates": [candidate], "modelVersion": http_fixture.MODEL}
        if last:
            candidate["finishReason"] = "STOP"
            count = http_fixture.TEXT_CHUNKS
            body["usageMetadata"] = {
                "promptTokenCount": 10,
                "candidatesTokenCount": count,
                "totalTokenCount": 10 + count,
            }
        return body

    count = http_fixture.TEXT_CHUNKS
    events = [response(f"w{i} ", last=i == count - 1) for i in range(count)]
    frames = [f"data: {json.dumps(e, separators=(',', ':'))}\r\n\r\n".encode() for e in events]
    return [f"{len(f):x}\r\n".encode() + f + b"\r\n" for f in frames] + [b"0\r\n\r\n"]


_FRAMES = _frames()
_PATH = f"/v1beta/models/{http_fixture.MODEL}:streamGenerateContent?alt=sse"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def setup(self) -> None:
        """Send each small write at once, as real servers do (without it Nagle + delayed ACK add ~40 ms)."""
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != _PATH:
            body = b'{"error": {"code": 404, "message": "Not Found", "status": "NOT_FOUND"}}'
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
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
    """A running server; yields its base URL (``http://127.0.0.1:<port>/v1beta``)."""
    server = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}/v1beta"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


async def _raw_call(client: httpx2.AsyncClient, url: str, payload: bytes, timings: http_fixture.Timings) -> None:
    timings.start()
    parts: list[str] = []
    async with client.stream("POST", url, content=payload) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            for part in event["candidates"][0]["content"]["parts"]:
                if part.get("text"):
                    timings.first_text()
                    parts.append(part["text"])
    timings.done("".join(parts))


async def _model_call(model: GeminiModel, request: ModelRequest, timings: http_fixture.Timings) -> None:
    timings.start()
    parts: list[str] = []
    async with model.stream(request) as events:
        async for event in events:
            if isinstance(event, ModelTextDelta):
                timings.first_text()
                parts.append(event.text)
    timings.done("".join(parts))


async def _agent_call(agent: LlmAgent[None], timings: http_fixture.Timings) -> None:
    timings.start()
    parts: list[str] = []
    async with agent.run(RunContext.ephemeral(None), AgentInput.from_user_text(http_fixture.PROMPT)) as events:
        async for event in events:
            if isinstance(event, TokenDelta):
                timings.first_text()
                parts.append(event.text)
    timings.done("".join(parts))


async def measure(base_url: str, calls: int) -> dict[str, dict[str, object]]:
    """`calls` calls each way, interleaved; the timings of each (warm-up dropped)."""
    request = ModelRequest(instructions=None, items=Conversation([UserMessage(http_fixture.PROMPT)]))
    model = GeminiModel(http_fixture.MODEL, api_key="bench-key", base_url=base_url)
    agent: LlmAgent[None] = LlmAgent(name="bench", model=model)
    payload = json.dumps({"contents": [{"role": "user", "parts": [{"text": http_fixture.PROMPT}]}]}).encode()
    headers = {"content-type": "application/json", "x-goog-api-key": "bench-key"}
    timings = {way: http_fixture.Timings() for way in ("raw", "model", "agent")}
    async with httpx2.AsyncClient(headers=headers, timeout=60.0) as client:
        for _ in range(calls):
            await _raw_call(client, model.url(stream=True), payload, timings["raw"])
            await _model_call(model, request, timings["model"])
            await _agent_call(agent, timings["agent"])
    await model.aclose()
    return {way: t.result() for way, t in timings.items()}


def summary(result: dict[str, dict[str, object]]) -> dict[str, object]:
    """Median TTFT and total per way, and whether the model's TTFT is within `TARGET_MS` of raw HTTP."""
    medians = {
        way: {key: statistics.median(values) for key, values in t.items() if isinstance(values, list)}
        for way, t in result.items()
    }
    gap = medians["model"]["ttft_ms"] - medians["raw"]["ttft_ms"]
    return {"median_ms": medians, "model_minus_raw_ttft_ms": gap, "within_target": gap <= TARGET_MS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gemini_s9", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help=f"{http_fixture.QUICK_CALLS} calls each way, not {http_fixture.CALLS}"
    )
    args = parser.parse_args(argv)
    with serving() as base_url:
        result = trio.run(measure, base_url, http_fixture.calls(args.quick))
    report = summary(result)
    medians = report["median_ms"]
    assert isinstance(medians, dict)
    for way, values in medians.items():
        sys.stderr.write(f"{way:>5}: TTFT {values['ttft_ms']:.3f} ms, total {values['total_ms']:.3f} ms\n")
    sys.stderr.write(f"model - raw TTFT: {report['model_minus_raw_ttft_ms']:+.3f} ms (target <= {TARGET_MS} ms)\n")
    sys.stdout.write(json.dumps({**result, "summary": report}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
