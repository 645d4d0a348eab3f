"""Compaction as pure functions: what the model sees, when that is too much, and what replaces it.

A run's conversation is an append-only log; compaction never removes anything from it. It appends
a `Compacted` marker instead, and `visible` (the view every request is built from) shows the
marker's summary in place of the items it replaced:

- `estimate_tokens`: the heuristic count, ``ceil(chars / 4)`` per item over its text (a tool call's
  name and arguments, a tool result's output);
- `plan_compaction`: the decision. When the view passes ``policy.max_tokens`` and there is
  something older than the last turn to summarise, a `CompactionPlan` names the items the summary
  replaces (the view up to the last turn: a tool call and its result are never split) and how
  many log items stay in view;
- `summary_request`: the request that asks a model for the summary (the replaced items as a
  transcript, no tools);
- `splice`: the marker a summary becomes (the summary cut to ``policy.summary_tokens``);
  `skipped_marker`: the marker of a compaction that was skipped, which leaves the view as it was;
- `rebase`: the marker moved past items appended while its summary was being written (a session
  compacts while other appends land), and `compaction_report`: the event that tells of a splice;
- `BLANK_SUMMARY`, `failed_summary`: why a compaction was skipped (`CompactionSkipped.reason`).

Consecutive compactions chain: an earlier summary is in view as a `SystemMessage`, so a later
compaction summarises it with the rest, and the later marker replaces everything before it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TypeAlias, cast

import attrs

from .conversation import Conversation
from .events import ConversationCompacted
from .items import AssistantMessage, Compacted, Item, Reasoning, SystemMessage, ToolCall, ToolResult, UserMessage
from .model import ModelRequest, ModelSettings

_Text: TypeAlias = SystemMessage | UserMessage | AssistantMessage | Reasoning

SUMMARY_PREFIX = "Summary of the conversation so far:\n"
"""What the system message of a summary starts with, before the summary itself."""

DEFAULT_SUMMARY_INSTRUCTIONS = (
    "You compress conversations. Summarise the conversation you are given so that an assistant could "
    "carry on from the summary alone: the user's requests, the facts learned (tool results included), "
    "decisions made and what remains to be done. Reply with the summary only."
)
"""The instructions a summary request carries unless the policy gives others."""

BLANK_SUMMARY = "the summary came back blank"
"""The reason a compaction whose summary was blank is skipped."""


@attrs.frozen(kw_only=True)
class CompactionPolicy:
    """When and how a run compacts its conversation (the shell's `Compaction` builds one).

    Attributes:
        max_tokens: the estimated tokens the conversation the model sees may hold; past them, the
            loop compacts before its next model call.
        summary_tokens: the most a summary may hold (it is cut to this); less than `max_tokens`.
        instructions: the instructions of the summary request.
    """

    max_tokens: int
    summary_tokens: int
    instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS


class ResumePhase(enum.Enum):
    """The phase a `Compacting` run goes back to once its summary is in (or skipped)."""

    CALLING_MODEL = "calling_model"
    FINALIZING = "finalizing"
    REPAIRING_OUTPUT = "repairing_output"


@attrs.frozen(kw_only=True)
class CompactionPlan:
    """What one compaction replaces: the `summarised` view items, keeping the `kept` last log items."""

    summarised: tuple[Item, ...]
    kept: int
    tokens: int
    """The estimated tokens of the view before compacting."""


# Counting


def item_tokens(item: Item) -> int:
    """The heuristic token count of one item: ``ceil(chars / 4)`` of its text.

    Dispatched on the exact type rather than with class patterns: it runs over the whole view
    before every model call of a compacting run.
    """
    if type(item) is ToolResult:
        chars = len(item.output)
    elif type(item) is ToolCall:
        chars = len(item.name) + len(item.arguments)
    elif type(item) is Compacted:
        chars = len(SUMMARY_PREFIX) + len(item.summary) if item.summary.strip() else 0
    else:
        chars = len(cast("_Text", item).text)  # the four kinds of text item
    return (chars + 3) // 4


def estimate_tokens(items: Conversation | tuple[Item, ...]) -> int:
    """The heuristic token count of `items` (the sum over each item)."""
    return sum(map(item_tokens, items))


# The view


def visible(conversation: Conversation) -> Conversation:
    """What the model is shown of `conversation`: the last marker's summary and the items after it.

    Without a marker this is `conversation` itself (no copy). With one, it is a `SystemMessage`
    of the marker's summary (none when the summary is blank), then the `kept` log items just
    before the marker (markers among them left out), then everything after the marker.
    """
    mark = conversation.last_compaction
    if mark is None:
        return conversation
    marker = conversation[mark]
    assert type(marker) is Compacted
    shown: list[Item] = [SystemMessage(summary_text(marker.summary))] if marker.summary.strip() else []
    for index in range(max(0, mark - marker.kept), mark):
        item = conversation[index]
        if type(item) is not Compacted:
            shown.append(item)
    shown.extend(conversation[index] for index in range(mark + 1, len(conversation)))
    return Conversation(shown)


def summary_text(summary: str) -> str:
    """The text of the system message a summary is shown as."""
    return SUMMARY_PREFIX + summary


def _has_summary(conversation: Conversation) -> bool:
    """Whether the view of `conversation` opens with a summary."""
    mark = conversation.last_compaction
    if mark is None:
        return False
    marker = conversation[mark]
    return type(marker) is Compacted and bool(marker.summary.strip())


# The decision


def plan_compaction(conversation: Conversation, policy: CompactionPolicy) -> CompactionPlan | None:
    """What to compact before the next model call, or `None` when the view fits or nothing can go.

    Nothing is compacted right after a marker (the compaction for this call was made or skipped),
    nor when everything before the last turn is the previous summary alone.
    """
    if conversation and type(conversation[-1]) is Compacted:
        return None
    view = visible(conversation)
    tokens = estimate_tokens(view)
    if tokens <= policy.max_tokens:
        return None
    start = last_turn_start(view)
    first = 1 if _has_summary(conversation) else 0
    if start <= first:
        return None
    return CompactionPlan(summarised=view[:start], kept=_log_suffix(conversation, len(view) - start), tokens=tokens)


def last_turn_start(items: Conversation | tuple[Item, ...]) -> int:
    """Where the last turn of `items` begins: the first item of the last model response.

    A model response is a run of reasoning, assistant text and tool calls; its turn goes on to the
    end (its tool results, a repair prompt). Without one, the last item is the turn. The start moves
    earlier while a tool call and its result would fall on both sides of it.
    """
    model_made = (Reasoning, AssistantMessage, ToolCall)
    start = len(items)
    while start > 0 and not isinstance(items[start - 1], model_made):
        start -= 1
    while start > 0 and isinstance(items[start - 1], model_made):
        start -= 1
    if start == 0 and not any(isinstance(item, model_made) for item in items):
        start = max(0, len(items) - 1)
    return _unsplit(items, start)


def _call_id(item: Item) -> str | None:
    if type(item) is ToolCall or type(item) is ToolResult:
        return item.call_id
    return None


def _unsplit(items: Conversation | tuple[Item, ...], start: int) -> int:
    """`start`, moved earlier until no call id has items on both sides of it."""
    while start > 0:
        kept = {call_id for item in items[start:] if (call_id := _call_id(item)) is not None}
        earlier = next((index for index in range(start) if _call_id(items[index]) in kept), None)
        if earlier is None:
            return start
        start = earlier
    return start


def _log_suffix(conversation: Conversation, count: int) -> int:
    """How many log items end `conversation` once its last `count` non-marker items are counted."""
    seen = 0
    index = len(conversation)
    while seen < count and index > 0:
        index -= 1
        if type(conversation[index]) is not Compacted:
            seen += 1
    return len(conversation) - index


# The summary


def summary_request(plan: CompactionPlan, policy: CompactionPolicy) -> ModelRequest:
    """The request that asks for the summary: the replaced items as one transcript, no tools."""
    transcript = "\n".join(_transcript_line(item) for item in plan.summarised)
    prompt = f"Summarise this conversation:\n\n{transcript}"
    return ModelRequest(
        instructions=policy.instructions,
        items=Conversation((UserMessage(prompt),)),
        settings=ModelSettings(max_output_tokens=policy.summary_tokens),
    )


def _transcript_line(item: Item) -> str:
    match item:
        case SystemMessage(text=text):
            return f"[system] {text}"
        case UserMessage(text=text):
            return f"[user] {text}"
        case AssistantMessage(text=text, agent=agent):
            return f"[assistant {agent}] {text}" if agent else f"[assistant] {text}"
        case Reasoning(text=text):
            return f"[reasoning] {text}"
        case ToolCall(call_id=call_id, name=name, arguments=arguments):
            return f"[tool call {call_id}] {name}({arguments})"
        case ToolResult(call_id=call_id, output=output, is_error=is_error):
            return f"[tool {'error' if is_error else 'result'} {call_id}] {output}"
        case Compacted(summary=summary):
            return f"[summary] {summary}"


def splice(plan: CompactionPlan, summary: str, policy: CompactionPolicy) -> Compacted | None:
    """The marker that puts `summary` in place of `plan.summarised`, or `None` for a blank summary.

    The summary is cut so that its system message holds at most ``policy.summary_tokens``.
    """
    room = max(0, policy.summary_tokens * 4 - len(SUMMARY_PREFIX))
    text = summary.strip()[:room].strip()
    if not text:
        return None
    return Compacted(text, plan.kept)


def skipped_marker(conversation: Conversation) -> Compacted:
    """The marker of a skipped compaction: the previous summary (if any) and everything in view kept."""
    mark = conversation.last_compaction
    previous = conversation[mark] if mark is not None else None
    summary = previous.summary if type(previous) is Compacted else ""
    shown = len(visible(conversation)) - (1 if summary.strip() else 0)
    return Compacted(summary, _log_suffix(conversation, shown))


def rebase(marker: Compacted, later: Sequence[Item]) -> Compacted:
    """`marker`, planned on a log that has since grown by `later`, for appending after them.

    The marker keeps `later` in view as well, so the view after it is the planned one with `later`
    (their own markers aside) at its end: nothing appended meanwhile is hidden or summarised.
    """
    return Compacted(marker.summary, marker.kept + len(later))


def compaction_report(conversation: Conversation, plan: CompactionPlan, marker: Compacted) -> ConversationCompacted:
    """The event telling that `marker`, appended to `conversation`, replaced `plan.summarised`."""
    after = visible(conversation.extend((marker,)))
    return ConversationCompacted(marker.summary, len(plan.summarised), plan.tokens, estimate_tokens(after))


def failed_summary(error: object) -> str:
    """The reason a compaction whose summary call failed with `error` is skipped."""
    return f"the summary call failed: {error}"
