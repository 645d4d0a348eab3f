"""`WorkerGate`: what a sync tool's worker thread may still reach of its run, and the gated views it reaches it through.

A sync tool runs on a worker thread; its `RunContext` is the run's, with the state, signals,
cancellation and session replaced by views that pass every use through the gate (`through_gate`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

import trio

from ...core import Item, JsonValue
from ..durable.storage import Session, SessionSnapshot
from .actions import ActionsHandle
from .cancel import CancelToken, on_trio_thread
from .run_state import RunState

T = TypeVar("T")


class WorkerGate:
    """What a sync tool's worker thread may still reach of its run, and on which thread.

    While the gate is open, every use of the run's state, signals, cancellation and session runs on the
    trio thread (`trio.from_thread.run_sync`), never beside it on the worker thread. The trio side calls
    `close()` when the call is over (it returned, failed, timed out or was cancelled and its thread
    abandoned); from then on every use raises `RuntimeError` and changes nothing, whether the run goes
    on or has ended.

    Args:
        label: What the call is, for the error (``"tool 'x' (call 'c1')"``).
    """

    __slots__ = ("_label", "_open", "_token")

    def __init__(self, label: str) -> None:
        self._label = label
        self._open = True
        self._token = trio.lowlevel.current_trio_token()

    @property
    def is_open(self) -> bool:
        """Whether the call is still running."""
        return self._open

    def close(self) -> None:
        """End the call: every later use raises. Call it from the trio thread."""
        self._open = False

    def run(self, fn: Callable[[], T]) -> T:
        """`fn()` on the trio thread, while the gate is open.

        Raises:
            RuntimeError: the gate is closed (the call is over), or the run has ended.
        """
        if not self._open:
            raise self._over()
        if on_trio_thread(self._token):
            return fn()
        try:
            return trio.from_thread.run_sync(self._run_open, fn, trio_token=self._token)
        except trio.RunFinishedError:
            raise self._over() from None

    def _run_open(self, fn: Callable[[], T]) -> T:
        if not self._open:  # closed while the request crossed over to the trio thread
            raise self._over()
        return fn()

    def _over(self) -> RuntimeError:
        return RuntimeError(
            f"{self._label} is over: its context no longer accepts use from its worker thread "
            "(the call returned, failed, timed out or was cancelled)"
        )


class GatedState(RunState):
    """A run's `RunState` as a worker thread sees it: every use through a `WorkerGate`."""

    __slots__ = ("_gate", "_inner")

    def __init__(self, inner: RunState, gate: WorkerGate) -> None:  # no super().__init__: `inner` holds the values
        self._inner = inner
        self._gate = gate

    def get(self, key: str) -> JsonValue | None:
        return self._gate.run(lambda: self._inner.get(key))

    def set(self, key: str, value: JsonValue) -> None:
        self._gate.run(lambda: self._inner.set(key, value))

    def keys(self) -> tuple[str, ...]:
        return self._gate.run(self._inner.keys)

    def snapshot(self) -> dict[str, JsonValue]:
        return self._gate.run(self._inner.snapshot)

    def __contains__(self, key: object) -> bool:
        return self._gate.run(lambda: key in self._inner)

    def __repr__(self) -> str:
        return "<RunState of a worker thread>"


class GatedActions(ActionsHandle):
    """A run's `ActionsHandle` as a worker thread sees it."""

    __slots__ = ("_gate", "_inner")

    def __init__(self, inner: ActionsHandle, gate: WorkerGate) -> None:
        self._inner = inner
        self._gate = gate

    def escalate(self) -> None:
        self._gate.run(self._inner.escalate)

    @property
    def escalated(self) -> bool:
        return self._gate.run(lambda: self._inner.escalated)

    def reset(self) -> None:
        self._gate.run(self._inner.reset)


class GatedCancelToken(CancelToken):
    """A run's `CancelToken` as a worker thread sees it: it may cancel the run while its call runs."""

    __slots__ = ("_gate", "_inner")

    def __init__(self, inner: CancelToken, gate: WorkerGate) -> None:
        self._inner = inner
        self._gate = gate

    @property
    def cancelled(self) -> bool:
        return self._inner.cancelled

    @property
    def reason(self) -> str | None:
        return self._inner.reason

    def cancel(self, reason: str = "run cancelled") -> None:
        self._gate.run(lambda: self._inner.cancel(reason))

    def child(self) -> CancelToken:
        return self._gate.run(self._inner.child)

    @contextmanager
    def attach(self, scope: trio.CancelScope) -> Iterator[None]:
        raise RuntimeError("a cancel scope can be attached only from the trio thread, not from a worker thread")
        yield  # pragma: no cover


class GatedSession:
    """A run's session as a sync tool's context carries it: usable while the call runs, refused after.

    The session is async, so only async code (on the trio thread) can use it; each call first checks
    the gate, so a call that is over cannot change the history."""

    __slots__ = ("_gate", "_inner")

    def __init__(self, inner: Session, gate: WorkerGate) -> None:
        self._inner = inner
        self._gate = gate

    @property
    def session_id(self) -> str:
        return self._inner.session_id

    async def append(self, items: Sequence[Item]) -> int:
        self._gate.run(_nothing)
        return await self._inner.append(items)

    async def items(self, since: int | None = None) -> tuple[Item, ...]:
        self._gate.run(_nothing)
        return await self._inner.items(since)

    async def snapshot(self) -> SessionSnapshot:
        self._gate.run(_nothing)
        return await self._inner.snapshot()


def _nothing() -> None:
    """What `GatedSession` runs through the gate: only its check that the call is still open."""
