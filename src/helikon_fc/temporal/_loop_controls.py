"""A model loop's hooks and guardrails in the workflow: when they fire and what their answers do.

The same points and effects as `helikon_fc.shell.controls` (original-notes sections 7 and 8): the
user code runs in the ``helikon.control`` activity (it is nondeterministic), and this module, which
the workflow sandbox loads (no trio), decides from its answers deterministically:

- `run_started`: `OnRunStart`; a `Deny` or a raising hook fails the run before any model call;
- `review`: the output guardrails on a final answer (a trip ends the run with `GuardrailTriggered`,
  `RunFailed`), `OnHandoff` before a handoff is observed and `OnTurnStart` before a `TurnStarted`
  goes out (a `Deny` fails the run there, keeping the events before it): what is asked and what a
  refusal makes of the step is `core.loop_steps`' decision, the trio shell's too;
- `request`: the injections of `OnRunStart` / `OnTurnStart` appended to the next model request as
  system messages only (never in the conversation);
- `beside_input_guardrails`: the input guardrails run beside the first model call, whose deltas are
  held until every guardrail passed; a trip cancels the call (or drops its answer: no tool of it runs);
- `run_completed`: `OnRunComplete` after the terminal event, best effort, except for a handoff parent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from ..core import (
        AgentError,
        AgentEvent,
        GuardrailTriggered,
        GuardrailTripped,
        HookFailed,
        Item,
        JsonValue,
        ModelRequest,
        ModelResponse,
        RunFailed,
        TransitionOutcome,
        from_json,
        to_json,
    )
    from ..core.loop_steps import AskHandoff, AskTurnStart, CheckOutput, ReviewPoint, refused, review_points
    from ..engine import PendingInjections
    from ._payloads import CONTROL, ActivityPolicy, ControlInput, ControlOutput

Emit = Callable[[AgentEvent], None]

__all__ = ["LoopControls"]


class LoopControls:
    """The hooks and guardrails of one model-loop run in the workflow (module docstring)."""

    def __init__(
        self,
        path: str,
        state: dict[str, JsonValue],
        depth: int,
        user_json: str | None,
        policy: ActivityPolicy,
        *,
        hooked: bool,
        input_guarded: bool,
        output_guarded: bool,
    ) -> None:
        self._path = path
        self._state = state
        self._depth = depth
        self._user_json = user_json
        self._policy = policy
        self.hooked = hooked
        self.input_guarded = input_guarded
        self.output_guarded = output_guarded
        self._injections = PendingInjections()
        self._due = False

    async def _fire(self, point: str, **fields: object) -> ControlOutput | AgentError:
        """Run `point` in the control activity; its answer (the shared state it left taken in), or the failure."""
        policy = self._policy
        request = ControlInput(self._path, point, json.dumps(self._state), self._depth, self._user_json, **fields)  # type: ignore[arg-type]
        try:
            output: ControlOutput = await workflow.execute_activity(
                CONTROL,
                request,
                result_type=ControlOutput,
                start_to_close_timeout=timedelta(seconds=policy.tool_timeout),
                heartbeat_timeout=timedelta(seconds=policy.heartbeat_timeout),
                retry_policy=RetryPolicy(
                    initial_interval=timedelta(seconds=policy.retry_interval), maximum_attempts=policy.tool_attempts
                ),
            )
        except ActivityError as exc:
            return HookFailed(point, f"control activity failed: {exc.cause or exc}")  # noqa: ASYNC910 - asyncio workflow code: trio checkpoint rules do not apply
        self._state.update(json.loads(output.state_json))
        return output

    async def _hook(self, point: str, **fields: object) -> AgentError | None:
        """A hook point: the error that aborts the run, or `None` (its injections kept for the next request)."""
        output = await self._fire(point, **fields)
        if not isinstance(output, ControlOutput):
            return output
        if output.error_json:
            error: AgentError = from_json(AgentError, output.error_json)
            return error
        self._injections.add(output.injections)
        return None

    async def _guardrails(self, point: str, **fields: object) -> tuple[AgentEvent, ...] | None:
        """One kind of guardrails: the events a trip ends the run with, or `None` when all passed.

        A control activity that fails is a trip of kind ``other``, as a guardrail that raises.
        """
        output = await self._fire(point, **fields)
        if not isinstance(output, ControlOutput):
            info = str(output)
            return (GuardrailTriggered("other", info), RunFailed(GuardrailTripped("other", info)))
        if not output.tripped_json:
            return None
        events: tuple[AgentEvent, ...] = from_json(tuple[AgentEvent, ...], output.tripped_json)
        return events

    async def run_started(self) -> AgentError | None:
        """Fire `OnRunStart` (when the agent has hooks): the error that aborts the run, or `None`."""
        self._due = True
        if not self.hooked:
            return None  # noqa: ASYNC910 - asyncio workflow code: trio checkpoint rules do not apply
        error = await self._hook("run_start")
        if error is not None:
            self._due = False
        return error

    def handed_off(self) -> None:
        """The run handed off: its target fires its own `OnRunComplete`, this one does not."""
        self._due = False

    async def run_completed(self) -> None:  # noqa: ASYNC910 - asyncio workflow code: trio checkpoint rules do not apply
        """Fire `OnRunComplete` (after the terminal event), if due; its answer and failure are ignored."""
        if self._due and self.hooked:
            self._due = False
            await self._fire("run_complete")

    def request(self, request: ModelRequest) -> ModelRequest:
        """`request` with the pending injections appended as system messages (`PendingInjections.onto`)."""
        return self._injections.onto(request)

    async def review(self, outcome: TransitionOutcome) -> TransitionOutcome:
        """The step as the run may go on with it: unchanged, or a failed step (`core.loop_steps.refused`)."""
        for point in review_points(outcome, output_guarded=self.output_guarded, hooked=self.hooked):
            end = await self._ask(point)
            if end is not None:
                return refused(outcome, point, end)
        return outcome  # noqa: ASYNC910 - asyncio workflow code: trio checkpoint rules do not apply

    async def _ask(self, point: ReviewPoint) -> tuple[AgentEvent, ...] | None:
        """Ask `point` in the control activity: the events a refusal ends the run with, or `None`."""
        if type(point) is CheckOutput:
            return await self._guardrails("output_guardrails", text=point.text)
        if type(point) is AskHandoff:
            error = await self._hook("handoff", target=point.target)
        else:
            assert type(point) is AskTurnStart
            error = await self._hook("turn_start", turn=point.turn)
        return (RunFailed(error),) if error is not None else None

    async def beside_input_guardrails(
        self, call: Callable[[Emit], Awaitable[ModelResponse | RunFailed]], emit: Emit, items: tuple[Item, ...]
    ) -> ModelResponse | RunFailed | tuple[AgentEvent, ...]:
        """The first model call (`call`, given where its deltas go) beside the input guardrails on `items`.

        Its deltas are held until every guardrail passed; then they go out, and later ones live. A trip
        cancels the call if it is still running; the trip's events are returned (the caller counts an
        answer that came first: the model served it).
        """
        held: list[AgentEvent] = []
        passed = False

        def hold(event: AgentEvent) -> None:
            if passed:
                emit(event)
            else:
                held.append(event)

        asking = asyncio.ensure_future(call(hold))
        tripped = await self._guardrails("input_guardrails", items_json=to_json(items))
        if tripped is not None:
            asking.cancel()
            try:
                self.answered_before_trip = await asking
            except asyncio.CancelledError:  # noqa: ASYNC103 - the call was cancelled by us, after the trip: nothing to re-raise
                self.answered_before_trip = None
            return tripped
        passed = True
        for event in held:
            emit(event)
        return await asking

    answered_before_trip: ModelResponse | RunFailed | None = None
    """What the first model call answered before the input guardrails tripped (`None`: it was cancelled)."""
