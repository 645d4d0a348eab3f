"""``helikon replay events.jsonl``: render a recorded run (``helikon run --json`` output) as the live view would."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from .._command import Command
from ..terminal import EXIT_FAILED, EXIT_USAGE, add_colour_options, exit_status, line_width, wants_colour

if TYPE_CHECKING:
    from ...core import TerminalEvent
    from ..render import EventRenderer


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", metavar="EVENTS.JSONL", help="one event per line, in the wire format ('-': stdin)")
    add_colour_options(parser)


def replay(lines: TextIO, renderer: EventRenderer, source: str) -> int:
    """Render every event of `lines`; the exit status the recorded run would have had.

    A line that is not an event stops the replay with status 2 and a message naming the line.
    """
    from ...core import AgentEvent, RunCompleted, RunFailed, RunPaused, WireFormatError, from_json

    terminal: TerminalEvent | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event: AgentEvent = from_json(AgentEvent, line)
        except WireFormatError as exc:
            print(f"helikon replay: {source}:{number}: not an event: {exc}", file=sys.stderr)
            return EXIT_USAGE
        renderer.render(event)
        if isinstance(event, RunCompleted | RunFailed | RunPaused):
            terminal = event
    if terminal is None:
        print(f"helikon replay: {source} ends without a terminal event (the run was cut short)", file=sys.stderr)
        return EXIT_FAILED
    return exit_status(terminal)


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ..render import EventRenderer

    renderer = EventRenderer(sys.stdout, color=wants_colour(args), width=line_width(sys.stdout))
    if args.recording == "-":
        return replay(sys.stdin, renderer, "<stdin>")
    try:
        with open(args.recording, "rb") as head:
            if head.read(len(SQLITE_HEADER)) == SQLITE_HEADER:
                parser.error(
                    f"{args.recording} is a SQLite store, not a file of events: list its runs with "
                    f"`helikon runs list --store {args.recording}` and show one with "
                    f"`helikon runs show RUN_ID --store {args.recording}`"
                )
        with open(args.recording, encoding="utf-8") as lines:
            return replay(lines, renderer, args.recording)
    except OSError as exc:
        parser.error(f"cannot read {args.recording}: {exc.strerror or exc}")
    except UnicodeDecodeError:
        parser.error(f"{args.recording} is not a text file of events (one wire-format JSON event per line)")


SQLITE_HEADER = b"SQLite format 3\x00"
"""The first bytes of every SQLite database file."""


REPLAY = Command(
    name="replay",
    help="render a recorded run (the JSON lines of `helikon run --json`)",
    description="Render a recorded run, one wire-format event per line, as `helikon run` shows it live.",
    configure=_configure,
    execute=_execute,
)
