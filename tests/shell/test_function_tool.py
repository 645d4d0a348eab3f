"""`@function_tool`: names, descriptions and schemas from a function, context injection, return values, threads."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import threading
import uuid
from typing import Annotated, Literal, NotRequired, TypedDict

import annotated_types as at
import attrs
import pytest
import trio
import trio.testing

from helikon_fc.core import JsonObject, ToolCall
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.tools.function_tool import (
    FunctionTool,
    function_tool,
    parse_docstring,
    sync_tools_inline,
    to_tool_output,
)
from helikon_fc.shell.tools.tool import Tool, ToolContext, ToolError, ToolOutput, tool_def
from helikon_fc.shell.tools.tool_exec import execute_tool_call


@attrs.frozen
class Budget:
    """A spending limit."""

    category: str
    """The spending category."""
    limit: float


class Unit(enum.Enum):
    EUR = "eur"
    USD = "usd"


@function_tool
def set_budget(
    ctx: ToolContext[dict[str, float]], budget: Budget, unit: Unit = Unit.EUR, note: str | None = None
) -> str:
    """Set the monthly budget of one category.

    The budget replaces any earlier one.

    Args:
        budget: The category and its limit.
        unit (Unit): The currency the limit is in,
            as an ISO code.
        note: Free text kept with the budget.

    Returns:
        A confirmation.
    """
    ctx.user[budget.category] = budget.limit
    return f"{budget.category}={budget.limit:g} {unit.value} ({ctx.call_id}, {ctx.tool_name})"


@function_tool(name="add-numbers", description="Add two integers.", strict=True, timeout=2.5)
async def add(a: int, b: int = 10) -> int:
    return a + b


def _ctx(user: object = None, call_id: str = "call-1", name: str = "t") -> ToolContext[object]:
    return ToolContext(RunContext.ephemeral(user), call_id, name)


# definition


def test_name_description_and_schema_come_from_the_function() -> None:
    """The name is the function's, the description the docstring summary, parameter docs from ``Args:``;
    the ToolContext parameter is not in the schema and defaults make parameters optional."""
    assert set_budget.name == "set_budget"
    assert set_budget.description == "Set the monthly budget of one category."
    assert set_budget.strict is False
    assert set_budget.timeout is None
    assert set_budget.parameters == {
        "type": "object",
        "properties": {
            "budget": {
                "title": "Budget",
                "type": "object",
                "properties": {
                    "category": {"type": "string", "description": "The spending category."},
                    "limit": {"type": "number"},
                },
                "required": ["category", "limit"],
                "additionalProperties": False,
                "description": "The category and its limit.",
            },
            "unit": {
                "type": "string",
                "enum": ["eur", "usd"],
                "description": "The currency the limit is in, as an ISO code.",
            },
            "note": {"type": ["string", "null"], "description": "Free text kept with the budget."},
        },
        "required": ["budget"],
        "additionalProperties": False,
    }


def test_explicit_name_description_strict_and_timeout() -> None:
    """Keyword options override the function's name and docstring; strict gives the strict schema form."""
    assert add.name == "add-numbers"
    assert add.description == "Add two integers."
    assert add.timeout == 2.5
    assert add.strict is True
    assert add.parameters == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": ["integer", "null"]}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    definition = tool_def(add)
    assert definition.strict is True
    assert definition.parameters == add.parameters


def test_strict_nested_objects_are_closed_and_fully_required() -> None:
    """In strict form a nested attrs class has every key required, optional ones nullable."""

    @attrs.frozen
    class Window:
        start: int
        end: int | None = None

    @function_tool(strict=True)
    def pick(window: Window) -> int:
        """Pick a window."""
        return window.start

    assert pick.parameters["properties"] == {
        "window": {
            "title": "Window",
            "type": "object",
            "properties": {"start": {"type": "integer"}, "end": {"type": ["integer", "null"]}},
            "required": ["start", "end"],
            "additionalProperties": False,
        }
    }


async def test_classes_defined_in_a_function_resolve() -> None:
    """Local classes referring to each other (string annotations) resolve through the decorating scope."""

    @attrs.frozen
    class Inner:
        n: int

    @attrs.frozen
    class Outer:
        inner: Inner

    @function_tool
    def f(outer: Outer) -> int:
        """Unwrap."""
        return outer.inner.n

    assert await f.invoke(_ctx(), {"outer": {"inner": {"n": 4}}}) == ToolOutput(4)


def test_function_tools_satisfy_the_tool_protocol() -> None:
    """A function tool is a `Tool` at runtime and for the type checker."""
    typed: Tool[dict[str, float]] = set_budget
    untyped: Tool[int] = add
    assert isinstance(typed, Tool)
    assert isinstance(untyped, Tool)


@pytest.mark.parametrize("bad", ["9lives", "has space", "dot.ted", "", "x" * 65])
def test_invalid_names_are_refused(bad: str) -> None:
    """A name must match ``[A-Za-z_][A-Za-z0-9_-]*`` (at most 64 characters)."""
    with pytest.raises(ValueError, match="invalid tool name"):

        @function_tool(name=bad)
        def f() -> None:
            """Do nothing."""


def test_a_missing_description_is_refused() -> None:
    """A tool without docstring or description is an error that says how to fix it."""
    with pytest.raises(ValueError, match=r"tool 'quiet' has no description: give the function a docstring"):

        @function_tool
        def quiet() -> None:
            pass

    with pytest.raises(ValueError, match="has no description"):

        @function_tool(description="  ")
        def blank() -> None:
            """Documented, but overridden by a blank description."""


def test_a_non_positive_timeout_is_refused() -> None:
    """A timeout must be a positive number of seconds."""
    with pytest.raises(ValueError, match="timeout must be a positive number"):

        @function_tool(timeout=0)
        def f() -> None:
            """Do nothing."""


def test_a_missing_annotation_is_refused() -> None:
    """Every parameter needs an annotation; the error names it."""
    with pytest.raises(TypeError, match=r"tool 'f': parameter 'x' has no type annotation"):

        @function_tool
        def f(x) -> None:  # type: ignore[no-untyped-def]
            """Do nothing."""


def test_an_unsupported_annotation_names_the_parameter_and_type() -> None:
    """An unsupported type fails at decoration time, naming the tool, the parameter and the type."""
    with pytest.raises(TypeError, match=r"tool 'f', parameter 'when': unsupported type complex at \$"):

        @function_tool
        def f(when: complex) -> None:
            """Do nothing."""


def test_variadic_parameters_are_refused() -> None:
    """``*args``/``**kwargs`` cannot be described to a model."""
    with pytest.raises(TypeError, match=r"\*args and \*\*kwargs"):

        @function_tool
        def f(*names: str) -> None:
            """Do nothing."""


def test_tool_context_must_come_first() -> None:
    """A ToolContext parameter anywhere but first is an error."""
    with pytest.raises(TypeError, match="must come first"):

        @function_tool
        def f(x: int, ctx: ToolContext[None]) -> None:
            """Do nothing."""


def test_strict_mode_refuses_free_form_dicts() -> None:
    """Strict mode cannot express ``dict[str, X]``: the decorator says so at once."""
    with pytest.raises(TypeError, match=r"tool 'f' cannot use strict mode: \$\.scores: a dict with free-form keys"):

        @function_tool(strict=True)
        def f(scores: dict[str, int]) -> None:
            """Do nothing."""


# docstrings


def test_parse_docstring_reads_summary_and_args() -> None:
    """The summary is the first paragraph on one line; Args entries keep their continuation lines;
    other sections are ignored."""
    doc = (
        "Find flights\nbetween two cities.\n\nLonger text.\n\n"
        "Args:\n    origin (str): Where from.\n    destination: Where to,\n        as a city name.\n"
        "    *rest: Ignored varargs.\n\n"
        "Returns:\n    origin: not a parameter.\n"
    )
    summary, args = parse_docstring(doc)
    assert summary == "Find flights between two cities."
    assert args == {"origin": "Where from.", "destination": "Where to, as a city name.", "rest": "Ignored varargs."}


def test_parse_docstring_without_sections() -> None:
    """A docstring with no sections has a summary and no parameter docs."""
    assert parse_docstring("Just this.") == ("Just this.", {})
    assert parse_docstring("") == ("", {})


# calling


async def test_invoke_decodes_arguments_and_injects_the_context() -> None:
    """`invoke` decodes the JSON arguments into typed values and passes the `ToolContext` first."""
    store: dict[str, float] = {}
    ctx = ToolContext(RunContext.ephemeral(store), "call-7", "set_budget")
    output = await set_budget.invoke(ctx, {"budget": {"category": "dining", "limit": 200}, "unit": "usd"})
    assert output == ToolOutput("dining=200 usd (call-7, set_budget)")
    assert store == {"dining": 200.0}


async def test_invoke_reports_bad_arguments_as_a_tool_error() -> None:
    """Arguments that do not decode raise `ToolError` naming each problem with its path."""
    with pytest.raises(ToolError) as info:
        await set_budget.invoke(
            ToolContext(RunContext.ephemeral({}), "c", "set_budget"),
            {"budget": {"category": 3, "limit": "x"}, "extra": 1},
        )
    assert str(info.value) == (
        "invalid arguments for tool 'set_budget': $.budget.category: expected string, got integer; "
        "$.budget.limit: expected number, got string; $.extra: unexpected field"
    )


async def test_strict_null_means_the_default() -> None:
    """In strict form an optional parameter sent as ``null`` takes its default; a nullable one gets None."""

    @function_tool(strict=True)
    def f(a: int = 5, b: int | None = 7) -> str:
        """Echo."""
        return f"{a},{b}"

    assert await f.invoke(_ctx(), {"a": None, "b": None}) == ToolOutput("5,None")
    assert await f.invoke(_ctx(), {}) == ToolOutput("5,7")


async def test_positional_only_parameters_are_passed_by_position() -> None:
    """Positional-only parameters work, defaults included."""

    @function_tool
    def f(a: int, b: int = 2, /, c: int = 3) -> list[int]:
        """Collect."""
        return [a, b, c]

    assert await f.invoke(_ctx(), {"a": 1, "c": 4}) == ToolOutput([1, 2, 4])


async def test_the_tool_stays_callable_as_the_function() -> None:
    """Calling the tool calls the function directly, sync or async."""
    assert await add(1, 2) == 3
    assert await add.fn(1) == 11
    store: dict[str, float] = {}
    text: str = set_budget(ToolContext(RunContext.ephemeral(store), "c", "t"), Budget("rent", 900))
    assert text == "rent=900 eur (c, t)"
    assert isinstance(add, FunctionTool)


@attrs.frozen
class Report:
    total: float
    unit: Unit
    tags: tuple[str, ...]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain text", ToolOutput("plain text")),
        (ToolOutput({"a": 1}), ToolOutput({"a": 1})),
        (3, ToolOutput(3)),
        (None, ToolOutput(None)),
        ([1, (2, 3)], ToolOutput([1, [2, 3]])),
        (Report(1.5, Unit.USD, ("a",)), ToolOutput({"total": 1.5, "unit": "usd", "tags": ["a"]})),
        (Unit.EUR, ToolOutput("eur")),
        (datetime.datetime(2026, 3, 1, 9, 30, tzinfo=datetime.UTC), ToolOutput("2026-03-01T09:30:00+00:00")),
        (datetime.date(2026, 3, 1), ToolOutput("2026-03-01")),
        (datetime.time(9, 30), ToolOutput("09:30:00")),
        (uuid.UUID(int=1), ToolOutput("00000000-0000-0000-0000-000000000001")),
    ],
)
def test_return_values_become_tool_output(value: object, expected: ToolOutput) -> None:
    """ToolOutput passes through, a str is verbatim, anything else is encoded to JSON."""
    assert to_tool_output(value) == expected


@pytest.mark.parametrize(
    "value",
    [object(), {1: "a"}, float("nan"), [1j], b"abc", {"blob": b"abc"}, bytearray(b"x"), datetime.timedelta(1)],
)
def test_unencodable_return_values_raise_type_error(value: object) -> None:
    """A value with no JSON form is a `TypeError` (which the model reads as an error result); bytes included,
    which are not silently base85-encoded into a string the model would read as a success."""
    with pytest.raises(TypeError, match="tool returned"):
        to_tool_output(value)


async def test_a_tool_returning_bytes_is_an_error_result() -> None:
    """The model reads an error result, not an encoded string, for a tool that returns bytes."""

    @function_tool
    def blob() -> bytes:
        """Return raw bytes."""
        return b"abc"

    result = await execute_tool_call(blob, ToolCall("c1", "blob", "{}"), RunContext.ephemeral(None))
    assert result.is_error
    assert result.output == "tool blob raised TypeError: tool returned a value that is not JSON at $: bytes"


async def test_async_tool_output_is_encoded() -> None:
    """An async tool's return value is encoded like a sync one's."""
    assert await add.invoke(_ctx(), {"a": 1, "b": None}) == ToolOutput(11)


# threads


async def test_sync_tools_run_in_a_worker_thread() -> None:
    """A sync function runs off the trio thread; an async one on it."""
    main = threading.get_ident()

    @function_tool
    def where_sync() -> bool:
        """Report the thread."""
        return threading.get_ident() == main

    @function_tool
    async def where_async() -> bool:
        """Report the thread."""
        return threading.get_ident() == main

    assert await where_sync.invoke(_ctx(), {}) == ToolOutput(False)
    assert await where_async.invoke(_ctx(), {}) == ToolOutput(True)


async def test_a_blocking_sync_tool_does_not_stall_an_async_sibling() -> None:
    """While a sync tool blocks its thread, an async sibling runs to completion and unblocks it."""
    released = threading.Event()
    order: list[str] = []

    @function_tool
    def blocking() -> str:
        """Wait for the sibling."""
        # Bounded so that a regression fails the test instead of hanging it.
        ok = released.wait(timeout=10)
        order.append("blocking done")
        return "released" if ok else "stalled"

    @function_tool
    async def sibling() -> str:
        """Release the blocker."""
        await trio.sleep(0)
        order.append("sibling done")
        released.set()
        return "ok"

    results: dict[str, ToolOutput] = {}

    async def run(tool: Tool[object], key: str) -> None:
        results[key] = await tool.invoke(_ctx(), {})

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run, blocking, "blocking")
        nursery.start_soon(run, sibling, "sibling")
    assert results == {"blocking": ToolOutput("released"), "sibling": ToolOutput("ok")}
    assert order == ["sibling done", "blocking done"]


async def test_a_cancelled_sync_tool_is_abandoned() -> None:
    """Cancelling a blocked sync tool returns without waiting for it; its thread finishes later in the background.

    Real clock on purpose: under a MockClock sync tools run inline (see the next test).
    """
    release = threading.Event()
    finished = threading.Event()

    @function_tool
    def stuck() -> str:
        """Block until released."""
        release.wait(timeout=10)
        finished.set()
        return "late"

    with trio.move_on_after(0.01) as scope:
        await stuck.invoke(_ctx(), {})
    assert scope.cancelled_caught
    assert not finished.is_set(), "the call returned while its thread was still blocked"
    release.set()
    await trio.to_thread.run_sync(finished.wait, 10)
    assert finished.is_set()


async def test_inside_sync_tools_inline_a_sync_tool_runs_in_the_trio_thread(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Inside `sync_tools_inline()` (the simulator's option) a sync tool runs in the trio thread, in no virtual time."""
    threads: list[str] = []

    @function_tool
    def where() -> str:
        """Say which thread runs the tool."""
        threads.append(threading.current_thread().name)
        return "here"

    with sync_tools_inline():
        output = await where.invoke(_ctx(), {})
    assert output.content == "here"
    assert threads == [threading.current_thread().name]
    assert trio.current_time() == 0


async def test_a_mock_clock_alone_does_not_change_where_a_sync_tool_runs(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The library does not look at the clock: outside `sync_tools_inline()` a sync tool runs in a worker thread."""
    threads: list[str] = []

    @function_tool
    def where() -> str:
        """Say which thread runs the tool."""
        threads.append(threading.current_thread().name)
        return "here"

    await where.invoke(_ctx(), {})
    with sync_tools_inline():
        pass
    await where.invoke(_ctx(), {})  # leaving the block restored the default
    assert len(threads) == 2
    assert threading.current_thread().name not in threads


def test_literal_parameters() -> None:
    """A Literal parameter is an enum of its values."""

    @function_tool
    def f(mode: Literal["fast", "slow"] = "fast") -> str:
        """Pick a mode."""
        return mode

    expected: JsonObject = {"mode": {"type": "string", "enum": ["fast", "slow"]}}
    assert f.parameters["properties"] == expected


# dataclasses, TypedDicts, datetimes, UUIDs and constraints in signatures


@dataclasses.dataclass(frozen=True)
class Booking:
    """A booking."""

    guest: str
    nights: Annotated[int, at.Ge(1)] = 1


class Options(TypedDict):
    notify: bool
    note: NotRequired[str]


async def test_arguments_decode_into_the_python_values_the_function_expects() -> None:
    """A dataclass, a TypedDict, a datetime and a UUID arrive as those Python values; the output is encoded back."""
    seen: list[object] = []

    @function_tool
    def book(booking: Booking, options: Options, when: datetime.datetime, ref: uuid.UUID) -> Booking:
        """Book a room."""
        seen.extend([booking, options, when, ref])
        return booking

    arguments = (
        '{"booking": {"guest": "Ada"}, "options": {"notify": true}, "when": "2026-03-01T09:30:00+00:00",'
        ' "ref": "00000000-0000-0000-0000-000000000001"}'
    )
    result = await execute_tool_call(book, ToolCall("c1", "book", arguments), RunContext.ephemeral(None))
    assert result.output == '{"guest":"Ada","nights":1}' and not result.is_error
    assert seen == [
        Booking("Ada"),
        {"notify": True},
        datetime.datetime(2026, 3, 1, 9, 30, tzinfo=datetime.UTC),
        uuid.UUID(int=1),
    ]


async def test_a_constraint_in_a_signature_is_enforced() -> None:
    """``Annotated[int, Ge(1)]`` reaches the schema and an argument below it is an error result; the tool never runs."""
    ran: list[int] = []

    @function_tool
    def rest(nights: Annotated[int, at.Ge(1), "How many nights."]) -> str:
        """Rest a while."""
        ran.append(nights)
        return "ok"

    assert rest.parameters["properties"] == {
        "nights": {"type": "integer", "minimum": 1, "description": "How many nights."}
    }
    result = await rest.invoke(_ctx(), {"nights": 1})
    assert result == ToolOutput("ok")
    with pytest.raises(ToolError, match=r"\$\.nights: must be >= 1, got 0"):
        await rest.invoke(_ctx(), {"nights": 0})
    assert ran == [1]


def test_a_constraint_the_schema_cannot_carry_fails_at_decoration() -> None:
    """An unsupported metadata object raises `TypeError` naming the tool and the parameter, at decoration time."""
    with pytest.raises(TypeError, match=r"tool 'pick', parameter 'n': unsupported annotation metadata Predicate"):

        @function_tool
        def pick(n: Annotated[int, at.Predicate(lambda n: n % 2 == 0)]) -> int:
            """Pick a number."""
            return n


def test_a_strict_tool_refuses_a_string_length_bound() -> None:
    """Strict mode has no minLength/maxLength, so a strict tool with one fails at decoration, naming the path."""
    with pytest.raises(TypeError, match=r"tool 'shout' cannot use strict mode: \$\.text: a string length bound"):

        @function_tool(strict=True)
        def shout(text: Annotated[str, at.MaxLen(5)]) -> str:
            """Shout."""
            return text.upper()
