"""Laws of the graph wavefront: the pure bookkeeping (`helikon_fc.core.wavefront`) and `GraphAgent`
running it under trio's `MockClock`.

These laws are the only tests of `core/wavefront.py` (there are no example-based ones in
``tests/core``): mutation testing (``nox -s mutants -- --module wavefront``) finds every mutant of the
module killed here.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import attrs
import trio
import trio.testing
from hypothesis import given, settings, strategies as st
from properties.dag_strategies import Dag, dags, failure_sets, latencies
from tests.agents.workflow_fakes import FakeAgent, Timeline, drain

from helikon_fc.agents.graph import GraphAgent
from helikon_fc.core import GraphFailed, MessageOutput, OtherError, RunCompleted, RunFailed
from helikon_fc.core.wavefront import Wavefront, find_cycle
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput


def expected_failed(dag: Dag, failing: frozenset[str]) -> frozenset[str]:
    """The failing nodes that actually run: those with no failing ancestor."""
    return frozenset(n for n in failing if not (dag.ancestors(n) & failing))


def expected_skipped(dag: Dag, failing: frozenset[str]) -> frozenset[str]:
    """The transitive descendants of the nodes that actually fail."""
    out: set[str] = set()
    for node in expected_failed(dag, failing):
        out |= dag.descendants(node)
    return frozenset(out)


@given(dag=dags())
def test_find_cycle_finds_none_in_a_dag(dag: Dag) -> None:
    """A graph whose edges only go forward in some order has no cycle."""
    assert find_cycle(dag.nodes, dag.edges) is None


@given(dag=dags(), data=st.data())
def test_a_back_edge_makes_a_cycle_that_find_cycle_names(dag: Dag, data: st.DataObject) -> None:
    """Adding an edge from a node back to one of its ancestors (or itself) makes a cycle, and the cycle
    returned is a closed walk along real edges."""
    node = data.draw(st.sampled_from(dag.nodes))
    back_to = data.draw(st.sampled_from(sorted(dag.ancestors(node) | {node})))
    edges = (*dag.edges, (node, back_to))
    cycle = find_cycle(dag.nodes, edges)
    assert cycle is not None
    assert cycle[0] == cycle[-1]
    assert all(pair in edges for pair in itertools.pairwise(cycle))


@given(dag=dags(), data=st.data())
def test_any_schedule_ends_with_skipped_exactly_the_descendants_of_failed(dag: Dag, data: st.DataObject) -> None:
    """Whatever order running nodes finish in: a node becomes ready exactly when its last predecessor completes,
    and at the end the failed set is the failing nodes with no failing ancestor, the skipped set is exactly their
    transitive descendants, and every other node is done."""
    failing = data.draw(failure_sets(dag))
    wave = Wavefront.of(dag.nodes, dag.edges)
    assert set(wave.ready) == {n for n in dag.nodes if not dag.predecessors(n)}
    for node in wave.ready_in_order():
        wave = wave.start(node)
    while not wave.finished:
        node = data.draw(st.sampled_from(sorted(wave.running)))
        assert set(dag.predecessors(node)) <= wave.done
        if node in failing:
            wave, skipped = wave.fail(node)
            assert set(skipped) <= dag.descendants(node)
        else:
            before = wave
            wave, ready = wave.complete(node)
            expect = {
                s
                for s in dag.descendants(node)
                if node in dag.predecessors(s) and set(dag.predecessors(s)) <= wave.done and s not in before.skipped
            }
            assert set(ready) == expect
            for successor in ready:
                wave = wave.start(successor)
    assert wave.failed == expected_failed(dag, failing)
    assert wave.skipped == expected_skipped(dag, failing)
    assert wave.done == frozenset(dag.nodes) - wave.failed - wave.skipped
    assert not (wave.failed & wave.skipped)


def contents(wave: Wavefront) -> tuple[object, ...]:
    """Every field of `wave`, its mappings copied out, so a later change to them shows up in a comparison."""
    return tuple(dict(value) if isinstance(value, Mapping) else value for value in attrs.astuple(wave, recurse=False))


@given(dag=dags())
def test_steps_never_change_the_value_they_are_called_on(dag: Dag) -> None:
    """`start`, `complete` and `fail` return new wavefronts; the one they were called on is unchanged."""
    wave = Wavefront.of(dag.nodes, dag.edges)
    first = wave.ready_in_order()[0]
    before = contents(wave)
    started = wave.start(first)
    started_before = contents(started)
    completed, _ = started.complete(first)
    failed, _ = started.fail(first)
    assert contents(wave) == before
    assert contents(started) == started_before
    assert first in started.running
    assert first in completed.done and first in failed.failed


def graph_of(dag: Dag, latency: dict[str, float], failing: frozenset[str], timeline: Timeline) -> GraphAgent[None]:
    builder = GraphAgent[None].builder().name("g")
    for node in dag.nodes:
        error = OtherError(f"{node} broke") if node in failing else None
        builder = builder.node(node, FakeAgent(node, latency=latency[node], error=error, timeline=timeline))
    for before, after in dag.edges:
        builder = builder.edge(before, after)
    return builder.build()


def run_graph(dag: Dag, latency: dict[str, float], failing: frozenset[str]) -> tuple[list[object], Timeline, float]:
    timeline = Timeline()
    graph = graph_of(dag, latency, failing, timeline)

    async def main() -> tuple[list[object], float]:
        events = await drain(graph.run(RunContext.ephemeral(None), AgentInput.from_user_text("go")))
        return list(events), trio.current_time()

    events, elapsed = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return events, timeline, elapsed


def critical_path(dag: Dag, latency: dict[str, float]) -> float:
    finish: dict[str, float] = {}
    for node in sorted(dag.nodes, key=lambda n: int(n[1:])):  # n<i> names follow topological order
        finish[node] = max((finish[p] for p in dag.predecessors(node)), default=0.0) + latency[node]
    return max(finish.values())


@settings(deadline=None)
@given(dag=dags(), data=st.data())
def test_every_node_starts_exactly_when_its_last_predecessor_completes(dag: Dag, data: st.DataObject) -> None:
    """Under MockClock, every node starts exactly when its last predecessor completed (never before any
    predecessor ends), so with no failures the makespan equals the critical path."""
    latency = data.draw(latencies(dag))
    events, timeline, elapsed = run_graph(dag, latency, frozenset())
    for node in dag.nodes:
        (start,) = timeline.starts[node]
        preds = dag.predecessors(node)
        assert start == max((timeline.ends[p][0] for p in preds), default=0.0)
        assert all(timeline.ends[p][0] <= start for p in preds)
    assert elapsed == critical_path(dag, latency)
    assert isinstance(events[-1], RunCompleted)


@settings(deadline=None)
@given(dag=dags(), data=st.data())
def test_the_skipped_set_is_exactly_the_descendants_of_the_failed(dag: Dag, data: st.DataObject) -> None:
    """Under MockClock with random failures, the aggregate failure names exactly the failed nodes, skips exactly
    their transitive descendants (which never start), and every independent node still runs."""
    latency = data.draw(latencies(dag))
    failing = data.draw(failure_sets(dag))
    events, timeline, _ = run_graph(dag, latency, failing)
    failed, skipped = expected_failed(dag, failing), expected_skipped(dag, failing)
    assert set(timeline.starts) == set(dag.nodes) - skipped
    last = events[-1]
    if not failed:
        assert isinstance(last, RunCompleted)
        return
    assert isinstance(last, RunFailed)
    assert isinstance(last.error, GraphFailed)
    assert [f.key for f in last.error.failed] == sorted(failed)
    assert last.error.skipped == tuple(sorted(skipped))


@settings(deadline=None)
@given(dag=dags(), data=st.data())
def test_the_final_output_does_not_depend_on_completion_order(dag: Dag, data: st.DataObject) -> None:
    """Two runs of one graph with different latencies (so nodes complete in different orders) end with the same
    final message, or the same aggregate error."""
    failing = data.draw(failure_sets(dag))
    one = run_graph(dag, data.draw(latencies(dag)), failing)[0]
    two = run_graph(dag, data.draw(latencies(dag)), failing)[0]
    assert one[-1] == two[-1]
    finals_one = [e for e in one if isinstance(e, MessageOutput) and e.item.agent == "g"]
    finals_two = [e for e in two if isinstance(e, MessageOutput) and e.item.agent == "g"]
    assert finals_one == finals_two
    assert len(finals_one) == (1 if isinstance(one[-1], RunCompleted) else 0)
