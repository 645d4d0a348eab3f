"""A local Messages API server (``POST /v1/messages``) that checks requests and replays fixtures over real sockets.

Written from the public Messages API reference. Each request is checked as the API would check it
(credentials in ``x-api-key`` or ``Authorization: Bearer``, the SDK's choice, and an
``anthropic-version`` header; ``model``, ``max_tokens`` and a non-empty
``messages`` list; roles ``user`` and ``assistant`` alternating, the first one ``user``; each
``tool_result`` answering a ``tool_use`` of the message just before, ahead of any other block; each
``tool_use`` answered in the next message; ``thinking`` blocks signed), and a request that fails
gets the API's 400 ``invalid_request_error`` body instead of the queued fixture.

A fixture (``tests/anthropic/fixtures/<name>.http``) reads like an HTTP response: comment lines
saying what it proves, ``key: value`` headers (``status:`` sets the status), a blank line, the body.
A ``text/event-stream`` body is sent chunked, one SSE frame per chunk, and may hold directives on
lines of their own: ``@park`` (hold the connection open until the client goes away, noting both
moments) and ``@truncate`` (drop the connection without the chunked terminator).
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import select
import socket
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import attrs
import trio

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
PATH = "/v1/messages"


@attrs.frozen
class Fixture:
    """One recorded response: status, headers, body lines (with directives) and what it proves."""

    name: str
    proves: str
    status: int
    headers: tuple[tuple[str, str], ...]
    body: tuple[str, ...]

    @property
    def is_stream(self) -> bool:
        """Whether the body is an SSE stream."""
        return any(k.lower() == "content-type" and "event-stream" in v for k, v in self.headers)

    @classmethod
    def load(cls, name: str) -> Fixture:
        """Read ``fixtures/<name>.http``."""
        lines = (FIXTURES / f"{name}.http").read_text(encoding="utf-8").split("\n")
        proves: list[str] = []
        while lines and lines[0].startswith("#"):
            proves.append(lines.pop(0).lstrip("# ").strip())
        status, headers = 200, []
        while lines and lines[0].strip():
            key, _, value = lines.pop(0).partition(":")
            if key.strip().lower() == "status":
                status = int(value)
            else:
                headers.append((key.strip(), value.strip()))
        body = lines[1:] if lines else []
        while body and not body[-1].strip():
            body.pop()
        return cls(name, " ".join(proves), status, tuple(headers), tuple(body))


def all_fixtures() -> list[str]:
    """The names of every fixture."""
    return sorted(path.stem for path in FIXTURES.glob("*.http"))


@attrs.frozen
class RecordedRequest:
    """A request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, object]


@attrs.define(eq=False)
class Exchange:
    """What happened while one fixture was served: parked, then the client went away."""

    fixture: Fixture
    parked: threading.Event = attrs.Factory(threading.Event)
    disconnected: threading.Event = attrs.Factory(threading.Event)


def request_problem(headers: Mapping[str, str], body: object) -> str | None:
    """Why the Messages API would refuse this request with a 400 (`None` when it would take it)."""
    if not (headers.get("x-api-key") or headers.get("authorization", "").startswith("Bearer ")):
        return "missing credentials: an x-api-key header or an Authorization: Bearer header"
    if not headers.get("anthropic-version"):
        return "missing the anthropic-version header"
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    if not isinstance(body.get("model"), str) or not isinstance(body.get("max_tokens"), int):
        return "model: Field required; max_tokens: Field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    return _messages_problem(messages)


def _blocks(message: object) -> list[dict[str, object]]:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _messages_problem(messages: Sequence[object]) -> str | None:
    previous_uses: list[object] = []
    for n, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role != ("user" if n % 2 == 0 else "assistant"):
            return f"messages.{n}: roles must alternate between user and assistant, starting with user (got {role!r})"
        blocks = _blocks(message)
        if not blocks:
            return f"messages.{n}: content must not be empty"
        kinds = [block.get("type") for block in blocks]
        results = [block.get("tool_use_id") for block in blocks if block.get("type") == "tool_result"]
        if results and kinds[: len(results)] != ["tool_result"] * len(results):
            return f"messages.{n}: tool_result blocks must come first in the content"
        if previous_uses and sorted(map(str, results)) != sorted(map(str, previous_uses)):
            return f"messages.{n}: each tool_use needs a tool_result in the next message (ids {previous_uses})"
        if not previous_uses and results:
            return f"messages.{n}: tool_result {results[0]} answers no tool_use of the previous message"
        if any(b.get("type") == "thinking" and not b.get("signature") for b in blocks):
            return f"messages.{n}: a thinking block needs its signature"
        previous_uses = [block.get("id") for block in blocks if block.get("type") == "tool_use"]
    return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    wire: AnthropicWire


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read the recorded requests instead."""

    def handle(self) -> None:
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            super().handle()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: object = json.loads(raw)
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        wire = self.server.wire
        wire.requests.append(RecordedRequest(self.path, headers, body if isinstance(body, dict) else {}))
        problem = "not found" if self.path != PATH else request_problem(headers, body)
        if problem is not None:
            status, kind = (404, "not_found_error") if self.path != PATH else (400, "invalid_request_error")
            error = {"type": "error", "error": {"type": kind, "message": problem}}
            self._send_whole(status, (("content-type", "application/json"),), json.dumps(error).encode())
            return
        exchange = wire.next_exchange()
        if exchange is None:
            error = {"type": "error", "error": {"type": "api_error", "message": "test server: nothing queued"}}
            self._send_whole(500, (("content-type", "application/json"),), json.dumps(error).encode())
        elif exchange.fixture.is_stream:
            self._send_stream(exchange)
        else:
            fixture = exchange.fixture
            self._send_whole(fixture.status, fixture.headers, "\n".join(fixture.body).encode())

    def _send_whole(self, status: int, headers: tuple[tuple[str, str], ...], body: bytes) -> None:
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _chunk(self, data: str) -> None:
        if data:
            payload = data.encode()
            self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            self.wfile.flush()

    def _send_stream(self, exchange: Exchange) -> None:
        fixture = exchange.fixture
        self.send_response(fixture.status)
        for key, value in fixture.headers:
            self.send_header(key, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        frame = ""
        try:
            for line in fixture.body:
                if line == "@park":
                    self._chunk(frame)
                    exchange.parked.set()
                    self._wait_for_disconnect(exchange)
                    return
                if line == "@truncate":
                    self._chunk(frame)
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                frame += line + "\n"
                if not line:
                    self._chunk(frame)
                    frame = ""
            self._chunk(frame + ("\n" if frame and not frame.endswith("\n\n") else ""))
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            exchange.disconnected.set()
            self.close_connection = True

    def _wait_for_disconnect(self, exchange: Exchange) -> None:
        """Hold the response open until the client closes its end (or the server stops)."""
        self.close_connection = True
        while not self.server.wire.stopping.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.02)
            if readable:
                try:
                    data = self.connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    data = b""
                if not data:
                    exchange.disconnected.set()
                    return


class AnthropicWire:
    """The server: queue fixtures, point ``base_url`` at `base_url`, read what was requested."""

    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.wire = self
        self._queue: deque[Exchange] = deque()
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self.stopping = threading.Event()
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give the SDK (``http://127.0.0.1:<port>``; it adds ``/v1/messages``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def enqueue(self, name: str) -> Exchange:
        """Serve fixture `name` to the next valid request; returns its `Exchange` to watch."""
        exchange = Exchange(Fixture.load(name))
        with self._lock:
            self._queue.append(exchange)
        return exchange

    def next_exchange(self) -> Exchange | None:
        """The exchange for the request being served (first queued first)."""
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def bodies(self) -> list[dict[str, object]]:
        """The JSON bodies received, in order."""
        return [request.body for request in self.requests]


@contextlib.contextmanager
def running_wire() -> Iterator[AnthropicWire]:
    """A started `AnthropicWire`, stopped on exit."""
    wire = AnthropicWire()
    wire._thread.start()
    try:
        yield wire
    finally:
        wire.stopping.set()
        wire._server.shutdown()
        wire._server.server_close()
        wire._thread.join(timeout=10)


async def wait_for(event: threading.Event, timeout: float = 10.0) -> None:
    """Wait (in trio, real time) until the server thread sets `event`."""
    with trio.fail_after(timeout):
        while not event.is_set():
            await trio.sleep(0.005)
