"""`InMemorySession`: the `Session` a run context has unless it is given one (``ctx.session``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import trio

from ...core import Item
from ..durable.storage import SessionSnapshot


class InMemorySession:
    """A `Session` kept in memory: what earlier runs on this context said.

    `Runner` prepends the history to a run's input and appends the run's new items when it ends.
    Each call runs whole between two trio checkpoints, so concurrent tasks never see half an append.
    For a history that outlives the process, use a store's session (`helikon_fc.stores`).
    """

    __slots__ = ("_items", "_session_id")

    def __init__(self, items: Iterable[Item] = (), *, session_id: str = "memory") -> None:
        # An empty session holds the empty tuple until its first append: every run context has a
        # session, and most never append to theirs.
        self._items: list[Item] | tuple[()] = list(items) or ()
        self._session_id = session_id

    @property
    def session_id(self) -> str:
        """The id this session was given (``"memory"`` unless named)."""
        return self._session_id

    async def append(self, items: Sequence[Item]) -> int:
        """Add `items` at the end; return the watermark (the item count) after them."""
        await trio.lowlevel.checkpoint()
        if isinstance(self._items, tuple):
            self._items = list(items)
        else:
            self._items.extend(items)
        return len(self._items)

    async def items(self, since: int | None = None) -> tuple[Item, ...]:
        """The items appended after watermark `since` (all of them when ``None``), oldest first."""
        if since is not None and (isinstance(since, bool) or not isinstance(since, int) or since < 0):
            raise ValueError(f"since must be a watermark (an int >= 0) or None, got {since!r}")
        await trio.lowlevel.checkpoint()
        return tuple(self._items[since or 0 :])

    async def snapshot(self) -> SessionSnapshot:
        """Every item and the current watermark."""
        await trio.lowlevel.checkpoint()
        return SessionSnapshot(tuple(self._items), len(self._items))

    def __len__(self) -> int:
        return len(self._items)
