"""Tool-call fragments in, `ModelToolCallDelta`s out, with each call's name reported exactly once.

Both OpenAI APIs stream a tool call as pieces keyed by something other than the call id (the
chat API by position, the Responses API by output item id). A name may arrive in fragments, and
arguments may arrive before anyone can be sure the name is whole; this keeps both back until the
name is known and then reports the name once, on the first delta it sends for the call.
"""

from __future__ import annotations

import attrs

from ..core import ModelEvent, ModelToolCallDelta

_FALLBACK_PREFIX = "call"
"""A call the server sent without an id is given ``call_<wire key>``."""


@attrs.define
class _Call:
    call_id: str | None
    name_parts: list[str] = attrs.Factory(list)
    held_args: list[str] = attrs.Factory(list)
    named: bool = False
    args_seen: bool = False
    id_fixed: bool = False


@attrs.define
class ToolCallAssembler:
    """Tracks the calls of one turn; each method returns the events to emit now, in order."""

    _calls: dict[str, _Call] = attrs.Factory(dict)

    def __contains__(self, key: str) -> bool:
        return key in self._calls

    def __len__(self) -> int:
        return len(self._calls)

    def start(self, key: str, call_id: str | None) -> None:
        """Note a call (by its wire key) the first time it is seen; a later call id fills a missing one."""
        call = self._calls.get(key)
        if call is None:
            self._calls[key] = _Call(call_id or None)
        elif call.call_id is None and call_id:
            call.call_id = call_id

    def name_fragment(self, key: str, fragment: str) -> None:
        """Add a piece of the call's name (ignored once the name has been reported)."""
        call = self._calls.setdefault(key, _Call(None))
        if not call.named and fragment:
            call.name_parts.append(fragment)

    def set_name(self, key: str, name: str) -> None:
        """Note the call's whole name, unless a name is already known (some events repeat it)."""
        call = self._calls.setdefault(key, _Call(None))
        if not call.name_parts and name:
            call.name_parts.append(name)

    def has_name(self, key: str) -> bool:
        """Whether any of the call's name is known."""
        call = self._calls.get(key)
        return call is not None and bool(call.name_parts)

    def args_fragment(self, key: str, fragment: str) -> list[ModelEvent]:
        """A piece of the call's arguments: reported at once if the call is named, else held back."""
        call = self._calls.setdefault(key, _Call(None))
        if not fragment:
            return []
        call.args_seen = True
        if call.named:
            return [ModelToolCallDelta(self._id(key, call), None, fragment)]
        call.held_args.append(fragment)
        return []

    def args_seen(self, key: str) -> bool:
        """Whether any argument text has arrived for the call."""
        call = self._calls.get(key)
        return call is not None and call.args_seen

    def name_complete(self, key: str) -> list[ModelEvent]:
        """The call's name is whole: report it (with any held arguments) unless already reported."""
        call = self._calls.get(key)
        if call is None or call.named:
            return []
        call.named = True
        return [ModelToolCallDelta(self._id(key, call), "".join(call.name_parts), "".join(call.held_args))]

    def complete_all_except(self, key: str) -> list[ModelEvent]:
        """Another call has begun, so every earlier call's name is whole."""
        events: list[ModelEvent] = []
        for other in list(self._calls):
            if other != key:
                events.extend(self.name_complete(other))
        return events

    def flush(self) -> list[ModelEvent]:
        """End of the turn: report every name not yet reported (calls that sent no arguments)."""
        events: list[ModelEvent] = []
        for key in list(self._calls):
            events.extend(self.name_complete(key))
        return events

    def _id(self, key: str, call: _Call) -> str:
        """The call's id, fixed when it is first reported: a call whose id another call of the turn already
        reported becomes ``ID#2``, ``ID#3``, ... (servers do reuse ids, and the `Model` rules key calls by id)."""
        if not call.id_fixed:
            base = call.call_id or f"{_FALLBACK_PREFIX}_{key}"
            taken = {other.call_id for other in self._calls.values() if other.id_fixed}
            n, candidate = 2, base
            while candidate in taken:
                candidate, n = f"{base}#{n}", n + 1
            call.call_id, call.id_fixed = candidate, True
        assert call.call_id is not None
        return call.call_id
