"""`AgentError`: every way a run can fail, as data.

A failure is a value carried by `Failed` and `RunFailed`; the shell raises it as `RunError`
only at the public boundary (`RunResultStreaming.collect`). Each variant has structured fields
and a one-line description as its `str`.
"""

from __future__ import annotations

import enum
from typing import TypeAlias

import attrs

from .json_value import JsonValue


class ModelFailureKind(enum.Enum):
    """Why a model call failed, in provider-neutral terms."""

    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    CONTEXT_LENGTH = "context_length"
    REFUSED = "refused"
    TRANSPORT = "transport"
    OTHER = "other"


@attrs.frozen
class MaxTurnsExceeded:
    """The tool loop reached `max_turns` model calls without an answer."""

    limit: int

    def __str__(self) -> str:
        return f"max turns ({self.limit}) exceeded"


@attrs.frozen
class MaxAgentDepthExceeded:
    """A handoff or agent-as-tool sub-run would nest deeper than `max_agent_depth`."""

    depth: int
    limit: int

    def __str__(self) -> str:
        return f"agent nesting depth ({self.depth}) exceeded max ({self.limit})"


@attrs.frozen
class MaxIterationsExceeded:
    """A `LoopAgent` ran all its iterations and no sub-agent escalated."""

    limit: int

    def __str__(self) -> str:
        return f"max iterations ({self.limit}) exceeded without an escalation"


@attrs.frozen
class MaxHandoffsExceeded:
    """A `SwarmAgent` saw more handoffs than its `max_handoffs` budget."""

    limit: int

    def __str__(self) -> str:
        return f"max handoffs ({self.limit}) exceeded"


@attrs.frozen
class HandoffCollision:
    """Two handoffs (or a handoff and a tool) would share the tool name `tool_name`."""

    tool_name: str
    agents: tuple[str, ...]

    def __str__(self) -> str:
        return f"handoff tool name {self.tool_name!r} is claimed by more than one of: {', '.join(self.agents)}"


@attrs.frozen
class UnknownHandoffTarget:
    """A handoff named a target agent the running agent does not know."""

    target: str

    def __str__(self) -> str:
        return f"unknown handoff target: {self.target}"


@attrs.frozen
class ModelFailed:
    """The model call failed; `retry_after` is the provider's hint in seconds, where it gave one."""

    kind: ModelFailureKind
    message: str
    retry_after: float | None = None

    def __str__(self) -> str:
        return f"model failed ({self.kind.value}): {self.message}"


@attrs.frozen
class StructuredOutputInvalid:
    """The structured-output turn and its one repair both failed to fit the schema."""

    schema_errors: tuple[str, ...]
    final_text: str

    def __str__(self) -> str:
        return "invalid structured output after one repair attempt: " + "; ".join(self.schema_errors)


@attrs.frozen
class TimedOut:
    """The run's `timeout` (seconds) ran out."""

    seconds: float

    def __str__(self) -> str:
        return f"run timed out after {self.seconds:g} s"


@attrs.frozen
class Cancelled:
    """The run was cancelled from outside."""

    reason: str = "run cancelled"

    def __str__(self) -> str:
        return self.reason


@attrs.frozen
class BranchFailure:
    """One failed branch (or graph node) of a workflow, by its key."""

    key: str
    error: AgentError


@attrs.frozen
class ParallelFailed:
    """One or more branches of a `ParallelAgent` failed; every sibling ran to its end first."""

    failures: tuple[BranchFailure, ...]

    def __str__(self) -> str:
        parts = ", ".join(f"{f.key}: {f.error}" for f in self.failures)
        return f"{len(self.failures)} parallel branch(es) failed: {parts}"


@attrs.frozen
class GraphFailed:
    """One or more nodes of a `GraphAgent` failed; `skipped` are their transitive descendants, never run."""

    failed: tuple[BranchFailure, ...]
    skipped: tuple[str, ...]

    def __str__(self) -> str:
        parts = ", ".join(f"{f.key}: {f.error}" for f in self.failed)
        skipped = ", ".join(self.skipped) if self.skipped else "none"
        return f"{len(self.failed)} graph node(s) failed: {parts}; skipped: {skipped}"


@attrs.frozen
class GuardrailTripped:
    """A guardrail of `kind` (input_policy, output_policy or other) stopped the run."""

    kind: str
    info: JsonValue = None

    def __str__(self) -> str:
        return f"{self.kind} guardrail tripwire"


@attrs.frozen
class HookDenied:
    """A lifecycle hook denied `event`."""

    event: str
    reason: str

    def __str__(self) -> str:
        return f"hook denied {self.event}: {self.reason}"


@attrs.frozen
class HookFailed:
    """A lifecycle hook raised at `event` (a hook's failure is the run's, unlike a tool's)."""

    event: str
    message: str

    def __str__(self) -> str:
        return f"hook failed at {self.event}: {self.message}"


@attrs.frozen
class ToolFailed:
    """A tool failed in a way that ends the run (tool errors are normally fed back to the model instead)."""

    tool: str
    message: str

    def __str__(self) -> str:
        return f"tool {self.tool} failed: {self.message}"


@attrs.frozen
class SessionFailed:
    """The session store failed."""

    message: str

    def __str__(self) -> str:
        return f"session failed: {self.message}"


@attrs.frozen
class InvalidTransition:
    """`transition` was given an input its state cannot accept (a driver bug, reported as data)."""

    state: str
    input: str
    detail: str = ""

    def __str__(self) -> str:
        tail = f": {self.detail}" if self.detail else ""
        return f"invalid transition from {self.state} on {self.input}{tail}"


@attrs.frozen
class OtherError:
    """Any other failure, described in words."""

    message: str

    def __str__(self) -> str:
        return self.message


AgentError: TypeAlias = (
    MaxTurnsExceeded
    | MaxAgentDepthExceeded
    | MaxIterationsExceeded
    | MaxHandoffsExceeded
    | HandoffCollision
    | UnknownHandoffTarget
    | ModelFailed
    | StructuredOutputInvalid
    | TimedOut
    | Cancelled
    | ParallelFailed
    | GraphFailed
    | GuardrailTripped
    | HookDenied
    | HookFailed
    | ToolFailed
    | SessionFailed
    | InvalidTransition
    | OtherError
)
"""Every way a run can fail."""
