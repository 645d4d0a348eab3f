"""The recorded model calls of one agent run, rebuilt from its log (see `Recording`)."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..core import AgentEvent, Conversation, Item, ModelFailed, ModelRequest, ModelResponse, RunFailed
from ..core.compaction import visible
from ..core.records import ActionKind, Boundary, ModelAnswered, RecordLogError, RunFinished, RunOpened, RunRecordBody


@attrs.frozen(kw_only=True)
class RecordedCall:
    """One recorded model call of one agent run.

    Attributes:
        run_id: the id of the agent run that made it.
        agent: that run's agent.
        turn: the call's place among the run's model calls, from 0.
        request: what was asked; `None` in records written before requests were recorded.
        response: the assembled answer.
        deltas: the delta events streamed while it answered (`TokenDelta`, `ToolCallDelta`, ...).
        latency: seconds from asking to the answer; `None` when not recorded.
        injected: how many system messages hooks appended to the request as sent (never recorded: the
            request sent ends with that many items more than `request`).
    """

    run_id: str
    agent: str
    turn: int
    request: ModelRequest | None
    response: ModelResponse
    deltas: tuple[AgentEvent, ...] = ()
    latency: float | None = None
    injected: int = 0


@attrs.frozen(kw_only=True)
class RecordedFailure:
    """The model call a recorded run failed on (a failed call records no request: only the conversation the
    log held when it was asked, which its request showed).

    Attributes:
        run_id: the id of the agent run that made it.
        agent: that run's agent.
        turn: the call's place among the run's model calls, from 0.
        items: the conversation the log held when the call was asked.
        failure: how it failed.
        latency: seconds from asking to the failure; `None` when not recorded.
    """

    run_id: str
    agent: str
    turn: int
    items: tuple[Item, ...]
    failure: ModelFailed
    latency: float | None = None


@attrs.frozen(kw_only=True)
class RecordedRun:
    """One agent run of a recording: its id, agent, log, model calls, and the model call it failed on if any."""

    run_id: str
    agent: str
    records: tuple[RunRecordBody, ...]
    calls: tuple[RecordedCall, ...]
    failed_call: RecordedFailure | None = None

    @property
    def terminal(self) -> AgentEvent | None:
        """The run's terminal event (`None`: the log does not end with one)."""
        last = self.records[-1] if self.records else None
        return last.terminal if isinstance(last, RunFinished) else None


def recorded_run(run_id: str, records: Sequence[RunRecordBody]) -> RecordedRun:
    """A run's log as a `RecordedRun`, its model calls' requests rebuilt from the log's conversation.

    Raises:
        RecordLogError: the log does not start with `RunOpened`.
    """
    if not records or not isinstance(records[0], RunOpened):
        raise RecordLogError(f"run {run_id!r}: a run's log must start with a run_opened record")
    agent = records[0].agent
    calls: list[RecordedCall] = []
    logged: list[Item] = list(records[0].input)
    for body in records:
        if isinstance(body, Boundary):
            logged.extend(body.appends)
        if not isinstance(body, ModelAnswered):
            continue
        request: ModelRequest | None = None
        asked = body.asked
        if asked is not None:
            request = ModelRequest(
                instructions=asked.instructions,
                items=Conversation((*logged[: asked.kept], *asked.items)),
                tools=asked.tools,
                settings=asked.settings,
                output_schema=asked.output_schema,
            )
        calls.append(
            RecordedCall(
                run_id=run_id,
                agent=agent,
                turn=len(calls),
                request=request,
                response=body.response,
                deltas=body.deltas,
                latency=body.latency,
                injected=asked.injected if asked is not None else 0,
            )
        )
    failed_call = _failed_call(run_id, agent, records, len(calls), tuple(logged))
    return RecordedRun(run_id=run_id, agent=agent, records=tuple(records), calls=tuple(calls), failed_call=failed_call)


def _failed_call(
    run_id: str, agent: str, records: Sequence[RunRecordBody], turn: int, logged: tuple[Item, ...]
) -> RecordedFailure | None:
    """The model call the run failed on: its log ends with a `ModelFailed` right after a boundary that asked the
    model (`None` otherwise)."""
    if len(records) < 2:
        return None
    last, before = records[-1], records[-2]
    if not isinstance(last, RunFinished) or not isinstance(before, Boundary) or before.action != ActionKind.CALL_MODEL:
        return None
    terminal = last.terminal
    if not isinstance(terminal, RunFailed) or not isinstance(terminal.error, ModelFailed):
        return None
    return RecordedFailure(
        run_id=run_id,
        agent=agent,
        turn=turn,
        items=visible_items(logged),
        failure=terminal.error,
        latency=last.latency,
    )


def visible_items(logged: tuple[Item, ...]) -> tuple[Item, ...]:
    """What a request shows of the log's conversation `logged` (a compacted conversation's summary and the rest)."""
    return tuple(visible(Conversation(logged)))
