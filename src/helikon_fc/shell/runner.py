"""`Runner`: runs any agent under a `RunConfig`, with a deadline and the context's session history."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import attrs
import trio

from ..core import (
    AgentEvent,
    Cancelled,
    Item,
    MessageOutput,
    OtherError,
    RunCompleted,
    RunFailed,
    RunStarted,
    SessionFailed,
    TerminalEvent,
    TimedOut,
    ToolCallItem,
    ToolOutputItem,
)
from . import _checks
from .config import RunConfig
from .context import RunContext
from .input import AgentInput
from .protocol import Agent, RunStream
from .run_stream import Send, forward_run, open_run_stream, sender
from .tracing import run_deadline

Ctx = TypeVar("Ctx")


@attrs.frozen
class Runner:
    """Runs agents under `config`, which wins over each agent's own `run_config`.

    ``Runner(config).run(agent, ctx, input)`` returns a run stream like ``agent.run``. Besides
    installing the config on the run context it:

    - honours ``config.timeout``: when the deadline passes the run is cancelled and ends with
      `RunFailed(TimedOut)` as its last event (a bare ``agent.run`` has no timer);
    - prepends the context's session history to the input, and appends the run's new items (its
      input, then every message, tool call and tool result it produced) to the session when the
      run ends — before the terminal event is delivered, and also when the run fails or is left
      early.
    """

    config: RunConfig = attrs.field(
        default=RunConfig(), validator=_checks.field(_checks.instance_of(RunConfig, "a RunConfig"))
    )

    def run(self, agent: Agent[Ctx], ctx: RunContext[Ctx], input: AgentInput) -> RunStream:
        """Start `agent` on `input` under this runner's config; see the class docstring.

        Args:
            agent: any `Agent` (``LlmAgent``, a workflow, a swarm, ...).
            ctx: the run context; the runner installs its config on a copy.
            input: the new input; the session history goes before it.

        Returns:
            A run stream: ``async with runner.run(agent, ctx, input) as events: ...``.
        """
        run_ctx = ctx.with_run_config(self.config)
        return open_run_stream(
            partial(self._produce, agent, run_ctx, input), direct=partial(self._drive, agent, run_ctx, input, _ignore)
        )

    async def _produce(  # noqa: ASYNC128 - `_drive` calls `task_status.started` once the run has started
        self,
        agent: Agent[Any],
        ctx: RunContext[Any],
        input: AgentInput,
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        async with send_channel:
            await self._drive(agent, ctx, input, task_status.started, sender(send_channel))

    async def _drive(
        self, agent: Agent[Any], ctx: RunContext[Any], input: AgentInput, started: Callable[[], None], send: Send
    ) -> None:
        """Run `agent` under the deadline, forwarding its events to `send` and recording its items.

        `started` is called once the run has started; whatever is raised before that is a failure
        to start and propagates.
        """
        session = ctx.session
        new_items: list[Item] = list(input.items)
        history = await session.items()
        full_input = AgentInput.from_items(history + input.items) if history else input
        timeout = self.config.timeout
        deadline = trio.current_time() + timeout if timeout is not None else math.inf
        terminal: TerminalEvent | None = None
        has_started = False
        recorded = False

        async def record() -> None:  # noqa: ASYNC910 - the append is the checkpoint (a failure comes out of it)
            nonlocal terminal
            try:
                with trio.CancelScope(shield=True):  # a cancelled or timed-out run is recorded too
                    await session.append(new_items)
            except Exception as exc:
                terminal = RunFailed(SessionFailed(f"{type(exc).__name__}: {exc}"))

        async def forward(event: AgentEvent) -> None:
            nonlocal terminal
            if terminal is not None:
                return  # noqa: ASYNC910 - a pass-through per event, as `sender`
            match event:
                case RunCompleted() | RunFailed():
                    terminal = event
                    return  # noqa: ASYNC910
                case MessageOutput(item=item) | ToolCallItem(item=item) | ToolOutputItem(item=item):
                    new_items.append(item)
            await send(event)

        def start() -> None:
            nonlocal has_started
            has_started = True
            started()

        try:
            with trio.CancelScope(deadline=deadline) as scope:
                if ctx.tracer is None or timeout is None:
                    await forward_run(agent.run(ctx, full_input), forward, started=start)
                else:
                    with run_deadline(deadline):  # so the tracer can tell a timeout from a cancel
                        await forward_run(agent.run(ctx, full_input), forward, started=start)
            if terminal is None:
                if scope.cancelled_caught:
                    terminal = RunFailed(TimedOut(timeout or 0.0))
                elif ctx.cancelled:
                    terminal = RunFailed(Cancelled(ctx.cancel_token.reason or "run cancelled"))
                else:
                    message = f"agent {agent.name!r} ended its stream without a terminal event"
                    terminal = RunFailed(OtherError(message))
            if not has_started:
                start()
                await send(RunStarted(agent.name))
        except Exception as exc:
            # Also trio's BrokenResourceError: the agent's own stream may break that way. Should it
            # come from `send` instead (the consumer has gone), sending the terminal raises it again.
            if not has_started:
                recorded = True  # a run that never started leaves the session as it was
                raise
            terminal = RunFailed(OtherError(f"internal error: {type(exc).__name__}: {exc}"))
        finally:
            if not recorded:
                await record()  # noqa: ASYNC102 - shielded inside; a store bounds its own waits (busy/pool timeouts)
        try:
            await send(terminal)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return  # noqa: ASYNC910 - the consumer has gone; the run passed checkpoints before


def _ignore() -> None:
    """A `started` callback for runs drained in the caller's task, which have no task status to report."""
