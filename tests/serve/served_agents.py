"""The agents the serve tests serve (also by ``helikon serve tests.serve.served_agents:agents``): all on the
simulator, so a run needs no key and no network.

- ``echo`` answers ``echo: <the input>`` at once, a word per delta;
- ``slow`` streams twenty words 50 ms apart (a run to cancel, interrupt or reconnect to mid-way);
- ``deployer`` calls its ``deploy`` tool, which `permissions` asks a human about: the run pauses.
"""

from __future__ import annotations


from helikon_fc import LlmAgent, Permissions, function_tool
from helikon_fc.core import (
    FinishReason,
    Guard,
    ModelFinish,
    ModelRequest,
    ModelTextDelta,
    ModelUsage,
    PermissionConfig,
    ToolResult,
    ToolRule,
    UserMessage,
    Usage,
)
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, pause, raw, reply

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


def _deploying(request: ModelRequest) -> ScriptedTurn:
    results = [item for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(call("deploy", target="prod").with_id("deploy-1"))
    return reply(f"deploy said: {results[-1].output}")


@function_tool
async def deploy(target: str) -> str:
    """Deploy the service.

    Args:
        target: where to deploy.
    """
    return f"deployed to {target}"


echo = LlmAgent(name="echo", model=FunctionModel(_echo), description="Echoes its input.")
slow = LlmAgent(name="slow", model=FunctionModel(_slow), description="Streams twenty words slowly.")
deployer = LlmAgent(name="deployer", model=FunctionModel(_deploying), tools=[deploy], description="Deploys.")

agents = [echo, slow, deployer]
"""Every served agent (``create_app(agents, ...)``)."""

permissions = Permissions(config=PermissionConfig(guards=(Guard("deploy", ToolRule("deploy")),)))
"""A human decides every ``deploy`` call."""

__all__ = ["SLOW_WORDS", "agents", "deployer", "echo", "permissions", "slow"]
