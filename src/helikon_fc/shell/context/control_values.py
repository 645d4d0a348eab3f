"""The plain values a run's controls are asked with and answer: where a hook fires (`HookPoint`),
what a hook answers (`HookDecision`) and what a guardrail's check answers (`GuardrailVerdict`).

They are data with no behaviour, below `RunContext` (which carries the hooks and guardrails that
receive and return them); `helikon_fc.shell.control.hooks` and `helikon_fc.shell.control.guardrails` re-export
them beside the code that fires hooks and runs guardrails, and users import them from
`helikon_fc.hooks` and `helikon_fc.guardrails`. A hook's answers are `HookAllow` and `HookDeny`
(`Allow` and `Deny` here, for the shell's own code), never to be confused with a permission decision.
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from ...core import JsonObject, JsonValue, ToolCall

__all__ = [
    "Allow",
    "Deny",
    "GuardrailVerdict",
    "HookAllow",
    "HookDecision",
    "HookDeny",
    "HookPoint",
    "InjectSystemMessage",
    "OnHandoff",
    "OnRunComplete",
    "OnRunStart",
    "OnSubagentStop",
    "OnTurnStart",
    "Pass",
    "PostToolUse",
    "PreToolUse",
    "ReplaceInput",
    "ReplaceOutput",
    "Tripwire",
]


# Points.


@attrs.frozen
class OnRunStart:
    """The run of `agent` starts (a handoff target's run starts again)."""

    agent: str


@attrs.frozen
class OnTurnStart:
    """Model turn `turn` (0-based) is about to call the model."""

    turn: int


@attrs.frozen
class PreToolUse:
    """`call` is about to run with `arguments`."""

    call: ToolCall
    arguments: JsonObject


@attrs.frozen
class PostToolUse:
    """`call` succeeded with `output`."""

    call: ToolCall
    output: JsonValue


@attrs.frozen
class OnHandoff:
    """Control is about to pass from `from_agent` to `to_agent`."""

    from_agent: str
    to_agent: str


@attrs.frozen
class OnRunComplete:
    """The run of `agent` has ended (after its terminal event)."""

    agent: str


@attrs.frozen
class OnSubagentStop:
    """A sub-agent (`AgentAsTool`, a workflow child, a handoff child) `agent` has stopped."""

    agent: str


HookPoint: TypeAlias = OnRunStart | OnTurnStart | PreToolUse | PostToolUse | OnHandoff | OnRunComplete | OnSubagentStop
"""Where a hook fires."""

# Decisions.


@attrs.frozen
class HookAllow:
    """Go on (the same as answering `None`)."""


@attrs.frozen
class HookDeny:
    """Stop this point, for `reason`; later hooks are not called."""

    reason: str


Allow = HookAllow
"""The shell's short name for `HookAllow` (the public name: a permission decision is `PermissionAllow`)."""
Deny = HookDeny
"""The shell's short name for `HookDeny` (the public name: a permission decision is `PermissionDeny`)."""


@attrs.frozen
class ReplaceInput:
    """Replace the input (a tool call's arguments) with `value`."""

    value: JsonValue


@attrs.frozen
class ReplaceOutput:
    """Replace the output (a tool's result) with `value`."""

    value: JsonValue


@attrs.frozen
class InjectSystemMessage:
    """Add `text` as a system message at the end of the next model request (not stored)."""

    text: str


HookDecision: TypeAlias = HookAllow | HookDeny | ReplaceInput | ReplaceOutput | InjectSystemMessage
"""What a hook answers."""


# Guardrail verdicts.


@attrs.frozen
class Pass:
    """The guarded text is fine."""


@attrs.frozen
class Tripwire:
    """The guarded text must stop the run; `kind` says what kind of problem (``"input_policy"``, ...)."""

    kind: str
    info: JsonValue = None


GuardrailVerdict: TypeAlias = Pass | Tripwire
"""What a guardrail's check answers."""
