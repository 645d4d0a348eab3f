"""A model loop's hooks and guardrails: when they fire and what their answers do, for every runtime.

What the answers *do* is decided here once (original-notes sections 7 and 8); how a hook or a
guardrail is *called* is the runtime's: the trio shell calls the user's functions in the run's task,
the Temporal workflow asks a worker in an activity. A runtime subclasses `Controls` and supplies the
`fire_*` / `check_*` calls and `idle`; everything else is shared:

- `run_started`: `OnRunStart`; a `Deny` or a raising hook fails the run before any model call;
- `review`: the questions `core.loop_steps.review_points` names, asked in order, the first refused
  one ending the run with `core.loop_steps.refused`;
- `request`: the injections of `OnRunStart` / `OnTurnStart` appended to the next model request as
  system messages only (never in the conversation, the session or the log);
- `run_completed`: `OnRunComplete` after the terminal event went out, best effort, for every run that
  got past `OnRunStart` except a handoff parent (`handed_off`), whose target fires its own;
- `Held`: the first model call's deltas, held until the input guardrails passed (the shared loop
  races the two through the performer's `beside`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from ..core import AgentError, AgentEvent, Item, ModelRequest, RunFailed, TransitionOutcome
from ..core.loop_steps import AskHandoff, AskTurnStart, CheckOutput, ReviewPoint, refused, review_points
from .injections import PendingInjections

__all__ = ["Controls", "Held"]

Send = Callable[[AgentEvent], Awaitable[None]]


class Controls:
    """The hooks and guardrails of one model-loop run (module docstring); a runtime supplies the calls."""

    __slots__ = ("_due", "_injections", "hooked", "input_guarded", "output_guarded")

    def __init__(self, *, hooked: bool, input_guarded: bool, output_guarded: bool) -> None:
        self.hooked = hooked
        """Whether any hook may fire (the agent's or the run's)."""
        self.input_guarded = input_guarded
        """Whether the run has input guardrails (checked beside the first model call)."""
        self.output_guarded = output_guarded
        """Whether the run has output guardrails (checked on the final answer)."""
        self._injections = PendingInjections()
        self._due = False

    # The runtime's calls ------------------------------------------------------------------------

    async def fire_run_start(self) -> tuple[AgentError | None, Sequence[str]]:
        """`OnRunStart`: the error that aborts the run (or `None`) and the injections it gave."""
        raise NotImplementedError

    async def fire_turn_start(self, turn: int) -> tuple[AgentError | None, Sequence[str]]:
        """`OnTurnStart` for `turn`: the error that aborts the run (or `None`) and the injections it gave."""
        raise NotImplementedError

    async def fire_handoff(self, target: str) -> AgentError | None:
        """`OnHandoff` to `target`: the error that aborts the run, or `None`."""
        raise NotImplementedError

    async def fire_run_complete(self) -> None:
        """`OnRunComplete`; its answer and failure are ignored."""
        raise NotImplementedError

    async def check_input(self, items: tuple[Item, ...]) -> tuple[AgentEvent, ...] | None:
        """The input guardrails on `items`: the events a trip ends the run with, or `None` when all passed."""
        raise NotImplementedError

    async def check_output(self, text: str) -> tuple[AgentEvent, ...] | None:
        """The output guardrails on `text`: the events a trip ends the run with, or `None` when all passed."""
        raise NotImplementedError

    async def idle(self) -> None:
        """What `run_completed` does when no hook is due (trio: a checkpoint; elsewhere: nothing)."""
        raise NotImplementedError

    # The shared decisions -----------------------------------------------------------------------

    async def run_started(self) -> AgentError | None:
        """Fire `OnRunStart` (when hooked): the error that aborts the run, or `None` (injections kept)."""
        if not self.hooked:
            self._due = True
            return None  # noqa: ASYNC910 - the loop's first step checkpoints next
        error, injections = await self.fire_run_start()
        if error is not None:
            return error
        self._injections.add(injections)
        self._due = True
        return None

    def handed_off(self) -> None:
        """The run handed off: its target fires its own `OnRunComplete`, this one does not."""
        self._due = False

    async def run_completed(self) -> None:
        """Fire `OnRunComplete` (after the terminal event went out), if due."""
        if self._due and self.hooked:
            self._due = False
            await self.fire_run_complete()
        else:
            await self.idle()

    def request(self, request: ModelRequest) -> ModelRequest:
        """`request` with the pending injections appended as system messages; they are used up."""
        return self._injections.onto(request)

    async def review(self, outcome: TransitionOutcome) -> TransitionOutcome:
        """The step as the run may go on with it: unchanged, or a `Failed` step (`core.loop_steps.refused`)."""
        for point in review_points(outcome, output_guarded=self.output_guarded, hooked=self.hooked):
            end = await self._ask(point)
            if end is not None:
                return refused(outcome, point, end)
        return outcome  # noqa: ASYNC910 - the loop's step began with a checkpoint

    async def _ask(self, point: ReviewPoint) -> tuple[AgentEvent, ...] | None:
        """Ask `point`: the events a refusal ends the run with, or `None`."""
        if type(point) is CheckOutput:
            return await self.check_output(point.text)
        if type(point) is AskHandoff:
            error = await self.fire_handoff(point.target)
            return (RunFailed(error),) if error is not None else None
        assert type(point) is AskTurnStart
        error, injections = await self.fire_turn_start(point.turn)
        if error is not None:
            return (RunFailed(error),)
        self._injections.add(injections)
        return None


class Held:
    """The deltas of the first model call, held until the input guardrails passed, then released in order.

    The runtime's delta sink `offer`s each event (and sends it on itself when it is not held) after
    setting `send`, where `release` sends the held ones.
    """

    __slots__ = ("_events", "passed", "send")

    def __init__(self) -> None:
        self._events: list[AgentEvent] = []
        self.passed = False
        self.send: Send | None = None

    def offer(self, event: AgentEvent) -> bool:
        """Hold `event` if the guardrails have not passed yet (`True`); `False`: send it on now."""
        if self.passed:
            return False
        self._events.append(event)
        return True

    async def release(self) -> None:  # noqa: ASYNC910 - a pass-through of sends, after the guardrails' await
        """Send what was held, in order (events offered meanwhile too), then let every later event through."""
        while self._events:
            batch, self._events = self._events, []
            send = self.send
            assert send is not None  # set before the first event was offered
            for event in batch:
                await send(event)
        self.passed = True
