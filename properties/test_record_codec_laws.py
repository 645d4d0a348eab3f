"""Laws of the stored record form (record format 2): a log written with references reads back unchanged."""

from __future__ import annotations

from hypothesis import given, strategies as st
from properties.strategies import (
    agent_events,
    items,
    model_responses,
    run_records,
    tool_calls,
    tool_results,
    usages,
)

from helikon_fc.core import (
    AgentEvent,
    AssistantMessage,
    ExecutingTools,
    Item,
    MessageOutput,
    TokenDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    to_json,
)
from helikon_fc.core.record_codec import decode_log, encode_log
from helikon_fc.core.records import ActionKind, Boundary, ModelAnswered, RunOpened, RunRecordBody, ToolFinished


def _carrier(item: Item) -> AgentEvent | None:
    if isinstance(item, ToolCall):
        return ToolCallItem(item)
    if isinstance(item, ToolResult):
        return ToolOutputItem(item)
    if isinstance(item, AssistantMessage):
        return MessageOutput(item)
    return None


@st.composite
def steps(draw: st.DrawFn) -> list[RunRecordBody]:
    """One step as a run records it: a model answer, then a boundary that repeats its calls (in its state,
    appends and events, mixed with other values), the round's results, and a boundary that repeats those."""
    response = draw(model_responses())
    deltas = draw(
        st.lists(
            st.one_of(
                st.builds(TokenDelta, st.text(max_size=5)),
                st.builds(ToolCallDelta, st.text(max_size=3), st.none() | st.text(max_size=3), st.text(max_size=5)),
                agent_events(),
            ),
            max_size=4,
        )
    )
    appends: list[Item] = [*response.tool_calls, *draw(st.lists(items(), max_size=2))]
    appends = draw(st.permutations(appends))
    events = [event for event in map(_carrier, appends) if event is not None]
    events = [*events, *draw(st.lists(agent_events(), max_size=2))]
    calls = tuple(item for item in appends if isinstance(item, ToolCall)) + tuple(
        draw(st.lists(tool_calls(), max_size=1))
    )
    executing = ExecutingTools(
        calls=calls, rejected=tuple(draw(st.lists(tool_results(), max_size=2))), turn=0, usage=draw(usages())
    )
    results = draw(st.lists(tool_results(), max_size=3))
    after: list[Item] = [*draw(st.permutations(results)), *draw(st.lists(items(), max_size=1))]
    return [
        ModelAnswered(response=response, deltas=tuple(deltas)),
        Boundary(state=executing, appends=tuple(appends), events=tuple(events), action=ActionKind.EXECUTE_TOOLS),
        *(ToolFinished(result=result) for result in results),
        Boundary(
            state=executing,
            appends=tuple(after),
            events=tuple(ToolOutputItem(item) for item in after if isinstance(item, ToolResult)),
            action=ActionKind.CALL_MODEL,
        ),
    ]


@st.composite
def logs(draw: st.DrawFn) -> list[RunRecordBody]:
    """A run's log: opened, then steps that refer back and arbitrary records between them."""
    log: list[RunRecordBody] = [RunOpened(agent="a", pattern="llm", fingerprint="f")]
    for _ in range(draw(st.integers(0, 3))):
        log.extend(draw(steps()))
        log.extend(draw(st.lists(run_records(), max_size=2)))
    return log


@given(logs())
def test_a_log_reads_back_as_written(log: list[RunRecordBody]) -> None:
    """decode_log(encode_log(log)) == log, whatever the log refers back to."""
    texts, _ = encode_log(log)
    assert decode_log(texts) == log


@given(logs(), st.data())
def test_writing_in_batches_writes_the_same(log: list[RunRecordBody], data: st.DataObject) -> None:
    """A log written batch by batch (carrying what is seen) is stored exactly as written in one go."""
    cut = data.draw(st.integers(0, len(log)))
    first, seen = encode_log(log[:cut])
    rest, _ = encode_log(log[cut:], seen)
    assert first + rest == encode_log(log)[0]


@given(logs(), st.data())
def test_a_writer_that_picks_up_a_log_writes_what_reads_back(log: list[RunRecordBody], data: st.DataObject) -> None:
    """A resumed writer knows nothing of the records before it: what it writes still reads back with them."""
    cut = data.draw(st.integers(0, len(log)))
    before, _ = encode_log(log[:cut])
    after, _ = encode_log(log[cut:])
    assert decode_log(before + after) == log


@given(run_records())
def test_a_record_not_referring_back_is_stored_as_its_wire_form(record: RunRecordBody) -> None:
    """Every record reads the same as its wire JSON once its references and compact parts are expanded;
    a record other than a model answer or boundary is stored exactly as `to_json` writes it."""
    (text,), _ = encode_log([record])
    if not isinstance(record, ModelAnswered | Boundary):
        assert text == to_json(record)
    assert decode_log([text]) == [record]
