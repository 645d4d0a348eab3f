"""`CaseRun`: what one run of a case did, as evaluators see it (output, calls per agent, agents, usage)."""

from __future__ import annotations

import json
from collections.abc import Iterable

import attrs

from ..core import AgentEvent, AgentUpdated, JsonValue, RunStarted, ToolCallItem, Usage
from ..shell.loop.results import RunResult


@attrs.frozen(kw_only=True)
class ObservedCall:
    """A tool call a run made.

    Attributes:
        agent: the agent whose model made the call.
        name: the tool's name (handoffs are tool calls too: ``transfer_to_<agent>``).
        arguments: the decoded arguments, or the raw text when it is not JSON.
    """

    agent: str
    name: str
    arguments: JsonValue

    def describe(self) -> str:
        """The call as a report shows it: ``agent: name({...})``."""
        return f"{self.agent}: {self.name}({json.dumps(self.arguments, sort_keys=True, ensure_ascii=False)})"


@attrs.frozen(kw_only=True)
class CaseRun:
    """One run of a case (one repetition).

    Attributes:
        output: the final output, or `None` when the run failed.
        error: why the run failed (the agent's error, a timeout, an exception), or `None`.
        events: every event the run emitted (as many as were seen, for a failed run).
        usage: the run's usage (zero when the run failed before completing).
        result: the `RunResult` of a successful run (for `RunResult.cost`), else `None`.
        calls: the tool calls made, in order, each with its agent.
        agents: the agents that ran, in the order they became active (repeats kept when control came back).
        run_id: the id the run is recorded under in the eval's store, or `None`.
        elapsed: seconds the run took, on the trio clock (virtual seconds in virtual time).
    """

    output: str | None
    error: str | None
    events: tuple[AgentEvent, ...] = ()
    usage: Usage = Usage()
    result: RunResult[str] | None = None
    calls: tuple[ObservedCall, ...] = ()
    agents: tuple[str, ...] = ()
    run_id: str | None = None
    elapsed: float = 0.0

    @property
    def failed(self) -> bool:
        """Whether the run failed (then every evaluator scores it 0)."""
        return self.error is not None


def trajectory(events: Iterable[AgentEvent]) -> tuple[tuple[ObservedCall, ...], tuple[str, ...]]:
    """The tool calls (each with the agent active when it was made) and the agents that ran, from a run's events."""
    calls: list[ObservedCall] = []
    agents: list[str] = []
    for event in events:
        match event:
            case RunStarted(agent=agent) | AgentUpdated(agent=agent):
                if not agents or agents[-1] != agent:
                    agents.append(agent)
            case ToolCallItem(item=call):
                calls.append(
                    ObservedCall(agent=agents[-1] if agents else "?", name=call.name, arguments=decoded(call.arguments))
                )
            case _:
                pass
    return tuple(calls), tuple(agents)


def decoded(arguments: str) -> JsonValue:
    try:
        value: JsonValue = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return arguments
    return value
