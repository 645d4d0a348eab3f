"""Sync tools run in worker threads: what they touch of the run goes through the trio thread, and nothing once
their call is over (returned, failed, timed out or abandoned)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
import trio

from helikon_fc import AgentInput, Cancelled, LlmAgent, RunFailed
from helikon_fc.core import JsonValue, ToolCall, ToolResult
from helikon_fc.shell.context.run_context import CancelToken, RunContext, SessionState
from helikon_fc.shell.loop.results import RunError, RunResultStreaming
from helikon_fc.shell.tools.function_tool import function_tool
from helikon_fc.shell.tools.tool import ToolContext
from helikon_fc.shell.tools.tool_exec import execute_tool_call
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


class RecordingScope:
    """Stands in for a `trio.CancelScope`: records the thread `cancel` is called from."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def cancel(self) -> None:
        self.threads.append(threading.get_ident())


class RecordingState(SessionState):
    """A `SessionState` that records the thread each write runs on."""

    __slots__ = ("threads",)

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def set(self, key: str, value: JsonValue) -> None:
        self.threads.append(threading.get_ident())
        super().set(key, value)


async def test_cancelling_a_token_from_a_foreign_thread_cancels_on_the_trio_thread() -> None:
    """`CancelToken.cancel` called from a worker thread reaches its scopes from the trio thread."""
    token = CancelToken()
    scope = RecordingScope()
    with token.attach(scope):  # type: ignore[arg-type]
        await trio.to_thread.run_sync(token.cancel, "from a thread")
    assert token.reason == "from a thread"
    assert scope.threads == [threading.get_ident()]


def test_a_token_attached_in_an_earlier_run_cancels_in_the_next_one_and_from_a_plain_thread() -> None:
    """A context reused across runs: cancelling it from the next run's trio thread, or from a plain thread after
    its run ended, sets the flag and neither blocks nor raises."""
    first, second = CancelToken(), CancelToken()

    async def attach_and_leave(token: CancelToken) -> None:
        with trio.CancelScope() as scope, token.attach(scope):
            await trio.lowlevel.checkpoint()

    async def cancel_in_another_run() -> None:
        first.cancel("next run")

    trio.run(attach_and_leave, first)
    trio.run(cancel_in_another_run)
    assert first.reason == "next run"
    trio.run(attach_and_leave, second)
    thread = threading.Thread(target=second.cancel, args=("plain thread",))
    thread.start()
    thread.join(timeout=10)
    assert second.reason == "plain thread"


async def test_a_sync_tool_writes_state_from_the_trio_thread() -> None:
    """A sync tool's ``ctx.run.state.set`` runs on the trio thread, not on the tool's worker thread."""
    worker: list[int] = []

    @function_tool
    def remember(ctx: ToolContext[None], city: str) -> str:
        """Remember a city."""
        worker.append(threading.get_ident())
        ctx.run.state.set("city", city)
        return str(ctx.run.state.get("city"))

    state = RecordingState()
    run = RunContext(None, state=state)
    result = await execute_tool_call(remember, ToolCall("c1", "remember", '{"city": "Oslo"}'), run)
    assert result == ToolResult("c1", "Oslo")
    assert worker and worker[0] != threading.get_ident()
    assert state.threads == [threading.get_ident()]
    assert state.get("city") == "Oslo"


async def test_a_sync_tool_can_cancel_its_run() -> None:
    """``ctx.run.cancel()`` from a sync tool's thread ends the run with `RunFailed(Cancelled)`."""

    @function_tool
    def give_up(ctx: ToolContext[None]) -> str:
        """Stop everything."""
        ctx.run.cancel("the tool gave up")
        return "cancelled"

    agent: LlmAgent[None] = LlmAgent(
        name="quitter", model=ScriptedModel([call_tools(call("give_up")), reply("never")]), tools=[give_up]
    )
    with pytest.raises(RunError) as info:
        await RunResultStreaming(agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("go"))).collect()
    assert isinstance(info.value.events[-1], RunFailed)
    assert isinstance(info.value.error, Cancelled)


def _abandoned_tool_writes(after_run: bool) -> tuple[list[BaseException], RunContext[None]]:
    """Run a sync tool that times out; release it (before or after `trio.run` returns) and let it touch its
    context. Returns what each touch raised, and the run context."""
    release = threading.Event()
    done = threading.Event()
    raised: list[BaseException] = []

    @function_tool(timeout=0.05)
    def straggler(ctx: ToolContext[None]) -> str:
        """Finish late."""
        release.wait(timeout=10)
        touches: tuple[Callable[[], object], ...] = (
            lambda: ctx.run.state.set("late", True),
            lambda: ctx.run.state.get("late"),
            ctx.run.actions.escalate,
            ctx.run.cancel,
        )
        for touch in touches:
            try:
                touch()
            except BaseException as exc:
                raised.append(exc)
        done.set()
        return "late"

    run = RunContext.ephemeral(None)

    async def main() -> ToolResult:
        result = await execute_tool_call(straggler, ToolCall("c9", "straggler", ""), run)
        if not after_run:
            release.set()
            await trio.to_thread.run_sync(done.wait, 10)
        return result

    result = trio.run(main)
    assert result == ToolResult("c9", "tool straggler timed out after 0.05 s", is_error=True)
    if after_run:
        release.set()
    assert done.wait(timeout=10)
    return raised, run


@pytest.mark.parametrize("after_run", [False, True], ids=["while-the-run-goes-on", "after-the-run-ended"])
def test_an_abandoned_sync_tool_cannot_touch_its_context(after_run: bool) -> None:
    """Once its call timed out, an abandoned thread's state writes and reads, escalate and cancel each raise
    `RuntimeError` naming the call, and change nothing."""
    raised, run = _abandoned_tool_writes(after_run)
    assert len(raised) == 4
    for exc in raised:
        assert isinstance(exc, RuntimeError)
        assert str(exc) == (
            "tool 'straggler' (call 'c9') is over: its context no longer accepts use from its worker thread "
            "(the call returned, failed, timed out or was cancelled)"
        )
    assert "late" not in run.state
    assert not run.actions.escalated
    assert not run.cancelled
