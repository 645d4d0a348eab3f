"""Helpers of the guardrail and hook tests: logging hooks, timed guardrails, a tool that logs its calls."""

from __future__ import annotations

from collections.abc import Callable

import trio

from helikon_fc import RunContext, RunStream, ToolContext, function_tool
from helikon_fc.core import AgentEvent
from helikon_fc.shell.control.guardrails import Guardrail, GuardrailVerdict
from helikon_fc.shell.control.hooks import (
    Hook,
    HookDecision,
    HookPoint,
    OnHandoff,
    OnRunComplete,
    OnRunStart,
    OnSubagentStop,
    OnTurnStart,
    PostToolUse,
    PreToolUse,
)
from helikon_fc.shell.tools.tool import Tool


def describe(point: HookPoint) -> str:
    """A point as one short string: ``run_start:a``, ``turn_start:0``, ``pre:lookup``, ``subagent_stop:b``."""
    match point:
        case OnRunStart(agent=agent):
            return f"run_start:{agent}"
        case OnTurnStart(turn=turn):
            return f"turn_start:{turn}"
        case PreToolUse(call=call):
            return f"pre:{call.name}"
        case PostToolUse(call=call):
            return f"post:{call.name}"
        case OnHandoff(from_agent=a, to_agent=b):
            return f"handoff:{a}->{b}"
        case OnRunComplete(agent=agent):
            return f"run_complete:{agent}"
        case OnSubagentStop(agent=agent):
            return f"subagent_stop:{agent}"
    raise AssertionError(point)


def logging_hook(
    log: list[str], label: str, answer: Callable[[HookPoint], HookDecision | None] = lambda point: None
) -> Hook[None]:
    """A hook appending ``label:<point>`` to `log` and answering ``answer(point)``."""

    async def hook(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
        await trio.lowlevel.checkpoint()
        log.append(f"{label}:{describe(point)}")
        return answer(point)

    return hook


def timed_guardrail(
    name: str, seconds: float, verdict: GuardrailVerdict, log: list[str] | None = None
) -> Guardrail[None]:
    """A guardrail that answers `verdict` after `seconds` (virtual), logging ``name:<text>`` when it answers."""

    async def check(ctx: RunContext[None], text: str) -> GuardrailVerdict:
        await trio.sleep(seconds)
        if log is not None:
            log.append(f"{name}:{text}")
        return verdict

    return Guardrail(name, check)


def lookup_tool(calls: list[str]) -> Tool[None]:
    """A tool `lookup(key)` that logs each key it is called with and answers ``value of <key>``."""

    @function_tool
    async def lookup(ctx: ToolContext[None], key: str) -> str:
        """Look a key up.

        Args:
            key: what to look up.
        """
        await trio.lowlevel.checkpoint()
        calls.append(key)
        return f"value of {key}"

    return lookup


async def collect(stream: RunStream, times: list[float] | None = None) -> list[AgentEvent]:
    """Every event of `stream`; with `times`, the virtual time each arrived at."""
    events: list[AgentEvent] = []
    async with stream as received:
        async for event in received:
            events.append(event)
            if times is not None:
                times.append(trio.current_time())
    return events


def names(events: list[AgentEvent]) -> list[str]:
    """The events' class names."""
    return [type(event).__name__ for event in events]
