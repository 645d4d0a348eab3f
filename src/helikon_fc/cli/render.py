"""Rendering an `AgentEvent` stream as text in a terminal, live: who is active, handoffs, tool calls
with their arguments and results, streamed tokens, and the final usage."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import TextIO, assert_never

from ..core import (
    AgentEvent,
    AgentUpdated,
    ApprovalRequested,
    CompactionSkipped,
    ConversationCompacted,
    GuardrailTriggered,
    HandoffItem,
    MessageOutput,
    PermissionDenied,
    PermissionGranted,
    ReasoningDelta,
    RepairStarted,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    StructuredOutputFailed,
    TokenDelta,
    ToolCallDelta,
    ToolCallItem,
    ToolOutputItem,
    TurnStarted,
    Usage,
)
from ..pricing import PriceTable, format_cost, run_cost
from .flow import Flow, hanging_indent, wrapped

_CODES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}


def shorten(text: str, limit: int = 160) -> str:
    """`text` on one line, cut to at most `limit` characters at a word boundary, with an ellipsis.

    A single word longer than the limit (a URL, a JSON blob without spaces) is cut inside it, since
    there is no boundary to cut at.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 3]
    boundary = cut.rfind(" ")
    if flat[len(cut)] != " " and boundary > 0:  # the cut fell inside a word: drop the partial word
        cut = cut[:boundary]
    return cut.rstrip(" ,;:") + "..."


def describe_usage(usage: Usage) -> str:
    """``"120 input + 45 output tokens, 6 model requests"``."""
    plural = "" if usage.requests == 1 else "s"
    return f"{usage.input_tokens} input + {usage.output_tokens} output tokens, {usage.requests} model request{plural}"


_AGENT_COLOURS = ("cyan", "magenta", "blue", "yellow", "green")


def agent_colour(agent: str) -> str:
    """A colour for `agent`'s name, the same on every run, so concurrent agents stay apart on screen."""
    return _AGENT_COLOURS[zlib.crc32(agent.encode()) % len(_AGENT_COLOURS)]


_Key = tuple[str, str]
"""A text stream of one agent: ``(agent, "text")`` for its answer, ``(agent, "thinking")`` for its reasoning."""


class EventRenderer:
    """Writes each event to `out` as it arrives; plain text, with ANSI colour when `color` is set.

    Streamed tokens are written as they come, after a ``<agent>:`` prefix; the aggregated
    `MessageOutput` that follows them only ends the line (it is printed in full only when no tokens
    were streamed for it, as for a workflow's merged output). Raw tool-call deltas are not shown:
    the complete call is, with its arguments, once the turn settles. With a `width`, text wraps at
    word boundaries, each further line indented under the text's first character.

    Concurrent agents (parallel branches, graph nodes) stay apart: one agent at a time streams on the
    open line, and while it does, what the others show is held back — their tokens, tool calls and
    results — and printed, in order and each agent's text as one block, when the streaming agent's
    message ends. Each agent's name has its own colour.

    Args:
        out: where to write.
        color: ANSI colour on or off.
        indent: put before every line.
        simulated: the usage comes from the simulator, and the final line says so.
        clock: seconds now (e.g. ``trio.current_time``); when given, the final line says how long the run took.
        width: the line width to wrap text at (the terminal's), or `None` not to wrap.
        prices: when given, the final line says what the run cost at these prices (or which model has none).
    """

    def __init__(
        self,
        out: TextIO,
        *,
        color: bool = False,
        indent: str = "  ",
        simulated: bool = False,
        clock: Callable[[], float] | None = None,
        width: int | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self._out = out
        self._color = color
        self._indent = indent
        self._simulated = simulated
        self._clock = clock
        self._width = width
        self._prices = prices
        self._started_at: float | None = None
        self._agent = "?"
        self._announced: str | None = None
        self._owner: _Key | None = None  # whose text is streaming on the open line
        self._flow: Flow | None = None
        self._held: dict[_Key, str] = {}  # text of other agents, streamed while the line was taken
        self._queue: list[tuple[str, str, bool]] = []  # (agent, line, named) held back while the line was taken
        self._streamed: set[str] = set()  # agents whose tokens were shown (or held) since their last message

    def paint(self, text: str, *styles: str) -> str:
        """`text` wrapped in the ANSI codes of `styles` when colour is on."""
        if not self._color or not styles:
            return text
        codes = ";".join(_CODES[style] for style in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def line(self, text: str = "") -> None:
        """End any streamed line and print what was held back, then write `text` on its own line."""
        self._settle()
        self._write_line(text)

    def _write_line(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    def _name(self, agent: str) -> str:
        return self.paint(agent, "bold", agent_colour(agent))

    def _elapsed(self) -> str:
        if self._clock is None or self._started_at is None:
            return ""
        return f" in {self._clock() - self._started_at:.2f} s"

    def _usage(self, usage: Usage) -> str:
        label = "simulated usage" if self._simulated else "usage"
        return f" - {label}: {describe_usage(usage)}"

    def _cost(self, completed: RunCompleted) -> str:
        if self._prices is None or not completed.usage_by_model:
            return ""
        return " - " + format_cost(run_cost(completed.usage_by_model, self._prices))

    # --- who may write: one streaming agent at a time, the others held back ---

    def _agent_line(self, agent: str, text: str, *, named: bool = False) -> None:
        """`text`, a line of `agent`'s (a tool call, a result...): now, or after the streaming agent's message.

        A line that is not `named` (does not start with the agent's name) is preceded by an ``active agent:``
        line when another agent's line came last.
        """
        if self._owner is not None and self._owner[0] != agent:
            self._queue.append((agent, text, named))
            return
        self._end_line()
        self._flush_queue()
        self._show(agent, text, named)

    def _show(self, agent: str, text: str, named: bool) -> None:
        if named:
            self._announced = agent
        self._announce(agent)
        self._write_line(text)

    def _announce(self, agent: str) -> None:
        """Say which agent is active, once, just before its first visible output."""
        if self._announced != agent:
            self._announced = agent
            self._write_line(self._indent + self.paint("active agent: ", "dim") + self._name(agent))

    def _stream(self, key: _Key, text: str) -> None:
        """Streamed `text` of `key`: on the open line if `key` has it (or nobody does), else held back."""
        if self._owner is not None and self._owner != key:
            if self._owner[0] != key[0]:
                self._held[key] = self._held.get(key, "") + text
                return
            self._end_line()  # the same agent, from thinking to answering: a new line
        if self._owner is None:
            self._open(key)
        assert self._flow is not None
        self._flow.write(text)

    def _open(self, key: _Key) -> None:
        """Start `key`'s line: its prefix, then any text of it that was held back."""
        agent, kind = key
        self._announce(agent)
        self._announced = agent
        label = f"{agent} (thinking): " if kind == "thinking" else f"{agent}: "
        prefix = self.paint(label, "dim") if kind == "thinking" else self._name(agent) + ": "
        self._out.write(self._indent + prefix)
        style = (lambda text: self.paint(text, "dim")) if kind == "thinking" else (lambda text: text)
        start = len(self._indent) + len(label)
        hang = hanging_indent(start, self._width)
        self._flow = Flow(self._out, indent=hang, width=self._width, style=style, column=start)
        self._owner = key
        held = self._held.pop(key, "")
        if held:
            self._flow.write(held)

    def _end_line(self) -> None:
        """Finish the open line, if any (the streaming agent keeps no claim on the next one)."""
        if self._flow is not None:
            self._flow.close()
            self._out.write("\n")
            self._out.flush()
        self._flow = None
        self._owner = None

    def _message(self, agent: str, text: str) -> None:
        """`agent`'s message is complete: end its line, or print it as one block (now, or when the line is free)."""
        if self._owner is not None and self._owner[0] == agent:
            self._end_line()
            self._held.pop((agent, "thinking"), None)
            self._release()
            return
        thinking = self._held.pop((agent, "thinking"), "")
        answer = self._held.pop((agent, "text"), None)
        if thinking:
            self._agent_line(agent, self._block(agent, thinking, thinking=True), named=True)
        if answer is not None or agent not in self._streamed:
            body = answer if answer is not None else text
            if body:
                self._agent_line(agent, self._block(agent, body), named=True)
        if self._owner is None:
            self._release()

    def _block(self, agent: str, text: str, *, thinking: bool = False) -> str:
        label = f"{agent} (thinking): " if thinking else f"{agent}: "
        prefix = self.paint(label, "dim") if thinking else self._name(agent) + ": "
        body = wrapped(text, indent=len(self._indent) + len(label), width=self._width)
        return self._indent + prefix + (self.paint(body, "dim") if thinking else body)

    def _release(self) -> None:
        """The line is free: print the held-back lines in order, then let a held-back stream continue live."""
        self._flush_queue()
        if self._held:
            self._open(next(iter(self._held)))

    def _flush_queue(self) -> None:
        queue, self._queue = self._queue, []
        for agent, text, named in queue:
            self._show(agent, text, named)

    def _settle(self) -> None:
        """End the open line and print everything held back (the run ended, or the caller writes a line)."""
        self._end_line()
        self._release()
        self._end_line()
        for (agent, kind), text in list(self._held.items()):
            self._show(agent, self._block(agent, text, thinking=kind == "thinking"), named=True)
        self._held.clear()

    def render(self, event: AgentEvent) -> None:
        """Write `event`."""
        match event:
            case RunStarted() | RunCompleted() | RunFailed() | RunPaused():
                self._run_line(event)
            case AgentUpdated(agent=updated):
                self._agent = updated
            case TurnStarted() | ToolCallDelta():
                pass
            case TokenDelta() | ReasoningDelta() | MessageOutput():
                self._text(event)
            case ToolCallItem() | ToolOutputItem() | HandoffItem():
                self._tool_line(event)
            case (
                GuardrailTriggered()
                | ApprovalRequested()
                | PermissionDenied()
                | PermissionGranted()
                | RepairStarted()
                | StructuredOutputFailed()
                | ConversationCompacted()
                | CompactionSkipped()
            ):
                note = _note(event)
                if note is not None:
                    self._agent_line(self._agent, self._indent + self.paint(*note))
            case _:
                assert_never(event)

    def _run_line(self, event: RunStarted | RunCompleted | RunFailed | RunPaused) -> None:
        """Write a run's start or end on a line of its own, with its time, usage and cost at the end."""
        pad = self._indent
        match event:
            case RunStarted(agent=started):
                self._agent = self._announced = started
                if self._clock is not None and self._started_at is None:
                    self._started_at = self._clock()
                self.line(pad + self.paint("run ", "dim") + self._name(started))
            case RunCompleted(usage=usage):
                ending = self._elapsed() + self._usage(usage) + self._cost(event)
                self.line(pad + self.paint("done", "green", "bold") + self.paint(ending, "dim"))
            case RunFailed(error=error):
                self.line(pad + self.paint(f"failed{self._elapsed()}: {error}", "red", "bold"))
            case RunPaused(pending=pending):
                waiting = ", ".join(f"{request.tool} ({request.call_id})" for request in pending)
                self.line(
                    pad + self.paint(f"paused{self._elapsed()}: waiting for approval of {waiting}", "yellow", "bold")
                )
            case _:
                assert_never(event)

    def _text(self, event: TokenDelta | ReasoningDelta | MessageOutput) -> None:
        """Stream a token or a thought as it comes, or write a whole message (in place of its streamed tokens)."""
        agent = self._agent
        match event:
            case TokenDelta(text=text):
                self._streamed.add(agent)
                self._stream((agent, "text"), text)
            case ReasoningDelta(text=text):
                self._stream((agent, "thinking"), text)
            case MessageOutput(item=item):
                who = item.agent or agent
                self._message(who, item.text)
                self._streamed.discard(who)
            case _:
                assert_never(event)

    def _tool_line(self, event: ToolCallItem | ToolOutputItem | HandoffItem) -> None:
        """Write a tool call with its arguments, its result (or error), or a handoff from one agent to another."""
        pad = self._indent
        agent = self._agent
        match event:
            case ToolCallItem(item=call):
                arguments = call.arguments.strip() or "{}"
                line = pad + self.paint("-> ", "yellow") + self.paint(call.name, "yellow", "bold") + f" {arguments}"
                self._agent_line(agent, line)
            case ToolOutputItem(item=result):
                style = "red" if result.is_error else "green"
                label = "<- error: " if result.is_error else "<- "
                self._agent_line(agent, pad + self.paint(label, style) + shorten(result.output))
            case HandoffItem(from_agent=source, to_agent=target):
                arrow = self.paint("->", "magenta")
                self._agent_line(
                    source, pad + self.paint("=> handoff ", "magenta", "bold") + f"{source} {arrow} {target}"
                )
            case _:
                assert_never(event)


_Noted = (
    ApprovalRequested
    | CompactionSkipped
    | ConversationCompacted
    | GuardrailTriggered
    | PermissionDenied
    | PermissionGranted
    | RepairStarted
    | StructuredOutputFailed
)
"""The events of the run's controls (guardrails, permissions, repairs, compaction): a note line each."""


def _note(event: _Noted) -> tuple[str, str] | None:
    """The one-line note an event of the run's controls gets, and its colour (`None`: nothing worth a line)."""
    match event:
        case GuardrailTriggered(kind=kind):
            return f"guardrail tripped: {kind}", "red"
        case ApprovalRequested(tool=tool):
            return f"approval requested for {tool}", "yellow"
        case PermissionDenied(tool=tool, reason=reason):
            return f"permission denied for {tool}: {reason}", "red"
        case PermissionGranted(tool=tool, approved=approved):
            return (f"approved: {tool}", "green") if approved else None
        case RepairStarted(attempt=attempt):
            return f"structured output invalid; repair attempt {attempt}", "yellow"
        case StructuredOutputFailed(schema_errors=errors):
            return "structured output failed: " + "; ".join(errors), "red"
        case ConversationCompacted(replaced=replaced, tokens_before=before, tokens_after=after):
            return f"compacted {replaced} items (~{before} -> ~{after} tokens)", "dim"
        case CompactionSkipped(reason=reason):
            return f"compaction skipped: {reason}", "yellow"
        case _:
            assert_never(event)
