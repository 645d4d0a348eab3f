"""The live view of ``helikon run`` for any program: print a run's events as they arrive."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

from ..core import AgentEvent
from ..shell.loop.protocol import RunStream
from ..shell.loop.results import RunResult, RunResultStreaming
from .render import EventRenderer
from .terminal import line_width


def event_printer(out: TextIO | None = None, *, color: bool | None = None) -> Callable[[AgentEvent], None]:
    """A callback printing each event it is given as ``helikon run``'s live view does.

    Pass it where a run's events go one by one: ``collect(on_event=event_printer())``,
    ``run_to_completion(agent, input, on_event=event_printer())``. Use one printer per run.

    Args:
        out: where to print (default: standard output).
        color: ANSI colour on or off; by default on when `out` is a terminal and ``NO_COLOR`` is not set.
    """
    stream = out if out is not None else sys.stdout
    paint = color if color is not None else _is_terminal(stream) and not os.environ.get("NO_COLOR")
    renderer = EventRenderer(stream, color=paint, clock=time.monotonic, width=line_width(stream))
    return renderer.render


async def print_events(run: RunStream, *, out: TextIO | None = None, color: bool | None = None) -> RunResult[str]:
    """Run `run` (what ``agent.run(ctx, input)`` or ``runner.run(...)`` returns) to its end, printing its events
    as ``helikon run``'s live view does: the active agent, streamed text, tool calls and results, handoffs,
    and the usage and time at the end. Concurrent agents keep their text together; on a terminal, text
    wraps at word boundaries.

    Args:
        run: the run stream.
        out: where to print (default: standard output).
        color: ANSI colour on or off; by default on when `out` is a terminal and ``NO_COLOR`` is not set.

    Returns:
        The run's `RunResult`, as ``RunResultStreaming(run).collect()`` returns it.

    Raises:
        RunError: the run failed (after its failure was printed).
    """
    return await RunResultStreaming(run).collect(on_event=event_printer(out, color=color))


def _is_terminal(out: TextIO) -> bool:
    isatty = getattr(out, "isatty", None)
    return bool(isatty is not None and isatty())
