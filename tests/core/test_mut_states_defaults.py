"""The documented defaults of the machine's values: the first state, a context's limits, the optional fields.

`docs/agent-loop.md` gives the limits (`max_turns` 16, `max_agent_depth` 8); the docstrings give the rest
(a run starts at turn 0 with nothing spent; `ExecuteTools.arguments` take no part in equality or repr).
"""

from __future__ import annotations

from helikon_fc.core import (
    AwaitApproval,
    CallingModel,
    Conversation,
    ExecuteTools,
    FinalOutput,
    ModelSettings,
    Start,
    Terminate,
    ToolCall,
    ToolResults,
    TransitionCtx,
    TransitionOutcome,
    Usage,
    initial_state,
)


def test_a_run_starts_calling_the_model_for_turn_zero_with_nothing_spent() -> None:
    """`initial_state()` is `CallingModel` at turn 0 with an empty `Usage`."""
    assert initial_state() == CallingModel(turn=0, usage=Usage())


def test_a_context_defaults_to_the_documented_limits_and_no_extras() -> None:
    """No tools, handoffs, schema or compaction; default settings; 16 turns; depth 0 of at most 8."""
    ctx = TransitionCtx(agent_name="a", instructions=None, conversation=Conversation())
    assert ctx.tools == ()
    assert ctx.handoffs == ()
    assert ctx.settings == ModelSettings()
    assert ctx.max_turns == 16
    assert ctx.output_schema is None
    assert ctx.agent_depth == 0
    assert ctx.max_agent_depth == 8
    assert ctx.compaction is None


def test_parsed_arguments_take_no_part_in_equality_or_repr() -> None:
    """Two `ExecuteTools` of the same calls are equal whatever arguments were parsed, and the repr shows calls only."""
    call = ToolCall("c1", "add", '{"a": 1}')
    parsed = ExecuteTools((call,), ({"a": 1},))
    assert parsed == ExecuteTools((call,))
    assert parsed == ExecuteTools((call,), ({"a": 2},))
    assert repr(parsed) == f"ExecuteTools(calls=({call!r},))"
    assert ExecuteTools((call,)).arguments == ()


def test_call_problems_take_no_part_in_equality_or_repr() -> None:
    """A call's problem is derived from the calls and the tools: two `ExecuteTools` of the same calls are equal
    whatever problems were found, the repr shows the calls only, and none are found when none are given."""
    call = ToolCall("c1", "nope", "{}")
    found = ExecuteTools((call,), (None,), ("unknown tool: nope",))
    assert found == ExecuteTools((call,))
    assert found == ExecuteTools((call,), (None,), ("another problem",))
    assert repr(found) == f"ExecuteTools(calls=({call!r},))"
    assert ExecuteTools((call,)).problems == ()


def test_problems_of_held_calls_take_no_part_in_equality_or_repr() -> None:
    """`AwaitApproval.problems` is derived as `ExecuteTools.problems` is: out of equality and repr, empty by default."""
    call = ToolCall("c1", "Bash", '{"command": 1}')
    held = AwaitApproval((call,), ("invalid arguments for tool Bash",))
    assert held == AwaitApproval((call,))
    assert repr(held) == f"AwaitApproval(pending=({call!r},))"
    assert AwaitApproval((call,)).problems == ()


def test_optional_fields_of_results_outputs_and_outcomes_default_to_empty() -> None:
    """A round without pending calls or events; a plain-text final output; an outcome that appends nothing."""
    results = ToolResults(())
    assert results.pending == ()
    assert results.events == ()
    output = FinalOutput("done")
    assert output.value is None
    assert output.structured is False
    outcome = TransitionOutcome(initial_state(), (), Terminate())
    assert outcome.conversation_appends == ()
    assert Start() == Start()
