"""The registry of ``helikon`` subcommands: each lives in a module of its own; add it to `COMMANDS` here."""

from __future__ import annotations

from .._command import Command
from .demo import DEMO
from .eval import EVAL
from .mcp import MCP
from .record import RECORD
from .replay import REPLAY
from .run import RUN
from .runs import RUNS
from .serve import SERVE
from .temporal import TEMPORAL

COMMANDS: tuple[Command, ...] = (RUN, RECORD, REPLAY, RUNS, EVAL, DEMO, SERVE, TEMPORAL, MCP)
"""Every subcommand, in the order ``helikon --help`` lists them."""

__all__ = ["COMMANDS"]
