"""`Connection`: one live MCP session (and, over stdio, its process), opened and closed in one task.

`open_connection` enters the transport (the SDK's stdio or streamable-HTTP client: its nursery owns
the pipes or HTTP streams, and over stdio the process) and the `ClientSession` (its own nursery),
in the caller's task, and leaves them in reverse order in the same task: nothing it starts runs
after the block ends, and over stdio the process is stopped (stdin closed, then SIGTERM, then
SIGKILL: the SDK's shielded, bounded shutdown) before the block returns.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from functools import partial

import mcp_types as types
import trio
from mcp.client._transport import TransportStreams
from mcp.client.session import IncomingMessage
from mcp.shared.exceptions import MCPError

from mcp import ClientSession

from ..core import JsonObject, ToolEffect
from ..shell.telemetry.tracing import current_span
from ..shell.tools.tool import ToolError, ToolOutput
from ._errors import MCPServerError
from ._notices import LOG_LEVEL, Heard
from ._renewal import Renewal
from ._results import tool_output
from ._tools import MCPTool, listed_tools

Transport = Callable[[], AbstractAsyncContextManager[TransportStreams]]
"""Opens the streams of one session (the SDK's `stdio_client` or `streamable_http_client`)."""


class Connection:
    """A live session with one MCP server: its tools (listed once, again after ``list_changed``) and calls.

    Once the session is lost (the process died, the connection closed), every call fails with a
    `ToolError` saying the server is gone.
    """

    def __init__(self, label: str, prefix: str, lenient: bool, effects: Mapping[str, ToolEffect]) -> None:
        self.label = label
        self.session: ClientSession | None = None
        self.gone: str | None = None
        self._prefix, self._lenient, self._effects = prefix, lenient, effects
        self._tools: tuple[MCPTool, ...] | None = None
        self._listing = trio.Lock()
        self.heard = Heard(label)
        self.renewal: Renewal | None = None
        """Over streamable HTTP: how a session the server forgot is replaced (see `mcp._renewal`)."""

    async def on_message(self, message: IncomingMessage) -> None:
        """The session's message handler: a ``tools/list_changed`` notification drops the cached tool list."""
        if isinstance(message, types.ToolListChangedNotification):
            self._tools = None
        await trio.lowlevel.checkpoint()

    async def tools(self) -> tuple[MCPTool, ...]:
        """The server's tools: the cached list, or a fresh one when none is cached (first use, ``list_changed``).

        Raises:
            MCPServerError: the server cannot list its tools, or offers one that cannot be used.
        """
        async with self._listing:
            if self._tools is None:
                self._tools = listed_tools(
                    self.label, self.call, await self._list(), self._prefix, self._lenient, self._effects
                )
            return self._tools

    async def _list(self) -> list[types.Tool]:
        listed: list[types.Tool] = []
        cursor: str | None = None
        while True:
            try:
                page = await self._session().list_tools(params=types.PaginatedRequestParams(cursor=cursor))
            except MCPError as exc:
                raise MCPServerError(f"{self.label} could not list its tools: {exc.error.message}") from None
            listed.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                return listed

    async def call(self, name: str, arguments: JsonObject, retry_safe: bool = False) -> ToolOutput:
        """Call the server's tool `name`; a failure the model should read is a `ToolError`.

        Cancelling the caller cancels the call: the SDK sends the server ``notifications/cancelled``.
        When the server forgot the session (streamable HTTP), a new one is started; the call is sent
        again on it only when `retry_safe` (the tool changes nothing), and only once: otherwise it fails
        saying that it may not have run.
        """
        for attempt in (1, 2):
            if self.renewal is not None:
                await self.renewal.settled()
            if self.gone is not None:
                raise ToolError(f"{self.label} is gone ({self.gone}); its tool {name!r} cannot be called")
            session_id = self.renewal.watch.current if self.renewal is not None else None
            try:
                with self.heard.calling(current_span()) as span:  # progress is asked for only when traced
                    progress = None if span is None else partial(self.heard.progress, span, name)
                    result = await self._session().call_tool(name, dict(arguments), progress_callback=progress)
                    if span is not None:  # a log message the server sent before its answer lands on the span
                        await trio.lowlevel.checkpoint()
            except MCPError as exc:
                failure = exc
            else:
                return tool_output(result)
            if self.renewal is None or not self.renewal.watch.lost(session_id):
                raise self._failed(name, failure)
            await self._renew(session_id)
            if not (retry_safe and attempt == 1):
                raise ToolError(
                    f"{self.label}: the session expired during the call of {name!r} (the server forgot it);"
                    " a new session was started, but the call was not sent again: it may or may not have run"
                    + ("" if attempt == 1 else " (it had been sent again once already)")
                )
        raise AssertionError("unreachable")  # pragma: no cover - the second attempt returns or raises

    def _failed(self, name: str, exc: MCPError) -> ToolError:
        """The tool error a failed call of `name` is (a lost connection leaves the server gone)."""
        if exc.code == types.CONNECTION_CLOSED:
            self.gone = f"the connection closed during a call of {name!r}"
            return ToolError(f"{self.label} is gone: the connection closed during the call")
        return ToolError(f"{self.label}: {exc.error.message}")

    async def _renew(self, lost: str | None) -> None:
        """Replace the session `lost`; when no new one can be started, the connection is gone (a `ToolError`)."""
        assert self.renewal is not None
        await self.renewal.renew(lost)
        if self.renewal.failed is not None:
            self.gone = f"its session expired and no new one could be started: {self.renewal.failed}"
            raise ToolError(f"{self.label} is gone ({self.gone})")

    def _session(self) -> ClientSession:
        assert self.session is not None, "the connection is used before it is open"
        return self.session


@asynccontextmanager
async def open_connection(
    connection: Connection, transport: Transport, init_timeout: float, stderr: Callable[[], str] | None
) -> AsyncIterator[Connection]:
    """Open `connection` on `transport`, initialize it within `init_timeout` seconds, yield it, close it.

    Raises:
        MCPServerError: the server could not be started, closed the connection or failed before it
            answered ``initialize``, or did not answer in time; the message quotes `stderr()` (read
            once the process has been stopped), when there is one.
    """
    ready = False
    try:
        async with (
            transport() as (read, write),
            ClientSession(
                read,
                write,
                message_handler=connection.on_message,
                logging_callback=connection.heard.log,
                log_level=LOG_LEVEL,
            ) as s,
        ):
            with trio.move_on_after(init_timeout) as waited:
                await s.initialize()
            if waited.cancelled_caught:
                raise _NotReady(f"did not answer initialize within {init_timeout:g} s (init_timeout)")
            connection.session, ready = s, True
            try:
                yield connection
            finally:
                if connection.renewal is None or not connection.renewal.renewing:
                    connection.gone = connection.gone or "it was closed"
    except BaseException as exc:  # the SDK's nurseries wrap everything in groups: take the one error out
        leaf = single(exc)
        if ready:
            if leaf is exc:
                raise
            raise leaf from leaf.__cause__  # noqa: ASYNC104 - the group's one error, a Cancelled included, raised itself
        reason = leaf.reason if isinstance(leaf, _NotReady) else _failure(leaf)
        if reason is None:
            raise leaf from None  # noqa: ASYNC104 - _failure names no reason for Cancelled: it is raised itself
        quoted = "" if stderr is None else _quoted(stderr())
        raise MCPServerError(f"{connection.label} {reason}{quoted}") from None  # noqa: ASYNC104 - not a Cancelled


class _NotReady(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _failure(exc: BaseException) -> str | None:
    """Why the server never became ready, or `None` when `exc` is not the server's doing (a cancellation)."""
    if isinstance(exc, MCPError):
        return f"closed the connection before it answered initialize ({exc.error.message})"
    if isinstance(exc, OSError):
        return f"could not be started: {exc.strerror or exc}"
    if isinstance(exc, Exception):
        return f"failed before it answered initialize: {type(exc).__name__}: {exc}"
    return None


def _quoted(stderr: str) -> str:
    return f"; its stderr ends: {stderr!r}" if stderr else "; it wrote nothing to stderr"


def single(exc: BaseException) -> BaseException:
    """The one exception inside nested single-member exception groups (`exc` itself otherwise)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def tail(text: str, lines: int = 10, chars: int = 2000) -> str:
    """The last `lines` lines of `text`, at most `chars` characters, stripped."""
    return "\n".join(text.strip().splitlines()[-lines:])[-chars:]
