"""Sessions, on every backend: order, exclusive watermarks, concurrent writers, failed writes."""

from __future__ import annotations

import pytest
import trio
from tests.stores.conftest import Backend

from helikon_fc import AssistantMessage, Item, Reasoning, SystemMessage, ToolCall, ToolResult, UserMessage
from helikon_fc.stores import SessionSnapshot, StoreBase, StoreError

EVERY_KIND: tuple[Item, ...] = (
    SystemMessage("be brief"),
    UserMessage("What is the weather in Paris? ünïcødé ✓"),
    Reasoning("look it up"),
    ToolCall("c1", "weather", '{"city": "Paris"}'),
    ToolResult("c1", "18C", is_error=False),
    ToolResult("c2", "boom", is_error=True),
    AssistantMessage("18C and sunny.", agent="forecaster"),
    AssistantMessage("no agent"),
)

# A lone surrogate: a Python str, but not UTF-8 text, so no store can keep it.
UNSTORABLE = UserMessage("bad \ud800 text")


async def test_items_come_back_equal_and_in_append_order(store: StoreBase) -> None:
    """Every kind of item comes back equal to what was appended, oldest first, across appends."""
    session = store.session("alice")
    await session.append(EVERY_KIND[:3])
    await session.append(EVERY_KIND[3:])
    assert await session.items() == EVERY_KIND


async def test_a_new_session_is_empty(store: StoreBase) -> None:
    """A session nothing was appended to has no items and watermark 0."""
    session = store.session("nobody")
    assert session.session_id == "nobody"
    assert await session.items() == ()
    assert await session.snapshot() == SessionSnapshot((), 0)


async def test_watermarks_are_exclusive(store: StoreBase) -> None:
    """`items(since=w)` gives exactly what was appended after the append that returned `w`."""
    session = store.session("alice")
    first = await session.append([UserMessage("one"), UserMessage("two")])
    second = await session.append([UserMessage("three")])
    assert (first, second) == (2, 3)
    assert await session.items(since=first) == (UserMessage("three"),)
    assert await session.items(since=second) == ()
    assert await session.items(since=0) == await session.items()
    assert await session.items(since=99) == ()


async def test_a_snapshot_gives_the_items_and_a_watermark_to_read_on_from(store: StoreBase) -> None:
    """A snapshot holds every item; reading since its watermark gives only what came after it."""
    session = store.session("alice")
    await session.append([UserMessage("one")])
    snapshot = await session.snapshot()
    await session.append([UserMessage("two")])
    assert snapshot == SessionSnapshot((UserMessage("one"),), 1)
    assert await session.items(since=snapshot.watermark) == (UserMessage("two"),)


async def test_an_empty_append_changes_nothing(store: StoreBase) -> None:
    """Appending no items returns the current watermark and adds nothing."""
    session = store.session("alice")
    await session.append([UserMessage("one")])
    assert await session.append([]) == 1
    assert await session.items() == (UserMessage("one"),)


async def test_sessions_are_kept_apart(store: StoreBase) -> None:
    """Two ids are two histories, each with its own watermarks."""
    alice, bob = store.session("alice"), store.session("bob")
    await alice.append([UserMessage("a1")])
    assert await bob.append([UserMessage("b1"), UserMessage("b2")]) == 2
    assert await alice.append([UserMessage("a2")]) == 2
    assert await alice.items() == (UserMessage("a1"), UserMessage("a2"))
    assert await bob.items(since=1) == (UserMessage("b2"),)


async def test_two_session_objects_under_one_id_share_the_history(store: StoreBase) -> None:
    """`store.session(id)` twice gives two handles on one history."""
    await store.session("alice").append([UserMessage("one")])
    assert await store.session("alice").items() == (UserMessage("one"),)


async def test_sixteen_concurrent_writers_each_item_lands_exactly_once(store: StoreBase) -> None:
    """16 tasks x 10 appends on one session: all 160 items present exactly once, each writer's order
    kept, and every append got its own watermark."""
    session = store.session("shared")
    watermarks: list[int] = []

    async def writer(w: int) -> None:
        for i in range(10):
            watermarks.append(await session.append([UserMessage(f"w{w}-{i}")]))

    async with trio.open_nursery() as nursery:
        for w in range(16):
            nursery.start_soon(writer, w)
    texts = [item.text for item in await session.items() if isinstance(item, UserMessage)]
    assert sorted(texts) == sorted(f"w{w}-{i}" for w in range(16) for i in range(10))
    for w in range(16):
        assert [t for t in texts if t.startswith(f"w{w}-")] == [f"w{w}-{i}" for i in range(10)]
    assert sorted(watermarks) == list(range(1, 161))


async def test_a_failed_append_writes_nothing_and_the_session_stays_usable(store: StoreBase) -> None:
    """An item that cannot be stored, in the middle of a batch, fails the whole append (`StoreError`
    naming its place); the session keeps what it had and takes the next append."""
    session = store.session("alice")
    await session.append([UserMessage("before")])
    with pytest.raises(StoreError, match=r"item 1 of the batch cannot be stored"):
        await session.append([UserMessage("kept out 1"), UNSTORABLE, UserMessage("kept out 2")])
    assert await session.items() == (UserMessage("before"),)
    assert await session.append([UserMessage("after")]) == 2
    assert await session.items() == (UserMessage("before"), UserMessage("after"))


async def test_bad_arguments_are_refused_by_name(store: StoreBase) -> None:
    """An empty session id or a negative watermark is refused with an error naming the argument."""
    with pytest.raises(ValueError, match="session_id must be a non-empty str"):
        store.session("")
    with pytest.raises(TypeError, match="session_id must be a str, got int"):
        store.session(7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"since must be a watermark \(an int >= 0\) or None, got -1"):
        await store.session("alice").items(since=-1)
    with pytest.raises(TypeError, match=r"items\[1\] must be an Item \(SystemMessage, UserMessage, .*\), got str"):
        await store.session("alice").append([UserMessage("fine"), "not an item"])  # type: ignore[list-item]
    assert await store.session("alice").items() == ()


async def test_a_store_opens_on_first_use_and_refuses_calls_once_closed(backend: Backend) -> None:
    """Without `async with`, the first call opens the store; after `aclose` a call raises `StoreError`."""
    store = backend.new_store()
    session = store.session("alice")
    assert await session.append([UserMessage("one")]) == 1
    await store.aclose()
    with pytest.raises(StoreError, match="is closed"):
        await session.items()
    await store.aclose()  # closing twice is harmless


async def test_a_second_store_on_the_database_sees_the_history(backend: Backend) -> None:
    """A session written through one store reads back through another on the same database (a new
    run, a new process); memory has no database to share, so it sees nothing."""
    async with backend.new_store() as first:
        await first.session("alice").append([UserMessage("from the first run")])
    async with backend.new_store() as second:
        expected = (UserMessage("from the first run"),) if backend.persistent else ()
        assert await second.session("alice").items() == expected
