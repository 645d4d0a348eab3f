"""`Command`: one ``helikon`` subcommand — its parser and what it does. The registry is `commands.COMMANDS`."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import attrs


@attrs.frozen(kw_only=True)
class Command:
    """A subcommand of ``helikon``.

    Attributes:
        name: what the user types (``helikon <name>``).
        help: one line for ``helikon --help``.
        description: the paragraph at the top of ``helikon <name> --help``.
        epilog: text after the options in ``helikon <name> --help`` (examples, notes), or "".
        configure: adds the subcommand's arguments to its parser.
        execute: runs the subcommand on the parsed arguments and returns the exit status; it may
            call ``parser.error(...)`` (exit 2, with the subcommand's usage) for bad arguments.
    """

    name: str
    help: str
    description: str
    epilog: str = ""
    configure: Callable[[argparse.ArgumentParser], None]
    execute: Callable[[argparse.Namespace, argparse.ArgumentParser], int]
