"""Who builds and who closes the ``AsyncOpenAI`` clients a model makes for itself.

Building a client costs ~27 ms (it loads the system's CA certificates into an SSL context), so a
model builds one and reuses it. A client's connections belong to the trio run that opened them,
and the SDK's close-on-garbage-collection only works under asyncio, so each client is tied to one
run and closed by that run:

- `RunClients.get` builds a client the first time a run asks and starts a trio *system task* that
  owns it: the system task sleeps until the run's main task has returned, then closes the client
  (trio cancels system tasks then and waits for them), so a run never ends with an open socket;
- `RunClients.close` closes the current run's client early (``model.aclose()`` / ``async with``);
- a model dropped mid-run (garbage-collected) has its clients closed then, not at the end of the
  run, so a long-lived run that makes a model per request does not pile up open clients.

Two runs (in two threads, or one after the other) get two clients; neither touches the other's.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import TypedDict

import attrs
import trio
from openai import AsyncOpenAI, not_given

_CLOSE_TIMEOUT = 5.0
"""How long closing a response or a client may take when the caller has been cancelled (seconds)."""


async def close_shielded(close: Callable[[], Awaitable[None]]) -> None:
    """Run `close` even if the caller is being cancelled, bounded by `_CLOSE_TIMEOUT`."""
    with trio.CancelScope(deadline=trio.current_time() + _CLOSE_TIMEOUT, shield=True):
        await close()


class ConnectionOptions(TypedDict, total=False):
    """How `OpenAIModel.chat` and `OpenAIModel.responses` reach the server: a ready ``client``, or the
    options to build one from (every key optional).

    Attributes:
        client: A ready ``AsyncOpenAI`` to use; the model never closes it. Exclusive with the
            connection options below.
        api_key: The API key; defaults to ``OPENAI_API_KEY``. Without one, a custom ``base_url``
            is called with a placeholder key (local servers ignore it).
        base_url: The API's base URL, e.g. ``"http://127.0.0.1:8000/v1"``; defaults to
            ``OPENAI_BASE_URL``, then to OpenAI's.
        organization: The OpenAI organization id, if any.
        project: The OpenAI project id, if any.
        timeout: The SDK's request timeout in seconds (`None`: the SDK's default).
        max_retries: The SDK's own retries; 0 by default (see `RetryingModel`).
        default_headers: Extra headers sent with every request.
    """

    client: AsyncOpenAI | None
    api_key: str | None
    base_url: str | None
    organization: str | None
    project: str | None
    timeout: float | None
    max_retries: int
    default_headers: Mapping[str, str] | None


CONNECTION_OPTIONS: tuple[str, ...] = tuple(ConnectionOptions.__annotations__)
"""The keys of `ConnectionOptions`, in declaration order."""


@attrs.frozen(kw_only=True)
class ClientOptions:
    """What a model needs to build its own ``AsyncOpenAI`` clients: the key and base URL it settled on,
    and the rest of the caller's `ConnectionOptions` (it has no ``client``)."""

    api_key: str
    base_url: str | None
    connection: ConnectionOptions = attrs.field(hash=False)

    def build(self) -> AsyncOpenAI:
        """A new client; the caller closes it."""
        options = self.connection
        timeout = options.get("timeout")
        headers = options.get("default_headers")
        return AsyncOpenAI(
            api_key=self.api_key,
            base_url=self.base_url,
            organization=options.get("organization"),
            project=options.get("project"),
            timeout=timeout if timeout is not None else not_given,
            max_retries=options.get("max_retries", 0),
            default_headers=dict(headers) if headers else None,
        )


@attrs.define(eq=False)
class _Owned:
    client: AsyncOpenAI
    scope: trio.CancelScope = attrs.Factory(trio.CancelScope)


class RunClients:
    """One client per trio run, built on first use and closed when the run ends (or on `close`)."""

    __slots__ = ("__weakref__", "_lock", "_options", "_runs")

    def __init__(self, options: ClientOptions) -> None:
        self._options = options
        self._runs: dict[trio.lowlevel.TrioToken, _Owned] = {}
        self._lock = threading.Lock()

    def get(self) -> AsyncOpenAI:
        """The current run's client, built (and handed to a closing system task) on first use."""
        token = trio.lowlevel.current_trio_token()
        with self._lock:
            owned = self._runs.get(token)
            if owned is not None and not owned.client.is_closed():
                return owned.client
            if owned is not None:
                owned.scope.cancel()  # closed behind our back: let its task finish
            owned = _Owned(self._options.build())
            self._runs[token] = owned
        trio.lowlevel.spawn_system_task(
            _own, self._runs, self._lock, token, owned, name="helikon_fc.openai: close the run's client"
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
        await close_shielded(owned.client.close)


def _release(token: trio.lowlevel.TrioToken, scope: trio.CancelScope) -> None:
    """The owner was garbage-collected: wake its system task so the client closes now (a no-op after the run)."""
    with contextlib.suppress(trio.RunFinishedError):
        token.run_sync_soon(scope.cancel)


async def _own(
    runs: dict[trio.lowlevel.TrioToken, _Owned],
    lock: threading.Lock,
    token: trio.lowlevel.TrioToken,
    owned: _Owned,
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
            await close_shielded(owned.client.close)  # noqa: ASYNC102 - close_shielded shields, with a deadline
        except Exception:  # a system task must not crash the run; the client is gone anyway
            pass
