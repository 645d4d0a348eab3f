"""The agents the serve tests serve (also by ``helikon serve tests.serve.served_agents:agents``): all on the
simulator, so a run needs no key and no network.

- ``echo`` answers ``echo: <the input>`` at once, a word per delta;
- ``slow`` streams twenty words 50 ms apart (a run to cancel, interrupt or reconnect to mid-way);
- ``cleaner`` calls its ``Bash`` tool with ``rm -rf /``, which the built-in guards of `permissions` ask a human
  about: the run pauses (approving it with ``rm -rf build/`` runs that instead, checked again);
- ``recall`` answers how many user messages it was given (a session's history counts);
- ``broken`` fails: its model is down (the run ends with `RunFailed`);
- ``delegator`` asks ``helper`` (an agent as a tool) and answers with what it said;
- ``pipeline`` runs ``echo`` then ``recall`` one after the other (a workflow: its envelopes' paths nest).
"""

from __future__ import annotations

from helikon_fc import Agent, AgentAsTool, LlmAgent, Permissions, SequentialAgent, function_tool
from helikon_fc.core import (
    FinishReason,
    ModelFinish,
    ModelRequest,
    ModelTextDelta,
    ModelUsage,
    ToolResult,
    Usage,
    UserMessage,
)
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, fail, pause, raw, reply

SLOW_WORDS = 20
"""How many deltas a ``slow`` run streams."""


def _user_text(request: ModelRequest) -> str:
    return next((item.text for item in reversed(request.items) if isinstance(item, UserMessage)), "")


def _echo(request: ModelRequest) -> ScriptedTurn:
    return reply(f"echo: {_user_text(request)}")


def _slow(request: ModelRequest) -> ScriptedTurn:
    steps: list[object] = []
    for index in range(SLOW_WORDS):
        steps += [ModelTextDelta(f"w{index} "), pause(0.05)]
    return raw(*steps, ModelUsage(Usage(input_tokens=3, output_tokens=SLOW_WORDS)), ModelFinish(FinishReason.STOP))  # type: ignore[arg-type]


def _cleaning(request: ModelRequest) -> ScriptedTurn:
    results = [item for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(call("Bash", command="rm -rf /").with_id("wipe-1"))
    return reply(f"Bash said: {results[-1].output}")


def _recall(request: ModelRequest) -> ScriptedTurn:
    return reply(f"{sum(isinstance(item, UserMessage) for item in request.items)} user messages")


@function_tool(name="Bash")
async def bash(command: str) -> str:
    """Run a shell command (here: pretend to).

    Args:
        command: the command line.
    """
    return f"ran {command}"


echo = LlmAgent(name="echo", model=FunctionModel(_echo), description="Echoes its input.")
slow = LlmAgent(name="slow", model=FunctionModel(_slow), description="Streams twenty words slowly.")
cleaner = LlmAgent(name="cleaner", model=FunctionModel(_cleaning), tools=[bash], description="Cleans up.")

recall = LlmAgent(name="recall", model=FunctionModel(_recall), description="Counts user messages.")


def _delegating(request: ModelRequest) -> ScriptedTurn:
    results = [item for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(call("helper", input="find it").with_id("ask-1"))
    return reply(f"done: {results[-1].output}")


helper = LlmAgent(name="helper", model=FunctionModel(lambda request: reply(f"helped with {_user_text(request)}")))
delegator = LlmAgent(name="delegator", model=FunctionModel(_delegating), tools=[AgentAsTool(helper)])
broken = LlmAgent(name="broken", model=FunctionModel(lambda request: fail("the model is down")), description="Fails.")
pipeline = SequentialAgent("pipeline", "Echo, then count.").then(echo).then(recall)

agents: list[Agent[None]] = [echo, slow, cleaner, recall, pipeline, broken, delegator]
"""Every served agent (``create_app(agents, ...)``)."""

permissions = Permissions()
"""The built-in guards: a human decides destructive shell commands."""

__all__ = [
    "SLOW_WORDS",
    "agents",
    "broken",
    "cleaner",
    "delegator",
    "echo",
    "permissions",
    "pipeline",
    "recall",
    "slow",
]
