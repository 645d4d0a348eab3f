"""The pure graph wavefront (`helikon_fc.core.Wavefront`): examples of each step and of misuse."""

from __future__ import annotations

import pytest

from helikon_fc.core import Wavefront, find_cycle


def diamond() -> Wavefront:
    return Wavefront.of(["spending", "income", "summary"], [("spending", "summary"), ("income", "summary")])


def test_sources_are_ready_and_the_rest_wait_for_their_predecessors() -> None:
    """Before anything runs, the nodes without predecessors are ready; each other node waits for all of its own."""
    wave = diamond()
    assert wave.ready_in_order() == ("spending", "income")
    assert dict(wave.pending) == {"summary": 2}
    assert wave.sinks == ("summary",)
    assert not wave.finished


def test_a_node_becomes_ready_when_its_last_predecessor_completes() -> None:
    """`complete` returns exactly the successors whose last outstanding predecessor it was."""
    wave = diamond().start("spending").start("income")
    wave, ready = wave.complete("income")
    assert ready == ()
    wave, ready = wave.complete("spending")
    assert ready == ("summary",)
    wave, ready = wave.start("summary").complete("summary")
    assert ready == () and wave.finished
    assert wave.done == {"spending", "income", "summary"}


def test_a_failure_skips_every_transitive_descendant() -> None:
    """`fail` skips the failed node's descendants at any depth, and nothing else."""
    wave = Wavefront.of("abcde", [("a", "b"), ("b", "c"), ("d", "c"), ("d", "e")])
    wave = wave.start("a").start("d")
    wave, skipped = wave.fail("a")
    assert skipped == ("b", "c")
    assert wave.skipped == {"b", "c"}
    wave, ready = wave.complete("d")
    assert ready == ("e",)  # c is skipped, so it never becomes ready
    wave = wave.start("e")
    wave, _ = wave.complete("e")
    assert wave.finished and wave.failed == {"a"} and wave.done == {"d", "e"}


def test_misuse_is_a_value_error() -> None:
    """Starting a node that is not ready, or completing or failing one that is not running, raises ValueError."""
    wave = diamond()
    with pytest.raises(ValueError, match="not ready"):
        wave.start("summary")
    with pytest.raises(ValueError, match="not running"):
        wave.complete("spending")
    with pytest.raises(ValueError, match="not running"):
        wave.fail("spending")


def test_of_rejects_invalid_graphs() -> None:
    """`Wavefront.of` refuses duplicate nodes, unknown nodes in edges and cycles; repeated edges count once."""
    with pytest.raises(ValueError, match="duplicate"):
        Wavefront.of(["a", "a"], [])
    with pytest.raises(ValueError, match="not in the graph"):
        Wavefront.of(["a"], [("a", "b")])
    with pytest.raises(ValueError, match="cycle: a -> b -> a"):
        Wavefront.of(["a", "b"], [("a", "b"), ("b", "a")])
    assert dict(Wavefront.of(["a", "b"], [("a", "b"), ("a", "b")]).pending) == {"b": 1}


def test_find_cycle_names_the_nodes_along_it() -> None:
    """`find_cycle` returns the closed walk of the first cycle it meets, or None."""
    assert find_cycle("abcd", [("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")]) == ("b", "c", "d", "b")
    assert find_cycle("abc", [("a", "b"), ("b", "c")]) is None
    assert find_cycle("a", [("a", "a")]) == ("a", "a")
