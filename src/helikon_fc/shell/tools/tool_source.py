"""`ToolSource`: tools that are only known once a run starts (an MCP server's), listed for each run.

A `LlmAgent` takes tool sources beside its tools (``tools=[search, server]``). When a run starts,
each source is opened for the run (`ToolSource.run_tools`), its tools are listed, and the run sees
them as ordinary tools for its whole length; the source closes when the run ends. A source that
cannot give its tools raises `ToolSourceError`: the run fails with its message before any model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, runtime_checkable

from .tool import Tool


class ToolSourceError(Exception):
    """A tool source could not give its tools when a run started (its message says which and why)."""


@runtime_checkable
class ToolSource(Protocol):
    """Something that gives a run its tools when the run starts.

    `source_name` names it in messages (a tool name clash, a failure to list). `run_tools` returns
    an async context manager entered for one run: it yields the tools that run offers (each a `Tool`)
    and, on exit, releases whatever the run opened for them.
    """

    @property
    def source_name(self) -> str: ...

    def run_tools(self) -> AbstractAsyncContextManager[Sequence[Tool[Any]]]: ...
