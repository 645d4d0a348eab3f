"""What the two floors share: the fake model's answers and the message shapes of a plain loop.

The floor is the smallest honest program that runs the script: a list of message dicts, a model
call, the tool calls of a turn fanned out concurrently with results stored by index, and the loop.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from .. import script

Message = dict[str, Any]


class Call:
    """A tool call in a fake response."""

    __slots__ = ("arguments", "call_id", "name")

    def __init__(self, call_id: str, name: str, arguments: str) -> None:
        self.call_id = call_id
        self.name = name
        self.arguments = arguments


class Response:
    """A fake model response, built fresh on every call as a provider adapter would."""

    __slots__ = ("calls", "input_tokens", "output_tokens", "text")

    def __init__(self, text: str, calls: tuple[Call, ...]) -> None:
        self.text = text
        self.calls = calls
        self.input_tokens = script.INPUT_TOKENS
        self.output_tokens = script.OUTPUT_TOKENS


# The four tools of the shared script, as plain async functions both floors call by name; COUNT counts executions.
COUNT = [0]


async def t0(x: int) -> str:
    COUNT[0] += 1
    return script.tool_output(0, x)


async def t1(x: int) -> str:
    COUNT[0] += 1
    return script.tool_output(1, x)


async def t2(x: int) -> str:
    COUNT[0] += 1
    return script.tool_output(2, x)


async def t3(x: int) -> str:
    COUNT[0] += 1
    return script.tool_output(3, x)


TOOLS: dict[str, Callable[..., Awaitable[str]]] = {"t0": t0, "t1": t1, "t2": t2, "t3": t3}


def turn_of(messages: list[Message]) -> int:
    """The model turn, from the last message only (no scan of the conversation)."""
    last = messages[-1]
    return script.turn_after(last["call_id"]) if last["role"] == "tool" else 0


def respond(messages: list[Message], rounds: int, text: str) -> Response:
    """The whole answer for this turn: four tool calls while `rounds` remain, then `text`."""
    turn = turn_of(messages)
    if turn < rounds:
        arguments = json.dumps({"x": turn})
        return Response(
            "",
            tuple(Call(script.call_id(turn, k), name, arguments) for k, name in enumerate(script.TOOL_NAMES)),
        )
    return Response(text, ())


def chunks(messages: list[Message], rounds: int) -> list[Call | str]:
    """The streamed answer: one chunk per tool call, or the final text in four chunks."""
    response = respond(messages, rounds, script.FINAL_TEXT)
    if response.calls:
        return list(response.calls)
    return list(script.FINAL_CHUNKS)


def initial_messages(history: int = 0) -> list[Message]:
    """System instructions, `history` earlier messages (S5), then the user prompt."""
    messages: list[Message] = [{"role": "system", "content": script.INSTRUCTIONS}]
    messages.extend({"role": role, "content": text} for role, text in script.history_texts(history))
    messages.append({"role": "user", "content": script.PROMPT})
    return messages
