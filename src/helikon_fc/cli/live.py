"""Running an agent for ``helikon run``: events to a sink as they arrive, Ctrl-C as a clean cancel."""

from __future__ import annotations

import signal
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, TextIO

import trio

from ..agents.protocol import Agent
from ..core import AgentEvent, RunCompleted, RunFailed, RunPaused, TerminalEvent, to_json
from ..models.protocol import Model
from ..shell.config import RunConfig
from ..shell.context import RunContext
from ..shell.input import AgentInput
from ..shell.results import RunStartError
from ..shell.runner import Runner
from .render import EventRenderer

Sink = Callable[[AgentEvent], None]
"""Where each event goes as it arrives: the live view or JSON lines."""


def json_lines(out: TextIO) -> Sink:
    """A sink writing each event as one line of the wire format (``helikon_fc.core.to_json``)."""

    def write(event: AgentEvent) -> None:
        out.write(to_json(event) + "\n")
        out.flush()

    return write


def live_view(out: TextIO, *, color: bool) -> Sink:
    """A sink rendering each event for a person: the active agent, tokens, tool calls, handoffs, usage, time."""
    renderer = EventRenderer(out, color=color, clock=trio.current_time)
    return renderer.render


async def run_live(
    agent: Agent[Any], prompt: str, sink: Sink, *, config: RunConfig | None = None, model: Model | None = None
) -> TerminalEvent | None:
    """Run `agent` on `prompt`, passing every event to `sink`; return the terminal event.

    The first Ctrl-C cancels the run (``ctx.cancel``), so it ends with its own `RunFailed(Cancelled)`
    event; a second one interrupts at once. With `config` the run goes through ``Runner(config)``
    (timeout, max turns). A `model` that is an async context manager (an `OpenAIModel`) is entered
    around the run, so its client is built once and closed at the end.

    Raises:
        RunStartError: the run could not start.
    """
    ctx: RunContext[Any] = RunContext.ephemeral(None)
    input = AgentInput.from_user_text(prompt)
    terminal: TerminalEvent | None = None
    refused: RunStartError | None = None
    async with AsyncExitStack() as stack:
        if isinstance(model, AbstractAsyncContextManager):
            await stack.enter_async_context(model)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_cancel_on_interrupt, ctx)
            stream = Runner(config).run(agent, ctx, input) if config is not None else agent.run(ctx, input)
            try:
                async with stream as events:
                    async for event in events:
                        sink(event)
                        if isinstance(event, RunCompleted | RunFailed | RunPaused):
                            terminal = event
            except RunStartError as exc:  # kept out of the nursery's exception group
                refused = exc
            nursery.cancel_scope.cancel()
    if refused is not None:
        raise refused
    return terminal


async def _cancel_on_interrupt(ctx: RunContext[Any]) -> None:
    with trio.open_signal_receiver(signal.SIGINT) as signals:
        interrupted = False
        async for _ in signals:
            if interrupted:
                raise KeyboardInterrupt
            interrupted = True
            ctx.cancel("interrupted (Ctrl-C)")
