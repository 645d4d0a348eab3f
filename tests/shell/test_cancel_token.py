"""`CancelToken`: cancellation reaches children, never parents, and a parent does not keep its children alive."""

from __future__ import annotations

import gc
import weakref

import trio

from helikon_fc import RunContext
from helikon_fc.shell.context.run_context import CancelToken


def test_a_parent_does_not_keep_finished_child_tokens_alive() -> None:
    """A long-lived context starts many sub-agent runs; their tokens go when their contexts go."""
    ctx = RunContext.ephemeral(None)
    refs = [weakref.ref(ctx.subagent_child().cancel_token) for _ in range(100)]
    refs.append(weakref.ref(ctx.isolated_child().cancel_token))
    gc.collect()
    assert [ref() for ref in refs if ref() is not None] == []


def test_cancelling_a_parent_reaches_live_children_and_grandchildren() -> None:
    parent = CancelToken()
    child = parent.child()
    grandchild = child.child()
    parent.cancel("stop")
    assert (child.reason, grandchild.reason) == ("stop", "stop")


def test_cancelling_a_child_never_reaches_its_parent() -> None:
    parent = CancelToken()
    child = parent.child()
    child.cancel("only me")
    assert child.cancelled and not parent.cancelled


async def test_cancelling_a_parent_cancels_a_scope_attached_to_a_child() -> None:
    parent = CancelToken()
    child = parent.child()
    with trio.CancelScope() as scope, child.attach(scope):
        parent.cancel()
        await trio.sleep_forever()
    assert scope.cancelled_caught
