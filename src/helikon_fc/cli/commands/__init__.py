"""The registry of ``helikon`` subcommands: each lives in a module of its own; add it to `COMMANDS` here."""

from __future__ import annotations

from .._command import Command
from .demo import DEMO
from .mcp import MCP
from .replay import REPLAY
from .run import RUN
from .runs import RUNS
from .serve import SERVE
from .temporal import TEMPORAL

COMMANDS: tuple[Command, ...] = (RUN, REPLAY, RUNS, DEMO, TEMPORAL, MCP, SERVE)
"""Every subcommand, in the order ``helikon --help`` lists them."""

__all__ = ["COMMANDS"]
