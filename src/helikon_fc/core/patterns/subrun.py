"""Sub-runs as pure values: what a parent makes of a child run's stream (a handoff target's, a workflow child's,
an agent-as-tool's) and of how it ended.

A sub-run is a run below another, at a *segment* of the run tree (``handoff:billing``, ``tool:call_1``,
``0:step``): the segment qualifies the ids its waiting calls are decided by, on every runtime. The
parent reads the child's events through a `Relay`, one event at a time (`relay`), and gets back the
events it forwards to its own stream:

- a handoff target's (`HANDOFF`): its `RunStarted` dropped (the `HandoffItem` announced it), every
  other event passed on until its terminal, which is kept, not passed (the parent's run ends with it);
- a workflow child's (`CHILD`, the merge convention of `helikon_fc.agents`): its `RunStarted` becomes
  `AgentUpdated`, its terminal is kept, its last answer text remembered, the rest passed on;
- an agent-as-tool's (`TOOL`): only its questions passed on (`ApprovalRequested`: a human watching the
  caller's stream sees what to decide while the call runs; the parent's model reads the result only), the
  last answer and the terminal kept.

Each `ApprovalRequested` passed on is qualified by the segment (`qualified`). Once the child's stream
ended, `handoff_end` or `child_end` says how: one terminal, or one outcome, always, also for a stream
that stopped without a terminal event. `tool_answer` turns an agent-as-tool's outcome into the tool
result its caller's model reads (a failure is an error result, the caller goes on). The trio shell
and the Temporal workflow both relay through these, so neither decides what a sub-run means.

Plain functions over a frozen value rather than a `PatternOutcome` machine: a relay asks for no action
(running the child, and counting its usage on the parent's meter, is the runtime's), it only maps.
"""

from __future__ import annotations

from enum import Enum

import attrs

from ..errors import MaxAgentDepthExceeded, OtherError
from ..events import (
    AgentEvent,
    AgentUpdated,
    ApprovalRequested,
    MessageOutput,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    TerminalEvent,
)
from ..items import ToolResult
from .vocabulary import ChildFailed, ChildOutcome, ChildPaused, ChildSucceeded


class SubRun(Enum):
    """What kind of sub-run a relay follows (see the module)."""

    HANDOFF = "handoff"
    CHILD = "child"
    TOOL = "tool"


def handoff_segment(target: str) -> str:
    """The segment of the handoff to `target` below the run handing off."""
    return f"handoff:{target}"


def tool_segment(call_id: str) -> str:
    """The segment of the agent-as-tool sub-run of call `call_id`."""
    return f"tool:{call_id}"


def qualified(event: AgentEvent, prefix: str) -> AgentEvent:
    """`event` with, if it asks a human (`ApprovalRequested`), its call id under `prefix` (``"tool:c1/"``)."""
    if prefix and isinstance(event, ApprovalRequested):
        return attrs.evolve(event, call_id=prefix + event.call_id)
    return event


def depth_error(depth: int, limit: int) -> MaxAgentDepthExceeded | None:
    """The error for a sub-run of a run at `depth` when runs may start no deeper than `limit` (`None`: allowed)."""
    below = depth + 1
    return MaxAgentDepthExceeded(below, limit) if below > limit else None


@attrs.frozen
class Relay:
    """Where a parent stands in a child's stream.

    Attributes:
        kind: what the child is to the parent.
        who: the child's name as the parent's messages name it (the handoff target, the agent).
        prefix: the qualifier of the child's waiting calls (its segment and ``/``; ``""``: none).
        text: the child's last answer so far.
        terminal: the child's terminal event, once seen (nothing after it is passed on).
    """

    kind: SubRun
    who: str
    prefix: str = ""
    text: str = ""
    terminal: TerminalEvent | None = None


def relay_of(kind: SubRun, who: str, segment: str = "") -> Relay:
    """A relay before the first event of the child `who` at `segment` (``""``: its questions unqualified)."""
    return Relay(kind, who, f"{segment}/" if segment else "")


def relay(state: Relay, event: AgentEvent) -> tuple[Relay, tuple[AgentEvent, ...]]:
    """Read one event of the child: the relay after it, and what the parent passes on (see the module)."""
    if state.terminal is not None:
        return state, ()
    if isinstance(event, RunCompleted | RunFailed | RunPaused):
        return attrs.evolve(state, terminal=event), ()
    if isinstance(event, MessageOutput):
        state = attrs.evolve(state, text=event.item.text)
    if state.kind is SubRun.TOOL:
        return state, ((qualified(event, state.prefix),) if isinstance(event, ApprovalRequested) else ())
    if isinstance(event, RunStarted):
        return state, (() if state.kind is SubRun.HANDOFF else (AgentUpdated(event.agent),))
    return state, (qualified(event, state.prefix),)


def _no_terminal(state: Relay) -> RunFailed:
    what = "handoff target" if state.kind is SubRun.HANDOFF else "agent"
    return RunFailed(OtherError(f"{what} {state.who!r} ended its stream without a terminal event"))


def handoff_end(state: Relay) -> TerminalEvent:
    """The terminal a run that handed off ends with: its target's, or a failure when the target gave none."""
    return state.terminal if state.terminal is not None else _no_terminal(state)


def child_end(state: Relay) -> ChildOutcome:
    """How a workflow child or an agent-as-tool sub-run ended, for its parent."""
    match state.terminal:
        case RunCompleted():
            return ChildSucceeded(state.text)
        case RunFailed(error=error):
            return ChildFailed(error)
        case RunPaused(pending=pending):
            return ChildPaused(pending)
        case _:
            return ChildFailed(_no_terminal(state).error)


def tool_answer(call_id: str, agent: str, outcome: ChildSucceeded | ChildFailed) -> ToolResult:
    """What the caller's model reads of an agent-as-tool call: the answer, or the failure as an error result."""
    if isinstance(outcome, ChildFailed):
        return ToolResult(call_id, f"agent {agent} failed: {outcome.error}", is_error=True)
    return ToolResult(call_id, outcome.text)
