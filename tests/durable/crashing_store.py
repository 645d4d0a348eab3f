"""`KillingStore`: a store over any other that kills its own process with SIGKILL right after its
N-th record write, as ``kill -9`` would at that moment. The crash trials run it in a subprocess.

A record write is one store transaction that stores records: `create_run` with records, or
`append_run_records` with records. A status change with no records (a paused run's) is not one.
The process dies after the inner store has committed, so the N-th write is durable and nothing
after it happened.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from types import TracebackType

from helikon_fc.shell.durable.storage import RunRecord, RunStatus, RunSummary, Session
from helikon_fc.stores import StoreBase


class KillingStore:
    """`inner`, killing this process right after its `after`-th record write (`after` >= 1).

    Args:
        inner: The store that keeps the records (opened and closed with this one).
        after: The record write after which the process is killed.
    """

    def __init__(self, inner: StoreBase, after: int) -> None:
        if isinstance(after, bool) or not isinstance(after, int) or after < 1:
            raise ValueError(f"KillingStore(after=...) must be an int >= 1 (the write to die after), got {after!r}")
        self._inner = inner
        self._after = after
        self.writes = 0

    async def create_run(self, run_id: str, agent: str, records: Sequence[RunRecord] = ()) -> None:
        await self._inner.create_run(run_id, agent, records)
        if records:
            self._wrote()

    async def append_run_records(self, run_id: str, records: Sequence[RunRecord], status: RunStatus) -> None:
        await self._inner.append_run_records(run_id, records, status)
        if records:
            self._wrote()

    def _wrote(self) -> None:
        self.writes += 1
        if self.writes >= self._after:
            os.kill(os.getpid(), signal.SIGKILL)

    async def read_run_records(self, run_id: str, since: int = -1) -> tuple[RunRecord, ...]:
        return await self._inner.read_run_records(run_id, since)

    async def run_summary(self, run_id: str) -> RunSummary:
        return await self._inner.run_summary(run_id)

    async def runs(self) -> tuple[RunSummary, ...]:
        return await self._inner.runs()

    def session(self, session_id: str) -> Session:
        return self._inner.session(session_id)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> KillingStore:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
