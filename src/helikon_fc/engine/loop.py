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

from functools import partial
from typing import assert_never

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


async def run_loop(p: Performer, controls: Controls | None, base: TransitionCtx, begin: Begin) -> TerminalEvent:
    """Run the loop from `begin` (module docstring); every non-terminal event to ``p.send``; the terminal returned."""
    state, step, conversation = begin.state, begin.step, begin.conversation
    resumed, redeliver = begin.resumed, begin.redeliver
    gated: tuple[Item, ...] | None = None  # the input the input guardrails check beside the next model call
    if controls is not None:
        refusal = await controls.run_started()
        if refusal is not None:
            return await _stop(p, state, (RunFailed(refusal),))
        if controls.input_guarded and begin.fresh:
            gated = tuple(conversation)
    del begin
    over = contexts(base)
    tctx = over(conversation=conversation)
    checkpoint, send, records = p.checkpoint, p.send, p.records
    while True:
        await checkpoint()
        outcome = transition(state, step, tctx)
        if resumed:  # a recorded boundary's action re-asked: recorded (and reviewed) before, its events went out
            events, resumed = redeliver, False
            redeliver = ()
        else:
            if controls is not None:
                outcome = await controls.review(outcome)
            events = outcome.events
            if records:
                await p.boundary(outcome)
        action = outcome.next_action
        if type(action) is Terminate:
            return await _end(p, events)
        for event in events:
            await send(event)
        appends = outcome.conversation_appends
        if appends:
            conversation = conversation.extend(appends)
            tctx = over(conversation=conversation)
        state = outcome.next_state
        del step, outcome, events, appends  # fed, sent and applied: not held while the action runs
        done: TransitionInput | TerminalEvent
        match action:
            case CallModel(request=request):
                if type(state) is Compacting:
                    done = await _answered(p, state, await p.summarise(request))
                elif gated is not None:
                    done = await _gated_call(p, controls, state, request, gated)
                    gated = None
                else:
                    sent = controls.request(request) if controls is not None else request
                    done = await _answered(p, state, await p.call_model(request, sent, None))
                del request
            case ExecuteTools(calls=calls, arguments=arguments, problems=problems):
                ran = await p.run_tools(calls, arguments, problems)
                del calls, arguments, problems
                done = await _stop(p, state, (RunFailed(ran),)) if isinstance(ran, HookFailed) else ran
            case AwaitApproval(pending=pending, problems=problems):
                settled = await p.await_approval(pending, problems)
                del pending, problems
                done = await _settled(p, state, settled)
            case PerformHandoff(target=target, transcript=transcript):
                if controls is not None:
                    controls.handed_off()
                return await p.hand_off(target, transcript)
            case Terminate():
                raise AssertionError("unreachable: a Terminate action returns before its events are sent")
            case _:
                assert_never(action)
        if isinstance(done, RunCompleted | RunFailed | RunPaused):
            return done
        step = done
        del done


async def _answered(
    p: Performer, state: LoopState, answer: ModelResponse | RunFailed
) -> TransitionInput | TerminalEvent:
    """What a model call's `answer` makes of the run: its next step (its usage counted), or its end."""
    fed = model_step(state, answer)
    if type(fed) is RunFailed:
        await p.ended(fed)
        return fed
    if type(answer) is ModelResponse:
        _credit(p, answer)
        p.answered(answer)
    return fed  # noqa: ASYNC910 - the model call before it was awaited


async def _gated_call(
    p: Performer, controls: Controls | None, state: LoopState, request: ModelRequest, items: tuple[Item, ...]
) -> TransitionInput | TerminalEvent:
    """The first model call, beside the input guardrails on `items`: its deltas held until every guardrail
    passed; a trip cancels the call (or drops its answer: no tool of it runs) and fails the run."""
    assert controls is not None
    held = Held()
    call = partial(p.call_model, request, controls.request(request), held)
    answer, tripped = await p.beside(call, partial(_check_input, controls, held, items))
    if tripped is None:
        assert answer is not None
        return await _answered(p, state, answer)
    if type(answer) is ModelResponse:  # it answered before the trip: the model served it
        _credit(p, answer)
    return await _stop(p, state, tripped)


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
    p: Performer, state: LoopState, settled: ToolResults | HookFailed | tuple[ApprovalRequested, ...]
) -> TransitionInput | TerminalEvent:
    """What an approval phase makes of the run: its results, its end (a tool hook raised), or its pause."""
    if isinstance(settled, HookFailed):
        return await _stop(p, state, (RunFailed(settled),))
    if isinstance(settled, tuple):
        paused = RunPaused(settled, state.usage)
        await p.ended(paused)
        return paused
    return settled  # noqa: ASYNC910 - the approval phase before it was awaited


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
