"""Laws of the durable record format: a run's log folds back into exactly what was written."""

from __future__ import annotations

from hypothesis import given, strategies as st
from properties.strategies import agent_events, boundaries, items, model_responses, tool_results

from helikon_fc.core import AgentEvent, Item, ModelResponse, ToolResult
from helikon_fc.core.records import Boundary, ModelAnswered, RunOpened, RunRecordBody, ToolFinished, restore


@given(
    input=st.lists(items(), max_size=3),
    steps=st.lists(
        st.tuples(boundaries(), st.none() | st.tuples(model_responses(), st.lists(agent_events(), max_size=2))),
        min_size=1,
        max_size=5,
    ),
    results=st.lists(tool_results(), max_size=3),
)
def test_restore_gives_back_what_the_log_holds(
    input: list[Item],
    steps: list[tuple[Boundary, tuple[ModelResponse, list[AgentEvent]] | None]],
    results: list[ToolResult],
) -> None:
    """The restored state is the last boundary's, the conversation the input plus every append in order,
    every recorded event comes back once and in order (replayed, then redelivered), and the tool results
    recorded after the last boundary are pending."""
    log: list[RunRecordBody] = [RunOpened(agent="a", pattern="llm", fingerprint="f", input=tuple(input))]
    events: list[AgentEvent] = []
    appends: list[Item] = []
    for boundary, answer in steps:
        if answer is not None:
            log.append(ModelAnswered(response=answer[0], deltas=tuple(answer[1])))
            events.extend(answer[1])
        log.append(boundary)
        events.extend(boundary.events)
        appends.extend(boundary.appends)
    log.extend(ToolFinished(result=result) for result in results)
    point = restore(log)
    assert point.state == steps[-1][0].state
    assert point.conversation == (*input, *appends)
    assert point.replayed + point.redeliver == tuple(events)
    assert point.redeliver == (() if results else steps[-1][0].events)
    assert point.tool_results == tuple(results)
    assert point.next_seq == len(log)
    assert point.finished is None
