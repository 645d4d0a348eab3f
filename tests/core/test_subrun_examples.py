"""Sub-runs by example (`helikon_fc.core.patterns.subrun`): the segments, the qualified questions and one stream
relayed for each kind of sub-run, written out (the laws in ``properties/test_subrun_relay.py`` say the rest)."""

from __future__ import annotations

from helikon_fc.core import (
    AgentEvent,
    AgentUpdated,
    ApprovalRequested,
    AssistantMessage,
    MaxAgentDepthExceeded,
    MessageOutput,
    ModelFailed,
    ModelFailureKind,
    OtherError,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    ToolResult,
    TurnStarted,
    Usage,
)
from helikon_fc.core.patterns import ChildFailed, ChildPaused, ChildSucceeded
from helikon_fc.core.patterns.subrun import (
    Relay,
    SubRun,
    child_end,
    depth_error,
    handoff_end,
    handoff_segment,
    qualified,
    relay,
    relay_of,
    tool_answer,
    tool_segment,
)

ASK = ApprovalRequested("cmd0", "Bash", '{"command":"rm -rf /"}')
ANSWER = MessageOutput(AssistantMessage("done", "ops"))
DONE = RunCompleted(Usage(input_tokens=3, requests=1))
STREAM = (RunStarted("ops"), TurnStarted(0), ASK, ANSWER, DONE, TurnStarted(1))
"""A child's stream: its start, a question, an answer, its terminal, and one event after it (passed by no relay)."""


def _relayed(kind: SubRun, segment: str) -> tuple[Relay, list[AgentEvent]]:
    state = relay_of(kind, "ops", segment)
    passed: list[AgentEvent] = []
    for event in STREAM:
        state, out = relay(state, event)
        passed.extend(out)
    return state, passed


def test_the_segments_name_the_sub_run() -> None:
    assert handoff_segment("billing") == "handoff:billing"
    assert tool_segment("call_1") == "tool:call_1"


def test_a_question_is_qualified_by_the_prefix_and_nothing_else_is() -> None:
    assert qualified(ASK, "clean/") == ApprovalRequested("clean/cmd0", "Bash", '{"command":"rm -rf /"}')
    assert qualified(ASK, "") is ASK
    assert qualified(ANSWER, "clean/") is ANSWER


def test_a_workflow_child_is_announced_its_questions_qualified_its_terminal_kept() -> None:
    state, passed = _relayed(SubRun.CHILD, "clean")
    assert passed == [AgentUpdated("ops"), TurnStarted(0), qualified(ASK, "clean/"), ANSWER]
    assert child_end(state) == ChildSucceeded("done")


def test_a_handoff_target_starts_unannounced_and_its_terminal_ends_the_run() -> None:
    state, passed = _relayed(SubRun.HANDOFF, "handoff:ops")
    assert passed == [TurnStarted(0), ApprovalRequested("handoff:ops/cmd0", ASK.tool, ASK.args), ANSWER]
    assert handoff_end(state) == DONE


def test_an_agent_as_tool_passes_only_its_questions_and_keeps_its_answer() -> None:
    state, passed = _relayed(SubRun.TOOL, "tool:c1")
    assert passed == [ApprovalRequested("tool:c1/cmd0", ASK.tool, ASK.args)]
    assert child_end(state) == ChildSucceeded("done")


def test_ends_without_a_terminal_name_the_child() -> None:
    handoff = relay_of(SubRun.HANDOFF, "billing")
    failed = RunFailed(OtherError("handoff target 'billing' ended its stream without a terminal event"))
    assert handoff_end(handoff) == failed
    child = relay_of(SubRun.CHILD, "step")
    assert child_end(child) == ChildFailed(OtherError("agent 'step' ended its stream without a terminal event"))


def test_a_child_that_failed_or_paused_ends_so() -> None:
    error = ModelFailed(ModelFailureKind.REFUSED, "no")
    failed, _ = relay(relay_of(SubRun.CHILD, "a"), RunFailed(error))
    assert child_end(failed) == ChildFailed(error)
    paused, _ = relay(relay_of(SubRun.TOOL, "a"), RunPaused((ASK,)))
    assert child_end(paused) == ChildPaused((ASK,))


def test_the_depth_limit_allows_the_last_level_and_refuses_the_next() -> None:
    assert depth_error(7, 8) is None
    assert depth_error(8, 8) == MaxAgentDepthExceeded(9, 8)


def test_an_agent_as_tool_answer_is_the_text_or_the_failure_the_model_reads() -> None:
    assert tool_answer("c1", "ops", ChildSucceeded("fine")) == ToolResult("c1", "fine")
    failure = tool_answer("c1", "ops", ChildFailed(OtherError("broke")))
    assert failure == ToolResult("c1", "agent ops failed: broke", is_error=True)
