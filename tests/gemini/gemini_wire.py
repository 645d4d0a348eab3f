"""A local Gemini API server that replays fixtures over real sockets, written from the public API reference.

It serves ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` (a ``text/event-stream``
of ``GenerateContentResponse`` objects, each ``data: <json>`` ended by ``\\r\\n\\r\\n``, sent with
chunked transfer encoding, one event per chunk) and ``POST /v1beta/models/{model}:generateContent``
(one JSON ``GenerateContentResponse``). Errors are ``google.rpc.Status`` bodies
(``{"error": {"code", "message", "status", "details"}}``), as the API sends them.

A fixture file (``tests/gemini/fixtures/<name>.http``) reads like an HTTP response::

    # what the fixture proves (comment lines at the top)
    status: 429
    content-type: application/json

    {"error": {...}}

Headers end at the first blank line; the rest is the body. In a ``text/event-stream`` body each
non-blank line is one event's line, and these directives stand on lines of their own:

- ``@park``: stop sending and hold the connection open until the client goes away (the server
  notes both moments, so a test can prove the client's cancellation closed the connection);
- ``@truncate``: drop the connection at once, without the chunked terminator (a cut-off body).

The server checks what the API checks first: the path (model and method, ``alt=sse`` for a
stream), and, when `GeminiServer.api_key` is set, the ``x-goog-api-key`` header (HTTP 403
``PERMISSION_DENIED`` otherwise). Requests are recorded (`GeminiServer.requests`), and the
connections open right now are counted (`GeminiServer.open_connections`).
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import re
import select
import socket
import threading
from collections import deque
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import attrs
import trio

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
_PATH = re.compile(r"^/v1beta/models/(?P<model>[^/:]+):(?P<method>streamGenerateContent|generateContent)$")


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
        status = 200
        headers: list[tuple[str, str]] = []
        while lines and lines[0].strip():
            key, _, value = lines.pop(0).partition(":")
            if key.strip().lower() == "status":
                status = int(value)
            else:
                headers.append((key.strip(), value.strip()))
        body = [line for line in lines[1:] if line.strip()]
        return cls(name, " ".join(proves), status, tuple(headers), tuple(body))


def all_fixtures() -> list[str]:
    """The names of every fixture."""
    return sorted(path.stem for path in FIXTURES.glob("*.http"))


@attrs.frozen
class RecordedRequest:
    """A request the server received."""

    model: str
    method: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: dict[str, object]
    client_port: int


@attrs.define(eq=False)
class Exchange:
    """What happened while one fixture was served: parked, then the client went away."""

    fixture: Fixture
    parked: threading.Event = attrs.Factory(threading.Event)
    disconnected: threading.Event = attrs.Factory(threading.Event)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    gemini: GeminiServer


def _status_body(code: int, status: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message, "status": status}}).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read the recorded requests instead."""

    def handle(self) -> None:
        """Serve the connection (counted while open); a client that hangs up between requests is not an error."""
        gemini = self.server.gemini
        with gemini._lock:
            gemini.open_connections += 1
        try:
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                super().handle()
        finally:
            with gemini._lock:
                gemini.open_connections -= 1

    def do_POST(self) -> None:
        gemini = self.server.gemini
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        url = urlsplit(self.path)
        match = _PATH.match(url.path)
        query = parse_qs(url.query)
        headers = {k.lower(): v for k, v in self.headers.items()}
        if match is None:
            self._whole(404, _status_body(404, "NOT_FOUND", f"test server: no such path {url.path}"))
            return
        if gemini.api_key is not None and headers.get("x-goog-api-key") != gemini.api_key:
            self._whole(403, _status_body(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers."))
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._whole(400, _status_body(400, "INVALID_ARGUMENT", "Invalid JSON payload received."))
            return
        method = match["method"]
        gemini.requests.append(
            RecordedRequest(match["model"], method, query, headers, body, int(self.client_address[1]))
        )
        exchange = gemini.next_exchange()
        if exchange is None:
            self._whole(404, _status_body(404, "NOT_FOUND", "test server: nothing queued"))
            return
        fixture = exchange.fixture
        streamed = method == "streamGenerateContent" and query.get("alt") == ["sse"]
        if fixture.is_stream and streamed:
            self._stream(exchange)
        elif fixture.is_stream or (streamed and fixture.status == 200):
            self._whole(
                400, _status_body(400, "INVALID_ARGUMENT", f"test server: {fixture.name} does not fit {method}")
            )
        else:
            self._whole(fixture.status, "\n".join(fixture.body).encode(), fixture.headers)

    def _whole(self, status: int, body: bytes, headers: tuple[tuple[str, str], ...] = ()) -> None:
        self.send_response(status)
        if not any(key.lower() == "content-type" for key, _ in headers):
            self.send_header("Content-Type", "application/json; charset=UTF-8")
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _chunk(self, data: str) -> None:
        payload = data.encode()
        self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def _stream(self, exchange: Exchange) -> None:
        fixture = exchange.fixture
        self.send_response(fixture.status)
        for key, value in fixture.headers:
            self.send_header(key, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        try:
            for line in fixture.body:
                if line == "@park":
                    exchange.parked.set()
                    self._wait_for_disconnect(exchange)
                    return
                if line == "@truncate":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self._chunk(line + "\r\n\r\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            exchange.disconnected.set()
            self.close_connection = True

    def _wait_for_disconnect(self, exchange: Exchange) -> None:
        """Hold the response open until the client closes its end (or the server stops)."""
        self.close_connection = True
        stopping = self.server.gemini.stopping
        while not stopping.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.02)
            if readable:
                try:
                    data = self.connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    data = b""
                if not data:
                    exchange.disconnected.set()
                    return


class GeminiServer:
    """The server: queue fixtures, point ``base_url`` at `base_url`, read what was requested."""

    def __init__(self, api_key: str | None = None) -> None:
        self.api_key = api_key
        self.open_connections = 0
        """How many client connections are open right now (a test can see a client close its connections)."""
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.gemini = self
        self._queue: deque[Exchange] = deque()
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self.stopping = threading.Event()
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def root(self) -> str:
        """``http://127.0.0.1:<port>``: a base URL without a path (the model adds ``/v1beta``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1beta``: the API root with its version."""
        return f"{self.root}/v1beta"

    def enqueue(self, name: str) -> Exchange:
        """Serve fixture `name` to the next request; returns its `Exchange` to watch."""
        exchange = Exchange(Fixture.load(name))
        with self._lock:
            self._queue.append(exchange)
        return exchange

    def next_exchange(self) -> Exchange | None:
        """The exchange for the request being served (first queued first)."""
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def start(self) -> None:
        """Start serving in a background thread."""
        self._thread.start()

    def stop(self) -> None:
        """Stop serving, release parked connections, and close the listening socket."""
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


async def wait_for(event: threading.Event, timeout: float = 10.0) -> None:
    """Wait (in trio, real time) until the server thread sets `event`."""
    with trio.fail_after(timeout):
        while not event.is_set():
            await trio.sleep(0.005)


@contextlib.contextmanager
def running_server(api_key: str | None = None) -> Iterator[GeminiServer]:
    """A started `GeminiServer`, stopped on exit."""
    server = GeminiServer(api_key)
    server.start()
    try:
        yield server
    finally:
        server.stop()
