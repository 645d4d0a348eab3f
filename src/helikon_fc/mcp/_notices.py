"""What an MCP server says besides its results: progress and log messages, as events on the call's trace span.

Why spans and not run events: they are what a server says about a call in flight, for whoever watches
the run (a trace viewer), not something the model or the run's consumer acts on; a span event needs
no new kind of `AgentEvent`, record or wire tag, and costs nothing when the run is not traced.

- ``notifications/progress`` for a call: the event ``mcp.progress`` on that call's tool span
  (``mcp.tool``, ``mcp.progress``, and ``mcp.total`` / ``mcp.message`` when the server sends them);
  a call asks for progress (sends a progress token) only when it is traced: otherwise nothing would
  hear it, and asking costs a tenth of a call's time (S11);
- ``notifications/message`` (a log message at ``info`` or above): the event ``mcp.log`` (``mcp.server``,
  ``mcp.log.level``, ``mcp.log.logger`` when named, ``mcp.log.data``) on the span of every call of
  that server in flight, and a record of the standard-library logger ``helikon_fc.mcp`` (at the
  matching level) in any case: a server may log between calls.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import mcp_types as types
import trio

from ..shell.telemetry.tracing import Span, span_event

LOG_LEVEL: types.LoggingLevel = "info"
"""The level a session asks its server to log at; what a server sends below it anyway is dropped."""

LOGGER = logging.getLogger("helikon_fc.mcp")

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}

_RANKS = {level: rank for rank, level in enumerate(_LEVELS)}
"""The levels by severity (RFC 5424's order, least severe first)."""


class Heard:
    """Routes one session's progress and log notifications to the spans of its calls in flight."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._spans: list[Span] = []

    @contextmanager
    def calling(self, span: Span | None) -> Iterator[Span | None]:
        """Within the block, a call runs under `span` (`None`: the run is not traced)."""
        if span is None:
            yield None
            return
        self._spans.append(span)
        try:
            yield span
        finally:
            self._spans.remove(span)

    async def progress(
        self, span: Span | None, tool: str, progress: float, total: float | None, message: str | None
    ) -> None:
        """A ``notifications/progress`` for the call of `tool` traced by `span`."""
        await trio.lowlevel.checkpoint()
        attributes: dict[str, str | int | float | bool] = {"mcp.tool": tool, "mcp.progress": progress}
        if total is not None:
            attributes["mcp.total"] = total
        if message is not None:
            attributes["mcp.message"] = message
        span_event(span, "mcp.progress", attributes)

    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        """A ``notifications/message``: on every traced call in flight, and to the ``helikon_fc.mcp`` logger.

        Recorded before its first checkpoint: the SDK runs this in a task of its own, spawned before the
        call's response is read, and `Connection.call` gives it one checkpoint to land on the call's span.
        """
        self._log(params)
        await trio.lowlevel.checkpoint()

    def _log(self, params: types.LoggingMessageNotificationParams) -> None:
        if _RANKS.get(params.level, 0) < _RANKS[LOG_LEVEL]:
            return
        data = params.data if isinstance(params.data, str) else json.dumps(params.data, sort_keys=True, default=str)
        attributes: dict[str, str | int | float | bool] = {
            "mcp.server": self._label,
            "mcp.log.level": params.level,
            "mcp.log.data": data,
        }
        if params.logger is not None:
            attributes["mcp.log.logger"] = params.logger
        for span in tuple(self._spans):
            span_event(span, "mcp.log", attributes)
        LOGGER.log(_LEVELS.get(params.level, logging.INFO), "%s [%s]: %s", self._label, params.logger or "-", data)
