"""`TrioPortal`: one long-lived trio run in a thread of its own, where activities run the shell's code.

A worker's sync activities run in a thread pool (temporalio's ``activity_executor``); each hands its
coroutine to the portal and waits for it, heartbeating meanwhile, and cancels it when Temporal
cancels the activity. One trio run for the worker's life (rather than a ``trio.run`` per activity)
keeps what lives per trio run — a simulator model's script position, a connection pool — alive from
one activity to the next, and costs no event-loop start per call.

What the worker keeps open for its life (its agents' MCP servers) is entered by the trio run's main
task before it accepts work and left by the same task when it stops (`TrioPortal(resources=...)`).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

import trio
from temporalio import activity
from temporalio.exceptions import CancelledError

T = TypeVar("T")


class TrioPortal:
    """A trio run in a daemon thread; `run` executes an async function there from any other thread.

    Args:
        resources: opens what the trio run keeps open for its whole life (entered before `start`
            returns, left when `stop` ends the run, both in the run's main task).
    """

    def __init__(self, resources: Callable[[], AbstractAsyncContextManager[object]] | None = None) -> None:
        self._resources = resources or contextlib.nullcontext
        self._failed: BaseException | None = None
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        self._stop: trio.Event | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._serve,), name="helikon-trio", daemon=True)

    def start(self) -> None:
        """Start the trio thread and wait until it accepts work.

        Raises:
            Exception: what opening the resources raised (the trio run has ended then).
        """
        self._thread.start()
        self._ready.wait()
        if self._failed is not None:
            self._thread.join()
            raise self._failed

    def stop(self) -> None:
        """Cancel whatever still runs there and end the trio run."""
        if self._token is not None and self._stop is not None:
            try:
                trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
            except trio.RunFinishedError:
                pass
        self._thread.join()

    async def _serve(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._stop = trio.Event()
        async with contextlib.AsyncExitStack() as stack:
            try:
                await stack.enter_async_context(self._resources())
            except Exception as exc:
                self._failed = exc
                self._ready.set()
                return
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                self._ready.set()
                await self._stop.wait()
                nursery.cancel_scope.cancel()

    def run(
        self,
        fn: Callable[[], Awaitable[T]],
        *,
        heartbeat_every: float,
        tick: Callable[[], None] | None = None,
        tick_every: float | None = None,
    ) -> T:
        """Run `fn()` in the trio thread and return its result, from inside a sync activity.

        While waiting, heartbeat every `heartbeat_every` seconds (so a lost worker's call is retried
        after the heartbeat timeout) and watch for the activity's cancellation, which cancels `fn`
        at the next heartbeat and waits for it to stop before raising.
        `tick` (when given) runs on this thread about every `tick_every` seconds meanwhile (and the
        heartbeats with it: temporalio throttles what it sends).

        Raises:
            temporalio.exceptions.CancelledError: the activity was cancelled.
        """
        assert self._token is not None and self._nursery is not None
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        scope = trio.CancelScope()
        nursery = self._nursery

        async def task() -> None:  # noqa: ASYNC910 - `fn` is the work; a cancelled one ends here at once
            try:
                with scope:
                    future.set_result(await fn())
            except BaseException as exc:  # noqa: ASYNC103 - re-raised below unless an ordinary Exception
                if not future.done():
                    future.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
            if not future.done():
                future.set_exception(CancelledError("cancelled"))

        trio.from_thread.run_sync(nursery.start_soon, task, trio_token=self._token)
        wait = min(heartbeat_every, tick_every) if tick is not None and tick_every is not None else heartbeat_every
        # temporalio raises its CancelledError into this thread wherever it waits; shielded, it is held
        # back to the end of the block, so the cancellation is seen below and reaches the trio code.
        with activity.shield_thread_cancel_exception():
            while True:
                try:
                    return future.result(timeout=wait)
                except concurrent.futures.TimeoutError:
                    if tick is not None:
                        tick()
                    activity.heartbeat()
                    if activity.is_cancelled():
                        trio.from_thread.run_sync(scope.cancel, trio_token=self._token)
                        future.exception()  # wait for it to stop
                        raise CancelledError("activity cancelled") from None
