"""The registry of ``helikon`` subcommands: each lives in a module of its own; add it to `COMMANDS` here."""

from __future__ import annotations

from .._command import Command
from .demo import DEMO
from .mcp import MCP
from .record import RECORD
from .replay import REPLAY
from .run import RUN
from .runs import RUNS
from .temporal import TEMPORAL

COMMANDS: tuple[Command, ...] = (RUN, RECORD, REPLAY, RUNS, DEMO, TEMPORAL, MCP)
"""Every subcommand, in the order ``helikon --help`` lists them."""

__all__ = ["COMMANDS"]
