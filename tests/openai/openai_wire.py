"""A local OpenAI-compatible HTTP server that replays wire-format fixtures over real sockets.

A fixture file (``tests/openai/fixtures/<api>/<name>.http``) reads like an HTTP response::

    # what the fixture proves (comment lines at the top)
    status: 429
    retry-after: 7
    content-type: application/json

    {"error": {...}}

Headers end at the first blank line; the rest is the body. A ``text/event-stream`` body is sent
with chunked transfer encoding, one SSE frame per chunk (each frame flushed on its own), and may
hold directives on lines of their own:

- ``@park``: stop sending and hold the connection open until the client goes away (the server
  notes both moments, so a test can prove the client's cancellation closed the connection);
- ``@truncate``: drop the connection at once, without the chunked terminator (a cut-off body);
- ``@@`` inside a line: send the line in two writes split there (a frame spread over reads).

Any other body is sent whole with a ``Content-Length``. The server listens on 127.0.0.1 on an
ephemeral port and serves the fixtures queued with `WireServer.enqueue` in order, one per request.

`WireServer.quirks` makes it behave like a particular server (`tests/openai/openai_quirks.py`): a
request the quirks reject gets their error response and leaves the queue as it was. The server
also counts the connections open right now (`WireServer.open_connections`), so a test can see a
client close its connections.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import select
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

import attrs
import trio

FIXTURES = pathlib.Path(__file__).parent / "fixtures"

Api = Literal["chat", "responses"]
PATHS: dict[Api, str] = {"chat": "/v1/chat/completions", "responses": "/v1/responses"}


@attrs.frozen
class Fixture:
    """One recorded response: status, headers, body lines (with directives) and what it proves."""

    api: Api
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
    def load(cls, api: Api, name: str) -> Fixture:
        """Read ``fixtures/<api>/<name>.http``."""
        text = (FIXTURES / api / f"{name}.http").read_text(encoding="utf-8")
        lines = text.split("\n")
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
        if lines:
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        return cls(api, name, " ".join(proves), status, tuple(headers), tuple(lines))


def all_fixtures(api: Api) -> Iterator[str]:
    """The names of every fixture of `api`."""
    for path in sorted((FIXTURES / api).glob("*.http")):
        yield path.stem


@attrs.frozen
class RecordedRequest:
    """A request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, object]
    client_port: int
    """The client's port: two requests with the same port came over one (reused) connection."""


@attrs.define(eq=False)
class Exchange:
    """What happened while one fixture was served: parked, then the client went away."""

    fixture: Fixture
    parked: threading.Event = attrs.Factory(threading.Event)
    disconnected: threading.Event = attrs.Factory(threading.Event)
    finished: threading.Event = attrs.Factory(threading.Event)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    wire: WireServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read the recorded requests instead."""

    def handle(self) -> None:
        """Serve the connection; a client that hangs up between requests is not an error."""
        wire = self.server.wire
        with wire._lock:
            wire.open_connections += 1
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            pass
        finally:
            with wire._lock:
                wire.open_connections -= 1

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"_unparseable": raw.decode("utf-8", "replace")}
        wire = self.server.wire
        headers = {k.lower(): v for k, v in self.headers.items()}
        recorded = RecordedRequest(self.path, headers, body, int(self.client_address[1]))
        wire.requests.append(recorded)
        rejected = wire.quirks(recorded) if wire.quirks is not None else None
        if rejected is not None:
            status, payload = rejected
            self._send_whole(status, (("content-type", "application/json"),), json.dumps(payload).encode())
            return
        exchange = wire.next_exchange()
        if exchange is None or self.path != PATHS[exchange.fixture.api]:
            expected = "nothing queued" if exchange is None else PATHS[exchange.fixture.api]
            self._send_whole(
                404,
                (("content-type", "application/json"),),
                json.dumps(
                    {
                        "error": {
                            "message": f"test server: unexpected {self.path} ({expected})",
                            "type": "invalid_request_error",
                        }
                    }
                ).encode(),
            )
            return
        try:
            fixture = exchange.fixture
            if fixture.is_stream:
                self._send_stream(exchange)
            else:
                self._send_whole(fixture.status, fixture.headers, "\n".join(fixture.body).encode())
        finally:
            exchange.finished.set()

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
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.flush()
        frame = ""
        try:
            for line in fixture.body:
                if line == "@park":
                    self._chunk(frame)
                    frame = ""
                    exchange.parked.set()
                    self._wait_for_disconnect(exchange)
                    return
                if line == "@truncate":
                    self._chunk(frame)
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if "@@" in line:
                    head, _, tail = line.partition("@@")
                    self._chunk(frame + head)
                    frame = tail + "\n"
                    continue
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
        stopping = self.server.wire.stopping
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


Quirks = Callable[[RecordedRequest], "tuple[int, object] | None"]
"""A server's peculiarities: the error response (status, JSON body) a request gets instead, or `None`."""


class WireServer:
    """The server: queue fixtures, point ``base_url`` at `base_url`, read what was requested."""

    def __init__(self, quirks: Quirks | None = None) -> None:
        self.quirks = quirks
        self.open_connections = 0
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.wire = self
        self._queue: deque[Exchange] = deque()
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self.stopping = threading.Event()
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give the SDK (``http://127.0.0.1:<port>/v1``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def enqueue(self, api: Api, name: str) -> Exchange:
        """Serve fixture `name` of `api` to the next request; returns its `Exchange` to watch."""
        exchange = Exchange(Fixture.load(api, name))
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
    """Wait (in trio, real time) until the server thread sets `event`.

    Raises:
        trio.TooSlowError: it did not happen within `timeout` seconds.
    """
    with trio.fail_after(timeout):
        while not event.is_set():
            await trio.sleep(0.005)


@contextlib.contextmanager
def running_server() -> Iterator[WireServer]:
    """A started `WireServer`, stopped on exit."""
    server = WireServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
