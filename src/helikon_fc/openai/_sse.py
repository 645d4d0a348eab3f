"""A small server-sent-events decoder: lines in, ``(event, data)`` frames out.

It follows the SSE rules OpenAI's streams rely on: ``field: value`` lines, several ``data``
lines joined with newlines, comment lines (``:``) ignored, a blank line ending each frame, and a
frame cut off by the end of the body discarded.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class SseFrame:
    """One dispatched server-sent event: its ``event`` name (or `None`) and its ``data``."""

    event: str | None
    data: str


@attrs.define
class SseDecoder:
    """Feed it lines (without their line ending); it returns a frame when a blank line ends one."""

    _event: str | None = None
    _data: list[str] = attrs.Factory(list)

    def feed(self, line: str) -> SseFrame | None:
        """Take one line; return the frame it completes, if any."""
        line = line.rstrip("\r\n")
        if not line:
            if not self._data:
                self._event = None
                return None
            frame = SseFrame(self._event, "\n".join(self._data))
            self._event = None
            self._data = []
            return frame
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        return None
