"""`FunctionModel`: turns computed from the request by a sync or async function."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from helikon_fc.core import (
    Conversation,
    FinishReason,
    ModelFinish,
    ModelRequest,
    ToolCall,
    UserMessage,
    assemble_response,
)
from helikon_fc.models import Model, ModelError
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, fail, reply


def request(text: str) -> ModelRequest:
    return ModelRequest(instructions=None, items=Conversation([UserMessage(text)]))


async def answer(model: Model, text: str) -> str:
    async with model.stream(request(text)) as events:
        return assemble_response([event async for event in events]).text


def last_user_text(req: ModelRequest) -> str:
    item = req.items[-1]
    assert isinstance(item, UserMessage)
    return item.text


async def test_sync_function_answers_each_request() -> None:
    """A sync function's turn streams like a scripted one, and the model records what it was asked."""
    model = FunctionModel(lambda req: reply(last_user_text(req).upper()))
    assert isinstance(model, Model)
    assert await answer(model, "hello there") == "HELLO THERE"
    assert await answer(model, "again") == "AGAIN"
    assert model.requests == (request("hello there"), request("again"))


async def test_async_function_may_wait(autojump_clock: trio.testing.MockClock) -> None:
    """An async function is awaited; its own sleeps cost virtual time."""

    async def think(req: ModelRequest) -> ScriptedTurn:
        await trio.sleep(2)
        return reply(f"{len(req.items)} item(s)", latency=1)

    start = trio.current_time()
    assert await answer(FunctionModel(think, name="thinker"), "x") == "1 item(s)"
    assert trio.current_time() - start == 3


async def test_call_ids_count_the_requests() -> None:
    """Default call ids use the request count of this model."""
    model = FunctionModel(lambda req: call_tools(call("echo", text=last_user_text(req))))
    for text in ("a", "b"):
        async with model.stream(request(text)) as events:
            response = assemble_response([event async for event in events])
    assert response.tool_calls == (ToolCall("call_1_0", "echo", '{"text":"b"}'),)
    assert response.finish_reason is FinishReason.TOOL_CALLS


async def test_function_may_return_a_failure() -> None:
    """Returning `fail(...)` makes the call fail with that `ModelError`."""
    model = FunctionModel(lambda req: fail("no budget data"))
    with pytest.raises(ModelError, match="no budget data"):
        await answer(model, "x")


async def test_function_returning_a_non_turn_is_a_clear_type_error() -> None:
    """A function returning something other than a turn fails with a message naming the model and turn."""
    model = FunctionModel(lambda req: "just text", name="sloppy")  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="FunctionModel 'sloppy': the function returned 'just text' for turn 0"):
        await answer(model, "x")


async def test_function_exceptions_propagate_from_opening_the_stream() -> None:
    """An exception raised by the function comes out of entering the stream, before any event."""

    def explode(req: ModelRequest) -> ScriptedTurn:
        raise LookupError("no such user")

    model = FunctionModel(explode)
    with pytest.raises(LookupError, match="no such user"):
        async with model.stream(request("x")):
            pytest.fail("the stream must not open")


def test_function_model_needs_a_callable() -> None:
    """A non-callable is rejected at construction."""
    with pytest.raises(TypeError, match="needs a callable"):
        FunctionModel("reply")  # type: ignore[arg-type]


async def test_finish_is_last() -> None:
    """The streamed turn ends in one finish."""
    model = FunctionModel(lambda req: reply("fine"))
    async with model.stream(request("x")) as events:
        seen = [event async for event in events]
    assert seen[-1] == ModelFinish(FinishReason.STOP)
    assert sum(isinstance(event, ModelFinish) for event in seen) == 1


async def test_a_long_trio_run_keeps_only_the_latest_requests() -> None:
    """By default a FunctionModel keeps its last 100 requests, however many it answers in one trio run."""
    model = FunctionModel(lambda req: reply(last_user_text(req)))
    for index in range(150):
        assert await answer(model, f"q{index}") == f"q{index}"
    kept = model.requests
    assert len(kept) == 100
    assert [last_user_text(req) for req in kept] == [f"q{index}" for index in range(50, 150)]


async def test_keep_requests_bounds_the_log_and_none_keeps_all() -> None:
    """`keep_requests=n` keeps the last n requests; `None` keeps every one."""
    two = FunctionModel(lambda req: reply("ok"), keep_requests=2)
    every = FunctionModel(lambda req: reply("ok"), keep_requests=None)
    for index in range(120):
        await answer(two, f"q{index}")
        await answer(every, f"q{index}")
    assert [last_user_text(req) for req in two.requests] == ["q118", "q119"]
    assert len(every.requests) == 120


@pytest.mark.parametrize(("value", "error"), [(-1, ValueError), ("10", TypeError), (True, TypeError)])
def test_a_bad_keep_requests_is_refused(value: object, error: type[Exception]) -> None:
    """`keep_requests` must be an int of at least 0 or None; the message names the argument."""
    with pytest.raises(error, match="keep_requests"):
        FunctionModel(lambda req: reply("ok"), keep_requests=value)  # type: ignore[arg-type]
