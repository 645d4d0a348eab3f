"""Server-sent events, line by line: ``event:`` and ``data:`` fields in, one ``(event, data)`` frame per blank line.

Comment lines (``:``) and other fields are ignored, several ``data`` lines are joined with newlines,
and a frame cut off by the end of the body is never dispatched.
"""

from __future__ import annotations

import attrs


@attrs.define
class SseLines:
    """Feed it lines without their line ending; `feed` returns a frame when a blank line ends one."""

    _event: str | None = None
    _data: list[str] = attrs.Factory(list)

    def feed(self, line: str) -> tuple[str | None, str] | None:
        """Take one line; return ``(event, data)`` of the frame it completes, if any."""
        line = line.rstrip("\r\n")
        if not line:
            frame = (self._event, "\n".join(self._data)) if self._data else None
            self._event, self._data = None, []
            return frame
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        return None
