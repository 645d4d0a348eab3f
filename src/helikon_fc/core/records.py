"""The durable record format: what a recorded run writes at each transition boundary, and the pure
fold (`restore`) that turns a run's records back into the point to continue from.

A run's log is a sequence of these values, one per `RunRecord` of the store (the record's
``kind`` is the value's wire tag, its ``body`` the value's JSON, tag included):

- `RunOpened` (always first): the agent's name and definition fingerprint, and the run's input;
- `ToolsOffered` (right after it, only for a run whose tools were listed when it started: an MCP
  server's): every listed tool as the model was offered it, so a resumed run offers the same ones;
- `Boundary`: one transition step — the next state, the conversation appends, the events, and the
  kind of the next action — written *before* that action's side effect starts;
- `ModelAnswered`: a finished model call (its response and the delta events streamed live),
  written together with the boundary it leads to;
- `ToolFinished`: one finished tool call, written as each call of a round finishes;
- `RunFinished` (always last): the terminal event.

The next action is recorded by kind only: `Start` on the recorded state asks for it again, whole
(the machine is pure), so a `CallModel` request never has to be stored with its conversation.
Workflow agents (sequential, parallel, loop, graph, swarm) write only `RunOpened` and
`RunFinished`: their progress is in their children's logs, which resume themselves.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Sequence
from typing import TypeAlias, assert_never

import attrs

from .events import AgentEvent, RunCompleted, RunFailed
from .items import Item, ToolResult
from .json_value import JsonObject, JsonValue
from .model import ModelResponse, ModelSettings, OutputSchema, ToolDef
from .permissions.config import ToolEffect
from .states import AwaitApproval, CallModel, ExecuteTools, LoopState, NextAction, PerformHandoff, Terminate

RECORD_FORMAT_VERSION = 2
"""The version of this record format; written in every `RunOpened`. Version 2 stores boundaries that
refer back to the model answer and tool results recorded before them (`core.record_codec`); a log of
version 1 reads the same. A log of a newer version is refused (`restore`)."""


class ActionKind(enum.Enum):
    """Which side effect a boundary leads to (the action itself is asked again with `Start`)."""

    CALL_MODEL = "call_model"
    EXECUTE_TOOLS = "execute_tools"
    AWAIT_APPROVAL = "await_approval"
    PERFORM_HANDOFF = "perform_handoff"
    TERMINATE = "terminate"


def action_kind(action: NextAction) -> ActionKind:
    """The kind of `action`."""
    match action:
        case CallModel():
            return ActionKind.CALL_MODEL
        case ExecuteTools():
            return ActionKind.EXECUTE_TOOLS
        case AwaitApproval():
            return ActionKind.AWAIT_APPROVAL
        case PerformHandoff():
            return ActionKind.PERFORM_HANDOFF
        case Terminate():
            return ActionKind.TERMINATE
        case _:
            assert_never(action)


@attrs.frozen(kw_only=True)
class RunOpened:
    """The first record of every run: what ran, on what."""

    agent: str
    """The agent's name."""
    pattern: str
    """What kind of agent: ``"llm"``, ``"sequential"``, ``"parallel"``, ``"loop"``, ``"graph"``, ``"swarm"``, ..."""
    fingerprint: str
    """A hash of the agent's definition (see `fingerprint`); a resume with a different one is refused."""
    input: tuple[Item, ...] = ()
    version: int = RECORD_FORMAT_VERSION


@attrs.frozen(kw_only=True)
class OfferedTool:
    """One tool a run was offered by a tool source (an MCP server), as the model saw it."""

    name: str
    """The name the model calls."""
    source: str
    """The source that listed it (``MCP server 'uvx mcp-server-time'``)."""
    description: str
    parameters: JsonObject
    """The JSON Schema of its arguments, as offered."""
    effect: ToolEffect
    """What a call may change (from its annotations, or the user's override)."""


@attrs.frozen(kw_only=True)
class ToolsOffered:
    """The tools a run's tool sources listed when it started (the second record, when there is one).

    A resumed run offers these again, whatever its sources list by then; a tool that changed or went
    away since is still offered to the model as it was, and a call to it fails with a tool error
    saying what changed (it is never swapped for the new one silently).
    """

    sources: tuple[str, ...] = ()
    """The names of the run's tool sources, in order (a source may list no tools)."""
    tools: tuple[OfferedTool, ...] = ()


@attrs.frozen(kw_only=True)
class Boundary:
    """One transition step, written before its action's side effect starts."""

    state: LoopState
    appends: tuple[Item, ...] = ()
    events: tuple[AgentEvent, ...] = ()
    action: ActionKind


@attrs.frozen(kw_only=True)
class AskedRequest:
    """The request a recorded model call answered, its conversation stored as what the log does not hold.

    Everything of the `ModelRequest` is kept but its conversation, which the log holds already: `kept`
    says how many leading items of the log's conversation at that point (the run's input and the appends
    of every boundary before the call) the request's conversation starts with, and `items` holds the rest
    (usually nothing; a compacted conversation's summary and what follows it). A recording rebuilds the
    requests from these (`helikon_fc.testing.Recording`) and shows a changed one as a diff.
    """

    instructions: str | None
    tools: tuple[ToolDef, ...] = ()
    settings: ModelSettings = ModelSettings()
    output_schema: OutputSchema | None = None
    kept: int = 0
    """How many leading items of the log's conversation the request's conversation starts with."""
    items: tuple[Item, ...] = ()
    """The items after those."""
    injected: int = 0
    """How many system messages hooks appended to the request as it was sent (`OnRunStart`/`OnTurnStart`
    injections): counted, never recorded — the request above is the agent's own, without them."""


@attrs.frozen(kw_only=True)
class ModelAnswered:
    """A finished model call: the assembled response and the delta events streamed while it ran.

    `asked` and `latency` are left off the wire when `None` (records written before they existed
    read with `None`): what was asked (see `AskedRequest`), and the seconds from asking to the
    assembled answer on the run's clock.
    """

    response: ModelResponse
    deltas: tuple[AgentEvent, ...] = ()
    asked: AskedRequest | None = None
    latency: float | None = None


@attrs.frozen(kw_only=True)
class ToolFinished:
    """One finished tool call of the current round.

    `escalated` is whether the run's escalate signal was raised when it finished (a `LoopAgent`
    reads it), so a resumed run raises it again. `events` are the call's permission decisions
    (`PermissionGranted`, ...), so a round cut short by a crash still has them in its log.
    """

    result: ToolResult
    escalated: bool = False
    events: tuple[AgentEvent, ...] = ()


@attrs.frozen(kw_only=True)
class RunFinished:
    """The last record: the run's terminal event (`RunCompleted` or `RunFailed`).

    `latency` is set when the run failed on a model call (`ModelFailed`): the seconds from asking to the
    failure. It is left off the wire when `None` (records written before it existed read with `None`).
    """

    terminal: AgentEvent
    escalated: bool = False
    latency: float | None = None


RunRecordBody: TypeAlias = RunOpened | Boundary | ModelAnswered | ToolFinished | RunFinished | ToolsOffered
"""Every kind of durable record."""


class RecordLogError(ValueError):
    """A run's records do not form a valid log (not opened first, a record after the end, ...)."""


@attrs.frozen(kw_only=True)
class Resumption:
    """Where a recorded run stands: everything a driver needs to continue it.

    Attributes:
        opened: the run's `RunOpened`.
        offered: the run's `ToolsOffered` (`None`: it lists no tools when it starts, or was recorded without them).
        state: the state of the last boundary (`None`: no boundary yet, start from the beginning).
        conversation: the input followed by every recorded append.
        replayed: the recorded events that were delivered before (replay them only on request).
        redeliver: the events of the last boundary when nothing was recorded after it: the crash
            may have come between writing them and delivering them, so they go out again.
        action: the kind of the last boundary's action (`None` without a boundary).
        response: a model answer recorded after the last boundary (feed it, do not call again).
        answers: every model answer recorded, in order (their usage counts for the resumed run).
        finished_calls: the call id of every tool call recorded as finished, in order.
        tool_results: the tool results recorded after the last boundary (do not run those again).
        tool_events: the permission events recorded with those results, by call id.
        escalated: whether the escalate signal was raised during the recorded part.
        finished: the `RunFinished` record, when the run ended.
        next_seq: the seq the next record gets.
    """

    opened: RunOpened
    offered: ToolsOffered | None = None
    state: LoopState | None = None
    conversation: tuple[Item, ...] = ()
    replayed: tuple[AgentEvent, ...] = ()
    redeliver: tuple[AgentEvent, ...] = ()
    action: ActionKind | None = None
    response: ModelResponse | None = None
    answers: tuple[ModelResponse, ...] = ()
    finished_calls: tuple[str, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    tool_events: tuple[tuple[str, tuple[AgentEvent, ...]], ...] = ()
    escalated: bool = False
    finished: RunFinished | None = None
    next_seq: int = 1


def restore(records: Sequence[RunRecordBody]) -> Resumption:
    """Fold a run's records (oldest first) into the point to continue from.

    Raises:
        RecordLogError: the log does not start with `RunOpened`, has a second one, goes on after
            `RunFinished`, or is in a record format newer than `RECORD_FORMAT_VERSION`.
    """
    fold = _Fold(_opening(records))
    for index, record in enumerate(records[1:], start=1):
        fold.take(index, record)
    return fold.resumption(next_seq=len(records))


def _opening(records: Sequence[RunRecordBody]) -> RunOpened:
    """The log's `RunOpened`, refused when missing or written in a format newer than this reader's."""
    if not records or not isinstance(records[0], RunOpened):
        raise RecordLogError("a run's log must start with a run_opened record")
    opened = records[0]
    if opened.version > RECORD_FORMAT_VERSION:
        raise RecordLogError(
            f"the run was recorded in record format {opened.version}, newer than the {RECORD_FORMAT_VERSION} "
            "this helikon_fc reads: it was written by a newer helikon_fc; upgrade to resume it"
        )
    return opened


class _Fold:
    """What `restore` has read so far, one record at a time: a local accumulator, so `restore` stays pure."""

    __slots__ = (
        "after_last",
        "answers",
        "conversation",
        "decided",
        "escalated",
        "finished",
        "finished_calls",
        "last",
        "offered",
        "opened",
        "replayed",
        "response",
        "results",
        "state",
    )

    def __init__(self, opened: RunOpened) -> None:
        self.opened = opened
        self.conversation: list[Item] = list(opened.input)
        self.replayed: list[AgentEvent] = []
        self.state: LoopState | None = None
        self.last: Boundary | None = None
        self.after_last = False
        self.response: ModelResponse | None = None
        self.answers: list[ModelResponse] = []
        self.finished_calls: list[str] = []
        self.results: list[ToolResult] = []
        self.decided: list[tuple[str, tuple[AgentEvent, ...]]] = []
        self.escalated = False
        self.finished: RunFinished | None = None
        self.offered: ToolsOffered | None = None

    def take(self, index: int, record: RunRecordBody) -> None:
        """Fold in record `index`, refusing one that cannot stand there (after the end, a second opening)."""
        if self.finished is not None:
            raise RecordLogError(f"record {index} ({_tag(record)}) comes after the run_finished record")
        match record:
            case RunOpened():
                raise RecordLogError(f"record {index} is a second run_opened record")
            case ToolsOffered():
                if index != 1:
                    raise RecordLogError(f"record {index} is a tools_offered record; only record 1 may be one")
                self.offered = record
            case Boundary():
                self._boundary(record)
            case ModelAnswered():
                self.replayed.extend(record.deltas)
                self.answers.append(record.response)
                self.response, self.after_last = record.response, True
            case ToolFinished():
                self._tool_finished(record)
            case RunFinished():
                self.finished, self.after_last = record, True
                self.escalated = self.escalated or record.escalated
            case _:
                assert_never(record)

    def _boundary(self, record: Boundary) -> None:
        """A new boundary: what was recorded after the previous one is behind the run now."""
        self.replayed.extend(record.events)
        self.state, self.last, self.after_last = record.state, record, False
        self.response, self.results, self.decided = None, [], []
        self.conversation.extend(record.appends)

    def _tool_finished(self, record: ToolFinished) -> None:
        """A finished call of the current round: its result and permission events are not to be made again."""
        self.results.append(record.result)
        if record.events:
            self.decided.append((record.result.call_id, record.events))
        self.finished_calls.append(record.result.call_id)
        self.escalated = self.escalated or record.escalated
        self.after_last = True

    def resumption(self, *, next_seq: int) -> Resumption:
        """The fold as a `Resumption`, with the last boundary's events held back when nothing followed them."""
        last = self.last
        replayed = self.replayed
        redeliver: tuple[AgentEvent, ...] = ()
        if last is not None and not self.after_last and last.events:
            # Nothing was recorded after the last boundary: its events may not have been delivered.
            redeliver = last.events
            del replayed[len(replayed) - len(redeliver) :]
        return Resumption(
            opened=self.opened,
            offered=self.offered,
            state=self.state,
            conversation=tuple(self.conversation),
            replayed=tuple(replayed),
            redeliver=redeliver,
            action=last.action if last is not None else None,
            response=self.response,
            answers=tuple(self.answers),
            finished_calls=tuple(self.finished_calls),
            tool_results=tuple(self.results),
            tool_events=tuple(self.decided),
            escalated=self.escalated,
            finished=self.finished,
            next_seq=next_seq,
        )


def _tag(record: RunRecordBody) -> str:
    return record_kind(record)


_KINDS: dict[type, str] = {
    RunOpened: "run_opened",
    ToolsOffered: "tools_offered",
    Boundary: "boundary",
    ModelAnswered: "model_answered",
    ToolFinished: "tool_finished",
    RunFinished: "run_finished",
}


def record_kind(record: RunRecordBody) -> str:
    """The `RunRecord.kind` a record is stored under (its wire tag)."""
    return _KINDS[type(record)]


def is_terminal(event: AgentEvent) -> bool:
    """Whether `event` ends a run."""
    return isinstance(event, RunCompleted | RunFailed)


def fingerprint(definition: JsonValue) -> str:
    """A short stable hash of an agent definition given as JSON (sorted keys, compact).

    Two definitions that differ in anything the JSON holds (a tool's name or schema, a handoff, an
    output schema, a workflow's structure) get different fingerprints.
    """
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
