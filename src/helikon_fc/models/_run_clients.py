"""Who builds and who closes the HTTP clients a provider's model makes for itself (every provider's rule).

A client holds a connection pool (and, for HTTPS, an SSL context that costs tens of milliseconds to
build), so a model builds one and reuses it. Its connections belong to the trio run that opened them,
and the SDKs' close-on-garbage-collection only works under asyncio, so each client is tied to one run
and closed by that run:

- `RunClients.get` builds a client the first time a run asks and starts a trio *system task* that owns
  it: the task sleeps until the run's main task has returned, then closes the client (trio cancels
  system tasks then and waits for them), so a run never ends with an open socket;
- `RunClients.close` closes the current run's client early (``model.aclose()`` / ``async with``);
- a model dropped mid-run (garbage-collected) has its client closed then, not at the end of the run,
  so a long-lived run that makes a model per request does not pile up open clients.

Two runs (in two threads, or one after the other) get two clients; neither touches the other's.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

import attrs
import trio

C = TypeVar("C")

_CLOSE_TIMEOUT = 5.0
"""How long closing a response or a client may take when the caller has been cancelled (seconds)."""


async def close_shielded(close: Callable[[], Awaitable[object]]) -> None:
    """Run `close` even if the caller is being cancelled, bounded by `_CLOSE_TIMEOUT`."""
    with trio.CancelScope(deadline=trio.current_time() + _CLOSE_TIMEOUT, shield=True):
        await close()


@attrs.define(eq=False)
class _Owned(Generic[C]):
    client: C
    scope: trio.CancelScope = attrs.Factory(trio.CancelScope)


class RunClients(Generic[C]):
    """One client per trio run, built by `build` on first use and closed when the run ends (or on `close`).

    Args:
        build: makes a new client (the caller closes it).
        is_closed: whether a client was closed (behind our back: the next `get` builds a fresh one).
        close: closes a client.
        name: the provider, for the system task's name (``"helikon_fc.openai"``).
    """

    __slots__ = ("__weakref__", "_build", "_close", "_is_closed", "_lock", "_name", "_runs")

    def __init__(
        self,
        build: Callable[[], C],
        *,
        is_closed: Callable[[C], bool],
        close: Callable[[C], Awaitable[object]],
        name: str,
    ) -> None:
        self._build = build
        self._is_closed = is_closed
        self._close = close
        self._name = name
        self._runs: dict[trio.lowlevel.TrioToken, _Owned[C]] = {}
        self._lock = threading.Lock()

    def get(self) -> C:
        """The current run's client, built (and handed to a closing system task) on first use."""
        token = trio.lowlevel.current_trio_token()
        with self._lock:
            owned = self._runs.get(token)
            if owned is not None and not self._is_closed(owned.client):
                return owned.client
            if owned is not None:
                owned.scope.cancel()  # closed behind our back: let its task finish
            owned = _Owned(self._build())
            self._runs[token] = owned
        trio.lowlevel.spawn_system_task(
            _own, self._runs, self._lock, token, owned, self._close, name=f"{self._name}: close the run's client"
        )
        weakref.finalize(self, _release, token, owned.scope)
        return owned.client

    async def close(self) -> None:
        """Close the current run's client now, if one was built (a later call builds a fresh one)."""
        token = trio.lowlevel.current_trio_token()
        with self._lock:
            owned = self._runs.pop(token, None)
        if owned is None:
            await trio.lowlevel.checkpoint()
            return
        owned.scope.cancel()
        client, close = owned.client, self._close
        await close_shielded(lambda: close(client))


def _release(token: trio.lowlevel.TrioToken, scope: trio.CancelScope) -> None:
    """The owner was garbage-collected: wake its system task so the client closes now (a no-op after the run)."""
    with contextlib.suppress(trio.RunFinishedError):
        token.run_sync_soon(scope.cancel)


async def _own(
    runs: dict[trio.lowlevel.TrioToken, _Owned[C]],
    lock: threading.Lock,
    token: trio.lowlevel.TrioToken,
    owned: _Owned[C],
    close: Callable[[C], Awaitable[object]],
) -> None:
    """Hold the client until the run ends (or `close` or the owner's collection cancels us), then close it.

    It holds no reference to the `RunClients` (or the model), so they can be collected while it waits.
    """
    try:
        with owned.scope:
            await trio.sleep_forever()
    finally:
        with lock:
            if runs.get(token) is owned:
                del runs[token]
        try:
            await close_shielded(lambda: close(owned.client))  # noqa: ASYNC102 - close_shielded shields, with a deadline
        except Exception:  # a system task must not crash the run; the client is gone anyway
            pass
