"""A streamable-HTTP session the server may forget: noticed by its 404s, and started again.

The server of a streamable-HTTP session may forget it (it restarted, or dropped it when idle); it
then answers every request naming the session with 404, and the client has to initialize a new
session. `SessionWatch` sees that at the HTTP level (a hook on the client's responses), and
`open_renewable` keeps the connection's session in a task of its own that opens a new one when asked:

- the session lives in the nursery of the block that opened the connection (``async with server:``,
  or a run), entered and left by one task, so a renewal never moves a session between tasks;
- `Renewal.renew` is what a call that met the 404 awaits; calls that meet it together share one renewal;
- a new session that cannot be started leaves the connection gone, saying why.

What a call does then is `Connection.call`'s: it never sends a call again unless the tool says a call
changes nothing (``readOnlyHint`` or ``idempotentHint``), and then only once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import httpx2
import trio

from ._errors import MCPServerError

SESSION_HEADER = "mcp-session-id"


class SessionWatch:
    """What one connection's HTTP responses say about its sessions (an ``event_hooks`` response hook)."""

    def __init__(self) -> None:
        self.current: str | None = None
        """The id of the session the server gave last."""
        self._lost: set[str] = set()

    async def on_response(self, response: httpx2.Response) -> None:
        """Note a new session's id, or a 404 for a request that named a session (the server forgot it)."""
        await trio.lowlevel.checkpoint()
        named = response.request.headers.get(SESSION_HEADER)
        if response.status_code == 404 and named:
            self._lost.add(named)
        elif response.status_code < 400 and (given := response.headers.get(SESSION_HEADER)):
            self.current = given

    def lost(self, session: str | None) -> bool:
        """Whether the server answered 404 for the session `session`."""
        return session is not None and session in self._lost


class Renewal:
    """Asks the task that keeps the session (`open_renewable`) for a new one, and waits for it."""

    def __init__(self, watch: SessionWatch) -> None:
        self.watch = watch
        self.wanted = trio.Event()
        self.done = trio.Event()
        self.failed: str | None = None
        """Why no new session could be started (the connection is gone then)."""

    @property
    def renewing(self) -> bool:
        """Whether the session is being replaced (its old one may be closed already)."""
        return self.wanted.is_set()

    async def settled(self) -> None:
        """Wait until no renewal is under way."""
        if self.wanted.is_set():
            await self.done.wait()
        else:
            await trio.lowlevel.checkpoint()

    async def renew(self, lost: str | None) -> None:
        """Have a new session replace the session `lost` (at once when another call has had it replaced)."""
        if self.watch.current != lost:
            await trio.lowlevel.checkpoint()
            return
        done = self.done
        self.wanted.set()
        await done.wait()


@asynccontextmanager
async def open_renewable(
    renewal: Renewal, open_session: Callable[[], AbstractAsyncContextManager[object]]
) -> AsyncIterator[None]:
    """Keep a session (`open_session`: one opened and initialized) for the block, a new one whenever asked.

    Raises:
        MCPServerError: the first session could not be started (see `open_connection`).
    """
    async with trio.open_nursery() as nursery:
        await nursery.start(_keep, renewal, open_session)
        try:
            yield
        finally:
            nursery.cancel_scope.cancel()


async def _keep(
    renewal: Renewal,
    open_session: Callable[[], AbstractAsyncContextManager[object]],
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """The session's task: open it, report it, and open a new one each time one is wanted."""
    started = False
    while True:
        await trio.lowlevel.checkpoint()
        try:
            async with open_session():
                if not started:
                    task_status.started()
                    started = True
                done, renewal.done, renewal.wanted = renewal.done, trio.Event(), trio.Event()
                done.set()
                await renewal.wanted.wait()
        except MCPServerError as exc:
            if not started:
                raise
            renewal.failed = str(exc)
            renewal.done.set()
            return
