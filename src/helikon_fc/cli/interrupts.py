"""Ctrl-C for commands inside ``trio.run``: received by a task, never raised wherever the code happens to be."""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

import trio

T = TypeVar("T")


async def until_interrupted(main: Callable[[], Awaitable[T]]) -> tuple[T] | None:
    """``(await main(),)``, or `None` when Ctrl-C stopped it.

    The signal is received by a task, which cancels `main` at its next checkpoint. A `KeyboardInterrupt`
    raised wherever the interpreter happened to be could land in trio's own bookkeeping (seen: a
    `TrioInternalError` while async generators were finalized, exit 1) or inside a run, which then ended as a
    failed run instead of stopping the command. The caller raises `KeyboardInterrupt` once outside
    ``trio.run``, where the CLI turns it into one line and exit status 130.
    """
    finished: list[T] = []
    async with trio.open_nursery() as nursery:

        async def work() -> None:
            finished.append(await main())
            nursery.cancel_scope.cancel()

        async def watch(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
            with trio.open_signal_receiver(signal.SIGINT) as signals:
                task_status.started()
                async for _ in signals:
                    nursery.cancel_scope.cancel()
                    return

        await nursery.start(watch)  # the receiver is open before `main` shows anything (start_soon: in either order)
        nursery.start_soon(work)
    return (finished[0],) if finished else None
