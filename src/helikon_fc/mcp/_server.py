"""`MCPServerStdio` and `MCPServerHTTP`: an MCP server as a source of tools for `LlmAgent` runs."""

from __future__ import annotations

import math
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from functools import partial
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import IO, Any

import httpx2
import trio
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from ..core import ToolEffect
from ..shell._checks import message
from ..shell.tools.tool import Tool
from ._connection import Connection, Transport, open_connection, single, tail
from ._renewal import Renewal, SessionWatch, open_renewable


class _MCPServer:
    """What both transports share: the options, the shared connection of ``async with``, `run_tools`."""

    def __init__(
        self,
        owner: str,
        label: str,
        *,
        prefix: str | None,
        init_timeout: float,
        lenient_schemas: bool,
        effects: Mapping[str, ToolEffect | str] | None,
    ) -> None:
        if prefix is not None and not isinstance(prefix, str):
            raise TypeError(message(owner, "prefix", prefix, "a string or None"))
        if isinstance(init_timeout, bool) or not isinstance(init_timeout, int | float) or not init_timeout > 0:
            raise ValueError(message(owner, "init_timeout", init_timeout, "a positive number of seconds"))
        if not isinstance(lenient_schemas, bool):
            raise TypeError(message(owner, "lenient_schemas", lenient_schemas, "True or False"))
        self._label = label
        self._prefix = prefix or ""
        self._init_timeout = float(init_timeout) if math.isfinite(init_timeout) else math.inf
        self._lenient = lenient_schemas
        self._effects = MappingProxyType(_effects(owner, effects))
        self._shared: tuple[Connection, AbstractAsyncContextManager[Connection], trio.lowlevel.Task] | None = None

    @property
    def source_name(self) -> str:
        """How messages name this server: ``MCP server 'command args'`` or ``MCP server 'url'``."""
        return self._label

    def __repr__(self) -> str:
        return f"<{self._label}{' (open)' if self._shared else ''}>"

    async def __aenter__(self) -> _MCPServer:
        """Start the server (over stdio, its process) and initialize a session every run then shares.

        Raises:
            MCPServerError: it could not be started or initialized (see `MCPServerStdio`).
            RuntimeError: it is open already.
        """
        if self._shared is not None:
            raise RuntimeError(f"{self._label} is open already; enter it once, around all the runs that share it")
        manager = self._connect()
        connection = await manager.__aenter__()
        self._shared = (connection, manager, trio.lowlevel.current_task())
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> bool | None:
        """Close the session and (over stdio) stop the process, in the task that opened it."""
        assert self._shared is not None, "__aexit__ without __aenter__"
        _, manager, task = self._shared
        if trio.lowlevel.current_task() is not task:
            raise RuntimeError(f"{self._label} must be closed by the task that opened it")
        self._shared = None
        # The session's own exit bounds and shields its teardown (tests/mcp/test_mcp_faults.py: no process is left
        # after a cancel from outside).
        return await manager.__aexit__(kind, error, trace)  # noqa: ASYNC102

    @asynccontextmanager
    async def run_tools(self) -> AsyncIterator[Sequence[Tool[Any]]]:
        """For one run: the server's tools (the `ToolSource` protocol).

        Inside ``async with server:`` the shared session's cached list (listed again after the server
        said ``tools/list_changed``); otherwise the server is started for this run and stopped when it ends.
        """
        if self._shared is not None:
            yield await self._shared[0].tools()
            return
        async with self._connect() as connection:
            yield await connection.tools()

    def _connection(self) -> Connection:
        return Connection(self._label, self._prefix, self._lenient, self._effects)

    def _connect(self) -> AbstractAsyncContextManager[Connection]:
        raise NotImplementedError  # pragma: no cover - each transport has its own


class MCPServerStdio(_MCPServer):
    """An MCP server run as a child process, spoken to over its stdin and stdout.

    ``async with server:`` starts it once for many runs (and stops it at the end of the block);
    a run that uses it outside such a block starts it for the run and stops it when the run ends.
    Stopping closes its stdin, then sends SIGTERM, then SIGKILL (each after a bounded wait), in
    the task that started it: no process and no task is left behind, whatever ended the block.

    Args:
        command: the executable (looked up on ``PATH``).
        args: its arguments.
        env: environment variables for it, over a minimal inherited set (``PATH``, ``HOME``, ...).
        cwd: its working directory.
        prefix: put before each of its tool names (``prefix="time_"``: ``time_convert_time``), to keep
            names unique across servers and tools.
        init_timeout: seconds it has to answer ``initialize`` before it is stopped and refused.
        lenient_schemas: offer a tool whose input schema the checker refuses, with its arguments
            unchecked (the model sees ``{"type": "object"}`` and the original schema in the description),
            instead of refusing the server.
        effects: the effect of some of its tools by their name on the server, over what their
            annotations say (``{"delete_file": ToolEffect.WRITE}``).

    Raises:
        TypeError, ValueError: an argument is of the wrong kind (the message names it).
    """

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        *,
        prefix: str | None = None,
        init_timeout: float = 10.0,
        lenient_schemas: bool = False,
        effects: Mapping[str, ToolEffect | str] | None = None,
    ) -> None:
        owner = "MCPServerStdio"
        if not isinstance(command, str) or not command:
            raise TypeError(message(owner, "command", command, "a non-empty string (the executable)"))
        if isinstance(args, str) or not all(isinstance(arg, str) for arg in args):
            raise TypeError(message(owner, "args", args, "a sequence of strings", "a list, e.g. ['--flag', 'value']"))
        if env is not None and not all(isinstance(k, str) and isinstance(v, str) for k, v in dict(env).items()):
            raise TypeError(message(owner, "env", env, "a mapping of strings to strings, or None"))
        if cwd is not None and not isinstance(cwd, str | Path):
            raise TypeError(message(owner, "cwd", cwd, "a path (a string or a Path), or None"))
        self._parameters = StdioServerParameters(
            command=command, args=list(args), env=None if env is None else dict(env), cwd=cwd
        )
        label = f"MCP server {' '.join([Path(command).name, *args])!r}"
        super().__init__(
            owner, label, prefix=prefix, init_timeout=init_timeout, lenient_schemas=lenient_schemas, effects=effects
        )

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[Connection]:
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            transport: Transport = partial(stdio_client, self._parameters, errlog=errlog)
            async with open_connection(self._connection(), transport, self._init_timeout, partial(_tail, errlog)) as c:
                yield c


class MCPServerHTTP(_MCPServer):
    """An MCP server reached over streamable HTTP at `url` (``http://host:port/mcp``).

    The same life cycle as `MCPServerStdio` (``async with server:`` or one session per run), without a
    process; `headers` go with every request (an ``Authorization`` header, say). The other arguments
    are `MCPServerStdio`'s.
    """

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str] | None = None,
        *,
        prefix: str | None = None,
        init_timeout: float = 10.0,
        lenient_schemas: bool = False,
        effects: Mapping[str, ToolEffect | str] | None = None,
    ) -> None:
        owner = "MCPServerHTTP"
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(message(owner, "url", url, "an http:// or https:// URL"))
        if headers is not None and not all(isinstance(k, str) and isinstance(v, str) for k, v in dict(headers).items()):
            raise TypeError(message(owner, "headers", headers, "a mapping of strings to strings, or None"))
        self._url, self._headers = url, dict(headers or {})
        label = f"MCP server {url!r}"
        super().__init__(
            owner, label, prefix=prefix, init_timeout=init_timeout, lenient_schemas=lenient_schemas, effects=effects
        )

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[Connection]:
        """A connection whose session is started again when the server forgets it (see `mcp._renewal`)."""
        timeout = httpx2.Timeout(30.0, read=300.0)
        watch = SessionWatch()
        hooks = {"response": [watch.on_response]}
        async with httpx2.AsyncClient(headers=self._headers, timeout=timeout, event_hooks=hooks) as client:
            transport: Transport = partial(streamable_http_client, self._url, http_client=client)
            connection = self._connection()
            connection.renewal = Renewal(watch)
            try:
                async with open_renewable(
                    connection.renewal, partial(open_connection, connection, transport, self._init_timeout, None)
                ):
                    yield connection
            except BaseExceptionGroup as group:  # the renewal's nursery: take the one error out
                leaf = single(group)
                raise leaf from leaf.__cause__  # noqa: ASYNC104 - the group's one error, a Cancelled included


def _effects(owner: str, effects: Mapping[str, ToolEffect | str] | None) -> dict[str, ToolEffect]:
    """`effects` with every value a `ToolEffect` (a value string is accepted)."""
    allowed = "a mapping of tool names to ToolEffect values (or their strings: " + ", ".join(
        repr(one.value) for one in ToolEffect
    )
    checked: dict[str, ToolEffect] = {}
    if effects is None:
        return checked
    if not isinstance(effects, Mapping):
        raise TypeError(message(owner, "effects", effects, allowed + "), or None"))
    for name, effect in effects.items():
        found = next((one for one in ToolEffect if effect in (one, one.value)), None)
        if not isinstance(name, str) or found is None:
            raise ValueError(message(owner, f"effects[{name!r}]", effect, allowed + ")"))
        checked[name] = found
    return checked


def _tail(errlog: IO[str]) -> str:
    """The end of what the process wrote to its stderr file."""
    errlog.flush()
    errlog.seek(0)
    return tail(errlog.read())
