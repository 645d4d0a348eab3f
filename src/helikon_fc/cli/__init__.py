"""The ``helikon`` command line (also ``python -m helikon_fc``).

- ``helikon run MODULE:ATTRIBUTE "prompt"`` runs any agent with a live view (or ``--json`` events);
- ``helikon replay events.jsonl`` renders a recorded run; ``helikon runs list|show`` a store's runs;
- ``helikon demo`` runs personal-finance agent systems on the simulator (no key, no network).

Each subcommand is a `Command` in a module of ``helikon_fc.cli.commands``, registered in its `COMMANDS`.
Building the parsers imports none of the library: a command imports what it runs when it runs, so
``helikon --version`` and ``--help`` cost little more than Python's start-up (tests/cli/test_imports.py).
Exit statuses: 0 completed, 1 failed, 2 bad arguments, 3 paused for approval, 130 cancelled (Ctrl-C).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .commands import COMMANDS
from .terminal import EXIT_CANCELLED, EXIT_USAGE

__all__ = ["main"]


def version() -> str:
    """The installed helikon_fc's version (``"unknown"`` when run from a tree that is not installed)."""
    from importlib import metadata  # read only for --version: it costs more than building every parser

    try:
        return metadata.version("helikon_fc")
    except metadata.PackageNotFoundError:
        return "unknown"


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(prog="helikon", description="helikon_fc: typed LLM agents on trio.")
    parser.add_argument("--version", action=_Version, help="print the installed version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    by_name: dict[str, argparse.ArgumentParser] = {}
    for command in COMMANDS:
        sub = subparsers.add_parser(
            command.name,
            help=command.help,
            description=command.description,
            epilog=command.epilog or None,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        command.configure(sub)
        by_name[command.name] = sub
    return parser, by_name


class _Version(argparse.Action):
    """``--version``: like argparse's ``action="version"``, with the version read only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help=str(kwargs.get("help", "")))

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        sys.stdout.write(f"helikon {version()}\n")  # on stdout, as argparse's own version action prints it
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``helikon`` command; returns the exit status.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).
    """
    parser, subparsers = _parsers()
    args, extras = parser.parse_known_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    sub = subparsers[args.command]
    if extras:  # reported with the subcommand's usage, not the top-level one
        sub.error(f"unrecognized arguments: {' '.join(extras)}")
    command = next(command for command in COMMANDS if command.name == args.command)
    try:
        return command.execute(args, sub)
    except KeyboardInterrupt:
        return _interrupted(command.name)
    except BrokenPipeError:  # the reader went away (`helikon demo | head`): stop quietly
        return _reader_gone()
    except BaseExceptionGroup as group:  # the same, raised inside a nursery (a live run, a demo scenario)
        interrupts, rest = group.split(KeyboardInterrupt)
        if rest is not None and rest.split(BrokenPipeError)[1] is not None:
            raise
        return _interrupted(command.name) if interrupts is not None else _reader_gone()


def _interrupted(command: str) -> int:
    """Ctrl-C stopped the command: one line on stderr (never a traceback), and the status of SIGINT."""
    sys.stderr.write(f"\nhelikon {command}: interrupted (Ctrl-C)\n")
    sys.stderr.flush()
    return EXIT_CANCELLED


def _reader_gone() -> int:
    """Stop writing to a stdout whose reader has gone, and exit as a process killed by SIGPIPE would."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 141
