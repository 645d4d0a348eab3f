"""What the subcommands share about the terminal: colour choice and exit statuses.

Light on purpose (argparse, os, sys): every command's parser is built from it before any command runs,
so ``helikon --version`` and ``helikon --help`` import none of the library (see ``cli/__init__.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ..core import TerminalEvent

EXIT_COMPLETED = 0
"""The run completed."""
EXIT_FAILED = 1
"""The run failed (or the recording ends without a terminal event)."""
EXIT_USAGE = 2
"""Bad arguments: the command did not run."""
EXIT_PAUSED = 3
"""The run paused: tool calls wait for approval (resume it with approvals)."""
EXIT_CANCELLED = 130
"""The run was cancelled (Ctrl-C), as shells report a process ended by SIGINT."""


def add_colour_options(parser: argparse.ArgumentParser) -> None:
    """``--color`` / ``--no-color`` (colour is on by default on a TTY, unless ``NO_COLOR`` is set)."""
    colour = parser.add_mutually_exclusive_group()
    colour.add_argument("--color", action="store_true", help="ANSI colour even when stdout is not a TTY")
    colour.add_argument("--no-color", action="store_true", help="no colour (also: the NO_COLOR variable)")


def wants_colour(args: argparse.Namespace) -> bool:
    """Whether to paint, from ``--color``/``--no-color``, ``NO_COLOR`` and whether stdout is a TTY."""
    if args.color:
        return True
    return sys.stdout.isatty() and not args.no_color and not os.environ.get("NO_COLOR")


def line_width(out: TextIO) -> int | None:
    """The width to wrap the live view's text at: the terminal's, when `out` is one; `None` (no wrapping) for a
    file or a pipe, whose reader wraps as it likes."""
    isatty = getattr(out, "isatty", None)
    if isatty is None or not isatty():
        return None
    return shutil.get_terminal_size().columns


def exit_status(terminal: TerminalEvent | None) -> int:
    """The exit status of a run that ended with `terminal`: 0 completed, 3 paused for approval, 130 cancelled,
    1 otherwise."""
    from ..core import (  # the core loads when a run has ended, not for --help
        Cancelled,
        RunCompleted,
        RunFailed,
        RunPaused,
    )

    match terminal:
        case RunCompleted():
            return EXIT_COMPLETED
        case RunPaused():
            return EXIT_PAUSED
        case RunFailed(error=Cancelled()):
            return EXIT_CANCELLED
        case _:
            return EXIT_FAILED
