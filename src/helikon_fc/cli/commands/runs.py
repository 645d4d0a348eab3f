"""``helikon runs list|show``: the runs a store has recorded, and one run's records."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import sys
from typing import TYPE_CHECKING, TextIO

from .._command import Command
from ..terminal import EXIT_COMPLETED, EXIT_FAILED, EXIT_USAGE, add_colour_options, line_width, wants_colour

if TYPE_CHECKING:
    from ...shell.durable.storage import RunRecord, RunSummary

__all__ = ["RUNS", "run_runs"]

SHORT = 100
"""How many characters of a record's body `show` prints (without ``--full``)."""


def _configure(runs: argparse.ArgumentParser) -> None:
    actions = runs.add_subparsers(dest="runs_command", metavar="ACTION")
    listing = actions.add_parser("list", help="every recorded run, newest first")
    show = actions.add_parser("show", help="one run as the live view showed it (or its records)")
    show.add_argument("run_id", metavar="RUN_ID", help="the run to show (as `runs list` prints it)")
    show.add_argument("--records", action="store_true", help="list the run's records instead of its events")
    show.add_argument("--full", action="store_true", help="with --records: print each record's whole JSON body")
    add_colour_options(show)
    for action in (listing, show):
        action.add_argument("--store", required=True, metavar="PATH", help="a SQLite file or a postgresql:// DSN")
        action.add_argument(
            "--json",
            action="store_true",
            help="JSON lines: one object per run (list), or the run's events in the wire format (show)",
        )


def run_runs(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Carry out a parsed ``helikon runs list|show`` command; returns the exit status (1 when the
    store or the run cannot be read)."""
    import trio  # the stores load when the command runs, not to build the parser (`helikon --help`)

    from ...shell.durable.storage import RunNotFound, StoreError
    from ...stores.location import POSTGRES_SCHEMES

    location: str = args.store
    if not location.startswith(POSTGRES_SCHEMES) and not os.path.exists(location):
        err.write(f"helikon runs: no store at {location!r} (no such file)\n")
        return EXIT_FAILED
    from ...core.records import RecordLogError

    try:
        if args.runs_command == "list":
            out.write(trio.run(_list, location, args.json))
        elif args.records or args.full:
            out.write(trio.run(_show_records, location, args.run_id, args.full, args.json))
        else:
            trio.run(_show_events, location, args.run_id, args.json, out, wants_colour(args))
    except RunNotFound:
        err.write(f"helikon runs: no run {args.run_id!r} in {location!r}\n")
        return EXIT_FAILED
    except StoreError as exc:
        err.write(f"helikon runs: {exc}\n")
        return EXIT_FAILED
    except RecordLogError as exc:
        err.write(f"helikon runs: the records are not a run's log ({exc}); list them with --records\n")
        return EXIT_FAILED
    return EXIT_COMPLETED


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.runs_command is None:
        parser.print_help()
        return EXIT_USAGE
    return run_runs(args, sys.stdout, sys.stderr)


RUNS = Command(
    name="runs",
    help="list the runs a store recorded, or show one run's records",
    description="Inspect the runs recorded in a store (a SQLite file or a postgresql:// DSN).",
    epilog=(
        "examples:\n  helikon runs list --store app.db\n  helikon runs show RUN_ID --store app.db\n"
        "  helikon runs show RUN_ID --store app.db --records --full\n"
        "  helikon runs list --store postgresql://app@db.internal/app"
    ),
    configure=_configure,
    execute=_execute,
)


async def _list(location: str, as_json: bool) -> str:
    from ...stores import store_at

    async with store_at(location) as store:
        runs = await store.runs()
    if as_json:
        return "".join(json.dumps(_summary_json(run), ensure_ascii=False) + "\n" for run in runs)
    if not runs:
        return "no runs recorded\n"
    rows = [("RUN", "AGENT", "STATUS", "RECORDS", "LAST", "UPDATED")]
    rows += [
        (shlex.quote(r.run_id), r.agent, r.status, str(r.records), r.last_kind or "-", _when(r.updated_at))
        for r in runs
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    return "".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + f"  {row[-1]}\n"
        for row in rows
    )


async def _show_events(location: str, run_id: str, as_json: bool, out: TextIO, color: bool) -> None:
    """The run as the live view shows it (headed by its summary), or its events as wire-format JSON lines."""
    from ...core import to_json
    from ...pricing import default_prices
    from ...stores import store_at
    from ..render import EventRenderer
    from ..stored import stored_events

    async with store_at(location) as store:
        summary = await store.run_summary(run_id)
        events = await stored_events(store, run_id)
    if as_json:
        out.write("".join(to_json(event) + "\n" for event in events))
        return
    out.write(_headline(summary) + "\n")
    renderer = EventRenderer(out, color=color, width=line_width(out), prices=default_prices())
    for event in events:
        renderer.render(event)
    if summary.status == "running":
        renderer.line("  (no terminal record: the run is still going, or its process died; resume it with --resume)")


async def _show_records(location: str, run_id: str, full: bool, as_json: bool) -> str:
    from ...stores import store_at

    async with store_at(location) as store:
        summary = await store.run_summary(run_id)
        records = await store.read_run_records(run_id)
    if as_json:
        return "".join(
            json.dumps({"seq": r.seq, "kind": r.kind, "body": r.body}, ensure_ascii=False) + "\n" for r in records
        )
    lines = [_headline(summary)]
    width = max((len(record.kind) for record in records), default=0)
    lines += [f"{record.seq:>5}  {record.kind.ljust(width)}  {_body(record, full)}" for record in records]
    return "\n".join(lines) + "\n"


def _summary_json(run: RunSummary) -> dict[str, object]:
    return {
        "run_id": run.run_id,
        "agent": run.agent,
        "status": run.status,
        "records": run.records,
        "last_kind": run.last_kind,
        "created_at": run.created_at,
        "updated_at": run.updated_at,
    }


def _headline(run: RunSummary) -> str:
    return (
        f"run {shlex.quote(run.run_id)}  agent {run.agent}  {run.status}  "
        f"{run.records} record{'s' if run.records != 1 else ''}"
        f"  created {_when(run.created_at)}  updated {_when(run.updated_at)}"
    )


def _body(record: RunRecord, full: bool) -> str:
    """The record's JSON body on one line (compact), cut to `SHORT` characters unless `full`."""
    try:
        text = json.dumps(json.loads(record.body), separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        text = record.body.replace("\n", " ")
    return text if full or len(text) <= SHORT else text[: SHORT - 1] + "…"


def _when(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
