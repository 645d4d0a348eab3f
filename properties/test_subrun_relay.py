"""Laws of sub-runs (`helikon_fc.core.patterns.subrun`), the relay both runtimes read a child's stream through:
the parent's stream gets no second start and no terminal of the child's, the child ends once (with its
first terminal, or a failure naming it), nothing after that terminal passes, an agent-as-tool passes its
questions and nothing else, every question passed on is decidable under the child's segment, the depth
limit holds, and an agent-as-tool's failure is an error result its caller's model reads."""

from __future__ import annotations

import attrs
from hypothesis import given, strategies as st
from properties.strategies import agent_errors, agent_events, names, texts

from helikon_fc.core import events as ev
from helikon_fc.core.errors import MaxAgentDepthExceeded, OtherError
from helikon_fc.core.patterns import ChildFailed, ChildPaused, ChildSucceeded, subrun

TERMINALS = (ev.RunCompleted, ev.RunFailed, ev.RunPaused)
kinds = st.sampled_from(list(subrun.SubRun))
segments = st.one_of(st.just(""), names().map(subrun.handoff_segment), names().map(subrun.tool_segment))
questions = st.builds(ev.ApprovalRequested, names(), names(), texts())
streams = st.lists(
    st.one_of(agent_events(), questions, st.builds(ev.RunPaused, st.lists(questions, max_size=2).map(tuple))),
    max_size=12,
)


def _read(state: subrun.Relay, events: list[ev.AgentEvent]) -> tuple[subrun.Relay, list[ev.AgentEvent]]:
    passed: list[ev.AgentEvent] = []
    for event in events:
        state, out = subrun.relay(state, event)
        passed.extend(out)
    return state, passed


def _first_terminal(events: list[ev.AgentEvent]) -> ev.TerminalEvent | None:
    return next((e for e in events if isinstance(e, TERMINALS)), None)


@given(kinds, names(), segments, streams)
def test_the_parent_sees_no_start_and_no_terminal_of_the_child(
    kind: subrun.SubRun, who: str, segment: str, events: list[ev.AgentEvent]
) -> None:
    """One start and one terminal: the parent's own. A workflow child's start is an announcement instead."""
    _, passed = _read(subrun.relay_of(kind, who, segment), events)
    assert not any(isinstance(e, ev.RunStarted | ev.RunCompleted | ev.RunFailed | ev.RunPaused) for e in passed)


def _before_terminal(events: list[ev.AgentEvent]) -> list[ev.AgentEvent]:
    for index, event in enumerate(events):
        if isinstance(event, TERMINALS):
            return events[:index]
    return events


@given(kinds, names(), segments, streams)
def test_what_passes_is_the_childs_events_before_its_terminal_in_order(
    kind: subrun.SubRun, who: str, segment: str, events: list[ev.AgentEvent]
) -> None:
    """Nothing after the child's first terminal; a tool's sub-run passes its questions only; a question is
    qualified."""
    prefix = f"{segment}/" if segment else ""
    _, passed = _read(subrun.relay_of(kind, who, segment), events)
    expected: list[ev.AgentEvent] = []
    for event in _before_terminal(events):
        if kind is subrun.SubRun.TOOL and not isinstance(event, ev.ApprovalRequested):
            continue
        if isinstance(event, ev.RunStarted):
            expected.extend([ev.AgentUpdated(event.agent)] if kind is subrun.SubRun.CHILD else [])
        elif isinstance(event, ev.ApprovalRequested):
            expected.append(attrs.evolve(event, call_id=prefix + event.call_id))
        else:
            expected.append(event)
    assert passed == expected
    asked = [e for e in passed if isinstance(e, ev.ApprovalRequested)]
    assert all(e.call_id.startswith(prefix) for e in asked)


@given(names(), segments, streams)
def test_a_handoff_ends_once_with_its_targets_first_terminal_or_a_failure_naming_it(
    who: str, segment: str, events: list[ev.AgentEvent]
) -> None:
    state, _ = _read(subrun.relay_of(subrun.SubRun.HANDOFF, who, segment), events)
    first = _first_terminal(events)
    end = subrun.handoff_end(state)
    if first is not None:
        assert end == first
    else:
        assert end == ev.RunFailed(OtherError(f"handoff target {who!r} ended its stream without a terminal event"))


@given(st.sampled_from([subrun.SubRun.CHILD, subrun.SubRun.TOOL]), names(), streams)
def test_a_child_ends_as_its_first_terminal_says_with_its_last_answer(
    kind: subrun.SubRun, who: str, events: list[ev.AgentEvent]
) -> None:
    state, _ = _read(subrun.relay_of(kind, who), events)
    first = _first_terminal(events)
    outcome = subrun.child_end(state)
    answers = [e.item.text for e in _before_terminal(events) if isinstance(e, ev.MessageOutput)]
    match first:
        case ev.RunCompleted():
            assert outcome == ChildSucceeded(answers[-1] if answers else "")
        case ev.RunFailed(error=error):
            assert outcome == ChildFailed(error)
        case ev.RunPaused(pending=pending):
            assert outcome == ChildPaused(pending)
        case None:
            assert outcome == ChildFailed(OtherError(f"agent {who!r} ended its stream without a terminal event"))


@given(st.integers(0, 20), st.integers(0, 20))
def test_a_sub_run_starts_no_deeper_than_the_limit(depth: int, limit: int) -> None:
    error = subrun.depth_error(depth, limit)
    assert (error is None) == (depth + 1 <= limit)
    if error is not None:
        assert error == MaxAgentDepthExceeded(depth + 1, limit)


@given(names(), names(), agent_errors(), texts())
def test_an_agent_as_tool_failure_is_an_error_result_the_caller_reads(
    call_id: str, agent: str, error: object, text: str
) -> None:
    failed = subrun.tool_answer(call_id, agent, ChildFailed(error))  # type: ignore[arg-type]
    assert failed.is_error and failed.call_id == call_id
    assert failed.output == f"agent {agent} failed: {error}"
    answered = subrun.tool_answer(call_id, agent, ChildSucceeded(text))
    assert not answered.is_error and answered.output == text and answered.call_id == call_id
