"""`ReplayModel`: a `Model` that answers each request with the recorded answer to it, and says where a
replay diverged when a request was never recorded (`RecordingDiverged`)."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import trio

from ..core import (
    AgentEvent,
    Conversation,
    Item,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelRequest,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    ReasoningDelta,
    SystemMessage,
    TokenDelta,
    ToolCallDelta,
    Usage,
    assemble_response,
)
from ..models.protocol import ModelError, ModelStream
from ._recorded import RecordedCall, RecordedFailure
from ._request_diff import request_diff, request_lines
from ._stream import TurnStream
from .script import ScriptedEvents, ScriptedFailure, ScriptedTurn


class RecordingDiverged(ModelError):
    """A replayed run asked its model something the recording never answered (kind ``OTHER``).

    The run fails with it as a `ModelFailed` whose message says which agent diverged, at which
    turn, and shows the request as a unified diff from the recorded one.

    Attributes:
        agent: the agent of the recorded call the request is closest to (`None`: every recorded call
            was answered already).
        run_id: the recorded run id of that call (a sub-run's is ``<parent>/<segment>``).
        turn: that call's place among its run's model calls, from 0.
        recorded: the request recorded there (`None` without one).
        requested: what the replay asked.
        diff: the unified diff from `recorded` to `requested` (empty without a recorded request).

    A recording read from an event file has no requests: its divergence (an answer calling a tool the
    request does not offer, or more model calls than recorded) names the agent and turn and says why.
    """

    def __init__(
        self,
        *,
        agent: str | None,
        run_id: str | None,
        turn: int | None,
        recorded: ModelRequest | None,
        requested: ModelRequest,
        diff: str,
        answered: int,
        reason: str | None = None,
    ) -> None:
        if reason is not None:
            message = (
                f"the replay diverged from the recording at agent {agent!r}, turn {turn}: {reason}; a recording read "
                "from an event file (`helikon run --json`) keeps no requests, so it cannot show how they differ: "
                "write the recording with `helikon record` to get that diff"
            )
        elif agent is None:
            shown = "\n".join(request_lines(requested))
            message = (
                f"the replay diverged from the recording: it asked for a model call the recording does not have "
                f"(all {answered} recorded calls were answered already); the request:\n{shown}"
            )
        else:
            message = (
                f"the replay diverged from the recording at agent {agent!r}, turn {turn} (recorded run {run_id!r}): "
                f"its request differs from the recorded one:\n{diff}"
            )
        super().__init__(ModelFailureKind.OTHER, message)
        self.agent = agent
        self.run_id = run_id
        self.turn = turn
        self.recorded = recorded
        self.requested = requested
        self.diff = diff


@attrs.define
class _Progress:
    """Which recorded calls (and failed calls) one trio run has answered, and its first divergence."""

    answered: list[bool]
    failed: list[bool]
    diverged: RecordingDiverged | None = None


class ReplayModel:
    """A `Model` that answers each request with the recorded answer to the same request.

    Build it with `Recording.model()`. A request is answered by the first recorded call not yet
    answered (in this trio run) whose request is equal — instructions, tools and their schemas,
    settings, output schema and the whole conversation — wherever it was made (any agent of the
    run, any sub-run): it streams that call's recorded deltas after its recorded latency (virtual
    time under `MockClock`), then its usage and finish, so the run gets the recorded `ModelResponse`.
    A call a recorded run failed on (its request is not recorded: the conversation it showed is) fails
    again the same way.
    Calls recorded before requests were recorded match any request, in order.

    A request equal to one already answered in this trio run (the same case run again, or concurrently)
    is answered again. Requests the hooks' injections were appended to are compared without them (the
    log counts them, never keeps them).

    A request equal to no recorded one raises `RecordingDiverged` (the run fails with it, readable as
    its `ModelFailed`): the diff is taken from the recorded call closest to it among those not answered
    yet (the longest common conversation, then the same instructions, tools and output schema). The first
    divergence of the latest trio run is kept in `diverged`.
    """

    __slots__ = ("_calls", "_failures", "_latest", "_name", "_progress")

    def __init__(
        self, calls: Sequence[RecordedCall], *, name: str = "recording", failures: Sequence[RecordedFailure] = ()
    ) -> None:
        self._calls = tuple(calls)
        self._failures = tuple(failures)
        self._name = name
        self._progress: trio.lowlevel.RunVar[_Progress] = trio.lowlevel.RunVar(f"helikon_fc.testing.ReplayModel:{name}")
        self._latest = self._fresh()

    def _fresh(self) -> _Progress:
        return _Progress([False] * len(self._calls), [False] * len(self._failures))

    @property
    def name(self) -> str:
        """The model's name (the recorded model's by default)."""
        return self._name

    @property
    def calls(self) -> tuple[RecordedCall, ...]:
        """The recorded calls it answers with."""
        return self._calls

    @property
    def diverged(self) -> RecordingDiverged | None:
        """The first divergence of the latest trio run that used the model (`None`: none)."""
        return self._latest.diverged

    @property
    def unanswered(self) -> tuple[RecordedCall, ...]:
        """The recorded calls the latest trio run has not asked for."""
        return tuple(call for call, done in zip(self._calls, self._latest.answered, strict=True) if not done)

    def stream(self, request: ModelRequest) -> ModelStream:
        """Answer `request` with its recorded answer; see the class docstring."""

        async def open_turn() -> tuple[int, ScriptedTurn]:  # noqa: ASYNC124 - `TurnStream` awaits it
            index = self._answer(request)
            if index < 0:  # the recorded run failed on this call: so does the replay
                failed = self._failures[-index - 1]
                return index, ScriptedFailure(failure=failed.failure, latency=failed.latency or 0.0)  # noqa: ASYNC910
            call = self._calls[index]
            steps = replayed_events(call)
            return index, ScriptedEvents(steps=steps, latency=call.latency or 0.0)  # noqa: ASYNC910 - see ScriptedModel

        return TurnStream(open_turn)

    def _current(self) -> _Progress:
        try:
            return self._progress.get()
        except LookupError:
            progress = self._fresh()
            self._progress.set(progress)
            self._latest = progress
            return progress

    def _answer(self, request: ModelRequest) -> int:
        """The index of the recorded call that answers `request` (marked answered), or ``-1 - i`` for the
        recorded failed call ``i`` it is.

        Raises:
            RecordingDiverged: no recorded call was asked `request`.
        """
        progress = self._current()
        legacy: int | None = None
        again: int | None = None
        for index, call in enumerate(self._calls):
            done = progress.answered[index]
            if call.request is None:
                legacy = index if legacy is None and not done else legacy
            elif call.request == own_request(request, call.injected):
                if not done:
                    progress.answered[index] = True
                    return index
                again = index if again is None else again
        found = again if again is not None else legacy
        if found is not None:
            progress.answered[found] = True
            return found
        for index, failed in enumerate(self._failures):
            if not progress.failed[index] and _asked_on(request, failed.items):
                progress.failed[index] = True
                return -index - 1
        diverged = self._divergence(request, progress)
        if progress.diverged is None:
            progress.diverged = diverged
        raise diverged

    def _divergence(self, request: ModelRequest, progress: _Progress) -> RecordingDiverged:
        """The divergence of `request`, shown against the closest recorded request not answered yet (or, when
        every one was, the closest of all)."""
        asked = [call for call in self._calls if call.request is not None]
        waiting = [call for call, done in zip(self._calls, progress.answered, strict=True) if not done and call.request]
        candidates = waiting or asked
        if not candidates:
            return RecordingDiverged(
                agent=None, run_id=None, turn=None, recorded=None, requested=request, diff="", answered=len(self._calls)
            )
        closest = max(candidates, key=lambda call: _closeness(call.request, own_request(request, call.injected)))
        recorded = closest.request
        assert recorded is not None
        request = own_request(request, closest.injected)
        label = f"recorded: agent {closest.agent!r}, turn {closest.turn}"
        return RecordingDiverged(
            agent=closest.agent,
            run_id=closest.run_id,
            turn=closest.turn,
            recorded=recorded,
            requested=request,
            diff=request_diff(recorded, request, label, "replayed"),
            answered=sum(progress.answered),
        )

    def __repr__(self) -> str:
        return f"ReplayModel(<{len(self._calls)} recorded calls>, name={self._name!r})"


def _asked_on(request: ModelRequest, items: tuple[Item, ...]) -> bool:
    """Whether `request` is the one a failed call was asked with: its conversation is the one the log held, maybe
    followed by the system messages hooks inject."""
    sent = tuple(request.items)
    extra = sent[len(items) :]
    return sent[: len(items)] == items and all(isinstance(item, SystemMessage) for item in extra)


def own_request(request: ModelRequest, injected: int) -> ModelRequest:
    """`request` without the last `injected` items (the system messages hooks appended, never recorded)."""
    if injected <= 0:
        return request
    items = tuple(request.items)
    return attrs.evolve(request, items=Conversation(items[: max(len(items) - injected, 0)]))


def _closeness(recorded: ModelRequest | None, request: ModelRequest) -> tuple[int, bool, bool, bool]:
    """How close `recorded` is to `request`: the common conversation prefix, then equal instructions,
    tools and output schema (`max` keeps the first of equals: the earliest recorded)."""
    assert recorded is not None
    common = 0
    for mine, theirs in zip(recorded.items, request.items, strict=False):
        if mine != theirs:
            break
        common += 1
    return (
        common,
        recorded.instructions == request.instructions,
        recorded.tools == request.tools,
        recorded.output_schema == request.output_schema,
    )


def replayed_events(call: RecordedCall) -> tuple[ModelEvent, ...]:
    """The stream that gives `call`'s recorded response: its recorded deltas, its usage and finish
    (or, when the deltas do not add up to the response, the response streamed whole)."""
    events: list[ModelEvent] = []
    for delta in call.deltas:
        event = model_event(delta)
        if event is not None:
            events.append(event)
    events.extend(_ending(call))
    stream = tuple(events)
    if assemble_response(stream) == call.response:
        return stream
    return _whole(call)


def model_event(delta: AgentEvent) -> ModelEvent | None:
    match delta:
        case TokenDelta(text=text):
            return ModelTextDelta(text)
        case ToolCallDelta(call_id=call_id, name=name, args_delta=args):
            return ModelToolCallDelta(call_id, name, args)
        case ReasoningDelta(text=text):
            return ModelReasoningDelta(text)
        case _:
            return None


def _ending(call: RecordedCall) -> list[ModelEvent]:
    response = call.response
    ending: list[ModelEvent] = []
    if response.usage != Usage() or response.model is not None:
        ending.append(ModelUsage(response.usage, response.model))
    ending.append(ModelFinish(response.finish_reason))
    return ending


def _whole(call: RecordedCall) -> tuple[ModelEvent, ...]:
    response = call.response
    events: list[ModelEvent] = []
    if response.reasoning_blocks:
        events.extend(
            ModelReasoningDelta(block.text, signature=block.signature, redacted=block.redacted)
            for block in response.reasoning_blocks
        )
    elif response.reasoning:
        events.append(ModelReasoningDelta(response.reasoning))
    if response.text:
        events.append(ModelTextDelta(response.text))
    events.extend(ModelToolCallDelta(tool.call_id, tool.name, tool.arguments) for tool in response.tool_calls)
    events.extend(_ending(call))
    return tuple(events)
