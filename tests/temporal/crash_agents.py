"""The crash test's agent, loaded by a real worker process (``helikon temporal worker --agents``).

Each tool appends to the effects file named by ``HELIKON_EFFECTS``; ``slow`` then waits for the
file ``<effects>.go`` before it finishes, so the test can kill the worker mid-round. The model is a
function of the conversation (not of a turn counter), so a restarted worker answers the same.
"""

from __future__ import annotations

import os
from pathlib import Path

import trio

from helikon_fc import LlmAgent, function_tool
from helikon_fc.core import ModelRequest, ToolResult
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply


def _effects() -> Path:
    return Path(os.environ["HELIKON_EFFECTS"])


def _append(line: str) -> None:
    with _effects().open("a") as file:
        file.write(line + "\n")


@function_tool
async def effect(key: str) -> str:
    """Record an effect."""
    _append(f"done {key}")
    return f"did {key}"


@function_tool
async def slow(key: str) -> str:
    """Record an effect once allowed to."""
    _append(f"start {key}")
    go = _effects().with_suffix(".go")
    while not go.exists():
        await trio.sleep(0.05)
    _append(f"done {key}")
    return f"did {key} slowly"


def _turn(request: ModelRequest) -> ScriptedTurn:
    results = [item.output for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(
            call("effect", key="a").with_id("a"),
            call("effect", key="b").with_id("b"),
            call("slow", key="c").with_id("c"),
        )
    return reply("finished: " + ", ".join(results))


agent = LlmAgent[None](name="crashy", model=FunctionModel(_turn), tools=[effect, slow])
