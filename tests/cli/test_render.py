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


def test_concurrent_agents_each_keep_their_text_together() -> None:
    """Tokens of two concurrent agents, interleaved word by word, are shown as one line per agent: the first to
    stream keeps the line, the other's text is held and printed whole when the first one's message ends (it
    was one word per line, each prefixed by its agent), and no message is printed twice."""
    text = rendered(
        RunStarted("fan"),
        AgentUpdated("left"),
        TokenDelta("left"),
        AgentUpdated("right"),
        TokenDelta("right"),
        AgentUpdated("left"),
        TokenDelta(" answer"),
        AgentUpdated("right"),
        TokenDelta(" answer"),
        MessageOutput(AssistantMessage("right answer", agent="right")),
        AgentUpdated("left"),
        MessageOutput(AssistantMessage("left answer", agent="left")),
    )
    assert text.splitlines() == ["  run fan", "  active agent: left", "  left: left answer", "  right: right answer"]


def test_a_held_stream_continues_live_once_the_line_is_free() -> None:
    """When the streaming agent's message ends while another agent is still streaming, the other's held text is
    printed and its next tokens continue on the same line."""
    out = io.StringIO()
    renderer = EventRenderer(out)
    for event in (
        RunStarted("fan"),
        AgentUpdated("left"),
        TokenDelta("one"),
        AgentUpdated("right"),
        TokenDelta("two"),
        AgentUpdated("left"),
        MessageOutput(AssistantMessage("one", agent="left")),
    ):
        renderer.render(event)
    assert out.getvalue().splitlines()[-1] == "  right: two"
    renderer.render(AgentUpdated("right"))
    renderer.render(TokenDelta(" three"))
    assert out.getvalue().splitlines()[-1] == "  right: two three"
    renderer.render(MessageOutput(AssistantMessage("two three", agent="right")))
    assert out.getvalue().endswith("  right: two three\n")


def test_another_agent_s_tool_lines_wait_for_the_streaming_line() -> None:
    """A tool call and result of another agent arriving mid-line are shown after the streaming agent's message,
    announced, instead of breaking its line."""
    call = ToolCall("c1", "lookup", "{}")
    text = rendered(
        RunStarted("g"),
        AgentUpdated("a"),
        TokenDelta("first"),
        AgentUpdated("b"),
        ToolCallItem(call),
        ToolOutputItem(ToolResult("c1", "42")),
        AgentUpdated("a"),
        TokenDelta(" half"),
        MessageOutput(AssistantMessage("first half", agent="a")),
    )
    assert text.splitlines()[1:] == [
        "  active agent: a",
        "  a: first half",
        "  active agent: b",
        "  -> lookup {}",
        "  <- 42",
    ]


def test_held_lines_come_out_when_the_streaming_agent_turns_to_a_tool() -> None:
    """When the streaming agent's own tool call ends its line, the lines held back for the others come first, then
    the call, each announced."""
    text = rendered(
        RunStarted("g"),
        AgentUpdated("a"),
        TokenDelta("Let me check."),
        AgentUpdated("b"),
        ToolCallItem(ToolCall("c1", "lookup", "{}")),
        AgentUpdated("a"),
        ToolCallItem(ToolCall("c2", "fetch", "{}")),
    )
    assert text.splitlines()[1:] == [
        "  active agent: a",
        "  a: Let me check.",
        "  active agent: b",
        "  -> lookup {}",
        "  active agent: a",
        "  -> fetch {}",
    ]


def test_long_text_wraps_at_word_boundaries_with_a_hanging_indent() -> None:
    """With a width, streamed text (whatever its token boundaries) and whole messages wrap between words, each
    further line indented under the text's first character; a newline in the text is indented too."""
    words = "Track a month of spending, then cap your top two categories at last month's level."
    out = io.StringIO()
    renderer = EventRenderer(out, width=42)
    renderer.render(RunStarted("coach"))
    for start in range(0, len(words), 3):  # tokens that cut words anywhere
        renderer.render(TokenDelta(words[start : start + 3]))
    renderer.render(MessageOutput(AssistantMessage(words, agent="coach")))
    renderer.render(MessageOutput(AssistantMessage("- rent 1,450\n- dining 412", agent="planner")))
    lines = out.getvalue().splitlines()[1:]
    assert lines == [
        "  coach: Track a month of spending, then",
        "         cap your top two categories at",
        "         last month's level.",
        "  planner: - rent 1,450",
        "           - dining 412",
    ]
    assert all(len(line) <= 42 for line in lines)


def test_simulated_usage_is_labelled_and_elapsed_time_shown() -> None:
    """A renderer for simulated runs says the usage is simulated; with a clock it says how long the run took."""
    times = iter([10.0, 12.5])
    out = io.StringIO()
    renderer = EventRenderer(out, simulated=True, clock=lambda: next(times))
    renderer.render(RunStarted("a"))
    renderer.render(RunCompleted(Usage(input_tokens=3, output_tokens=2, requests=1)))
    assert out.getvalue().endswith("  done in 2.50 s - simulated usage: 3 input + 2 output tokens, 1 model request\n")


def test_a_long_name_on_a_narrow_line_hangs_by_a_few_columns() -> None:
    """When indenting under the first character would leave fewer than 30 columns, further lines are indented by
    four columns instead, and still wrap between words."""
    out = io.StringIO()
    renderer = EventRenderer(out, width=50)
    renderer.render(RunStarted("desk"))
    name = "a very long specialist name"
    renderer.render(MessageOutput(AssistantMessage("Keep three months of expenses as an emergency fund.", agent=name)))
    assert out.getvalue().splitlines()[1:] == [
        "  a very long specialist name: Keep three months",
        "    of expenses as an emergency fund.",
    ]
