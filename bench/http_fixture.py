"""S9's local OpenAI-compatible server and its timing loop (standard library only, shared by every library).

The server answers every ``POST /v1/chat/completions`` with the same streamed completion (a role
chunk, `TEXT_CHUNKS` content deltas, the finish, usage, ``[DONE]``), each frame flushed on its own
over HTTP/1.1 keep-alive with chunked encoding, from a thread of the measuring process. A library's
S9 makes `CALLS` model calls and notes for each the time to the first text delta (TTFT) and to the
end of the stream; the first `WARMUP` calls (client construction, first connection) are dropped.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TEXT_CHUNKS = 16
CALLS = 200
QUICK_CALLS = 30
WARMUP = 5
MODEL = "bench-model"
PROMPT = "Say hello."
TEXT = "".join(f"w{i} " for i in range(TEXT_CHUNKS))


def _frames() -> list[bytes]:
    def chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
        return {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1767225600,
            "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    payloads: list[object] = [chunk({"role": "assistant", "content": ""})]
    payloads += [chunk({"content": f"w{i} "}) for i in range(TEXT_CHUNKS)]
    payloads.append(chunk({}, "stop"))
    payloads.append(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1767225600,
            "model": MODEL,
            "choices": [],
            "usage": {"prompt_tokens": 10, "completion_tokens": TEXT_CHUNKS, "total_tokens": 10 + TEXT_CHUNKS},
        }
    )
    frames = [f"data: {json.dumps(p)}\n\n".encode() for p in payloads] + [b"data: [DONE]\n\n"]
    return [f"{len(f):x}\r\n".encode() + f + b"\r\n" for f in frames] + [b"0\r\n\r\n"]


_FRAMES = _frames()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""

    def setup(self) -> None:
        """Send each small write at once, as real servers do (without it Nagle + delayed ACK add ~40 ms)."""
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        if self.path != "/v1/chat/completions":
            body = b'{"detail": "Not Found"}'
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
    """A running server; yields its ``base_url`` (``http://127.0.0.1:<port>/v1``)."""
    server = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class Timings:
    """Per-call TTFT and total, in milliseconds; `first_text` and `done` mark the moments of one call."""

    def __init__(self) -> None:
        self.ttft_ms: list[float] = []
        self.total_ms: list[float] = []
        self._start = 0.0
        self._first: float | None = None

    def start(self) -> None:
        self._start = time.perf_counter()
        self._first = None

    def first_text(self) -> None:
        if self._first is None:
            self._first = time.perf_counter()

    def done(self, text: str) -> None:
        end = time.perf_counter()
        if text != TEXT or self._first is None:
            raise AssertionError(f"S9: the streamed text was {text!r}, expected {TEXT!r}")
        self.ttft_ms.append((self._first - self._start) * 1e3)
        self.total_ms.append((end - self._start) * 1e3)

    def result(self) -> dict[str, object]:
        """The timings without the warm-up calls."""
        return {"ttft_ms": self.ttft_ms[WARMUP:], "total_ms": self.total_ms[WARMUP:], "warmup": WARMUP}


def calls(quick: bool) -> int:
    """How many calls S9 makes (warm-up included)."""
    return (QUICK_CALLS if quick else CALLS) + WARMUP
