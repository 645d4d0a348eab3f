"""What a runtime supplies to run the shared model loop: a `Performer`, one method per side effect.

The loop (`engine.loop.run_loop`) decides; a performer only performs, and reports how it went as
data. Each method is one action the machine (or the loop around it) asks for, awaited once:

- `call_model` / `summarise`: one model call, its deltas streamed to the run (the summary's dropped);
- `run_tools` / `await_approval`: one round of tool calls, results in call order;
- `hand_off`: the target agent's run on the transcript, continuing this stream; its terminal;
- `beside`: two awaitables at once, the first cancelled if the second answers (not `None`);
- `send`: one event to the run's stream; `checkpoint`: where a cancelled run stops;
- `boundary` / `asking` / `answered` / `ended`: the durable record of a step, a model request, its
  answer, the terminal (nothing, on a runtime whose history is durable by itself).

A third runtime (DBOS, Restate, Prefect) is one more class with these methods (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from ..core import (
    AgentEvent,
    ApprovalRequested,
    Conversation,
    HookFailed,
    JsonObject,
    ModelRequest,
    ModelResponse,
    RunFailed,
    TerminalEvent,
    ToolCall,
    ToolResults,
    TransitionOutcome,
    Usage,
)
from .controls import Held

__all__ = ["Meter", "Performer"]

A = TypeVar("A")
B = TypeVar("B")


class Meter(Protocol):
    """Where a run's model usage is counted (the shell's `UsageMeter`)."""

    def add(self, agent: str, usage: Usage, model: str | None) -> None:
        """Count `usage` of one call `agent` made, answered by `model` (`None`: not known)."""


class Performer(Protocol):
    """The side effects of one model-loop run on one runtime (module docstring)."""

    @property
    def agent(self) -> str:
        """The agent's name (its usage is counted under it)."""

    @property
    def model(self) -> str | None:
        """The agent's model's name (usage is credited to it unless an answer names another)."""

    @property
    def meter(self) -> Meter:
        """Where the run's model usage is counted."""

    @property
    def records(self) -> bool:
        """Whether `boundary` writes anything (the loop skips the call otherwise)."""

    @property
    def send(self) -> Callable[[AgentEvent], Awaitable[None]]:
        """One event to the run's stream."""

    def checkpoint(self) -> Awaitable[None]:
        """Before every step: a cancelled run stops here."""

    def call_model(self, request: ModelRequest, held: Held | None) -> Awaitable[ModelResponse | RunFailed]:
        """Ask the agent's model `request` (the hooks' injections included), streaming its deltas (through
        `held` when given); the answer, or the failure."""

    def asking(self, own: ModelRequest, injected: int) -> None:
        """The next `call_model` asks `own` with `injected` more items (the hooks' injections, which a record
        never keeps): only a performer that `records` is told."""

    async def summarise(self, request: ModelRequest) -> ModelResponse | RunFailed:
        """Ask the compaction's model for a summary (its deltas dropped); the answer names the model."""

    def answered(self, answer: ModelResponse) -> None:
        """A model call (not a tripped one) answered: to be recorded with the next boundary."""

    async def run_tools(
        self, calls: tuple[ToolCall, ...], arguments: tuple[JsonObject | None, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed:
        """Run a round of calls; their results in call order (held calls pending), or a tool hook's failure."""

    async def await_approval(
        self, pending: tuple[ToolCall, ...], problems: tuple[str | None, ...]
    ) -> ToolResults | HookFailed | tuple[ApprovalRequested, ...]:
        """Get decisions for `pending` and run the decided calls; or what the run pauses asking."""

    async def hand_off(self, target: str, transcript: Conversation) -> TerminalEvent:
        """Run `target` on `transcript` one level deeper, continuing this stream; its terminal event."""

    async def beside(
        self, call: Callable[[], Awaitable[A]], check: Callable[[], Awaitable[B | None]]
    ) -> tuple[A | None, B | None]:
        """Run both at once: ``(call's answer, None)`` when `check` answered `None`; else `call` is cancelled
        if still running and ``(its answer or None, check's answer)``."""

    async def boundary(self, outcome: TransitionOutcome) -> None:
        """Record the step `outcome` before its events go out and its action starts."""

    async def ended(self, terminal: TerminalEvent) -> None:
        """Record the run's terminal event (after the events before it went out)."""
