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
- the input guardrails run beside the first model call: the model's deltas are held until every
  guardrail has passed, and a trip cancels the call (or drops its answer: no tool of it runs, issue
  #991 of openai-agents) and fails the run;
- `run_completed` fires `OnRunComplete` after the terminal event went out, best effort (answers and
  failures ignored), for every run that got past `OnRunStart` except a handoff parent, whose target
  fires its own. (The original skipped it after model failures, input tripwires and hook denials;
  a hook meant for cleanup or audit would miss exactly the failures.)

What the answers do is decided once for every runtime (`helikon_fc.engine.Controls`, which this
class completes with the calls of the user's functions in the run's task).

A hook that raises inside a tool call or at a sub-agent's stop raises `HookFailure`; `failing_on_hook`
turns that into the run's `HookFailed`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

import trio

from ...core import AgentError, AgentEvent, HookFailed, Item
from ...engine import Controls
from ..context.run_context import RunContext
from ..control.guardrails import Guardrail, run_input_guardrails, run_output_guardrails
from ..control.hooks import (
    HookFailure,
    Hooks,
    fire_on_handoff,
    fire_on_run_complete,
    fire_on_run_start,
    fire_on_turn_start,
)
from .definition import LoopDefinition

__all__ = ["LoopControls", "failing_on_hook"]

T = TypeVar("T")


class LoopControls(Controls):
    """The hooks and guardrails of one model-loop run, called in the run's task (module docstring)."""

    __slots__ = ("agent_hooks", "ctx", "input_guardrails", "name", "output_guardrails")

    def __init__(self, definition: LoopDefinition, ctx: RunContext[Any]) -> None:
        self.name = definition.name
        self.ctx = ctx  # the run's (`drive` sets it): the same hooks and guardrails
        self.agent_hooks: Hooks[Any] = definition.hooks
        self.input_guardrails: tuple[Guardrail[Any], ...] = (*definition.input_guardrails, *ctx.input_guardrails)
        self.output_guardrails: tuple[Guardrail[Any], ...] = (*definition.output_guardrails, *ctx.output_guardrails)
        hooked = bool(definition.hooks or ctx.hooks)
        super().__init__(
            hooked=hooked, input_guarded=bool(self.input_guardrails), output_guarded=bool(self.output_guardrails)
        )

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

    async def fire_run_start(self) -> tuple[AgentError | None, Sequence[str]]:
        effect = await fire_on_run_start(self.ctx, self.agent_hooks, self.ctx.hooks, self.name)
        return effect.error, effect.injections

    async def fire_turn_start(self, turn: int) -> tuple[AgentError | None, Sequence[str]]:
        effect = await fire_on_turn_start(self.ctx, self.agent_hooks, self.ctx.hooks, turn)
        return effect.error, effect.injections

    async def fire_handoff(self, target: str) -> AgentError | None:
        return await fire_on_handoff(self.ctx, self.agent_hooks, self.ctx.hooks, self.name, target)

    async def fire_run_complete(self) -> None:
        await fire_on_run_complete(self.ctx, self.agent_hooks, self.ctx.hooks, self.name)

    async def check_input(self, items: tuple[Item, ...]) -> tuple[AgentEvent, ...] | None:
        tripped = await run_input_guardrails(self.input_guardrails, self.ctx, items)
        return tripped.events if tripped is not None else None

    async def check_output(self, text: str) -> tuple[AgentEvent, ...] | None:
        tripped = await run_output_guardrails(self.output_guardrails, self.ctx, text)
        return tripped.events if tripped is not None else None

    async def idle(self) -> None:
        await trio.lowlevel.checkpoint()


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
