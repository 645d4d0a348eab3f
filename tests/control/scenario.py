"""The agents the approval tests run: tools that log every call they make, models that answer from the conversation.

The models answer from the request alone (no per-process script position), so a run resumed in a
new process gets the same answers an uninterrupted run would.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from helikon_fc import AgentAsTool, AgentInput, GraphAgent, Handoff, LlmAgent, RunContext, Runner, RunResultStreaming
from helikon_fc.core import JsonObject, ModelRequest, ToolEffect, ToolResult
from helikon_fc.shell.control.permissions import ApprovalAnswer, Approve, Permissions, Reject
from helikon_fc.shell.durable.storage import RunStore
from helikon_fc.shell.loop.protocol import Agent
from helikon_fc.shell.loop.results import RunResult
from helikon_fc.shell.tools.tool import ToolContext, ToolOutput
from helikon_fc.testing import FunctionModel, call, call_tools, reply
from helikon_fc.testing.script import ScriptedTurn

COMMANDS = ("rm -rf /", "ls -la", "rm -rf ~", "echo hi > /etc/motd")
"""The round the `ops` agent asks for: three calls a built-in guard stops (an rm of root or home, a
write under /etc) and one the rules let through."""


@attrs.frozen
class LoggingTool:
    """A tool of any name and effect that accepts any object, logs each call it makes and echoes it."""

    name: str
    log: Path | None = None
    effect: ToolEffect = ToolEffect.SIDE_EFFECT
    output: str = ""
    description: str = "Runs what it is given."

    @property
    def parameters(self) -> JsonObject:
        return {"type": "object"}

    async def invoke(self, ctx: ToolContext[None], arguments: JsonObject) -> ToolOutput:
        line = json.dumps({"run": ctx.run_id, "call": ctx.call_id, "tool": self.name, "arguments": arguments})
        if self.log is not None:
            with self.log.open("a") as out:
                out.write(line + "\n")
        command = arguments.get("command", "")
        return ToolOutput(self.output or f"ran {command}")


def executed(log: Path) -> list[dict[str, object]]:
    """Every call the logging tools made, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def _ops_turn(request: ModelRequest) -> ScriptedTurn:
    results = [item for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(
            *(call("Bash", command=command).with_id(f"cmd{index}") for index, command in enumerate(COMMANDS))
        )
    return reply(" | ".join(f"{result.call_id}: {result.output}" for result in results))


def ops(log: Path | None) -> LlmAgent[None]:
    """An agent that runs the four `COMMANDS` in one round, then reports every result."""
    return LlmAgent(name="ops", model=FunctionModel(_ops_turn), tools=[LoggingTool("Bash", log)])


def _lead_turn(request: ModelRequest) -> ScriptedTurn:
    results = [item for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(call("ops", input="clean up").with_id("ask-ops"))
    return reply(f"ops says: {results[-1].output}")


def lead(log: Path | None) -> LlmAgent[None]:
    """An agent that asks `ops` through `AgentAsTool`, then passes its answer on."""
    return LlmAgent(name="lead", model=FunctionModel(_lead_turn), tools=[AgentAsTool(ops(log))])


def graph(log: Path | None) -> GraphAgent[None]:
    """A graph whose node ``clean`` is the `ops` agent, followed by a node that reports."""
    report = LlmAgent(name="report", model=FunctionModel(lambda request: reply("report written")))
    return (
        GraphAgent.builder()
        .name("pipeline")
        .node("clean", ops(log))
        .node("report", report)
        .edge("clean", "report")
        .build()
    )


def _handed_ops_turn(request: ModelRequest) -> ScriptedTurn:
    """`ops`'s turns, reading past the handoff's own result in the transcript it is handed."""
    done = [item for item in request.items if isinstance(item, ToolResult) and item.call_id.startswith("cmd")]
    if not done:
        return call_tools(*(call("Bash", command=command).with_id(f"cmd{i}") for i, command in enumerate(COMMANDS)))
    return reply(" | ".join(f"{result.call_id}: {result.output}" for result in done))


def front(log: Path | None) -> LlmAgent[None]:
    """An agent that hands off to an `ops` at once (its calls decided as ``handoff:ops/ID``)."""
    target = LlmAgent(name="ops", model=FunctionModel(_handed_ops_turn), tools=[LoggingTool("Bash", log)])
    return LlmAgent(
        name="front",
        model=FunctionModel(lambda request: call_tools(call("transfer_to_ops").with_id("t1"))),
        handoffs=[Handoff.to(target)],
    )


AGENTS: dict[str, Callable[[Path | None], Agent[None]]] = {"ops": ops, "lead": lead, "graph": graph}

DECISIONS: dict[str, ApprovalAnswer] = {
    "cmd0": Approve(),
    "cmd2": Reject("not the home directory"),
    "cmd3": Approve(arguments=json.dumps({"command": "echo hi > /tmp/motd"})),
}
"""Mixed decisions for the `ops` round: one approved, one rejected, one approved with new arguments."""


def scoped(prefix: str, decisions: dict[str, ApprovalAnswer]) -> dict[str, ApprovalAnswer]:
    """`decisions` for the calls of the sub-run at `prefix` (``"tool:ask-ops/"``, ``"clean/"``)."""
    return {prefix + call_id: answer for call_id, answer in decisions.items()}


class Answers:
    """An in-process approval handler that answers from a table of decisions by call id."""

    def __init__(self, decisions: dict[str, ApprovalAnswer]) -> None:
        self.decisions = decisions
        self.asked: list[str] = []

    async def __call__(self, request: object) -> ApprovalAnswer:
        call_id = request.call.call_id  # type: ignore[attr-defined]
        self.asked.append(call_id)
        return self.decisions[call_id]


def context(permissions: Permissions | None = None) -> RunContext[None]:
    """A fresh context with `permissions` (default: the built-in guards, no handler)."""
    return RunContext.ephemeral(None).with_permissions(permissions or Permissions())


async def start(
    store: RunStore, agent: Agent[None], run_id: str, permissions: Permissions | None = None
) -> RunResult[str]:
    """Run `agent` recorded under `run_id` to its end or its pause."""
    runner = Runner(store=store)
    stream = runner.run(agent, context(permissions), AgentInput.from_user_text("go"), run_id=run_id)
    return await RunResultStreaming(stream).collect()


async def resume(
    store: RunStore, agent: Agent[None], run_id: str, approvals: dict[str, ApprovalAnswer] | None
) -> RunResult[str]:
    """Resume the recorded run with `approvals`."""
    stream = Runner(store=store).resume(run_id, agent, context(), approvals=approvals)
    return await RunResultStreaming(stream).collect()


def pending_ids(result: RunResult[str]) -> list[str]:
    """The call ids a paused result waits on."""
    return [request.call_id for request in result.pending]


def commands_run(log: Path) -> Sequence[str]:
    """The commands the Bash tool ran, in order."""
    return [str(entry["arguments"]["command"]) for entry in executed(log)]  # type: ignore[index]
