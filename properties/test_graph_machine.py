"""Laws of the graph's pattern machine (`helikon_fc.core.patterns.graph`) on the pure simulated runtime: a node
runs only once every predecessor completed, with their answers as context; failure is collect-all, skipping
exactly the failed nodes' descendants; the end does not depend on the order nodes end in. (The makespan law,
on trio's clock, is in ``properties/test_wavefront_laws.py``: it runs the same machine.)"""

from __future__ import annotations

from hypothesis import given, strategies as st
from properties.dag_strategies import Dag, dags
from properties.pattern_drive import Script, Trace, drive

from helikon_fc.core import AssistantMessage, GraphFailed, MessageOutput, OtherError, RunFailed
from helikon_fc.core.patterns import (
    COMPLETED,
    ChildFailed,
    ChildOutcome,
    ChildSucceeded,
    RunChild,
    WriteState,
    context_message,
    graph,
    sinks_text,
)
from helikon_fc.core.wavefront import Wavefront


def answer(key: str) -> str:
    return f"<{key}>"


def failing_on(failing: frozenset[str]) -> Script:
    """Nodes in `failing` fail; every other node answers `answer(key)`."""

    def script(action: RunChild, before: int) -> tuple[ChildOutcome, bool]:
        if action.key in failing:
            return ChildFailed(OtherError(f"{action.key} broke")), False
        return ChildSucceeded(answer(action.key)), False

    return script


def ended_before_each_run(trace: Trace) -> dict[str, set[str]]:
    """For each node that ran, the nodes that had ended when it started (outcome i follows the i-th end)."""
    before: dict[str, set[int]] = {}
    for position, outcome in enumerate(trace.outcomes):
        done = {end.index for end in trace.ended[:position]}
        for action in outcome.actions:
            if isinstance(action, RunChild):
                before[action.key] = done
    return {key: _keys(trace, indexes) for key, indexes in before.items()}


def _keys(trace: Trace, indexes: set[int]) -> set[str]:
    by_index = {run.index: run.key for run in trace.runs}
    return {by_index[index] for index in indexes}


@given(dag=dags(), data=st.data())
def test_each_node_runs_after_its_predecessors_with_their_answers(dag: Dag, data: st.DataObject) -> None:
    """With no failure every node runs once, after all its predecessors ended, its context their answers in
    declaration order; each answer is written under its key; the graph says its sinks' answer and completes."""
    trace = drive(graph("g", Wavefront.of(dag.nodes, dag.edges)), failing_on(frozenset()), data)
    assert sorted(run.key for run in trace.runs) == sorted(dag.nodes)
    before = ended_before_each_run(trace)
    for run in trace.runs:
        assert set(dag.predecessors(run.key)) <= before[run.key]
        predecessors = [p for p in dag.nodes if p in dag.predecessors(run.key)]
        assert run.context == tuple(context_message(p, answer(p)) for p in predecessors)
        assert run.segment == run.key == dag.nodes[run.index]
    writes = [a for a in trace.actions if isinstance(a, WriteState)]
    assert writes == [WriteState(dag.nodes[e.index], answer(dag.nodes[e.index])) for e in trace.ended]
    assert trace.finishes[0].terminal == COMPLETED
    sinks = tuple(n for n in dag.nodes if not dag.descendants(n))
    text = sinks_text(sinks, {n: answer(n) for n in dag.nodes})
    assert trace.outcomes[-1].events == (MessageOutput(AssistantMessage(text, agent="g")),)


@given(dag=dags(), data=st.data())
def test_failure_is_collect_all_with_the_failed_nodes_descendants_skipped(dag: Dag, data: st.DataObject) -> None:
    """The nodes that fail are those drawn with no failing ancestor; exactly their descendants never run and are
    named skipped; every other node runs; the failure is the same whichever order the nodes end in."""
    failing = data.draw(st.frozensets(st.sampled_from(dag.nodes), min_size=1), label="failing")
    first = drive(graph("g", Wavefront.of(dag.nodes, dag.edges)), failing_on(failing), data)
    second = drive(graph("g", Wavefront.of(dag.nodes, dag.edges)), failing_on(failing), data)
    failed = sorted(n for n in failing if not (dag.ancestors(n) & failing))
    skipped: set[str] = set()
    for node in failed:
        skipped |= dag.descendants(node)
    assert {run.key for run in first.runs} == set(dag.nodes) - skipped
    terminal = first.finishes[0].terminal
    assert isinstance(terminal, RunFailed) and isinstance(terminal.error, GraphFailed)
    assert [f.key for f in terminal.error.failed] == failed
    assert terminal.error.skipped == tuple(sorted(skipped))
    assert first.finishes == second.finishes
    assert first.outcomes[-1].events == ()
