"""An AG-UI request body read with the protocol package's `RunAgentInput`; its messages as a helikon_fc conversation."""

from __future__ import annotations

import json

import pytest
from ag_ui.core import (
    AssistantMessage as AgUiAssistantMessage,
    DeveloperMessage,
    FunctionCall,
    Message,
    ReasoningMessage,
    ResumeEntry,
    RunAgentInput,
    TextPart,
    ToolCall as AgUiToolCall,
    ToolMessage,
    UserMessage as AgUiUserMessage,
)

from helikon_fc import Approve, AssistantMessage, Reject, SystemMessage, ToolCall, ToolResult, UserMessage
from helikon_fc.serve._ag_ui_input import conversation, decisions, initial_state, new_turn, read_run_input
from helikon_fc.serve.ag_ui import AgUiInputError


def body(**fields: object) -> bytes:
    return json.dumps({"threadId": "t", "runId": "r", "messages": [], **fields}).encode()


def test_a_valid_body_is_read_as_the_packages_model() -> None:
    """camelCase JSON from a frontend becomes a `RunAgentInput`, its state and props kept."""
    run_input = read_run_input(
        body(messages=[{"id": "1", "role": "user", "content": "hi"}], state={"k": 1}, forwardedProps={"agent": "a"})
    )
    assert isinstance(run_input, RunAgentInput)
    assert (run_input.thread_id, run_input.run_id, run_input.forwarded_props) == ("t", "r", {"agent": "a"})
    assert initial_state(run_input) == {"k": 1}


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"{not json", "the body is not JSON"),
        (b"[1, 2]", "the body must be a JSON object (a RunAgentInput), got list"),
        (json.dumps({"threadId": "t", "messages": []}).encode(), "runId: Field required"),
        (body(messages=[{"id": "1", "role": "user"}]), "messages.0.user.content: Field required"),
        (body(messages=[{"id": "1", "role": "robot", "content": "x"}]), "messages.0: Input tag 'robot'"),
        (body(state=[1]), "state: must be a JSON object (the run's shared state), got list"),
    ],
)
def test_a_bad_body_is_refused_with_its_problems_named(raw: bytes, problem: str) -> None:
    """Each kind of bad body raises `AgUiInputError`, whose problems say what is wrong and where."""
    with pytest.raises(AgUiInputError) as caught:
        read_run_input(raw)
    assert any(found.startswith(problem) for found in caught.value.problems), caught.value.problems


def test_every_message_role_becomes_its_item_in_order() -> None:
    """User, developer, assistant (text then calls) and tool messages map in order; reasoning is left out."""
    messages: list[Message] = [
        DeveloperMessage(id="0", content="be brief"),
        AgUiUserMessage(id="1", content=[TextPart(text="add"), TextPart(text="2 and 3")]),
        AgUiAssistantMessage(
            id="2",
            content="Adding.",
            tool_calls=[AgUiToolCall(id="c1", function=FunctionCall(name="add", arguments='{"a":2,"b":3}'))],
        ),
        ToolMessage(id="3", content="5", tool_call_id="c1"),
        ReasoningMessage(id="4", content="it is five"),
        ToolMessage(id="5", content="", tool_call_id="c2", error="timed out"),
        AgUiUserMessage(id="6", content="thanks"),
    ]
    assert conversation(messages) == (
        SystemMessage("be brief"),
        UserMessage("add\n\n2 and 3"),
        AssistantMessage("Adding."),
        ToolCall("c1", "add", '{"a":2,"b":3}'),
        ToolResult("c1", "5"),
        ToolResult("c2", "timed out", is_error=True),
        UserMessage("thanks"),
    )


def test_a_part_that_is_not_text_is_refused_where_it_is() -> None:
    """An image in a user message is named by its place: helikon_fc agents take text."""
    run_input = read_run_input(
        body(
            messages=[
                {
                    "id": "1",
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "what is this?"},
                        {"type": "image", "source": {"type": "url", "value": "http://example.invalid/a.png"}},
                    ],
                }
            ]
        )
    )
    with pytest.raises(AgUiInputError) as caught:
        conversation(run_input.messages)
    assert caught.value.problems == (
        "messages[0].content[1]: a part of type 'image'; helikon_fc agents take text parts only",
    )


def test_the_new_turn_is_what_follows_the_agents_last_word() -> None:
    """With a session holding the history, only the messages after the last assistant message or call are new."""
    items = (UserMessage("a"), AssistantMessage("b"), UserMessage("c"), UserMessage("d"))
    assert new_turn(items) == (UserMessage("c"), UserMessage("d"))
    assert new_turn((UserMessage("a"),)) == (UserMessage("a"),)
    assert new_turn((UserMessage("a"), ToolCall("c1", "t", "{}"), ToolResult("c1", "x"))) == (ToolResult("c1", "x"),)


@pytest.mark.parametrize(
    ("status", "payload", "decision"),
    [
        ("resolved", True, Approve()),
        ("resolved", {"approved": True}, Approve()),
        ("resolved", {"approved": True, "arguments": {"command": "ls"}}, Approve('{"command": "ls"}')),
        ("resolved", {"approved": True, "arguments": '{"command":"ls"}'}, Approve('{"command":"ls"}')),
        ("resolved", False, Reject()),
        ("resolved", {"approved": False, "reason": "no"}, Reject("no")),
        ("cancelled", None, Reject("the user cancelled the approval")),
    ],
)
def test_resume_entries_become_approval_decisions(status: str, payload: object, decision: object) -> None:
    """Each accepted payload shape (and a cancelled entry) decides the call its interrupt names."""
    entry = ResumeEntry.model_validate({"interruptId": "call_0_0", "status": status, "payload": payload})
    assert decisions([entry]) == {"call_0_0": decision}


def test_a_payload_of_another_shape_is_a_problem_naming_the_entry() -> None:
    """A payload that is neither a yes/no nor the decision object, or arguments that are no object, is refused."""
    entries = [
        ResumeEntry(interrupt_id="a", status="resolved", payload="yes"),
        ResumeEntry(interrupt_id="b", status="resolved", payload={"approved": True, "arguments": [1]}),
    ]
    with pytest.raises(AgUiInputError) as caught:
        decisions(entries)
    first, second = caught.value.problems
    assert first.startswith("resume[0].payload: expected true, false, or {") and first.endswith("got 'yes'")
    assert second.startswith("resume[1].payload: Approve: arguments must be the JSON text of an object")
