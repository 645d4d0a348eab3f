"""An AG-UI request body (`RunAgentInput`) read and checked, and its messages as a helikon_fc conversation.

Pure: no IO. What crosses, and what does not:

- ``messages`` become the run's conversation, in order: user, system and developer messages, assistant
  messages (their text, then their tool calls) and tool messages (a `ToolResult`; one with ``error``
  is an error result). Reasoning and activity messages are the frontend's own and are left out. A
  message with a non-text part (an image, a file) is refused: helikon_fc runs take text.
- ``state``, when given, must be a JSON object: it seeds the run's `RunState` (``ctx.state``).
- ``tools`` (tools the frontend would run itself) and ``context`` are not offered to the agent: the
  agent's own tools are what it calls. ``forwarded_props.agent`` names the agent to run where several
  are served.
- ``resume`` answers the interrupts of a paused run (`decisions`): with ``parentRunId`` naming that run, the
  request continues it instead of starting one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pydantic
from ag_ui.core import (
    AssistantMessage as AgUiAssistantMessage,
    DeveloperMessage,
    Message,
    ResumeEntry,
    RunAgentInput,
    SystemMessage as AgUiSystemMessage,
    TextPart,
    ToolMessage,
    UserMessage as AgUiUserMessage,
)
from pydantic_core import ErrorDetails

from ..core import AssistantMessage, Item, JsonValue, SystemMessage, ToolCall, ToolResult, UserMessage
from ..shell.control.permissions import ApprovalAnswer, Approve, Reject


class AgUiInputError(ValueError):
    """An AG-UI request body that cannot be run: `problems` says each thing wrong with it, where."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems))


def read_run_input(body: bytes) -> RunAgentInput:
    """`body` as a `RunAgentInput`, checked by the protocol package's own model.

    Raises:
        AgUiInputError: the body is not JSON, not an object, does not validate as a ``RunAgentInput``,
            or has a ``state`` that is not a JSON object.
    """
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AgUiInputError([f"the body is not JSON: {exc}"]) from None
    if not isinstance(data, dict):
        raise AgUiInputError([f"the body must be a JSON object (a RunAgentInput), got {type(data).__name__}"])
    try:
        run_input = RunAgentInput.model_validate(data)
    except pydantic.ValidationError as exc:
        raise AgUiInputError([_problem(error) for error in exc.errors()]) from None
    if run_input.state is not None and not isinstance(run_input.state, dict):
        got = type(run_input.state).__name__
        raise AgUiInputError([f"state: must be a JSON object (the run's shared state), got {got}"])
    return run_input


def initial_state(run_input: RunAgentInput) -> dict[str, JsonValue]:
    """The shared state the run starts from: the request's ``state`` (an empty object when absent)."""
    state = run_input.state
    return dict(state) if isinstance(state, dict) else {}


def conversation(messages: Sequence[Message]) -> tuple[Item, ...]:
    """`messages` as helikon_fc items, in order (see the module docstring for what is left out).

    Raises:
        AgUiInputError: a message has a part that is not text.
    """
    items: list[Item] = []
    problems: list[str] = []
    for index, message in enumerate(messages):
        match message:
            case AgUiUserMessage(content=content):
                items.append(UserMessage(_text(content, f"messages[{index}]", problems)))
            case AgUiSystemMessage(content=content) | DeveloperMessage(content=content):
                items.append(SystemMessage(content))
            case AgUiAssistantMessage(content=content, tool_calls=calls):
                if content:
                    items.append(AssistantMessage(content))
                for call in calls or ():
                    items.append(ToolCall(call.id, call.function.name, call.function.arguments))
            case ToolMessage(content=content, tool_call_id=call_id, error=error):
                output = _text(content, f"messages[{index}]", problems)
                items.append(ToolResult(call_id, output or (error or ""), is_error=error is not None))
            case _:
                pass  # reasoning and activity messages: the frontend's, not the model's
    if problems:
        raise AgUiInputError(problems)
    return tuple(items)


def new_turn(items: Sequence[Item]) -> tuple[Item, ...]:
    """The items after the last assistant message or tool call: what the user added since the agent spoke.

    With a session that keeps the thread's history, this is the run's input (the rest is in the session).
    """
    for index in range(len(items) - 1, -1, -1):
        if isinstance(items[index], AssistantMessage | ToolCall):
            return tuple(items[index + 1 :])
    return tuple(items)


def _text(content: str | Sequence[object], at: str, problems: list[str]) -> str:
    """A message's content as text: a string as it is, text parts joined by blank lines."""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for index, part in enumerate(content):
        if isinstance(part, TextPart):
            texts.append(part.text)
        else:
            kind = getattr(part, "type", type(part).__name__)
            problems.append(f"{at}.content[{index}]: a part of type {kind!r}; helikon_fc agents take text parts only")
    return "\n\n".join(texts)


def _problem(error: ErrorDetails) -> str:
    """One pydantic error as ``where: what`` (``messages.0.user.content: Field required``)."""
    where = ".".join(str(part) for part in error["loc"]) or "the body"
    return f"{where}: {error['msg']}"


_PAYLOAD = 'true, false, or {"approved": bool, "arguments"?: object or its JSON text, "reason"?: str}'


def decisions(entries: Sequence[ResumeEntry]) -> dict[str, ApprovalAnswer]:
    """The approval decisions `entries` (a request's ``resume``) carry, by call id (an interrupt's id is its call's).

    A ``cancelled`` entry rejects its call; a ``resolved`` one decides by its payload: ``true`` or
    ``{"approved": true}`` approves (with ``"arguments"``: with those arguments instead), ``false`` or
    ``{"approved": false, "reason": ...}`` rejects.

    Raises:
        AgUiInputError: a payload of another shape, or arguments that are not a JSON object.
    """
    found: dict[str, ApprovalAnswer] = {}
    problems: list[str] = []
    for index, entry in enumerate(entries):
        if entry.status == "cancelled":
            found[entry.interrupt_id] = Reject("the user cancelled the approval")
            continue
        try:
            found[entry.interrupt_id] = _decision(entry.payload)
        except (TypeError, ValueError) as exc:
            problems.append(f"resume[{index}].payload: {exc}")
    if problems:
        raise AgUiInputError(problems)
    return found


def _decision(payload: object) -> ApprovalAnswer:
    if isinstance(payload, bool):
        return Approve() if payload else Reject()
    if not isinstance(payload, dict) or not isinstance(payload.get("approved"), bool):
        raise ValueError(f"expected {_PAYLOAD}, got {payload!r}")
    if not payload["approved"]:
        reason = payload.get("reason", "rejected by the approver")
        if not isinstance(reason, str):
            raise ValueError(f"reason must be a string, got {reason!r}")
        return Reject(reason)
    arguments = payload.get("arguments")
    if arguments is None:
        return Approve()
    return Approve(arguments if isinstance(arguments, str) else json.dumps(arguments))
