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


class EventRenderer:
    """Writes each event to `out` as it arrives; plain text, with ANSI colour when `color` is set.

    Streamed tokens are written as they come, after a ``<agent>:`` prefix; the aggregated
    `MessageOutput` that follows them only ends the line (it is printed in full only when no tokens
    were streamed for it, as for a workflow's merged output). Raw tool-call deltas are not shown:
    the complete call is, with its arguments, once the turn settles.

    Concurrent agents (parallel branches, graph nodes) stay apart: each agent's name has its own
    colour, and when the active agent changes mid-line the line ends and the next starts with the
    new agent's name.

    Args:
        out: where to write.
        color: ANSI colour on or off.
        indent: put before every line.
        simulated: the usage comes from the simulator, and the final line says so.
        clock: seconds now (e.g. ``trio.current_time``); when given, the final line says how long the run took.
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
        prices: PriceTable | None = None,
    ) -> None:
        self._out = out
        self._color = color
        self._indent = indent
        self._simulated = simulated
        self._clock = clock
        self._prices = prices
        self._started_at: float | None = None
        self._streaming_agent: str | None = None
        self._agent = "?"
        self._announced: str | None = None
        self._streaming = False
        self._streamed: set[str] = set()  # agents whose tokens were shown since their last message
        self._reasoning = False

    def paint(self, text: str, *styles: str) -> str:
        """`text` wrapped in the ANSI codes of `styles` when colour is on."""
        if not self._color or not styles:
            return text
        codes = ";".join(_CODES[style] for style in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def line(self, text: str = "") -> None:
        """End any streamed line, then write `text` on its own line."""
        self._break()
        self._out.write(text + "\n")
        self._out.flush()

    def _announce(self) -> None:
        """Say which agent is active, once, just before its first visible output."""
        if self._announced != self._agent:
            self._announced = self._agent
            self.line(self._indent + self.paint("active agent: ", "dim") + self._name(self._agent))

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

    def _break(self) -> None:
        if self._streaming or self._reasoning:
            self._out.write("\n")
            self._streaming = False
            self._reasoning = False

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()

    def render(self, event: AgentEvent) -> None:
        """Write `event`."""
        pad = self._indent
        match event:
            case RunStarted(agent=agent):
                self._agent = self._announced = agent
                if self._clock is not None and self._started_at is None:
                    self._started_at = self._clock()
                self.line(pad + self.paint("run ", "dim") + self._name(agent))
            case AgentUpdated(agent=agent):
                self._agent = agent
            case TurnStarted():
                pass
            case TokenDelta(text=text):
                if not self._streaming or self._streaming_agent != self._agent:
                    if self._streaming:  # another agent's line was going: the prefix below says who this is
                        self._announced = self._agent
                    self._break()
                    self._announce()
                    self._write(pad + self._name(self._agent) + ": ")
                    self._streaming = True
                    self._streaming_agent = self._agent
                self._streamed.add(self._agent)
                self._write(text)
            case ReasoningDelta(text=text):
                if not self._reasoning:
                    self._break()
                    self._announce()
                    self._write(pad + self.paint(f"{self._agent} (thinking): ", "dim"))
                    self._reasoning = True
                self._write(self.paint(text, "dim"))
            case ToolCallDelta():
                pass
            case MessageOutput(item=item):
                who = item.agent or self._agent
                if who not in self._streamed and item.text:
                    if item.agent != self._agent:
                        self._announce()
                    self.line(pad + self._name(who) + ": " + item.text)
                self._break()
                self._streamed.discard(who)
            case ToolCallItem(item=call):
                self._announce()
                arguments = call.arguments.strip() or "{}"
                self.line(pad + self.paint("-> ", "yellow") + self.paint(call.name, "yellow", "bold") + f" {arguments}")
            case ToolOutputItem(item=result):
                self._announce()
                style = "red" if result.is_error else "green"
                label = "<- error: " if result.is_error else "<- "
                self.line(pad + self.paint(label, style) + shorten(result.output))
            case HandoffItem(from_agent=source, to_agent=target):
                self._announce()
                self.line(
                    pad
                    + self.paint("=> handoff ", "magenta", "bold")
                    + f"{source} "
                    + self.paint("->", "magenta")
                    + f" {target}"
                )
            case GuardrailTriggered(kind=kind):
                self.line(pad + self.paint(f"guardrail tripped: {kind}", "red"))
            case ApprovalRequested(tool=tool):
                self.line(pad + self.paint(f"approval requested for {tool}", "yellow"))
            case PermissionDenied(tool=tool, reason=reason):
                self._announce()
                self.line(pad + self.paint(f"permission denied for {tool}: {reason}", "red"))
            case PermissionGranted(tool=tool, approved=approved):
                if approved:
                    self.line(pad + self.paint(f"approved: {tool}", "green"))
            case RepairStarted(attempt=attempt):
                self.line(pad + self.paint(f"structured output invalid; repair attempt {attempt}", "yellow"))
            case StructuredOutputFailed(schema_errors=errors):
                self.line(pad + self.paint("structured output failed: " + "; ".join(errors), "red"))
            case ConversationCompacted(replaced=replaced, tokens_before=before, tokens_after=after):
                self.line(pad + self.paint(f"compacted {replaced} items (~{before} -> ~{after} tokens)", "dim"))
            case CompactionSkipped(reason=reason):
                self.line(pad + self.paint(f"compaction skipped: {reason}", "yellow"))
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
