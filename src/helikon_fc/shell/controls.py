"""What a model loop consults besides the machine: its hooks and guardrails (original-notes sections 7 and 8).

The driver asks `LoopControls.of(definition, ctx)` once per run; it is `None` when neither the agent
nor the run context configures a hook or a guardrail, and then the driver does none of this. Else:

- `run_started` fires `OnRunStart` once the run's log is open (again on a resume: the hooks live in
  the process); a `Deny` or a raising hook fails the run before any model call;
- `review` looks at each step before it is recorded and delivered: `OnTurnStart` before a
  `TurnStarted` goes out (a `Deny` stops the run there), `OnHandoff` before a handoff is observed
  (a `Deny` keeps the events before the `HandoffItem` and fails), and the output guardrails on a
  final answer (a trip replaces the step's events with `GuardrailTriggered`, `RunFailed`). A changed
  step is a `Failed` boundary, so a recorded run keeps what was delivered. What is asked and what a
  refusal makes of the step is decided in `core.loop_steps` (the Temporal workflow's decisions too);
- `request` appends the injections of `OnRunStart` / `OnTurnStart` to the next model request as
  system messages, then forgets them: they are never in the conversation, the session or the log;
- `InputGate` checks the input guardrails beside the first model call: the model's deltas are held
  until every guardrail has passed, and a trip cancels the call (or drops its answer: no tool of it
  runs, issue #991 of openai-agents) and fails the run;
- `run_completed` fires `OnRunComplete` after the terminal event went out, best effort (answers and
  failures ignored), for every run that got past `OnRunStart` except a handoff parent, whose target
  fires its own. (The original skipped it after model failures, input tripwires and hook denials;
  a hook meant for cleanup or audit would miss exactly the failures.)

A hook that raises inside a tool call or at a sub-agent's stop raises `HookFailure`; `failing_on_hook`
turns that into the run's `HookFailed`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import trio

from ..core import (
    AgentError,
    AgentEvent,
    HookFailed,
    Item,
    ModelRequest,
    RunFailed,
    TransitionOutcome,
)
from ..core.loop_steps import AskHandoff, AskTurnStart, CheckOutput, ReviewPoint, refused, review_points
from .context import RunContext
from .definition import LoopDefinition
from .guardrails import Guardrail, Tripped, run_input_guardrails, run_output_guardrails
from .hooks import HookFailure, Hooks, fire_on_handoff, fire_on_run_complete, fire_on_run_start, fire_on_turn_start
from .injections import PendingInjections
from .run_stream import Send

__all__ = ["InputGate", "LoopControls", "failing_on_hook"]

T = TypeVar("T")


class LoopControls:
    """The hooks and guardrails of one model-loop run, as the driver consults them (module docstring)."""

    __slots__ = ("_due", "_injections", "agent_hooks", "ctx", "input_guardrails", "name", "output_guardrails")

    def __init__(self, definition: LoopDefinition, ctx: RunContext[Any]) -> None:
        self.name = definition.name
        self.ctx = ctx
        self.agent_hooks: Hooks[Any] = definition.hooks
        self.input_guardrails: tuple[Guardrail[Any], ...] = (*definition.input_guardrails, *ctx.input_guardrails)
        self.output_guardrails: tuple[Guardrail[Any], ...] = (*definition.output_guardrails, *ctx.output_guardrails)
        self._injections = PendingInjections()
        self._due = False

    @classmethod
    def of(cls, definition: LoopDefinition, ctx: RunContext[Any]) -> LoopControls | None:
        """The controls of a run of `definition` in `ctx`, or `None` when there are none at all."""
        if (
            definition.hooks.hooks
            or ctx.hooks.hooks
            or definition.input_guardrails
            or definition.output_guardrails
            or ctx.input_guardrails
            or ctx.output_guardrails
        ):
            return cls(definition, ctx)
        return None

    @property
    def hooked(self) -> bool:
        """Whether any hook (the agent's or the run's) may fire."""
        return bool(self.agent_hooks or self.ctx.hooks)

    async def run_started(self) -> AgentError | None:
        """Fire `OnRunStart`: the error that aborts the run, or `None` (its injections kept for the first request)."""
        if not self.hooked:
            self._due = True
            return None  # noqa: ASYNC910 - the driver's step checkpoints next
        effect = await fire_on_run_start(self.ctx, self.agent_hooks, self.ctx.hooks, self.name)
        if effect.error is not None:
            return effect.error
        self._injections.add(effect.injections)
        self._due = True
        return None

    def handed_off(self) -> None:
        """The run handed off: the target's run fires its own `OnRunComplete`, this one does not."""
        self._due = False

    async def run_completed(self) -> None:
        """Fire `OnRunComplete` (after the terminal event went out), if due; answers and failures are ignored."""
        if self._due and self.hooked:
            self._due = False
            await fire_on_run_complete(self.ctx, self.agent_hooks, self.ctx.hooks, self.name)
        else:
            await trio.lowlevel.checkpoint()

    def input_gate(self, items: Iterable[Item]) -> InputGate | None:
        """The gate of this run's input guardrails over `items`' user text, or `None` without any."""
        return InputGate(self.input_guardrails, self.ctx, tuple(items)) if self.input_guardrails else None

    def request(self, request: ModelRequest) -> ModelRequest:
        """`request` with the pending injections appended as system messages (`PendingInjections.onto`)."""
        return self._injections.onto(request)

    async def review(self, outcome: TransitionOutcome) -> TransitionOutcome:
        """The step as the run may go on with it: unchanged, or a `Failed` step (`core.loop_steps.refused`)."""
        points = review_points(outcome, output_guarded=bool(self.output_guardrails), hooked=self.hooked)
        for point in points:
            end = await self._ask(point)
            if end is not None:
                return refused(outcome, point, end)
        return outcome  # noqa: ASYNC910 - the driver's step began with a cancel point

    async def _ask(self, point: ReviewPoint) -> tuple[AgentEvent, ...] | None:
        """Ask `point` (fire its hook, run the guardrails): the events a refusal ends the run with, or `None`."""
        if type(point) is CheckOutput:
            tripped = await run_output_guardrails(self.output_guardrails, self.ctx, point.text)
            return tripped.events if tripped is not None else None
        if type(point) is AskHandoff:
            error = await fire_on_handoff(self.ctx, self.agent_hooks, self.ctx.hooks, self.name, point.target)
            return (RunFailed(error),) if error is not None else None
        assert type(point) is AskTurnStart
        effect = await fire_on_turn_start(self.ctx, self.agent_hooks, self.ctx.hooks, point.turn)
        if effect.error is not None:
            return (RunFailed(effect.error),)
        self._injections.add(effect.injections)
        return None


class InputGate:
    """A run's input guardrails, checked once, concurrently with the first model call.

    `beside` runs the call with a `Send` that holds every event until all guardrails have passed (then
    lets the held ones go and streams live); a trip cancels the call if it is still running.
    """

    __slots__ = ("_ctx", "_guardrails", "_items", "passed")

    def __init__(self, guardrails: tuple[Guardrail[Any], ...], ctx: RunContext[Any], items: tuple[Item, ...]) -> None:
        self._guardrails = guardrails
        self._ctx = ctx
        self._items = items
        self.passed = False

    async def beside(self, call: Callable[[Send], Awaitable[T]], send: Send) -> tuple[T | None, Tripped | None]:
        """Run ``call(held_send)`` while the guardrails run: ``(what it returned, None)`` once both are done and
        every guardrail passed; ``(what it returned or None if cancelled, the trip)`` when one tripped."""
        held = _Held(send, self)
        answers: list[T] = []
        trips: list[Tripped] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._check, trips, nursery.cancel_scope)
            answers.append(await call(held))
        if trips:
            return (answers[0] if answers else None), trips[0]
        await held.release()
        return answers[0], None

    async def _check(self, trips: list[Tripped], scope: trio.CancelScope) -> None:
        tripped = await run_input_guardrails(self._guardrails, self._ctx, self._items)
        if tripped is None:
            self.passed = True
        else:
            trips.append(tripped)
            scope.cancel()


class _Held:
    """A `Send` that keeps events until its gate has passed, then sends them in order and passes the rest on."""

    __slots__ = ("_gate", "_held", "_send", "released")

    def __init__(self, send: Send, gate: InputGate) -> None:
        self._send = send
        self._gate = gate
        self._held: list[AgentEvent] = []
        self.released = False

    async def __call__(self, event: AgentEvent) -> None:  # noqa: ASYNC910 - a pass-through per event, as `sender`
        if self.released:
            await self._send(event)
            return
        self._held.append(event)
        if self._gate.passed:
            await self.release()

    async def release(self) -> None:  # noqa: ASYNC910 - a pass-through of sends, as `sender`
        """Send what was held (once) and let every later event through."""
        if self.released:
            return  # noqa: ASYNC910 - only after the gate's nursery, a checkpoint
        self.released = True
        held, self._held = self._held, []
        for event in held:
            await self._send(event)


async def failing_on_hook(work: Awaitable[T]) -> T | HookFailed:
    """``await work``, or the `HookFailed` of a `HookFailure` it raised (alone or in a group of only those)."""
    try:
        return await work
    except HookFailure as exc:
        return exc.error  # noqa: ASYNC910 - what raised it was awaited (a hook, which checkpoints first)
    except BaseExceptionGroup as group:
        matched, rest = group.split(HookFailure)
        if matched is None or rest is not None:
            raise
        leaf: BaseException = matched
        while isinstance(leaf, BaseExceptionGroup):
            leaf = leaf.exceptions[0]
        assert isinstance(leaf, HookFailure)
        return leaf.error  # noqa: ASYNC910 - a group comes out of a nursery, a checkpoint
