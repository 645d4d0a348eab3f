"""Server-sent events, as ``streamGenerateContent?alt=sse`` sends them: lines in, each event's ``data`` out.

``data:`` lines (several joined with newlines) make an event, a blank line dispatches it, comment
lines (``:``) and other fields are ignored, and an event cut off by the end of the body is dropped.
"""

from __future__ import annotations

import attrs


@attrs.define
class SseData:
    """Feed it lines (with or without their line ending); it returns an event's data when a blank line ends one."""

    _data: list[str] = attrs.Factory(list)

    def feed(self, line: str) -> str | None:
        """Take one line; return the data of the event it completes, if any."""
        line = line.rstrip("\r\n")
        if not line:
            data, self._data = self._data, []
            return "\n".join(data) if data else None
        field, _, value = line.partition(":")
        if field == "data":
            self._data.append(value[1:] if value.startswith(" ") else value)
        return None
