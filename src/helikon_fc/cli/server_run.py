"""Running a long-lived server command (`helikon serve`, `helikon mcp serve`) until it stops."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable

from .terminal import EXIT_COMPLETED, EXIT_FAILED


def run_server(main: Callable[[], Awaitable[None]], command: str) -> int:
    """``trio.run(main)``; a server that cannot run (bad address, store, argument) is one line on stderr.

    Returns the exit status: completed when the server stopped, failed when it could not run. Ctrl-C and
    anything unforeseen propagate to the CLI's `main`, which reports them without a traceback.
    """
    import trio  # the library loads when a command runs, not for --help

    from ..shell.durable.storage import StoreError
    from .interrupts import until_interrupted

    try:
        stopped = trio.run(until_interrupted, main)
    except BaseException as exc:  # noqa: ASYNC103 - outside trio.run: no Cancelled reaches here
        failure = _single(exc)  # a nursery wraps the server's failure in a group: take the one error out
        if not isinstance(failure, TypeError | ValueError | StoreError | OSError):
            raise
        print(f"{command}: the server could not run: {failure}", file=sys.stderr)
        return EXIT_FAILED  # noqa: ASYNC104 - outside trio.run: no Cancelled reaches here
    if stopped is None:
        raise KeyboardInterrupt  # outside trio: the CLI says "interrupted (Ctrl-C)" and exits 130
    return EXIT_COMPLETED


def _single(exc: BaseException) -> BaseException:
    """The one exception inside nested single-member exception groups (`exc` itself otherwise)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc
