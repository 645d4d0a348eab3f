"""Where a script stands in a conversation: which of its turns the conversation already shows answered.

A model turn lands in the conversation as its items (`_read_response` in the core's transition): the
reasoning, the assistant text, then the tool calls. So a scripted turn is recognised by what it renders —
its text and its calls with their ids (``call_<turn>_<index>`` unless given), names and arguments — and a
conversation's turns are matched to the script in order, each to the first turn after the previous match
that renders the same, so repeated identical turns are told apart. Turns of other models match nothing
and are skipped.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from ..core import AssistantMessage, Item, Reasoning, ToolCall, assemble_response
from ._stream import render
from .script import Pause, ScriptedEvents, ScriptedReply, ScriptedToolCalls, ScriptedTurn

Shown = tuple[str, tuple[tuple[str, str, str], ...]]
"""What one model turn leaves in a conversation: its text (``""`` for none) and its calls as (id, name, arguments)."""


class ScriptPositions:
    """The turns of one script by what each leaves in a conversation (built once per script)."""

    __slots__ = ("_turns",)

    def __init__(self, turns: Sequence[ScriptedTurn]) -> None:
        self._turns: dict[Shown, list[int]] = {}
        for index, turn in enumerate(turns):
            shown = _shown_by(turn, index)
            if shown is not None:
                self._turns.setdefault(shown, []).append(index)  # indices ascending: `next_after` bisects them

    def next_after(self, items: Iterable[Item]) -> int:
        """The turn after the last one of this script that `items` show answered (0 when they show none)."""
        if not self._turns:
            return 0
        last = -1
        for shown in _turns_in(items):
            found = self._turns.get(shown)
            if found is not None:
                at = bisect.bisect_right(found, last)
                if at < len(found):
                    last = found[at]
        return last + 1


def _shown_by(turn: ScriptedTurn, index: int) -> Shown | None:
    """What `turn` (the script's turn `index`) leaves in a conversation; `None` when it leaves nothing to know it by."""
    match turn:
        case ScriptedReply() | ScriptedToolCalls():
            events = render(turn, index)
        case ScriptedEvents(failure=None, steps=steps):
            events = tuple(step for step in steps if not isinstance(step, Pause))
        case _:
            return None  # a failing turn answers nothing
    response = assemble_response(events)
    if not response.text and not response.tool_calls:
        return None
    return response.text, tuple((call.call_id, call.name, call.arguments) for call in response.tool_calls)


def _turns_in(items: Iterable[Item]) -> list[Shown]:
    """The model turns `items` hold, in order: each an assistant text and/or the tool calls right after it."""
    found: list[Shown] = []
    text: str | None = None
    calls: list[tuple[str, str, str]] = []
    open_turn = False
    for item in items:
        if isinstance(item, Reasoning | AssistantMessage) and (not open_turn or text is not None or calls):
            if open_turn:
                found.append((text or "", tuple(calls)))
            text, calls, open_turn = None, [], True
        if isinstance(item, AssistantMessage):
            text = item.text
        elif isinstance(item, ToolCall):
            if not open_turn:
                text, calls, open_turn = None, [], True
            calls.append((item.call_id, item.name, item.arguments))
        elif not isinstance(item, Reasoning) and open_turn:
            if text is not None or calls:
                found.append((text or "", tuple(calls)))
            text, calls, open_turn = None, [], False
    if open_turn and (text is not None or calls):
        found.append((text or "", tuple(calls)))
    return found
