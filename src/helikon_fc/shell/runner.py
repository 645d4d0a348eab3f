"""`Runner`: runs any agent under a `RunConfig`, with a deadline and the context's session history."""

from __future__ import annotations

from functools import partial
from typing import Any, TypeVar

import attrs
import trio

from ..agents.protocol import Agent, RunStream
from ..core import (
    AgentEvent,
    Cancelled,
    Item,
    MessageOutput,
    OtherError,
    RunCompleted,
    RunFailed,
    RunStarted,
    TerminalEvent,
    TimedOut,
    ToolCallItem,
    ToolOutputItem,
)
from .config import RunConfig
from .context import RunContext
from .input import AgentInput
from .run_stream import open_run_stream, sender

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

    config: RunConfig = RunConfig()

    def run(self, agent: Agent[Ctx], ctx: RunContext[Ctx], input: AgentInput) -> RunStream:
        """Start `agent` on `input` under this runner's config; see the class docstring.

        Args:
            agent: any `Agent` (``LlmAgent``, a workflow, a swarm, ...).
            ctx: the run context; the runner installs its config on a copy.
            input: the new input; the session history goes before it.

        Returns:
            A run stream: ``async with runner.run(agent, ctx, input) as events: ...``.
        """
        return open_run_stream(partial(self._produce, agent, ctx.with_run_config(self.config), input))

    async def _produce(
        self,
        agent: Agent[Any],
        ctx: RunContext[Any],
        input: AgentInput,
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        session = ctx.session
        new_items: list[Item] = list(input.items)
        history = session.items()
        full_input = AgentInput.from_items(history + input.items) if history else input
        timeout = self.config.timeout
        deadline = trio.current_time() + timeout if timeout is not None else float("inf")
        terminal: TerminalEvent | None = None
        started = False
        recorded = False

        def record() -> None:
            nonlocal recorded
            if not recorded:
                recorded = True
                session.append(new_items)

        async with send_channel:
            send = sender(send_channel)
            try:
                with trio.CancelScope(deadline=deadline) as scope:
                    async with agent.run(ctx, full_input) as events:
                        started = True
                        task_status.started()
                        async for event in events:
                            match event:
                                case RunCompleted() | RunFailed():
                                    terminal = event
                                    break
                                case MessageOutput(item=item) | ToolCallItem(item=item) | ToolOutputItem(item=item):
                                    new_items.append(item)
                            await send(event)
                if terminal is None:
                    if scope.cancelled_caught:
                        terminal = RunFailed(TimedOut(timeout or 0.0))
                    elif ctx.cancelled:
                        terminal = RunFailed(Cancelled(ctx.cancel_token.reason or "run cancelled"))
                    else:
                        message = f"agent {agent.name!r} ended its stream without a terminal event"
                        terminal = RunFailed(OtherError(message))
                if not started:
                    started = True
                    task_status.started()
                    await send(RunStarted(agent.name))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                record()
                return
            except Exception as exc:
                if not started:
                    recorded = True  # a run that never started leaves the session as it was
                    raise
                terminal = RunFailed(OtherError(f"internal error: {type(exc).__name__}: {exc}"))
            finally:
                record()
            try:
                await send(terminal)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
