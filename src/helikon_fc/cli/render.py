"""Rendering an `AgentEvent` stream as text in a terminal, live: who is active, handoffs, tool calls
with their arguments and results, streamed tokens, and the final usage."""

from __future__ import annotations

from typing import TextIO, assert_never

from ..core import (
    AgentEvent,
    AgentUpdated,
    ApprovalRequested,
    GuardrailTriggered,
    HandoffItem,
    MessageOutput,
    PermissionDenied,
    PermissionGranted,
    ReasoningDelta,
    RepairStarted,
    RunCompleted,
    RunFailed,
    RunStarted,
    StructuredOutputFailed,
    TokenDelta,
    ToolCallDelta,
    ToolCallItem,
    ToolOutputItem,
    TurnStarted,
    Usage,
)

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
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def describe_usage(usage: Usage) -> str:
    """``"120 input + 45 output tokens, 6 model requests"``."""
    plural = "" if usage.requests == 1 else "s"
    return f"{usage.input_tokens} input + {usage.output_tokens} output tokens, {usage.requests} model request{plural}"


class EventRenderer:
    """Writes each event to `out` as it arrives; plain text, with ANSI colour when `color` is set.

    Streamed tokens are written as they come, after a ``<agent>:`` prefix; the aggregated
    `MessageOutput` that follows them only ends the line (it is printed in full only when no tokens
    were streamed for it, as for a workflow's merged output). Raw tool-call deltas are not shown:
    the complete call is, with its arguments, once the turn settles.
    """

    def __init__(self, out: TextIO, *, color: bool = False, indent: str = "  ") -> None:
        self._out = out
        self._color = color
        self._indent = indent
        self._agent = "?"
        self._announced: str | None = None
        self._streaming = False
        self._streamed_any = False
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
            self.line(self._indent + self.paint("active agent: ", "dim") + self.paint(self._agent, "bold", "cyan"))

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
                self.line(pad + self.paint("run ", "dim") + self.paint(agent, "bold", "cyan"))
            case AgentUpdated(agent=agent):
                self._agent = agent
            case TurnStarted():
                pass
            case TokenDelta(text=text):
                if not self._streaming:
                    self._break()
                    self._announce()
                    self._write(pad + self.paint(f"{self._agent}: ", "bold", "blue"))
                    self._streaming = True
                self._streamed_any = True
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
                if not self._streamed_any and item.text:
                    if item.agent != self._agent:
                        self._announce()
                    who = item.agent or self._agent
                    self.line(pad + self.paint(f"{who}: ", "bold", "blue") + item.text)
                self._break()
                self._streamed_any = False
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
            case RunCompleted(usage=usage):
                self.line(
                    pad + self.paint("done", "green", "bold") + self.paint(f" - usage: {describe_usage(usage)}", "dim")
                )
            case RunFailed(error=error):
                self.line(pad + self.paint(f"failed: {error}", "red", "bold"))
            case _:
                assert_never(event)
