"""`CompactingSession`: a `Session` wrapper that compacts the stored history once it passes a budget.

Every append goes to the wrapped session first. Then, when the history's view (what
`core.compaction.visible` shows a model: the latest summary and the items after it) is estimated
above `max_tokens`, the wrapper asks its model for a summary of everything before the last turn
and appends a `Compacted` marker. The log keeps every item; every later run that reads the session
sees the summary in place of the old items. The decision, the request and the marker are the
core's (`plan_compaction`, `summary_request`, `splice`, `rebase`); this module does the IO.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from typing import TypeAlias

import trio

from ...core import (
    BLANK_SUMMARY,
    CompactionPlan,
    CompactionPolicy,
    CompactionSkipped,
    Conversation,
    ConversationCompacted,
    Item,
    RunFailed,
    compaction_report,
    estimate_tokens,
    failed_summary,
    item_tokens,
    plan_compaction,
    rebase,
    splice,
    summary_request,
    visible,
)
from ...core.compaction import DEFAULT_SUMMARY_INSTRUCTIONS
from ...models.call import call_model
from ...models.protocol import Model
from .. import _checks
from .compaction import LEAST_SUMMARY, check_max_tokens, check_summary_tokens, discard
from .storage import Session, SessionSnapshot

CompactionReport: TypeAlias = ConversationCompacted | CompactionSkipped
"""What one compaction of a `CompactingSession` came to: the summary spliced in, or why it was skipped."""

logger = logging.getLogger("helikon_fc.sessions")
"""Where a skipped compaction is logged (a warning)."""

_OWNER = "CompactingSession"
_SESSION_METHODS = ("append", "items", "snapshot")


class CompactingSession:
    """A `Session` that summarises its older history once the history passes `max_tokens`.

    Wrap any session (a store's ``store.session(id)``, an `InMemorySession`) and attach the wrapper
    to the run context instead. Each `append` stores its items in the wrapped session first; then,
    when the view of the history (the latest summary and everything after it, as a run would be
    shown it) is estimated at more than `max_tokens` (``ceil(chars / 4)`` per item), `model` is asked
    to summarise everything before the last turn, and a `Compacted` marker is appended. A run that
    later reads the session is shown the summary in place of the items it covers; the log keeps
    every item (`items` and `snapshot` return it whole, markers included). A later summary covers
    the earlier one: compactions chain.

    The rules:

    - A cheap count first: the wrapper adds up the tokens of what it appends since it last read
      the history, and reads the history (the authoritative count) only when that could pass
      `max_tokens`. The first append always reads it, so a history that is over the budget already
      is compacted on the first append.
    - One compaction at a time: an append that finds a compaction under way stores its items and
      returns without waiting for it. Items appended while the summary is written stay in view.
    - Nothing is compacted when the view fits, is empty, or is one system message or one summary
      (with no turn after it).
    - A failed, timed-out or blank summary skips the compaction: no marker is appended, a warning
      is logged (logger ``helikon_fc.sessions``) and `on_compaction` gets a `CompactionSkipped`;
      the append itself has succeeded. The next append over the budget tries again.
    - An error of the wrapped session (reading the history, writing the marker) propagates from
      `append`; the items given to it were stored already. So does a cancellation during the
      summary call (no marker is written).

    The summary call is made inside `append`: `Runner` appends a run's items before delivering its
    terminal event (shielded from cancellation, so a timed-out run is recorded too), so a
    compaction delays the end of the run that caused it by one model call, at most
    `summary_timeout`.

    Args:
        inner: the session whose history is kept and compacted.
        model: the model that writes the summaries.
        max_tokens: the estimated tokens the history's view may hold before it is compacted (at least 17).
        summary_tokens: the most a summary may hold (it is cut to this); defaults to a quarter of
            `max_tokens`, at least 16, and must stay below `max_tokens`.
        instructions: the summary request's instructions.
        summary_timeout: seconds the summary call may take before the compaction is skipped; `None`
            waits as long as the model takes.
        on_compaction: called with the `CompactionReport` of each compaction the wrapper tries.

    Raises:
        TypeError: an argument has the wrong type (`inner` not a `Session`, `model` not a `Model`, ...).
        ValueError: `max_tokens`, `summary_tokens` or `summary_timeout` is out of range.

    Example:
        >>> from helikon_fc import CompactingSession, InMemorySession
        >>> from helikon_fc.testing import ScriptedModel, reply
        >>> session = CompactingSession(InMemorySession(), ScriptedModel([reply("...")]), max_tokens=2000)
        >>> session.max_tokens, session.summary_tokens
        (2000, 500)
    """

    __slots__ = ("_compacting", "_estimate", "_inner", "_model", "_on_compaction", "_policy", "_timeout", "_writing")

    def __init__(
        self,
        inner: Session,
        model: Model,
        max_tokens: int = 8000,
        *,
        summary_tokens: int | None = None,
        instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS,
        summary_timeout: float | None = 60.0,
        on_compaction: Callable[[CompactionReport], None] | None = None,
    ) -> None:
        _require_session(inner)
        _checks.require_model(_OWNER, "model", model)
        check_max_tokens(_OWNER, "max_tokens", max_tokens)
        if summary_tokens is None:
            summary_tokens = max(LEAST_SUMMARY, max_tokens // 4)
        check_summary_tokens(_OWNER, "summary_tokens", summary_tokens)
        if summary_tokens >= max_tokens:
            allowed = f"an int < max_tokens ({max_tokens})"
            raise ValueError(_checks.message(_OWNER, "summary_tokens", summary_tokens, allowed))
        _checks.require_name(_OWNER, "instructions", instructions)
        _checks.require_seconds(_OWNER, "summary_timeout", summary_timeout)
        if on_compaction is not None and not callable(on_compaction):
            raise TypeError(_checks.message(_OWNER, "on_compaction", on_compaction, "a callable or None"))
        self._inner = inner
        self._model = model
        self._policy = CompactionPolicy(max_tokens=max_tokens, summary_tokens=summary_tokens, instructions=instructions)
        self._timeout = math.inf if summary_timeout is None else float(summary_timeout)
        self._on_compaction = on_compaction
        self._estimate: int | None = None  # the view's tokens as last counted, plus what was appended since
        self._compacting = trio.Lock()  # one compaction at a time
        self._writing = trio.Lock()  # a marker's count of later items and its append, against this wrapper's appends

    @property
    def session_id(self) -> str:
        """The wrapped session's id."""
        return self._inner.session_id

    @property
    def inner(self) -> Session:
        """The wrapped session."""
        return self._inner

    @property
    def max_tokens(self) -> int:
        """The estimated tokens the history's view may hold before it is compacted."""
        return self._policy.max_tokens

    @property
    def summary_tokens(self) -> int:
        """The most a summary may hold."""
        return self._policy.summary_tokens

    async def append(self, items: Sequence[Item]) -> int:
        """Add `items` to the wrapped session, then compact the history if it passed the budget.

        Returns:
            The watermark the wrapped session returned for `items` (a compaction's marker, appended
            after them, comes after that watermark).

        Raises:
            Whatever the wrapped session raises, from the append (nothing was stored) or from the
            compaction's read or marker write (the items were stored).
        """
        async with self._writing:
            watermark = await self._inner.append(items)
            if self._estimate is not None:
                self._estimate += sum(map(item_tokens, items))
        if self._estimate is not None and self._estimate <= self._policy.max_tokens:
            return watermark
        try:
            self._compacting.acquire_nowait()
        except trio.WouldBlock:
            return watermark  # single flight: the marker of the compaction under way keeps these items in view
        try:
            await self._compact()
        finally:
            self._compacting.release()
        return watermark

    async def items(self, since: int | None = None) -> tuple[Item, ...]:
        """The wrapped session's items after watermark `since` (all when ``None``), markers included."""
        return await self._inner.items(since)

    async def snapshot(self) -> SessionSnapshot:
        """The wrapped session's snapshot: every item, markers included, and the watermark."""
        return await self._inner.snapshot()

    async def _compact(self) -> None:
        """Count the history's view and, over the budget, splice a summary in (or report the skip)."""
        async with self._writing:  # the count and the estimate it sets cover the same appends
            snapshot = await self._inner.snapshot()
            conversation = Conversation(snapshot.items)
            plan = plan_compaction(conversation, self._policy)
            if plan is None:
                self._estimate = estimate_tokens(visible(conversation))
                return
        summary = await self._summary(plan)
        marker = splice(plan, summary, self._policy) if isinstance(summary, str) else None
        if marker is None:
            self._estimate = None  # still over the budget: the next append counts again, and tries again
            self._report(summary if isinstance(summary, CompactionSkipped) else CompactionSkipped(BLANK_SUMMARY))
            return
        async with self._writing:
            later = await self._inner.items(snapshot.watermark)
            marker = rebase(marker, later)
            await self._inner.append((marker,))
            grown = conversation.extend(later)
            self._estimate = estimate_tokens(visible(grown.extend((marker,))))
        self._report(compaction_report(grown, plan, marker))

    async def _summary(self, plan: CompactionPlan) -> str | CompactionSkipped:
        """The summary text `model` writes for `plan`, or why there is none."""
        request = summary_request(plan, self._policy)
        with trio.move_on_after(self._timeout):
            answer = await call_model(self._model, request, discard)
            if isinstance(answer, RunFailed):
                return CompactionSkipped(failed_summary(answer.error))
            return answer.text
        return CompactionSkipped(f"the summary call took longer than summary_timeout ({self._timeout:g} s)")

    def _report(self, report: CompactionReport) -> None:
        if type(report) is CompactionSkipped:
            logger.warning("session %r: compaction skipped: %s", self._inner.session_id, report.reason)
        if self._on_compaction is not None:
            self._on_compaction(report)

    def __repr__(self) -> str:
        return f"CompactingSession({self._inner!r}, model={self._model.name!r}, max_tokens={self.max_tokens})"


def _require_session(value: object) -> None:
    """Raise `TypeError` unless `value` is a `Session` (an object with its methods and id, not a class)."""
    if (
        not isinstance(value, type)
        and isinstance(getattr(value, "session_id", None), str)
        and all(callable(getattr(value, name, None)) for name in _SESSION_METHODS)
    ):
        return
    hint = "pass the session object, e.g. store.session(session_id)" if isinstance(value, str | type) else ""
    allowed = "a Session (store.session(id), InMemorySession(), or an object with session_id, append, items, snapshot)"
    raise TypeError(_checks.message(_OWNER, "inner", value, allowed, hint))
