"""Examples of the pattern machines (`helikon_fc.core.patterns`): the exact actions of short runs, the
wording of their own failures, and the inputs they refuse (their laws are in
``properties/test_pattern_machines.py``)."""

from __future__ import annotations

from helikon_fc.core import (
    ApprovalRequested,
    AssistantMessage,
    BranchFailure,
    GraphFailed,
    InvalidTransition,
    MaxHandoffsExceeded,
    MaxIterationsExceeded,
    MessageOutput,
    OtherError,
    RunFailed,
    RunPaused,
    UserMessage,
)
from helikon_fc.core.patterns import (
    COMPLETED,
    Begin,
    ChildEnded,
    ChildFailed,
    ChildPaused,
    ChildSucceeded,
    FanOutState,
    Finish,
    HandoffSeen,
    PatternOutcome,
    PatternState,
    RunChild,
    StepsState,
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


def invalid(state: str, input: str, detail: str = "") -> Finish:
    return Finish(RunFailed(InvalidTransition(state, input, detail)))


def test_a_sequence_runs_its_steps_in_order_writing_each_answer() -> None:
    first = advance(sequential("s", ("a", "a")), Begin())
    assert first.actions == (RunChild(0, "a", "0:a"),)
    assert first.events == ()
    second = advance(first.state, ChildEnded(0, ChildSucceeded("one"), escalated=True))
    assert second.actions == (WriteState("a", "one"), RunChild(1, "a", "1:a"))
    last = advance(second.state, ChildEnded(1, ChildSucceeded("two")))
    assert last.actions == (WriteState("a", "two"), Finish(COMPLETED))
    assert last.state == StepsState("s", ("a", "a"), None, 2, running=False, finished=True)


def test_a_failed_step_ends_a_sequence_without_writing() -> None:
    first = advance(sequential("s", ("a", "b")), Begin())
    end = advance(first.state, ChildEnded(0, ChildFailed(OtherError("no"))))
    assert end.actions == (Finish(RunFailed(OtherError("no"))),)


def test_a_loop_names_each_run_by_pass_and_step_and_completes_on_an_escalation() -> None:
    outcome = advance(loop("l", ("a", "b"), 2), Begin())
    segments = [outcome.actions[-1]]
    for index in (0, 1, 0):
        outcome = advance(outcome.state, ChildEnded(index, ChildSucceeded(str(index))))
        segments.append(outcome.actions[-1])
    assert segments == [
        RunChild(0, "a", "0.0:a"),
        RunChild(1, "b", "0.1:b"),
        RunChild(0, "a", "1.0:a"),
        RunChild(1, "b", "1.1:b"),
    ]
    end = advance(outcome.state, ChildEnded(1, ChildSucceeded("x"), escalated=True))
    assert end.actions == (WriteState("b", "x"), Finish(COMPLETED))


def test_a_loop_without_an_escalation_runs_out_of_passes() -> None:
    outcome = advance(loop("l", ("a",), 2), Begin())
    outcome = advance(outcome.state, ChildEnded(0, ChildSucceeded("1")))
    end = advance(outcome.state, ChildEnded(0, ChildSucceeded("2")))
    assert end.actions == (WriteState("a", "2"), Finish(RunFailed(MaxIterationsExceeded(2))))


def test_empty_workflows_fail_at_the_start_saying_how_to_add_a_child() -> None:
    expected: dict[str, PatternState] = {
        "SequentialAgent 's' has no steps to run; add at least one with .then(agent) before running it": sequential(
            "s", ()
        ),
        "LoopAgent 'l' has no steps to run; add at least one with .then(agent) before running it": loop("l", (), 3),
        "ParallelAgent 'p' has no branches to run; add at least one with .add(agent) before running it": parallel(
            "p", ()
        ),
    }
    for message, state in expected.items():
        assert advance(state, Begin()).actions == (Finish(RunFailed(OtherError(message))),)


def test_parallel_names_its_duplicate_keys_sorted_once_each() -> None:
    outcome = advance(parallel("p", ("b", "a", "b", "a", "c")), Begin())
    assert outcome.actions == (Finish(RunFailed(OtherError("duplicate parallel branch key(s): a, b"))),)


def test_parallel_starts_every_branch_under_its_key_and_waits_for_all() -> None:
    outcome = advance(parallel("p", ("x", "y")), Begin())
    assert outcome.actions == (RunChild(0, "x", "x"), RunChild(1, "y", "y"))
    middle = advance(outcome.state, ChildEnded(1, ChildFailed(OtherError("bad"))))
    assert middle.actions == ()
    assert isinstance(middle.state, FanOutState) and not middle.state.finished


def test_inputs_out_of_turn_are_invalid_transitions() -> None:
    fresh = sequential("s", ("a", "b"))
    assert advance(fresh, ChildEnded(0, ChildSucceeded(""))).actions == (invalid("StepsState", "ChildEnded"),)
    started = advance(fresh, Begin()).state
    assert advance(started, Begin()).actions == (invalid("StepsState", "Begin"),)
    assert advance(started, ChildEnded(1, ChildSucceeded(""))).actions == (invalid("StepsState", "ChildEnded"),)
    assert advance(started, HandoffSeen()).actions == (invalid("StepsState", "HandoffSeen"),)
    fan = advance(parallel("p", ("x",)), Begin()).state
    assert advance(fan, ChildEnded(1, ChildSucceeded(""))).actions == (invalid("FanOutState", "ChildEnded"),)
    assert advance(fan, ChildEnded(-1, ChildSucceeded(""))).actions == (invalid("FanOutState", "ChildEnded"),)
    assert advance(parallel("p", ("x",)), ChildEnded(0, ChildSucceeded(""))).actions == (
        invalid("FanOutState", "ChildEnded"),
    )
    twice = advance(parallel("p", ("x", "y")), Begin()).state
    twice = advance(twice, ChildEnded(0, ChildSucceeded(""))).state
    assert advance(twice, ChildEnded(0, ChildSucceeded(""))).actions == (invalid("FanOutState", "ChildEnded"),)
    assert advance(twice, Begin()).actions == (invalid("FanOutState", "Begin"),)


def test_a_swarm_runs_its_entry_member_and_counts_handoffs_up_to_its_budget() -> None:
    start = advance(swarm("s", "triage", 1), Begin())
    assert start.actions == (RunChild(0, "triage", "entry"),)
    first = advance(start.state, HandoffSeen())
    assert first.actions == ()
    assert first.state == SwarmState("s", "triage", 1, handoffs=1, running=True)
    second = advance(first.state, HandoffSeen())
    assert second.actions == (StopChildren(),)
    assert advance(second.state, HandoffSeen()) == PatternOutcome(second.state)
    end = advance(second.state, ChildEnded(0, ChildSucceeded("late")))
    assert end.actions == (Finish(RunFailed(MaxHandoffsExceeded(1))),)


def test_a_swarm_without_a_budget_ends_as_its_member_and_refuses_inputs_out_of_turn() -> None:
    state = advance(swarm("s", "a", None), Begin()).state
    for _ in range(20):
        state = advance(state, HandoffSeen()).state
    assert advance(state, ChildEnded(0, ChildFailed(OtherError("x")))).actions == (Finish(RunFailed(OtherError("x"))),)
    assert advance(swarm("s", "a", 0), HandoffSeen()).actions == (invalid("SwarmState", "HandoffSeen"),)
    assert advance(state, Begin()).actions == (invalid("SwarmState", "Begin"),)
    assert advance(state, ChildEnded(1, ChildSucceeded(""))).actions == (invalid("SwarmState", "ChildEnded"),)
    assert advance(swarm("s", "a", 0), ChildEnded(0, ChildSucceeded(""))).actions == (
        invalid("SwarmState", "ChildEnded"),
    )


def test_a_graph_runs_its_sources_then_each_node_with_its_predecessors_answers() -> None:
    wave = Wavefront.of(("a", "b", "c"), (("a", "c"), ("b", "c")))
    start = advance(graph("g", wave), Begin())
    assert start.actions == (RunChild(0, "a", "a"), RunChild(1, "b", "b"))
    after_b = advance(start.state, ChildEnded(1, ChildSucceeded("B")))
    assert after_b.actions == (WriteState("b", "B"),)
    after_a = advance(after_b.state, ChildEnded(0, ChildSucceeded("A")))
    context = (UserMessage("[a]\nA"), UserMessage("[b]\nB"))
    assert after_a.actions == (WriteState("a", "A"), RunChild(2, "c", "c", context))
    end = advance(after_a.state, ChildEnded(2, ChildSucceeded("C")))
    assert end.actions == (WriteState("c", "C"), Finish(COMPLETED))
    assert end.events == (MessageOutput(AssistantMessage("C", agent="g")),)


def test_a_graph_with_several_sinks_merges_them_and_a_paused_node_pauses_it() -> None:
    wave = Wavefront.of(("x", "y", "z"), (("x", "z"),))
    state = advance(graph("g", wave), Begin()).state
    state = advance(state, ChildEnded(0, ChildSucceeded("1"))).state
    state = advance(state, ChildEnded(2, ChildSucceeded("3"))).state
    end = advance(state, ChildEnded(1, ChildSucceeded("2")))
    assert end.events == (MessageOutput(AssistantMessage('{"y":"2","z":"3"}', agent="g")),)
    request = ApprovalRequested("c1", "tool", "{}")
    paused = advance(graph("g", wave), Begin()).state
    paused = advance(paused, ChildEnded(0, ChildPaused((request,)))).state
    end = advance(paused, ChildEnded(1, ChildSucceeded("2")))
    assert end.actions == (WriteState("y", "2"), Finish(RunPaused((request,))))


def test_a_failed_graph_node_skips_its_descendants_and_names_them() -> None:
    wave = Wavefront.of(("a", "b", "c", "d"), (("a", "b"), ("b", "c")))
    state = advance(graph("g", wave), Begin()).state
    state = advance(state, ChildEnded(3, ChildFailed(OtherError("d broke")))).state
    end = advance(state, ChildEnded(0, ChildFailed(OtherError("a broke"))))
    failed = (BranchFailure("a", OtherError("a broke")), BranchFailure("d", OtherError("d broke")))
    assert end.actions == (Finish(RunFailed(GraphFailed(failed, ("b", "c")))),)


def test_a_graph_refuses_nodes_that_are_not_running_and_an_empty_graph() -> None:
    wave = Wavefront.of(("a", "b"), (("a", "b"),))
    state = advance(graph("g", wave), Begin()).state
    assert advance(state, ChildEnded(1, ChildSucceeded(""))).actions == (invalid("GraphState", "ChildEnded"),)
    assert advance(state, ChildEnded(2, ChildSucceeded(""))).actions == (invalid("GraphState", "ChildEnded"),)
    assert advance(state, ChildEnded(-1, ChildSucceeded(""))).actions == (invalid("GraphState", "ChildEnded"),)
    assert advance(state, Begin()).actions == (invalid("GraphState", "Begin"),)
    message = "GraphAgent 'g' has no nodes to run; add at least one with .node(key, agent) before running it"
    assert advance(graph("g", Wavefront.of((), ())), Begin()).actions == (Finish(RunFailed(OtherError(message))),)


def test_the_vocabulary_defaults_are_no_escalation_no_context_and_nothing_to_do() -> None:
    """(It also runs `invalid`, so the mutation tool counts it among the tests of the vocabulary's class bodies.)"""
    assert ChildEnded(0, ChildSucceeded("")).escalated is False
    started = advance(loop("l", ("a",), 2), Begin()).state
    going_on = advance(started, ChildEnded(0, ChildSucceeded("")))
    assert going_on.actions[-1] == RunChild(0, "a", "1.0:a")
    assert advance(going_on.state, Begin()).actions == (invalid("StepsState", "Begin"),)
    assert RunChild(0, "k", "k").context == ()
    assert PatternOutcome(None).events == ()
    assert PatternOutcome(None).actions == ()


def test_merged_answers_keep_their_characters_unescaped() -> None:
    assert compact_json({"b": "é", "a": "日本"}) == '{"a":"日本","b":"é"}'


def test_every_waiting_call_of_every_paused_branch_pauses_the_parallel_run_by_key() -> None:
    first, second, third = (ApprovalRequested(f"c{i}", "tool", "{}") for i in range(3))
    state = advance(parallel("p", ("y", "x")), Begin()).state
    state = advance(state, ChildEnded(0, ChildPaused((first,)))).state
    end = advance(state, ChildEnded(1, ChildPaused((second, third))))
    assert end.actions == (Finish(RunPaused((second, third, first))),)


def test_an_invalid_input_finishes_the_run_so_nothing_more_is_accepted() -> None:
    wave = Wavefront.of(("a",), ())
    machines: list[PatternState] = [
        sequential("s", ("a", "b")),
        loop("l", ("a",), 2),
        parallel("p", ("a",)),
        swarm("w", "a", 1),
        graph("g", wave),
    ]
    for state in machines:
        broken = advance(state, ChildEnded(7, ChildSucceeded("")))
        assert broken.state.finished
        after = advance(broken.state, Begin())
        assert after.actions == (invalid(type(state).__name__, "Begin", "the run has finished"),)
    fresh = sequential("s", ("a", "b"))
    assert advance(fresh, ChildEnded(1, ChildSucceeded(""))).actions == (invalid("StepsState", "ChildEnded"),)
