"""``helikon replay events.jsonl``: render a recorded run (``helikon run --json`` output, or a recording file of
``helikon record``) as the live view would."""

from __future__ import annotations

import argparse
import io
import sys
from typing import TYPE_CHECKING, TextIO

from .._command import Command
from ..terminal import EXIT_FAILED, EXIT_USAGE, add_colour_options, exit_status, line_width, wants_colour

if TYPE_CHECKING:
    from ...core import AgentEvent, TerminalEvent
    from ...testing import Recording
    from ..render import EventRenderer


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "recording",
        metavar="EVENTS.JSONL",
        help="one event per line, in the wire format ('-': stdin), or a recording file of `helikon record`",
    )
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
            text = lines.read()
    except OSError as exc:
        parser.error(f"cannot read {args.recording}: {exc.strerror or exc}")
    except UnicodeDecodeError:
        parser.error(f"{args.recording} is not a text file of events (one wire-format JSON event per line)")
    if _is_recording(text):
        return _replay_recording(text, renderer, args.recording, parser)
    return replay(io.StringIO(text), renderer, args.recording)


def _is_recording(text: str) -> bool:
    """Whether `text` is a recording file (one JSON object with ``"format": "helikon-recording"``)."""
    import json

    from ...testing.recording import is_recording_document

    if not text.lstrip().startswith("{"):
        return False
    try:
        return is_recording_document(json.loads(text))
    except ValueError:  # several lines of events, or not JSON: read as lines of events
        return False


def _replay_recording(text: str, renderer: EventRenderer, source: str, parser: argparse.ArgumentParser) -> int:
    """Render the events of a recording file (rebuilt from its records when it holds none)."""
    import trio

    from ...core import RunCompleted, RunFailed, RunPaused
    from ...testing import Recording, RecordingFileError

    try:
        recording = Recording.from_json(text)
    except RecordingFileError as exc:
        parser.error(f"{source}: {exc}")
    events = list(recording.events) or trio.run(_stored_events, recording)
    terminal: TerminalEvent | None = None
    for event in events:
        renderer.render(event)
        if isinstance(event, RunCompleted | RunFailed | RunPaused):
            terminal = event
    if terminal is None:
        print(f"helikon replay: {source} ends without a terminal event (the run was cut short)", file=sys.stderr)
        return EXIT_FAILED
    return exit_status(terminal)


async def _stored_events(recording: Recording) -> list[AgentEvent]:
    from ...stores import MemoryStore
    from ..stored import stored_events

    store = MemoryStore()
    await recording.store_into(store)
    return await stored_events(store, recording.run_id)


SQLITE_HEADER = b"SQLite format 3\x00"
"""The first bytes of every SQLite database file."""


REPLAY = Command(
    name="replay",
    help="render a recorded run (the JSON lines of `helikon run --json`, or a `helikon record` file)",
    description="Render a recorded run, one wire-format event per line or a recording file of `helikon record`, "
    "as `helikon run` shows it live.",
    configure=_configure,
    execute=_execute,
)
