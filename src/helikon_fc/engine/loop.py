"""The model loop, once for every runtime: step `transition`, perform each action through a `Performer`.

One step: feed the machine; have the step reviewed (`Controls.review`: hooks and guardrails) and
recorded (`Performer.boundary`) unless it is a recorded boundary being resumed (its events are then
redelivered as recorded); a `Terminate` delivers the step's events and returns its terminal (recorded
by `Performer.ended`); otherwise send the events, extend the conversation with the appends and
perform the action:

- `CallModel`: the agent's model with the hooks' injections (the first call beside the input
  guardrails, its deltas held until they pass; a trip fails the run, counting an answer that came
  first); from `Compacting` the summary call, whose failure is fed back as `SummaryFailed`. A model
  failure ends the run; an answer's usage is counted on the run's meter;
- `ExecuteTools` / `AwaitApproval`: a round of calls; a tool hook that raised fails the run, an
  approval nobody could give yet pauses it (`RunPaused`);
- `PerformHandoff`: the target's terminal is this run's.

Nothing here imports trio, asyncio or temporalio: the trio shell (`shell.loop.driver`) and the Temporal
workflow each supply a performer, and everything they must do concurrently goes through it
(`Performer.beside`). What a step *is* stays in `transition`; the smaller decisions around it in
`core.loop_steps`.
"""

from __future__ import annotations

from collections.abc import Awaitable
from functools import partial
from typing import TypeAlias, assert_never, cast

import attrs

from ..core import (
    AgentEvent,
    ApprovalRequested,
    AwaitApproval,
    CallModel,
    Compacting,
    Conversation,
    ExecuteTools,
    HookFailed,
    Item,
    LoopState,
    ModelRequest,
    ModelResponse,
    NextAction,
    PerformHandoff,
    RunCompleted,
    RunFailed,
    RunPaused,
    TerminalEvent,
    Terminate,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    transition,
)
from ..core.loop_steps import credited_model, ending, failed_step, model_step
from ..core.usage import one_call
from .controls import Controls, Held
from .performer import Performer

__all__ = ["Begin", "contexts", "run_loop"]


@attrs.frozen
class Begin:
    """Where a run's loop begins: `state` and the `step` it is fed, the `conversation` so far; `resumed`:
    the step re-asks a recorded boundary's action, whose events (`redeliver`) go out again instead of
    being reviewed and recorded; `fresh`: no model call answered yet (so the input guardrails are due)."""

    state: LoopState
    step: TransitionInput
    conversation: Conversation
    resumed: bool = attrs.field(default=False, kw_only=True)
    redeliver: tuple[AgentEvent, ...] = attrs.field(default=(), kw_only=True)
    fresh: bool = attrs.field(default=True, kw_only=True)


_FIXED = tuple(field.name for field in attrs.fields(TransitionCtx) if field.name != "conversation")
"""What a run's `TransitionCtx` keeps from step to step: everything but the conversation."""


def contexts(base: TransitionCtx) -> partial[TransitionCtx]:
    """`base` over any conversation: ``contexts(base)(conversation=c)``, built once per run (a partial of the
    class is about twice as fast per step as `attrs.evolve`, and needs no list of the fields)."""
    return partial(TransitionCtx, **{name: getattr(base, name) for name in _FIXED})


def run_loop(p: Performer, controls: Controls | None, base: TransitionCtx, begin: Begin) -> Awaitable[TerminalEvent]:
    """Run the loop from `begin` (module docstring); every non-terminal event to ``p.send``; the terminal returned.

    The loop is three small frames: `_Loop.start` (the run's start and its first step), `_Loop.drive`
    (act, then step, until a terminal) and the one of the action under way, so a run parked on a model
    or a tool holds its state, its action and its context, and nothing a finished step left behind.
    """
    loop = _Loop(p, controls, contexts(base))
    return loop.drive(loop.start(begin))


_ENDS = frozenset((RunCompleted, RunFailed, RunPaused))
"""The types of `TerminalEvent`."""

_Next: TypeAlias = tuple[LoopState, NextAction, TransitionCtx]
"""Where a step leaves a run that goes on: its next state, the action to perform, its context."""


class _Loop:
    """One run of the loop: its performer, its controls, its contexts and the input the input guardrails
    check beside the first model call (`gated`, until it is made)."""

    __slots__ = ("controls", "gated", "over", "p")

    def __init__(self, p: Performer, controls: Controls | None, over: partial[TransitionCtx]) -> None:
        self.p = p
        self.controls = controls
        self.over = over
        self.gated: tuple[Item, ...] | None = None

    async def start(self, begin: Begin) -> _Next | TerminalEvent:
        """`OnRunStart` (its refusal ends the run), then the first step (a resumed one's events redelivered)."""
        controls = self.controls
        if controls is not None:
            refusal = await controls.run_started()
            if refusal is not None:
                return await _stop(self.p, begin.state, (RunFailed(refusal),))
            if controls.input_guarded and begin.fresh:
                self.gated = tuple(begin.conversation)
        tctx = self.over(conversation=begin.conversation)
        return await self.step(begin.state, begin.step, tctx, begin.redeliver if begin.resumed else None)

    async def drive(self, first: Awaitable[_Next | TerminalEvent]) -> TerminalEvent:
        """Perform each step's action and feed its answer to the next step, until a terminal."""
        at = await first
        while type(at) is tuple:  # the action's answer goes straight into the next step: no frame keeps it after
            at = await self.step(at[0], await self.act(at[0], at[1]), at[2])
        return cast("TerminalEvent", at)

    async def step(
        self,
        state: LoopState,
        fed: TransitionInput | TerminalEvent,
        tctx: TransitionCtx,
        redeliver: tuple[AgentEvent, ...] | None = None,
    ) -> _Next | TerminalEvent:
        """Feed `fed` to the machine (a terminal an action ended the run with is returned as it is); review and
        record the outcome (or, resuming a recorded boundary, take its `redeliver`ed events); end the run on a
        `Terminate`, else send the events and apply the appends."""
        if type(fed) in _ENDS:
            return cast("TerminalEvent", fed)  # noqa: ASYNC910 - the action that ended the run was awaited
        p = self.p
        await p.checkpoint()
        outcome = transition(state, cast("TransitionInput", fed), tctx)
        if redeliver is None:
            if self.controls is not None:
                outcome = await self.controls.review(outcome)
            if p.records:
                await p.boundary(outcome)
        events = outcome.events if redeliver is None else redeliver
        action = outcome.next_action
        if type(action) is Terminate:
            return await _end(p, events)
        send = p.send
        for event in events:
            await send(event)
        appends = outcome.conversation_appends
        if appends:
            tctx = self.over(conversation=tctx.conversation.extend(appends))
        return outcome.next_state, action, tctx

    def act(self, state: LoopState, action: NextAction) -> Awaitable[TransitionInput | TerminalEvent]:
        """The action performed: what it feeds the next step, or the run's terminal (returned to be awaited,
        so the action's own frame is the only one parked on it)."""
        p, controls = self.p, self.controls
        match action:
            case CallModel(request=request):
                if type(state) is Compacting:
                    return _answered(p, state, p.summarise(request))
                gated = self.gated
                if gated is not None:
                    self.gated = None
                    return _gated_call(p, cast("Controls", controls), state, request, gated)
                return _answered(p, state, _asked(p, controls, request, None))
            case ExecuteTools(calls=calls, arguments=arguments, problems=problems):
                return _ran(p, state, p.run_tools(calls, arguments, problems))
            case AwaitApproval(pending=pending, problems=problems):
                return _settled(p, state, p.await_approval(pending, problems))
            case PerformHandoff(target=target, transcript=transcript):
                if controls is not None:
                    controls.handed_off()
                return p.hand_off(target, transcript)
            case Terminate():
                raise AssertionError("unreachable: a Terminate action returns before its events are sent")
            case _:
                assert_never(action)


def _asked(
    p: Performer, controls: Controls | None, own: ModelRequest, held: Held | None
) -> Awaitable[ModelResponse | RunFailed]:
    """The agent's model asked `own` with the hooks' injections (told first to a performer that records)."""
    sent = controls.request(own) if controls is not None else own
    if p.records:
        p.asking(own, len(sent.items) - len(own.items))
    return p.call_model(sent, held)


async def _answered(
    p: Performer, state: LoopState, asking: Awaitable[ModelResponse | RunFailed]
) -> TransitionInput | TerminalEvent:
    """What a model call makes of the run once answered: its next step (its usage counted), or its end."""
    fed = _taken(p, state, await asking)
    if type(fed) is RunFailed:
        await p.ended(fed)
    return fed


def _taken(p: Performer, state: LoopState, answer: ModelResponse | RunFailed) -> TransitionInput | RunFailed:
    """What `answer` feeds the machine next, or the failure that ends the run; an answer that goes on is
    counted on the run's meter and kept for its record."""
    fed = model_step(state, answer)
    if type(fed) is not RunFailed and type(answer) is ModelResponse:
        _credit(p, answer)
        p.answered(answer)
    return fed


async def _gated_call(
    p: Performer, controls: Controls | None, state: LoopState, request: ModelRequest, items: tuple[Item, ...]
) -> TransitionInput | TerminalEvent:
    """The first model call, beside the input guardrails on `items`: its deltas held until every guardrail
    passed; a trip cancels the call (or drops its answer: no tool of it runs) and fails the run."""
    assert controls is not None
    held = Held()
    call = partial(_asked, p, controls, request, held)
    answer, tripped = await p.beside(call, partial(_check_input, controls, held, items))
    if tripped is None:
        assert answer is not None
        fed = _taken(p, state, answer)
        if type(fed) is RunFailed:
            await p.ended(fed)
        return fed
    if type(answer) is ModelResponse:  # it answered before the trip: the model served it
        _credit(p, answer)
    return await _stop(p, state, tripped)


async def _ran(
    p: Performer, state: LoopState, running: Awaitable[ToolResults | HookFailed]
) -> TransitionInput | TerminalEvent:
    """What a round of tool calls makes of the run: its results, or its end (a tool hook raised)."""
    ran = await running
    return await _stop(p, state, (RunFailed(ran),)) if isinstance(ran, HookFailed) else ran


async def _check_input(controls: Controls, held: Held, items: tuple[Item, ...]) -> tuple[AgentEvent, ...] | None:
    """The input guardrails; once all passed, what the model call streamed meanwhile goes out."""
    tripped = await controls.check_input(items)
    if tripped is None:
        await held.release()
    return tripped


def _credit(p: Performer, answer: ModelResponse) -> None:
    """Count `answer`'s usage on the run's meter, under the model that answered it."""
    p.meter.add(p.agent, one_call(answer.usage), credited_model(answer, p.model))


async def _settled(
    p: Performer, state: LoopState, settling: Awaitable[ToolResults | HookFailed | tuple[ApprovalRequested, ...]]
) -> TransitionInput | TerminalEvent:
    """What an approval phase makes of the run: its results, its end (a tool hook raised), or its pause."""
    settled = await settling
    if isinstance(settled, HookFailed):
        return await _stop(p, state, (RunFailed(settled),))
    if isinstance(settled, tuple):
        paused = RunPaused(settled, state.usage)
        await p.ended(paused)
        return paused
    return settled


async def _stop(p: Performer, state: LoopState, events: tuple[AgentEvent, ...]) -> TerminalEvent:
    """End the run in `state` with `events` (the last a `RunFailed`): recorded as a `Failed` step, then sent."""
    stop = failed_step(state, events)
    if p.records:
        await p.boundary(stop)
    return await _end(p, stop.events)


async def _end(p: Performer, events: tuple[AgentEvent, ...]) -> TerminalEvent:
    """Send a final step's events before its end (`core.loop_steps.ending`), record its terminal and return it."""
    delivered, terminal = ending(events)
    for event in delivered:
        await p.send(event)
    await p.ended(terminal)
    return terminal
