"""`Conversation`: an immutable sequence of items that grows in O(1) per appended item.

A run's conversation only ever grows. Copying it into a new tuple on every turn would make a
long run quadratic, so a `Conversation` is a *bounded view* of an append-only log: the view
records how many items of the log it covers and never shows more. `extend` appends to the
shared log in place when the view is the log's tip (nobody else can see the new items, since
every existing view stops at its own length). Extending an older view with the very items the
log already continues with shares the log too (`transition` extends the context's conversation
to build its request, then the driver extends it with the same `conversation_appends`); only
extending an older view with *different* items copies its prefix (a branch). Every
`Conversation` a caller holds therefore keeps its value forever: it is observably immutable,
and extending is amortised O(len(new items)).

Each view also knows where its last compaction marker is (`last_compaction`), found while
extending, so asking costs nothing however long the log grows.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import overload

from .items import Compacted, Item


class Conversation(Sequence[Item]):
    """An immutable, cheaply extended sequence of `Item`s."""

    __slots__ = ("_len", "_log", "_mark")

    _log: list[Item]
    _len: int
    _mark: int

    def __init__(self, items: Iterable[Item] = ()) -> None:
        self._log = list(items)
        self._len = len(self._log)
        self._mark = _last_mark(self._log, 0, -1)

    @classmethod
    def _view(cls, log: list[Item], length: int, mark: int) -> Conversation:
        view = cls.__new__(cls)
        view._log = log
        view._len = length
        view._mark = mark
        return view

    @property
    def last_compaction(self) -> int | None:
        """The index of the last `Compacted` marker in this conversation, or `None` when it has none."""
        return self._mark if self._mark >= 0 else None

    def extend(self, items: Sequence[Item]) -> Conversation:
        """Return a conversation holding these items followed by `items`; `self` is unchanged."""
        if not items:
            return self
        log = self._log
        end = self._len + len(items)
        mark = _last_mark(items, self._len, self._mark)
        if len(log) != self._len:
            # (List equality compares item by item, each first by identity: `a is b or a == b`.)
            if len(log) >= end and log[self._len : end] == (items if type(items) is list else list(items)):
                # The log already continues with these very items (the view was extended the same way
                # before, e.g. by `transition` building its request): share it, nothing to copy.
                return Conversation._view(log, end, mark)
            # An older view is being extended differently: branch off a private copy of its prefix.
            log = log[: self._len]
        log.extend(items)
        return Conversation._view(log, len(log), mark)

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> Item: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Item, ...]: ...
    def __getitem__(self, index: int | slice) -> Item | tuple[Item, ...]:
        if isinstance(index, slice):
            return tuple(self._log[: self._len][index])
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("conversation index out of range")
        return self._log[index]

    def __iter__(self) -> Iterator[Item]:
        return islice(self._log, self._len)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Conversation):
            return NotImplemented
        if self._len != other._len:
            return False
        if self._log is other._log:
            return True
        return all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Conversation({list(self)!r})"


def _last_mark(items: Iterable[Item], offset: int, mark: int) -> int:
    """The index (counted from `offset`) of the last `Compacted` among `items`, else `mark`."""
    index = offset
    for item in items:
        if type(item) is Compacted:
            mark = index
        index += 1
    return mark
