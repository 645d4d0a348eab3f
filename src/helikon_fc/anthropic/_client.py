"""Who builds and who closes the ``AsyncAnthropic`` clients an `AnthropicModel` makes for itself.

The rules are `OpenAIModel`'s (``docs/providers.md``, "Who closes what"): a client's connections
belong to the trio run that opened them and the SDK's close-on-garbage-collection only works under
asyncio, so a model builds one client per trio run, on first use, and hands it to a trio *system
task* that closes it when the run's main task has returned; `RunClients.close` closes it earlier,
and a model garbage-collected mid-run has its client closed then.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import TypedDict

import attrs
import trio
from anthropic import AsyncAnthropic, not_given

_CLOSE_TIMEOUT = 5.0
"""How long closing a response or a client may take when the caller has been cancelled (seconds)."""


async def close_shielded(close: Callable[[], Awaitable[None]]) -> None:
    """Run `close` even if the caller is being cancelled, bounded by `_CLOSE_TIMEOUT`."""
    with trio.CancelScope(deadline=trio.current_time() + _CLOSE_TIMEOUT, shield=True):
        await close()


class ConnectionOptions(TypedDict, total=False):
    """How `AnthropicModel` reaches the server: a ready ``client``, or the options to build one from (all optional).

    Attributes:
        client: A ready ``anthropic.AsyncAnthropic`` to use; the model never closes it. Exclusive
            with the options below.
        api_key: The API key; defaults to ``ANTHROPIC_API_KEY``. Without one, a custom ``base_url``
            is called with a placeholder key (a local server ignores it).
        base_url: The API's root, e.g. ``"http://127.0.0.1:8000"`` (the SDK adds ``/v1/messages``);
            defaults to ``ANTHROPIC_BASE_URL``, then to Anthropic's.
        timeout: The SDK's request timeout in seconds (`None`: the SDK's default).
        max_retries: The SDK's own retries; 0 by default (see `RetryingModel`).
        default_headers: Extra headers sent with every request (``anthropic-beta`` for instance).
    """

    client: AsyncAnthropic | None
    api_key: str | None
    base_url: str | None
    timeout: float | None
    max_retries: int
    default_headers: Mapping[str, str] | None


CONNECTION_OPTIONS: tuple[str, ...] = tuple(ConnectionOptions.__annotations__)
"""The keys of `ConnectionOptions`, in declaration order."""


@attrs.frozen(kw_only=True)
class ClientOptions:
    """What a model needs to build its own clients: the key and base URL it settled on, and the other options."""

    api_key: str
    base_url: str | None
    timeout: float | None = None
    max_retries: int = 0
    default_headers: tuple[tuple[str, str], ...] = ()

    def build(self) -> AsyncAnthropic:
        """A new client; the caller closes it."""
        return AsyncAnthropic(
            api_key=self.api_key,
            base_url=self.base_url,
            timeout=self.timeout if self.timeout is not None else not_given,
            max_retries=self.max_retries,
            default_headers=dict(self.default_headers) or None,
        )


@attrs.define(eq=False)
class _Owned:
    client: AsyncAnthropic
    scope: trio.CancelScope = attrs.Factory(trio.CancelScope)


class RunClients:
    """One client per trio run, built on first use and closed when the run ends (or on `close`)."""

    __slots__ = ("__weakref__", "_lock", "_options", "_runs")

    def __init__(self, options: ClientOptions) -> None:
        self._options = options
        self._runs: dict[trio.lowlevel.TrioToken, _Owned] = {}
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str | None:
        """The base URL the clients are built with (`None`: the SDK's default)."""
        return self._options.base_url

    def get(self) -> AsyncAnthropic:
        """The current run's client, built (and handed to a closing system task) on first use."""
        token = trio.lowlevel.current_trio_token()
        with self._lock:
            owned = self._runs.get(token)
            if owned is not None and not owned.client.is_closed():
                return owned.client
            if owned is not None:
                owned.scope.cancel()
            owned = _Owned(self._options.build())
            self._runs[token] = owned
        trio.lowlevel.spawn_system_task(
            _own, self._runs, self._lock, token, owned, name="helikon_fc.anthropic: close the run's client"
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
    runs: dict[trio.lowlevel.TrioToken, _Owned], lock: threading.Lock, token: trio.lowlevel.TrioToken, owned: _Owned
) -> None:
    """Hold the client until the run ends (or `close` or the owner's collection cancels us), then close it."""
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
