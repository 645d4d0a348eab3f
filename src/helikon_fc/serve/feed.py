"""`Feed`: the envelopes of a run while this process drives it, for the streams that follow it live."""

from __future__ import annotations

import trio

from .event_log import Envelope


class Feed:
    """The envelopes one stretch of a run published (a start, or a resume), after position `base`.

    Every envelope here was logged before it was published, so a stream can read the log up to `base` and
    follow the feed from there. `status` is set when the stretch ends (the run finished, paused, was
    cancelled or interrupted); no envelope comes after it.
    """

    __slots__ = ("_changed", "base", "envelopes", "status")

    def __init__(self, base: int) -> None:
        self.base = base
        self.envelopes: list[Envelope] = []
        self.status: str | None = None
        self._changed = trio.Event()

    @property
    def last(self) -> int:
        """The last position published (`base` when none was)."""
        return self.base + len(self.envelopes)

    def publish(self, envelope: Envelope) -> None:
        """Add the next envelope and wake the streams waiting for it."""
        self.envelopes.append(envelope)
        self._wake()

    def close(self, status: str) -> None:
        """End the stretch with `status` and wake the streams, which end after its last envelope."""
        self.status = status
        self._wake()

    def since(self, after: int) -> list[Envelope]:
        """The envelopes after position `after` (which is at least `base`)."""
        return self.envelopes[after - self.base :]

    async def wait_beyond(self, position: int) -> None:  # noqa: ASYNC910 - the `if` or the loop checkpoints
        """Return once an envelope after `position` is published, or the stretch has ended."""
        if self.last > position or self.status is not None:
            await trio.lowlevel.checkpoint()
        while self.last <= position and self.status is None:
            await self._changed.wait()

    async def wait_closed(self) -> None:
        """Return once the stretch has ended."""
        await trio.lowlevel.checkpoint()
        while self.status is None:
            await self._changed.wait()

    def _wake(self) -> None:
        changed, self._changed = self._changed, trio.Event()
        changed.set()
