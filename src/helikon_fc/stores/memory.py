"""`MemoryStore`: sessions and run records in this process's memory (tests, examples, short-lived apps)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TypeVar

import attrs
import trio

from ..core import Item
from ..shell.durable.storage import RunNotFound, RunRecord, RunRecordConflict, RunStatus, RunSummary, SessionSnapshot
from ._base import StoreBase
from ._ops import StoreOps, decode_item, encode_item, first_seq

T = TypeVar("T")


@attrs.define
class _Run:
    agent: str
    status: RunStatus
    created_at: float
    updated_at: float
    order: int
    records: list[RunRecord] = attrs.field(factory=list)

    def summary(self, run_id: str) -> RunSummary:
        last_kind = self.records[-1].kind if self.records else ""
        return RunSummary(
            run_id, self.agent, self.status, len(self.records), last_kind, self.created_at, self.updated_at
        )


class _MemoryOps(StoreOps):
    """Items are kept in the wire format, as the databases keep them: what comes back is a copy,
    and an item a database could not store fails here too."""

    def __init__(self) -> None:
        self._sessions: dict[str, list[str]] = {}
        self._runs: dict[str, _Run] = {}
        self._order = itertools.count()

    def append_items(self, session_id: str, items: Sequence[Item]) -> int:
        encoded = [encode_item(session_id, index, item) for index, item in enumerate(items)]
        stored = self._sessions.setdefault(session_id, [])
        stored.extend(encoded)
        return len(stored)

    def read_items(self, session_id: str, since: int) -> tuple[Item, ...]:
        return tuple(decode_item(session_id, text) for text in self._sessions.get(session_id, [])[since:])

    def snapshot(self, session_id: str) -> SessionSnapshot:
        items = self.read_items(session_id, 0)
        return SessionSnapshot(items, len(items))

    def create_run(self, run_id: str, agent: str, now: float, records: Sequence[RunRecord] = ()) -> None:
        if run_id in self._runs:
            raise RunRecordConflict(f"run {run_id!r} exists already")
        first_seq(run_id, records)
        self._runs[run_id] = _Run(agent, "running", now, now, next(self._order), list(records))

    def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: RunStatus, now: float) -> None:
        run = self._get(run_id)
        first_seq(run_id, records, len(run.records))
        run.records.extend(records)
        run.status = status
        run.updated_at = now

    def read_run_records(self, run_id: str, since: int) -> tuple[RunRecord, ...]:
        return tuple(self._get(run_id).records[since + 1 :])

    def run_summary(self, run_id: str) -> RunSummary:
        return self._get(run_id).summary(run_id)

    def runs(self) -> tuple[RunSummary, ...]:
        newest_first = sorted(self._runs.items(), key=lambda entry: (entry[1].created_at, entry[1].order), reverse=True)
        return tuple(run.summary(run_id) for run_id, run in newest_first)

    def close(self) -> None:
        self._sessions.clear()
        self._runs.clear()

    def _get(self, run_id: str) -> _Run:
        try:
            return self._runs[run_id]
        except KeyError:
            raise RunNotFound(f"no run is recorded under {run_id!r}") from None


class MemoryStore(StoreBase):
    """A `Store` in memory: sessions and run records live as long as the store (and die with the process).

    Every operation runs whole between two trio checkpoints, so concurrent tasks never see half of
    one. Items are kept in the wire format, so the store behaves as the databases do: reads return
    equal copies, and an item that cannot be stored fails the whole append.

    Example:
        >>> import trio
        >>> from helikon_fc import UserMessage
        >>> async def main() -> tuple[UserMessage, ...]:
        ...     async with MemoryStore() as store:
        ...         session = store.session("alice")
        ...         await session.append([UserMessage("hi")])
        ...         return await session.items()
        >>> trio.run(main)
        (UserMessage(text='hi'),)
    """

    def _open_ops(self) -> StoreOps:
        return _MemoryOps()

    async def _run(self, fn: Callable[[], T]) -> T:
        await trio.lowlevel.checkpoint()
        return fn()

    def __repr__(self) -> str:
        return "MemoryStore()"
