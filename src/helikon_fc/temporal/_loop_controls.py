"""A model loop's hooks and guardrails in the workflow: the calls, each one ``helikon.control`` activity.

What the answers do (when each point fires, what a refusal makes of the step, the injections, when
`OnRunComplete` is due, holding the first call's deltas until the input guardrails pass) is
`helikon_fc.engine.Controls`', the trio shell's too. The user code runs in the control activity (it
is nondeterministic); this module, which the workflow sandbox loads (no trio), supplies the calls:
a control activity that fails is a failed hook (`HookFailed`) or a tripped guardrail of kind ``other``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from temporalio import workflow
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
        RunFailed,
        from_json,
        to_json,
    )
    from ..engine import Controls
    from ._payloads import CONTROL, ActivityPolicy, ControlInput, ControlOutput
    from ._schedules import user_code

__all__ = ["LoopControls"]


class LoopControls(Controls):
    """The hooks and guardrails of one model-loop run in the workflow, each called in an activity."""

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
        super().__init__(hooked=hooked, input_guarded=input_guarded, output_guarded=output_guarded)
        self._path = path
        self._state = state
        self._depth = depth
        self._user_json = user_json
        self._policy = policy

    async def _fire(self, point: str, **fields: object) -> ControlOutput | AgentError:
        """Run `point` in the control activity; its answer (the shared state it left taken in), or the failure."""
        request = ControlInput(self._path, point, json.dumps(self._state), self._depth, self._user_json, **fields)  # type: ignore[arg-type]
        try:
            output: ControlOutput = await workflow.execute_activity(
                CONTROL, request, result_type=ControlOutput, **user_code(self._policy)
            )
        except ActivityError as exc:
            return HookFailed(point, f"control activity failed: {exc.cause or exc}")  # noqa: ASYNC910 - asyncio workflow code: trio checkpoint rules do not apply
        self._state.update(json.loads(output.state_json))
        return output

    async def _hook(self, point: str, **fields: object) -> tuple[AgentError | None, Sequence[str]]:
        """A hook point: the error that aborts the run (or `None`) and the injections it gave."""
        output = await self._fire(point, **fields)
        if not isinstance(output, ControlOutput):
            return output, ()
        if output.error_json:
            error: AgentError = from_json(AgentError, output.error_json)
            return error, ()
        return None, output.injections

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

    async def fire_run_start(self) -> tuple[AgentError | None, Sequence[str]]:
        return await self._hook("run_start")

    async def fire_turn_start(self, turn: int) -> tuple[AgentError | None, Sequence[str]]:
        return await self._hook("turn_start", turn=turn)

    async def fire_handoff(self, target: str) -> AgentError | None:
        error, _ = await self._hook("handoff", target=target)
        return error

    async def fire_run_complete(self) -> None:
        await self._fire("run_complete")

    async def check_input(self, items: tuple[Item, ...]) -> tuple[AgentEvent, ...] | None:
        return await self._guardrails("input_guardrails", items_json=to_json(items))

    async def check_output(self, text: str) -> tuple[AgentEvent, ...] | None:
        return await self._guardrails("output_guardrails", text=text)

    async def idle(self) -> None:
        """Nothing: the workflow has no checkpoints to take."""
