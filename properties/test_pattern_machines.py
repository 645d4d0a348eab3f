"""Laws of the pattern machines (`helikon_fc.core.patterns`), on a pure simulated runtime
(`properties.pattern_drive`): one start and one terminal per run, termination, the seed's failure
rules (sequential and loop fail fast; parallel collects every branch, in any order of ending), and
totality (no input makes a machine raise; a runtime bug comes back as `InvalidTransition`)."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, strategies as st
from properties.dag_strategies import dags
from properties.pattern_drive import Trace, child_outcomes, drive, scripted

from helikon_fc.core import (
    InvalidTransition,
    MaxHandoffsExceeded,
    MaxIterationsExceeded,
    MessageOutput,
    OtherError,
    ParallelFailed,
    RunFailed,
    RunPaused,
)
from helikon_fc.core.patterns import (
    COMPLETED,
    Begin,
    ChildEnded,
    ChildFailed,
    ChildPaused,
    ChildSucceeded,
    Finish,
    GraphState,
    HandoffSeen,
    PatternInput,
    PatternState,
    RunChild,
    StopChildren,
    SwarmState,
    WriteState,
    advance,
    compact_json,
    graph,
    loop,
    parallel,
    sequential,
    swarm,
)
from helikon_fc.core.wavefront import Wavefront

keys = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=4).map(tuple)
unique_keys = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=5, unique=True).map(tuple)


def machines() -> st.SearchStrategy[PatternState]:
    """A sequential, loop or parallel machine before its run, with drawn children."""
    return st.one_of(
        st.builds(sequential, st.just("seq"), keys),
        st.builds(loop, st.just("loop"), keys, st.integers(1, 4)),
        st.builds(parallel, st.just("par"), st.one_of(unique_keys, keys)),
        st.builds(swarm, st.just("swarm"), st.sampled_from(["a", "b"]), st.none() | st.integers(0, 3)),
        dags(max_nodes=4).map(lambda dag: graph("graph", Wavefront.of(dag.nodes, dag.edges))),
    )


def run_bound(state: PatternState) -> int:
    """The most child runs the machine may ask for."""
    if isinstance(state, SwarmState):
        return 1
    if isinstance(state, GraphState):
        return len(state.wave.nodes)
    passes = getattr(state, "passes", None) or 1
    return passes * len(state.keys)


@given(state=machines(), data=st.data())
def test_one_start_one_terminal_and_every_child_answered(state: PatternState, data: st.DataObject) -> None:
    """A run finishes exactly once, in the last outcome, with `Finish` its last action; every child it started
    has ended by then; it starts no more children than its definition allows (termination)."""
    trace = drive(state, scripted(data), data)
    assert len(trace.finishes) == 1
    assert trace.outcomes[-1].actions[-1] == trace.finishes[0]
    assert len(trace.runs) == len(trace.ended) <= run_bound(state)
    assert sorted(r.index for r in trace.runs) == sorted(e.index for e in trace.ended)


@given(state=machines(), data=st.data())
def test_a_finished_machine_accepts_nothing(state: PatternState, data: st.DataObject) -> None:
    """After `Finish`, every input (a second `Begin` included) is a runtime bug: `InvalidTransition`, never a raise."""
    trace = drive(state, scripted(data), data)
    choices: list[PatternInput] = [Begin(), HandoffSeen(), ChildEnded(0, ChildSucceeded("x"))]
    after = data.draw(st.sampled_from(choices))
    outcome = advance(trace.outcomes[-1].state, after)
    assert outcome.actions == (
        Finish(RunFailed(InvalidTransition(type(state).__name__, type(after).__name__, "the run has finished"))),
    )


@given(state=machines(), data=st.data())
def test_the_state_written_is_each_successful_child_answer_under_its_key(
    state: PatternState, data: st.DataObject
) -> None:
    """`WriteState` comes once per successful child run of a keyed workflow, with its key and answer, in the order
    they ended (a swarm writes none)."""
    trace = drive(state, scripted(data), data)
    writes = [a for a in trace.actions if isinstance(a, WriteState)]
    keys_of = {r.index: r.key for r in trace.runs}
    expected = [
        WriteState(keys_of[e.index], e.outcome.text) for e in trace.ended if isinstance(e.outcome, ChildSucceeded)
    ]
    if isinstance(state, SwarmState):
        expected = []  # a swarm's members share the conversation, not keys
    assert writes == expected


def first_stop(trace: Trace, *, escalation: bool) -> int | None:
    """The position of the first child run that stops a fail-fast run (fails, pauses, or escalates)."""
    for position, end in enumerate(trace.ended):
        if not isinstance(end.outcome, ChildSucceeded) or (escalation and end.escalated):
            return position
    return None


@given(names=keys.filter(bool), data=st.data())
def test_sequential_runs_in_order_and_fails_fast(names: tuple[str, ...], data: st.DataObject) -> None:
    """Steps run one at a time in definition order; the first failure or pause ends the run with it (no step after
    it runs); with none, every step ran once and the run completes (an escalation means nothing to a sequence)."""
    trace = drive(sequential("seq", names), scripted(data), data)
    assert [r.index for r in trace.runs] == list(range(len(trace.runs)))
    assert [r.segment for r in trace.runs] == [f"{i}:{names[i]}" for i in range(len(trace.runs))]
    stop = first_stop(trace, escalation=False)
    terminal = trace.finishes[0].terminal
    if stop is None:
        assert len(trace.runs) == len(names)
        assert terminal == COMPLETED
    else:
        assert len(trace.runs) == stop + 1
        match trace.ended[stop].outcome:
            case ChildFailed(error=error):
                assert terminal == RunFailed(error)
            case ChildPaused(pending=pending):
                assert terminal == RunPaused(pending)


@given(names=keys.filter(bool), passes=st.integers(1, 4), data=st.data())
def test_a_loop_stops_at_the_first_escalation_failure_or_pause(
    names: tuple[str, ...], passes: int, data: st.DataObject
) -> None:
    """A loop repeats its steps in order; a successful step that escalated completes it at once, a failing or
    pausing step ends it with that; with none, every pass ran and it fails with `MaxIterationsExceeded`."""
    trace = drive(loop("loop", names, passes), scripted(data), data)
    width = len(names)
    assert [r.segment for r in trace.runs] == [
        f"{n // width}.{n % width}:{names[n % width]}" for n in range(len(trace.runs))
    ]
    stop = first_stop(trace, escalation=True)
    terminal = trace.finishes[0].terminal
    if stop is None:
        assert len(trace.runs) == passes * width
        assert terminal == RunFailed(MaxIterationsExceeded(passes))
        return
    assert len(trace.runs) == stop + 1
    match trace.ended[stop].outcome:
        case ChildSucceeded():
            assert terminal == COMPLETED
        case ChildFailed(error=error):
            assert terminal == RunFailed(error)
        case ChildPaused(pending=pending):
            assert terminal == RunPaused(pending)


@given(names=unique_keys.filter(bool), data=st.data())
def test_parallel_collects_every_branch_whatever_the_order_they_end_in(
    names: tuple[str, ...], data: st.DataObject
) -> None:
    """Every branch starts at `Begin` and runs to its end even when a sibling failed (collect-all); the end is the
    same whichever order the branches end in: the failures sorted by key, else every waiting call by key, else
    one merged message of every answer (sorted-key JSON) and success."""
    outcomes = {index: data.draw(st.sampled_from([0, 0, 1, 2]), label=f"kind {index}") for index in range(len(names))}

    def script(action: RunChild, before: int) -> tuple[ChildSucceeded | ChildFailed | ChildPaused, bool]:
        kind = outcomes[action.index]
        if kind == 1:
            return ChildFailed(OtherError(f"{action.key} broke")), False
        if kind == 2:
            return ChildPaused(()), False
        return ChildSucceeded(f"<{action.key}>"), False

    first = drive(parallel("par", names), script, data)
    second = drive(parallel("par", names), script, data)
    assert len(first.outcomes[0].actions) == len(names)  # all started at once
    assert len(first.ended) == len(names)
    assert first.finishes == second.finishes
    assert [o.events for o in first.outcomes][-1] == [o.events for o in second.outcomes][-1]
    failed = sorted(names[i] for i, kind in outcomes.items() if kind == 1)
    terminal = first.finishes[0].terminal
    if failed:
        assert isinstance(terminal, RunFailed) and isinstance(terminal.error, ParallelFailed)
        assert [f.key for f in terminal.error.failures] == failed
    elif 2 in outcomes.values():
        assert terminal == RunPaused(())
    else:
        assert terminal == COMPLETED
        said = first.outcomes[-1].events
        assert len(said) == 1 and isinstance(said[0], MessageOutput)
        assert said[0].item.text == compact_json({key: f"<{key}>" for key in names})
        assert said[0].item.agent == "par"


@given(names=keys, data=st.data())
def test_parallel_refuses_duplicate_keys_before_any_branch(names: tuple[str, ...], data: st.DataObject) -> None:
    """Two branches with one key (two writers of one state key) fail the run at `Begin`, starting nothing."""
    trace = drive(parallel("par", names), scripted(data), data)
    if len(set(names)) < len(names) or not names:
        assert trace.runs == ()
        terminal = trace.finishes[0].terminal
        assert isinstance(terminal, RunFailed) and isinstance(terminal.error, OtherError)


inputs = st.one_of(
    st.just(Begin()),
    st.just(HandoffSeen()),
    st.builds(ChildEnded, st.integers(-1, 5), st.builds(ChildSucceeded, st.text(max_size=2)), st.booleans()),
)


@given(state=machines(), sequence=st.lists(inputs, max_size=12))
def test_no_input_sequence_makes_a_machine_raise_or_change_a_value(
    state: PatternState, sequence: list[Begin | HandoffSeen | ChildEnded]
) -> None:
    """Totality and purity: any inputs, in any order, give outcomes (an unacceptable one `InvalidTransition`),
    the same outcome for the same arguments, and the states stay frozen values."""
    for input in sequence:
        before = attrs.evolve(state)
        outcome = advance(state, input)
        assert advance(state, input) == outcome
        assert state == before
        for action in outcome.actions:
            if isinstance(action, Finish) and isinstance(action.terminal, RunFailed):
                error = action.terminal.error
                assert not isinstance(error, InvalidTransition) or error.state == type(state).__name__
        state = outcome.state
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.name = "changed"  # type: ignore[misc]


@given(
    limit=st.none() | st.integers(0, 4),
    handoffs=st.integers(0, 7),
    outcome=child_outcomes(),
)
def test_a_swarm_fails_on_the_first_handoff_beyond_its_budget_and_otherwise_ends_as_its_member(
    limit: int | None, handoffs: int, outcome: tuple[ChildSucceeded | ChildFailed | ChildPaused, bool]
) -> None:
    """The swarm runs its entry member once; the handoffs it sees are counted, the first beyond the budget (never,
    without one) stops the member, once, and then the run fails with `MaxHandoffsExceeded(limit)` whatever the
    member ended with; otherwise the member's end is the swarm's (success, its failure, its pause)."""
    start = advance(swarm("s", "triage", limit), Begin())
    assert start.actions == (RunChild(0, "triage", "entry"),)
    state = start.state
    stops: list[int] = []
    for seen in range(1, handoffs + 1):
        step = advance(state, HandoffSeen())
        assert step.events == ()
        if step.actions:
            assert step.actions == (StopChildren(),)
            stops.append(seen)
        state = step.state
    end = advance(state, ChildEnded(0, outcome[0], outcome[1]))
    over = limit is not None and handoffs > limit
    assert stops == ([limit + 1] if over and limit is not None else [])
    if over:
        assert end.actions == (Finish(RunFailed(MaxHandoffsExceeded(limit or 0))),)
        return
    match outcome[0]:
        case ChildSucceeded():
            assert end.actions == (Finish(COMPLETED),)
        case ChildFailed(error=error):
            assert end.actions == (Finish(RunFailed(error)),)
        case ChildPaused(pending=pending):
            assert end.actions == (Finish(RunPaused(pending)),)
