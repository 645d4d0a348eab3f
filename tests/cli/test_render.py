"""EventRenderer: one readable line per meaningful event, tokens streamed inline."""

from __future__ import annotations

import io

from helikon_fc.cli.render import EventRenderer, describe_usage, shorten
from helikon_fc.core import (
    AgentEvent,
    AgentUpdated,
    ApprovalRequested,
    AssistantMessage,
    GuardrailTriggered,
    HandoffItem,
    MaxTurnsExceeded,
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
    ToolCall,
    ToolCallDelta,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    TurnStarted,
    Usage,
)


def rendered(*events: AgentEvent) -> str:
    out = io.StringIO()
    renderer = EventRenderer(out)
    for event in events:
        renderer.render(event)
    return out.getvalue()


def test_tokens_stream_inline_and_the_message_ends_the_line() -> None:
    """Streamed tokens share one line prefixed by the agent; the settled message is not printed twice."""
    text = rendered(
        RunStarted("a"),
        TurnStarted(0),
        TokenDelta("Hello"),
        TokenDelta(" there"),
        MessageOutput(AssistantMessage("Hello there", agent="a")),
        RunCompleted(Usage(input_tokens=3, output_tokens=2, requests=1)),
    )
    assert text == "  run a\n  a: Hello there\n  done - usage: 3 input + 2 output tokens, 1 model request\n"


def test_an_unstreamed_message_is_printed_whole() -> None:
    """A message with no tokens before it (a workflow's merged output) is printed in full."""
    text = rendered(RunStarted("fan"), MessageOutput(AssistantMessage('{"a":"1"}', agent="fan")))
    assert text.endswith('  fan: {"a":"1"}\n')


def test_the_active_agent_is_announced_before_its_first_visible_output() -> None:
    """AgentUpdated is shown lazily, once, before the agent's next visible line."""
    text = rendered(
        RunStarted("g"),
        AgentUpdated("x"),
        TurnStarted(0),
        AgentUpdated("y"),
        TokenDelta("hi"),
        ToolCallDelta("c1", "t", "{"),
    )
    assert text == "  run g\n  active agent: y\n  y: hi"


def test_tool_calls_results_handoffs_and_failures() -> None:
    """Tool calls show their arguments, results their text (errors marked), handoffs both ends, failures why; a
    grant shows only when a human approved it."""
    text = rendered(
        RunStarted("a"),
        ToolCallItem(ToolCall("c1", "get_spending", '{"category":"dining"}')),
        ToolOutputItem(ToolResult("c1", "182.5")),
        ToolOutputItem(ToolResult("c2", "unknown tool: x", is_error=True)),
        HandoffItem("a", "b"),
        ReasoningDelta("hmm"),
        PermissionDenied("Bash", "plan mode"),
        GuardrailTriggered("input_policy"),
        ApprovalRequested("c3", "Write", "{}"),
        PermissionGranted("c3", "Write", "approved by the approval handler", approved=True),
        PermissionGranted("c4", "Read", "allowed by allow rule: tool(Read)"),
        RepairStarted(1),
        StructuredOutputFailed(("$.x: missing",), "{}"),
        RunFailed(MaxTurnsExceeded(2)),
    )
    assert text.splitlines() == [
        "  run a",
        '  -> get_spending {"category":"dining"}',
        "  <- 182.5",
        "  <- error: unknown tool: x",
        "  => handoff a -> b",
        "  a (thinking): hmm",
        "  permission denied for Bash: plan mode",
        "  guardrail tripped: input_policy",
        "  approval requested for Write",
        "  approved: Write",
        "  structured output invalid; repair attempt 1",
        "  structured output failed: $.x: missing",
        "  failed: max turns (2) exceeded",
    ]


def test_helpers() -> None:
    """Long results are cut to one line; usage reads as a sentence."""
    assert shorten("a\nb   c", 10) == "a b c"
    assert shorten("x" * 20, 10) == "xxxxxxx..."
    assert (
        describe_usage(Usage(input_tokens=1, output_tokens=2, requests=2))
        == "1 input + 2 output tokens, 2 model requests"
    )


def test_colour_wraps_in_ansi_codes() -> None:
    """With colour on, styled text is wrapped in ANSI escape codes and reset."""
    renderer = EventRenderer(io.StringIO(), color=True)
    assert renderer.paint("x", "bold", "red") == "\x1b[1;31mx\x1b[0m"
    assert EventRenderer(io.StringIO()).paint("x", "red") == "x"


def test_shorten_cuts_at_a_word_boundary() -> None:
    """A long result is cut after its last whole word that fits, never inside a word."""
    text = "spent 412 dollars on dining against a budget of 250"
    cut = shorten(text, 30)
    assert cut == "spent 412 dollars on dining..."
    assert len(cut) <= 30
    assert text.startswith(cut.removesuffix("..."))


def test_interleaved_branches_each_get_their_own_lines() -> None:
    """Tokens of two concurrent agents never share a line: each switch starts a line naming the agent, and a
    branch's message is not printed again after its tokens were shown."""
    text = rendered(
        RunStarted("fan"),
        AgentUpdated("left"),
        TokenDelta("left"),
        AgentUpdated("right"),
        TokenDelta("right"),
        AgentUpdated("left"),
        TokenDelta(" answer"),
        MessageOutput(AssistantMessage("left answer", agent="left")),
        AgentUpdated("right"),
        TokenDelta(" answer"),
        MessageOutput(AssistantMessage("right answer", agent="right")),
    )
    lines = text.splitlines()
    assert [line for line in lines if line.startswith("  left: ")] == ["  left: left", "  left:  answer"]
    assert [line for line in lines if line.startswith("  right: ")] == ["  right: right", "  right:  answer"]
    assert "left answer" not in text and "right answer" not in text


def test_simulated_usage_is_labelled_and_elapsed_time_shown() -> None:
    """A renderer for simulated runs says the usage is simulated; with a clock it says how long the run took."""
    times = iter([10.0, 12.5])
    out = io.StringIO()
    renderer = EventRenderer(out, simulated=True, clock=lambda: next(times))
    renderer.render(RunStarted("a"))
    renderer.render(RunCompleted(Usage(input_tokens=3, output_tokens=2, requests=1)))
    assert out.getvalue().endswith("  done in 2.50 s - simulated usage: 3 input + 2 output tokens, 1 model request\n")
