"""Conversation items: the messages, tool calls and tool results a run is made of.

Every item is a frozen, slotted attrs class; `Item` is their union. The wire format tags each
with a snake_case ``"type"`` (see ``docs/wire-format.md``).
"""

from __future__ import annotations

from typing import TypeAlias

import attrs


@attrs.frozen
class SystemMessage:
    """An instruction to the model from the application."""

    text: str


@attrs.frozen
class UserMessage:
    """A message from the user (or from an orchestrator speaking for the user)."""

    text: str


@attrs.frozen
class AssistantMessage:
    """Text the model produced; `agent` names the agent whose model produced it."""

    text: str
    agent: str | None = None


@attrs.frozen
class ToolCall:
    """A request from the model to run one tool.

    `arguments` is the JSON text exactly as the model produced it; it is decoded and checked
    against the tool's schema before the tool runs.
    """

    call_id: str
    name: str
    arguments: str


@attrs.frozen
class ToolResult:
    """The answer to one `ToolCall`, matched by `call_id`; `is_error` marks a failure the model should read."""

    call_id: str
    output: str
    is_error: bool = False


@attrs.frozen
class Reasoning:
    """Reasoning the model exposed for a turn.

    Some providers sign their reasoning and require it back unchanged on the next turn: `signature`
    is that opaque token (Anthropic's thinking signature), and `redacted` holds reasoning the provider
    returned only encrypted (Anthropic's ``redacted_thinking`` data; `text` is then empty). Both are
    `None` for providers that issue neither.
    """

    text: str
    signature: str | None = None
    """The provider's signature over `text`, sent back unchanged (`None`: unsigned)."""
    redacted: str | None = None
    """Encrypted reasoning the provider returned instead of text, sent back unchanged (`None`: none)."""


@attrs.frozen
class Compacted:
    """A compaction marker: from here on the model sees `summary` in place of the older items.

    The log keeps every item; the marker only changes what the model is shown (see
    `core.compaction.visible`): the `kept` items just before the marker stay in view (markers among
    them aside), everything older is replaced by one `SystemMessage` of `summary` (none when it is
    blank). A skipped compaction appends a marker that keeps the whole view and repeats the
    previous summary: what the model sees does not change, and the log says it was tried.
    """

    summary: str
    kept: int


Item: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolCall | ToolResult | Reasoning | Compacted
"""One entry of a conversation."""
