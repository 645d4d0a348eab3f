"""Agents the ``helikon mcp serve`` tests serve, each on the scripted simulator.

- ``budget``: structured output (a `Budget`);
- ``broken``: a model with an empty script, so every run fails;
- ``blocking``: calls the tool ``wait``, which writes ``$HELIKON_TEST_MARKERS/blocking``, waits until
  cancelled, then writes ``$HELIKON_TEST_MARKERS/cancelled``.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs
import trio

from helikon_fc import LlmAgent
from helikon_fc.shell.tools.function_tool import function_tool
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


@attrs.frozen
class Budget:
    """What is left of a budget category."""

    category: str
    remaining: int


budget: LlmAgent[None] = LlmAgent(
    name="budget",
    model=ScriptedModel([reply('{"category": "dining", "remaining": 88}')]),
    instructions="Say what is left of a budget category.\nAnswer as JSON.",
    output_type=Budget,
)

broken: LlmAgent[None] = LlmAgent(name="broken", model=ScriptedModel([], name="empty-script"))


@function_tool
async def wait() -> str:
    """Wait until cancelled."""
    markers = Path(os.environ["HELIKON_TEST_MARKERS"])
    (markers / "blocking").write_text("1")
    try:
        await trio.sleep_forever()
    finally:
        (markers / "cancelled").write_text("1")


blocking: LlmAgent[None] = LlmAgent(
    name="blocking", model=ScriptedModel([call_tools(call("wait")), reply("never")]), tools=[wait]
)
