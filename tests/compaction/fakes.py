"""A tool-loop agent that outgrows a small compaction budget, with models that read only what they are shown."""

from __future__ import annotations

import re

from helikon_fc import Compaction, LlmAgent, RunConfig, function_tool
from helikon_fc.core import ModelRequest, ToolResult
from helikon_fc.models.protocol import Model
from helikon_fc.testing import FunctionModel, call, call_tools, reply
from helikon_fc.testing.script import ScriptedTurn

STEPS = 5
"""The tool rounds the worker makes before it answers."""


@function_tool
def step(n: int) -> str:
    """Do step `n` of the job and report it at length.

    Args:
        n: the step's number.
    """
    return f"step {n} done. " + "detail " * 40


def last_step(request: ModelRequest) -> int:
    """The step the last tool result in view reports (0 before any)."""
    for item in reversed(request.items):
        if isinstance(item, ToolResult):
            found = re.match(r"step (\d+) done", item.output)
            return int(found.group(1)) if found else 0
    return 0


def worker_turn(request: ModelRequest) -> ScriptedTurn:
    """Call `step` with the next number until `STEPS` are done, then answer."""
    done = last_step(request)
    if done >= STEPS:
        return reply(f"finished {done} steps")
    return call_tools(call("step", n=done + 1).with_id(f"s{done + 1}"))


def summary_turn(request: ModelRequest) -> ScriptedTurn:
    """A summary naming the lines it was given (the earlier summary's line among them)."""
    prompt = request.items[-1]
    text = getattr(prompt, "text", "")
    lines = [line for line in text.splitlines() if line.startswith("[")]
    return reply(f"summary of {len(lines)} lines; " + " | ".join(line[:30] for line in lines))


def config(max_tokens: int = 200, summariser: Model | None = None) -> RunConfig:
    """The worker's run config: room for its steps, and a compaction budget."""
    return RunConfig(max_turns=20, compaction=Compaction(max_tokens=max_tokens, model=summariser))


def worker(max_tokens: int = 200, summariser: Model | None = None) -> tuple[LlmAgent[None], FunctionModel]:
    """The worker agent with a compaction budget (its own `run_config`), and its model."""
    model = FunctionModel(worker_turn, name="worker-model")
    agent: LlmAgent[None] = LlmAgent(
        name="worker", model=model, tools=[step], run_config=config(max_tokens, summariser)
    )
    return agent, model


def summariser() -> FunctionModel:
    """A summary model (see `summary_turn`)."""
    return FunctionModel(summary_turn, name="summariser")
