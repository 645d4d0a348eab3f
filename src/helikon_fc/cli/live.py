"""Running an agent for ``helikon run``: events to a sink as they arrive, Ctrl-C as a clean cancel."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, NoReturn, TextIO

import attrs
import trio

from ..agents.protocol import Agent, RunStream
from ..core import AgentEvent, RunCompleted, RunFailed, RunPaused, TerminalEvent, to_json
from ..models.protocol import Model
from ..pricing import default_prices
from ..shell.context.config import RunConfig
from ..shell.context.run_context import RunContext
from ..shell.durable.run_log import IncompatibleRunError
from ..shell.durable.storage import StoreError
from ..shell.input import AgentInput
from ..shell.loop.results import RunStartError
from ..shell.loop.runner import Runner
from ..stores import store_at
from .render import EventRenderer
from .terminal import EXIT_CANCELLED, line_width

Sink = Callable[[AgentEvent], None]
"""Where each event goes as it arrives: the live view or JSON lines."""


def json_lines(out: TextIO) -> Sink:
    """A sink writing each event as one line of the wire format (``helikon_fc.core.to_json``)."""

    def write(event: AgentEvent) -> None:
        out.write(to_json(event) + "\n")
        out.flush()

    return write


def live_view(out: TextIO, *, color: bool) -> Sink:
    """A sink rendering each event for a person: the active agent, tokens, tool calls, handoffs, usage, time, cost."""
    renderer = EventRenderer(out, color=color, clock=trio.current_time, width=line_width(out), prices=default_prices())
    return renderer.render


@attrs.frozen(kw_only=True)
class Recording:
    """Where and how ``helikon run`` records its run: ``--store``, ``--session``, ``--resume``.

    Attributes:
        store: a SQLite file path or a ``postgresql://`` DSN (see `helikon_fc.stores.store_at`).
        run_id: the id to record a new run under (`None` when resuming).
        session: a session of the store whose history goes before the input and which keeps the run's
            items for the next run, or `None`.
        resume: the recorded run to continue from its last boundary instead of starting one, or `None`.
    """

    store: str
    run_id: str | None = None
    session: str | None = None
    resume: str | None = None


async def run_live(
    agent: Agent[Any],
    prompt: str,
    sink: Sink,
    *,
    config: RunConfig | None = None,
    model: Model | None = None,
    recording: Recording | None = None,
) -> TerminalEvent | None:
    """Run `agent` on `prompt`, passing every event to `sink`; return the terminal event.

    The first Ctrl-C cancels the run (``ctx.cancel``), so it ends with its own `RunFailed(Cancelled)`
    event; a second one interrupts at once. With `config` the run goes through ``Runner(config)``
    (timeout, max turns). A `model` that is an async context manager (an `OpenAIModel`) is entered
    around the run, so its client is built once and closed at the end. With a `recording` the store
    is opened around the run, and the run is recorded in it (``Runner(config, store=...)``), with
    the store's session if one is named, or the recorded run `recording.resume` is continued.

    Raises:
        RunStartError: the run could not start.
        StoreError: the store cannot be opened or read (`RunNotFound`: nothing is recorded under
            `recording.resume`).
        IncompatibleRunError: the agent's definition differs from the resumed run's.
    """
    input = AgentInput.from_user_text(prompt)
    terminal: TerminalEvent | None = None
    refused: Exception | None = None
    async with AsyncExitStack() as stack:
        if isinstance(model, AbstractAsyncContextManager):
            await stack.enter_async_context(model)
        ctx: RunContext[Any] = RunContext.ephemeral(None)
        runner = Runner(config) if config is not None else None
        if recording is not None:
            store = await stack.enter_async_context(store_at(recording.store))
            if recording.session is not None:
                ctx = RunContext.ephemeral(None, session=store.session(recording.session))
            own = getattr(agent, "run_config", None)  # the runner's config wins over the agent's: keep its own
            runner = Runner(config or (own if isinstance(own, RunConfig) else RunConfig()), store=store)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_cancel_on_interrupt, ctx)
            try:
                async with _stream(agent, ctx, input, runner, recording) as events:
                    async for event in events:
                        sink(event)
                        if isinstance(event, RunCompleted | RunFailed | RunPaused):
                            terminal = event
            except (RunStartError, StoreError, IncompatibleRunError) as exc:  # kept out of the nursery's group
                refused = exc
            nursery.cancel_scope.cancel()
    if refused is not None:
        raise refused
    return terminal


def _stream(
    agent: Agent[Any], ctx: RunContext[Any], input: AgentInput, runner: Runner | None, recording: Recording | None
) -> RunStream:
    """The run stream `run_live` reads: the agent's own, or through `runner` (a new run, or a resumed one)."""
    if runner is None:
        return agent.run(ctx, input)
    if recording is None:
        return runner.run(agent, ctx, input)
    if recording.resume is not None:
        return runner.resume(recording.resume, agent, ctx)
    return runner.run(agent, ctx, input, run_id=recording.run_id)


async def _cancel_on_interrupt(ctx: RunContext[Any]) -> None:
    """The first Ctrl-C cancels the run and says that a second one stops at once; the second ends the process
    at once, whatever the run is doing (a tool that shields itself from the cancel included), with one line
    and exit status 130. (Saying so tells the person, and a test, that the first press arrived: two presses
    close together can reach the process as one signal.)"""
    with trio.open_signal_receiver(signal.SIGINT) as signals:
        interrupted = False
        async for _ in signals:
            if interrupted:
                _stop_now()
            interrupted = True
            ctx.cancel("interrupted (Ctrl-C)")
            sys.stderr.write("\nhelikon run: cancelling the run (Ctrl-C again stops at once)\n")
            sys.stderr.flush()


def _stop_now() -> NoReturn:
    """Leave the process now: what was written is flushed, nothing waits for the run's tasks to finish."""
    sys.stdout.flush()
    sys.stderr.write("\nhelikon run: interrupted (Ctrl-C)\n")
    sys.stderr.flush()
    os._exit(EXIT_CANCELLED)
