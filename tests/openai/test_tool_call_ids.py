"""Two wire calls of one turn that the server gave the same id still reach the model protocol as two calls.

The `Model` rules say a tool call's name is reported once per ``call_id``, and `assemble_response` groups
fragments by ``call_id``: two calls under one id would merge into one call with concatenated arguments. So the
assembler gives each later call of a reused id a fresh one, ``ID#2``, ``ID#3``, ... (the scheme `transition`
uses for the same fault), never one another call of the turn already has.
"""

from __future__ import annotations

from helikon_fc.core import ModelEvent, ModelToolCallDelta, assemble_response
from helikon_fc.openai._tool_calls import ToolCallAssembler


def _ids(events: list[ModelEvent]) -> list[str]:
    """The call ids the events report, each once, in the order they first appear."""
    return list(dict.fromkeys(event.call_id for event in events if isinstance(event, ModelToolCallDelta)))


def _named(assembler: ToolCallAssembler, key: str, call_id: str | None, name: str, args: str) -> list[ModelEvent]:
    assembler.start(key, call_id)
    assembler.set_name(key, name)
    return [*assembler.name_complete(key), *assembler.args_fragment(key, args)]


def test_a_reused_server_id_becomes_a_second_call() -> None:
    """Keys 0 and 1 both say ``call_a``: the second is reported as ``call_a#2`` and assembles as its own call."""
    assembler = ToolCallAssembler()
    events = [
        *_named(assembler, "0", "call_a", "get_weather", '{"city":"Oslo"}'),
        *_named(assembler, "1", "call_a", "get_weather", '{"city":"Bergen"}'),
        *assembler.flush(),
    ]
    assert _ids(events) == ["call_a", "call_a#2"]
    calls = assemble_response(events).tool_calls
    assert [(call.call_id, call.arguments) for call in calls] == [
        ("call_a", '{"city":"Oslo"}'),
        ("call_a#2", '{"city":"Bergen"}'),
    ]


def test_a_renamed_id_skips_ids_already_taken() -> None:
    """A renamed id never collides with another call's id, server-given or renamed."""
    assembler = ToolCallAssembler()
    events = [
        *_named(assembler, "0", "x", "f", "{}"),
        *_named(assembler, "1", "x#2", "f", "{}"),
        *_named(assembler, "2", "x", "f", "{}"),
    ]
    assert _ids(events) == ["x", "x#2", "x#3"]


def test_unique_ids_are_kept() -> None:
    """Distinct server ids (the normal case) pass through untouched."""
    assembler = ToolCallAssembler()
    events = [*_named(assembler, "0", "a", "f", "{}"), *_named(assembler, "1", "b", "f", "{}")]
    assert _ids(events) == ["a", "b"]
