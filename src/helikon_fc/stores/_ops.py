"""What every backend does, as plain synchronous operations, and the checks and encodings they share.

A backend implements `StoreOps` with blocking calls; `StoreBase` (in `_base.py`) runs them where the
backend says (inline for memory, in a worker thread for a database) and validates the arguments
once for all of them.
"""

from __future__ import annotations

import abc
import typing
from collections.abc import Sequence

from ..core import Item, WireFormatError, from_json, to_json
from ..shell.durable.storage import (
    RUN_STATUSES,
    RunRecord,
    RunRecordConflict,
    RunStatus,
    RunSummary,
    SessionSnapshot,
    StoreError,
)

SCHEMA_VERSION = 1
"""The version of the tables this helikon_fc writes; a database holding a newer one is refused."""


class StoreOps(abc.ABC):
    """A backend's blocking operations; each one is a single transaction."""

    @abc.abstractmethod
    def append_items(self, session_id: str, items: Sequence[Item]) -> int:
        """Append `items` to the session, all or none; return the watermark (item count) after them."""

    @abc.abstractmethod
    def read_items(self, session_id: str, since: int) -> tuple[Item, ...]:
        """The session's items from position `since` (0-based) on."""

    @abc.abstractmethod
    def snapshot(self, session_id: str) -> SessionSnapshot:
        """Every item of the session and its watermark, read in one transaction."""

    @abc.abstractmethod
    def create_run(self, run_id: str, agent: str, now: float, records: Sequence[RunRecord] = ()) -> None:
        """Register a run with `records` (numbered from 0) as its first; `RunRecordConflict` if the id is taken."""

    @abc.abstractmethod
    def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: RunStatus, now: float) -> None:
        """Append contiguous records and set the status, or raise `RunNotFound` / `RunRecordConflict`."""

    @abc.abstractmethod
    def read_run_records(self, run_id: str, since: int) -> tuple[RunRecord, ...]:
        """The run's records with ``seq > since``, or raise `RunNotFound`."""

    @abc.abstractmethod
    def run_summary(self, run_id: str) -> RunSummary:
        """One run's summary, or raise `RunNotFound`."""

    @abc.abstractmethod
    def runs(self) -> tuple[RunSummary, ...]:
        """Every run, newest first."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release what the backend holds."""


def encode_item(session_id: str, index: int, item: Item) -> str:
    """`item` in the wire format, checked to be valid UTF-8 text (what every backend stores).

    Raises:
        StoreError: the item cannot be written (the message names the session and the item's place in the batch).
    """
    try:
        text = to_json(item)
        text.encode("utf-8")
    except (WireFormatError, UnicodeEncodeError) as exc:
        raise StoreError(f"session {session_id!r}: item {index} of the batch cannot be stored: {exc}") from exc
    return text


def decode_item(session_id: str, text: str) -> Item:
    """An item read back from the store.

    Raises:
        StoreError: the stored text is not an item in the wire format this helikon_fc reads.
    """
    try:
        item: Item = from_json(Item, text)
    except WireFormatError as exc:
        raise StoreError(f"session {session_id!r}: a stored item cannot be read: {exc}") from exc
    return item


ITEM_TYPES: tuple[type, ...] = typing.get_args(Item)


def check_items(items: Sequence[Item]) -> tuple[Item, ...]:
    """`items` as a tuple, each checked to be an `Item` (a str or a dict would be stored, then unreadable)."""
    batch = tuple(items)
    for index, item in enumerate(batch):
        if not isinstance(item, ITEM_TYPES):
            names = ", ".join(kind.__name__ for kind in ITEM_TYPES)
            raise TypeError(f"items[{index}] must be an Item ({names}), got {type(item).__name__}")
    return batch


def check_id(argument: str, value: object) -> str:
    """`value` if it is a non-empty string, else a `TypeError` / `ValueError` naming `argument`."""
    if not isinstance(value, str):
        raise TypeError(f"{argument} must be a str, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{argument} must be a non-empty str, got ''")
    return value


def check_since(value: object, *, least: int, what: str) -> int:
    """`value` if it is an int no smaller than `least`, else an error naming ``since``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"since must be {what}, got {type(value).__name__}")
    if value < least:
        raise ValueError(f"since must be {what}, got {value}")
    return value


def check_status(status: object) -> RunStatus:
    """`status` if it is one of `RUN_STATUSES`, else a `ValueError` listing them."""
    for known in RUN_STATUSES:
        if status == known and isinstance(status, str):
            return known
    raise ValueError(f"status must be one of {', '.join(map(repr, RUN_STATUSES))}, got {status!r}")


def check_records(run_id: str, records: Sequence[RunRecord]) -> tuple[RunRecord, ...]:
    """`records` as a tuple, checked to be `RunRecord`s numbered one after another."""
    batch = tuple(records)
    for index, record in enumerate(batch):
        if not isinstance(record, RunRecord):
            raise TypeError(f"records[{index}] must be a RunRecord, got {type(record).__name__}")
        if isinstance(record.seq, bool) or not isinstance(record.seq, int) or record.seq < 0:
            raise ValueError(f"records[{index}].seq must be an int >= 0, got {record.seq!r}")
        for field in ("kind", "body"):
            if not isinstance(getattr(record, field), str):
                raise TypeError(f"records[{index}].{field} must be a str, got {type(getattr(record, field)).__name__}")
        if index and record.seq != batch[0].seq + index:
            raise ValueError(
                f"run {run_id!r}: records must be numbered one after another; records[{index}].seq is "
                f"{record.seq}, expected {batch[0].seq + index}"
            )
    return batch


def first_seq(run_id: str, records: Sequence[RunRecord], expected: int = 0) -> None:
    """Raise `RunRecordConflict` unless `records` (if any) start at seq `expected`, the run's next one."""
    if records and records[0].seq != expected:
        raise RunRecordConflict(
            f"run {run_id!r}: the next record is seq {expected}, got {records[0].seq}; nothing was written"
        )
