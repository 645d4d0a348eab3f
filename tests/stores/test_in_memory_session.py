"""`InMemorySession` keeps the `Session` promises: order, exclusive watermarks, snapshots, concurrent writers."""

from __future__ import annotations

import pytest
import trio

from helikon_fc import InMemorySession, RunContext, UserMessage
from helikon_fc.stores import Session, SessionSnapshot


async def test_order_watermarks_and_snapshots() -> None:
    """Appends return the item count; `items(since=w)` is exclusive; a snapshot holds everything."""
    session = InMemorySession([UserMessage("earlier")])
    assert await session.append([UserMessage("one"), UserMessage("two")]) == 3
    assert await session.items(since=1) == (UserMessage("one"), UserMessage("two"))
    assert await session.items(since=3) == ()
    assert await session.snapshot() == SessionSnapshot(
        (UserMessage("earlier"), UserMessage("one"), UserMessage("two")), 3
    )
    assert session.session_id == "memory" and InMemorySession(session_id="s").session_id == "s"
    with pytest.raises(ValueError, match=r"since must be a watermark \(an int >= 0\) or None, got -1"):
        await session.items(since=-1)


async def test_sixteen_concurrent_writers() -> None:
    """16 tasks x 10 appends: all 160 items present once, every writer's order kept."""
    session = InMemorySession()

    async def writer(w: int) -> None:
        for i in range(10):
            await session.append([UserMessage(f"w{w}-{i}")])

    async with trio.open_nursery() as nursery:
        for w in range(16):
            nursery.start_soon(writer, w)
    texts = [item.text for item in await session.items() if isinstance(item, UserMessage)]
    assert sorted(texts) == sorted(f"w{w}-{i}" for w in range(16) for i in range(10))
    for w in range(16):
        assert [t for t in texts if t.startswith(f"w{w}-")] == [f"w{w}-{i}" for i in range(10)]


def test_a_context_takes_any_session() -> None:
    """`RunContext(user, session=...)` and `RunContext.ephemeral(user, session=...)` attach the session
    given; `ephemeral` without one makes a fresh in-memory session."""
    session: Session = InMemorySession()
    assert RunContext(None, session=session).session is session
    assert RunContext.ephemeral(None, session=session).session is session
    fresh = RunContext.ephemeral(None).session
    assert isinstance(fresh, InMemorySession) and fresh is not RunContext.ephemeral(None).session
