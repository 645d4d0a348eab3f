"""How an `LlmAgent` run records itself and resumes: the driver's boundary hook.

The driver calls `LlmRecording` at four points of its loop, and only when the run is recorded:

- `start`: open the run's log; for a resumed run, replay its recorded events (marked) and give the
  state, input and conversation to continue from;
- `boundary`: after each transition, before its action's side effect starts, write the boundary
  (with the model answer that led to it, in the same transaction);
- `tool_finished`: as each tool call of a round finishes, write its result — at once, or with the
  write already in flight; the result of the round's last call goes with the boundary that follows
  the round (no side effect starts in between), and so does a new run's opening record with its
  first boundary;
- `finish`: write the terminal event.

Resuming feeds `Start` to the recorded state, which asks the recorded action again (the core's
resume law); that first outcome is not recorded again and its events are the ones the crash may
have kept from the consumer (`Resumption.redeliver`), not the re-asked ones.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import attrs
import trio

from ...core import (
    AgentEvent,
    AgentUsage,
    Conversation,
    ExecutingTools,
    Item,
    JsonValue,
    LoopState,
    ModelFailed,
    ModelRequest,
    ModelResponse,
    ModelShare,
    RunCompleted,
    RunFailed,
    Start,
    ToolCall,
    ToolResult,
    TransitionInput,
    TransitionOutcome,
    initial_state,
    to_json,
)
from ...core.records import (
    ActionKind,
    AskedRequest,
    Boundary,
    ModelAnswered,
    Resumption,
    RunFinished,
    RunOpened,
    ToolFinished,
    action_kind,
)
from ..context.run_context import RunContext
from ..durable.run_log import (
    Durability,
    RunRecorder,
    decode_records,
    definition_fingerprint,
    open_log,
    paused_run,
    run_exists,
)
from ..durable.storage import RunRecord
from ..input import AgentInput
from .definition import LoopDefinition
from .run_stream import Send


def llm_definition(agent: LoopDefinition) -> JsonValue:
    """What an `LlmAgent` run depends on, as JSON: its name, tools (names and schemas), handoffs and output schema.

    Instructions, model and settings are left out: changing them does not make a recorded run
    meaningless, so a run may be resumed with a new prompt or model. Of its tool sources (MCP
    servers) only their names count: the tools they listed are recorded with the run (`ToolsOffered`)
    and offered again on resume, so a server that changed its tools meanwhile does not refuse the resume
    (see `shell.tools.offered_tools`); the agent's own definition and its run's listed copy give one fingerprint.
    """
    import json

    listed = {tool.name for tool in agent.offered_tools.tools} if agent.offered_tools is not None else set()
    tools: list[JsonValue] = [json.loads(to_json(tool)) for tool in agent.tool_defs if tool.name not in listed]
    handoffs: list[JsonValue] = [json.loads(to_json(target)) for target in agent.handoff_targets]
    schema = agent.output_schema
    found: dict[str, JsonValue] = {
        "name": agent.name,
        "tools": tools,
        "handoffs": handoffs,
        "output_schema": json.loads(to_json(schema)) if schema is not None else None,
    }
    sources = _source_names(agent)
    if sources:  # only then: the fingerprints of agents without sources stay as they were
        found["tool_sources"] = list(sources)
    return found


def _source_names(agent: LoopDefinition) -> tuple[str, ...]:
    """The names of the definition's tool sources (of the run's listed copy: the sources its tools came from)."""
    if agent.offered_tools is not None:
        return agent.offered_tools.sources
    return tuple(source.source_name for source in agent.tool_sources)


def llm_fingerprint(agent: LoopDefinition) -> str:
    """The fingerprint an `LlmAgent`'s recorded runs carry (worked out once per definition: it is frozen)."""
    key = id(agent)
    known = _FINGERPRINTS.get(key)
    if known is not None and known[0]() is agent:
        return known[1]
    found = definition_fingerprint("llm", llm_definition(agent))
    _FINGERPRINTS[key] = (weakref.ref(agent, lambda _: _FINGERPRINTS.pop(key, None)), found)
    return found


_FINGERPRINTS: dict[int, tuple[weakref.ref[LoopDefinition], str]] = {}
"""`llm_fingerprint`'s results by definition (the entry goes when the definition does)."""


@attrs.frozen
class StartPoint:
    """Where the driver's loop begins: a state, the input to feed it, the conversation so far.

    `resumed` is true when `step` is the `Start` that re-asks a recorded boundary's action: the
    driver then neither records that first outcome nor sends its events, but sends `redeliver`.
    """

    state: LoopState
    step: TransitionInput
    conversation: Conversation
    resumed: bool = False
    redeliver: tuple[AgentEvent, ...] = ()


class LlmRecording:
    """The record of one `LlmAgent` run (see the module docstring)."""

    __slots__ = (
        "_answer",
        "_asked",
        "_deltas",
        "_done_events",
        "_done_results",
        "_logged",
        "_running",
        "ctx",
        "point",
        "recorder",
    )

    def __init__(self, recorder: RunRecorder, point: Resumption, ctx: RunContext[Any]) -> None:
        self.recorder = recorder
        self.point = point
        self.ctx = ctx
        self._answer: ModelResponse | None = None
        self._deltas: list[AgentEvent] = []
        self._done_results: dict[str, ToolResult] = {result.call_id: result for result in point.tool_results}
        self._done_events: dict[str, tuple[AgentEvent, ...]] = dict(point.tool_events)
        self._running = 0
        """The calls of the current tool round not finished yet."""
        self._asked: tuple[ModelRequest, int, float] | None = None
        """The request of the model call under way and when it was asked (recorded with its answer)."""
        self._logged: list[Item] = list(point.conversation)
        """The conversation the log holds so far (the input and every boundary's appends): a request is
        recorded as how many of its leading items these are, and the rest."""

    @classmethod
    async def open(
        cls, agent: LoopDefinition, ctx: RunContext[Any], durable: Durability, input: AgentInput
    ) -> LlmRecording:
        """Open (or pick up) the log of `agent`'s run recorded under ``durable.run_id``."""
        recorder, point = await open_log(
            durable,
            agent=agent.name,
            pattern="llm",
            fingerprint_=llm_fingerprint(agent),
            input=input,
            hold_opening=True,  # the first boundary comes before any side effect: it takes the opening along
            offered=agent.offered_tools,
        )
        return cls(recorder, point, ctx)

    @property
    def durable(self) -> Durability:
        """Where this run is recorded."""
        return self.recorder.durable

    async def start(self, send: Send) -> StartPoint:
        """Replay the recorded events (marked as replays) and say where the loop begins.

        The replay is what the live run delivered, no more: a finished run's last boundary records
        its terminal event among its events, but the live run ended its stream with that terminal
        (completed with its meter) instead of sending it. Replaying it as an event would let the
        caller take it as the child's end: `run_child` settled its recorded usage on the meter
        before the resumed child had replayed its model answers there, and counted the sub-run twice.
        """
        await trio.lowlevel.checkpoint()
        point = self.point
        marks = self.durable.marks
        for event in point.replayed:
            if type(event) is RunCompleted or type(event) is RunFailed:
                continue  # the final boundary's terminal went out as the stream's end, never as an event
            await send(marks.mark(event))
        redeliver = point.redeliver
        if redeliver and point.action is ActionKind.PERFORM_HANDOFF and point.state is not None:
            # the handoff target's log exists only if its boundary's events went out before it started
            target = getattr(point.state, "target", "")
            if await run_exists(self.durable.store, self.durable.child(f"handoff:{target}").run_id):
                for event in redeliver:
                    await send(marks.mark(event))
                redeliver = ()
        if (
            redeliver
            and point.action is ActionKind.AWAIT_APPROVAL
            and await paused_run(self.durable.store, self.durable.run_id)
        ):
            # the run paused after sending them (its pause is what set the status): they were delivered
            for event in redeliver:
                await send(marks.mark(event))
            redeliver = ()
        if point.escalated:
            self.ctx.actions.escalate()
        await self._count_finished_sub_runs()
        conversation = Conversation(point.conversation)
        if point.state is None:
            return StartPoint(initial_state(), Start(), conversation)
        if point.response is not None:
            return StartPoint(point.state, point.response, conversation)
        return StartPoint(point.state, Start(), conversation, resumed=True, redeliver=redeliver)

    async def _count_finished_sub_runs(self) -> None:  # noqa: ASYNC910 - `start` checkpoints first
        """Count on this run's meter the usage of the agent-as-tool sub-runs of recorded tool calls.

        Their calls are not made again, so their sub-runs are not entered again: the usage their
        `RunFinished` records is added instead (a sub-run that failed recorded none).
        """
        meter = self.ctx.meter
        if meter is None:
            return  # noqa: ASYNC910
        store = self.durable.store
        for call_id in self.point.finished_calls:
            child = self.durable.child(f"tool:{call_id}").run_id
            if not await run_exists(store, child):
                continue
            records = await store.read_run_records(child)
            finished = records[-1:] if records and records[-1].kind == "run_finished" else ()
            last = decode_records(child, finished)  # (a record before the end may refer to earlier ones)
            terminal = last[0].terminal if last and isinstance(last[0], RunFinished) else None
            if isinstance(terminal, RunCompleted):
                for part in _shares(terminal, records_agent(records)):
                    meter.add(part.agent, part.usage, part.model)

    def asking(self, request: ModelRequest, injected: int = 0) -> None:
        """The next model call asks `request` (the agent's own, before the hooks' `injected` system messages
        were appended), from now: recorded, with how long the call took, with the model's answer."""
        self._asked = (request, injected, trio.current_time())

    def collecting(self, send: Send) -> Send:
        """`send` that also keeps the model's delta events, to record them with the model's answer."""
        deltas = self._deltas
        deltas.clear()

        async def forward(event: AgentEvent) -> None:  # noqa: ASYNC910 - a pass-through per event, as `sender`
            deltas.append(event)
            await send(event)

        return forward

    def answered(self, response: ModelResponse) -> None:
        """The model call finished with `response`: record it with the next boundary."""
        self._answer = response

    async def boundary(self, outcome: TransitionOutcome) -> None:
        """Write the step `outcome` (with the model answer that led to it), before its action starts."""
        recorder = self.recorder
        if self._answer is not None:
            recorder.hold(self._answered_record(self._answer))
            self._answer = None
            self._deltas.clear()
        self._logged.extend(outcome.conversation_appends)
        await recorder.write(
            Boundary(
                state=outcome.next_state,
                appends=outcome.conversation_appends,
                events=outcome.events,
                action=action_kind(outcome.next_action),
            )
        )

    def _answered_record(self, answer: ModelResponse) -> ModelAnswered:
        """The `ModelAnswered` record of `answer`, with its request and latency when the call was collected."""
        asked, self._asked = self._asked, None
        if asked is None:  # a compaction summary: asked beside the loop, its request not the agent's
            return ModelAnswered(response=answer, deltas=tuple(self._deltas))
        request, injected, started = asked
        items = tuple(request.items)
        kept = 0
        for mine, logged in zip(items, self._logged, strict=False):
            if mine != logged:
                break
            kept += 1
        recorded = AskedRequest(
            instructions=request.instructions,
            tools=request.tools,
            settings=request.settings,
            output_schema=request.output_schema,
            kept=kept,
            items=items[kept:],
            injected=injected,
        )
        latency = round(trio.current_time() - started, 9)
        return ModelAnswered(response=answer, deltas=tuple(self._deltas), asked=recorded, latency=latency)

    def recorded_result(self, call: ToolCall) -> ToolResult | None:
        """The result of `call` if it finished before the crash (then it is not run again)."""
        return self._done_results.get(call.call_id)

    def recorded_events(self, call: ToolCall) -> tuple[AgentEvent, ...]:
        """The permission events recorded with `call`'s result."""
        return self._done_events.get(call.call_id, ())

    def round_started(self, running: int) -> None:
        """A tool round starts `running` calls (those not recorded as finished); the recorded results are done with."""
        self._running = running
        self._done_results = {}
        self._done_events = {}

    async def tool_finished(self, result: ToolResult, events: tuple[AgentEvent, ...] = ()) -> None:
        """Record one finished tool call of the round (with its permission events).

        It is written once the calls that finish at the same moment have finished too (one schedule
        point later), unless a write is in flight (whoever writes goes on writing what queues up while
        calls are still running) or no call of the round is left running (the results go with the
        boundary the round's end writes next; no side effect starts in between).
        """
        self._running -= 1
        recorder = self.recorder
        recorder.hold(ToolFinished(result=result, escalated=self.ctx.actions.escalated, events=events))
        if self._running <= 0 or recorder.writing:
            return  # noqa: ASYNC910 - the tool call just made checkpointed; the record goes with the next write
        await trio.lowlevel.checkpoint()  # the calls finishing now go in one write, or with the round's boundary
        if self._running <= 0 or recorder.writing:
            return
        await recorder.write_while(lambda: self._running > 0)

    async def finish(self, terminal: AgentEvent) -> None:  # noqa: ASYNC910 - only after a step's checkpoint
        """Write the terminal event, with the usage of the run's whole subtree as its meter has it
        (unless the run had finished before: then it is recorded already)."""
        if self.point.finished is None:
            meter = self.ctx.meter
            if meter is not None and isinstance(terminal, RunCompleted):
                terminal = meter.completed(terminal)
            await self.recorder.finish(terminal, self.ctx.actions.escalated, self._failed_call_latency(terminal))

    def _failed_call_latency(self, terminal: AgentEvent) -> float | None:
        """How long the model call under way took, when the run failed on it (`None` otherwise)."""
        asked, self._asked = self._asked, None
        if asked is None or type(terminal) is not RunFailed or type(terminal.error) is not ModelFailed:
            return None
        return round(trio.current_time() - asked[2], 9)

    @property
    def finished_terminal(self) -> AgentEvent | None:
        """The recorded terminal event of a run that had finished, or `None`."""
        finished = self.point.finished
        return finished.terminal if finished is not None else None


def records_agent(records: Sequence[RunRecord]) -> str:
    """The agent a run's records belong to (from its opening record), or ``""``."""
    first = decode_records("", records[:1]) if records and records[0].kind == "run_opened" else []
    return first[0].agent if first and isinstance(first[0], RunOpened) else ""


def is_tool_round(state: LoopState) -> bool:
    """Whether `state` is a tool round (whose recorded results a resume keeps)."""
    return isinstance(state, ExecutingTools)


def _shares(terminal: RunCompleted, agent: str) -> tuple[ModelShare, ...]:
    """The usage a recorded `terminal` of `agent`'s run reports, by agent and model (the model not known
    when it was recorded before models were counted)."""
    if terminal.usage_by_model:
        return terminal.usage_by_model
    parts = terminal.usage_by_agent or (AgentUsage(agent, terminal.usage),)
    return tuple(ModelShare(part.agent, None, part.usage) for part in parts)
