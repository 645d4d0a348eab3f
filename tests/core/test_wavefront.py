"""`Wavefront.of`'s refusals and `sinks`, by example (the laws of a run's steps are
`properties/test_wavefront_laws.py`).

Rules (seed-multi-agent-patterns, GraphAgent): "GraphBuildError on cycle/unknown/duplicate/empty", so the core's
`Wavefront.of` refuses such a graph before anything runs; the result comes "from the sink nodes (nodes with no
outgoing edges)"; a node starts once ready and completes or fails only while running (a driver bug otherwise).
"""

from __future__ import annotations

import pytest

from helikon_fc.core.wavefront import Wavefront


@pytest.mark.parametrize(
    ("nodes", "edges", "message"),
    [
        (["a", "b", "a"], [], "duplicate nodes in ('a', 'b', 'a')"),
        (["a", "b"], [("a", "z")], "edge 'a' -> 'z' names a node that is not in the graph"),
        (["a", "b"], [("z", "a")], "edge 'z' -> 'a' names a node that is not in the graph"),
        (["a", "b", "c"], [("a", "b"), ("b", "c"), ("c", "b")], "the graph has a cycle: b -> c -> b"),
    ],
)
def test_a_malformed_graph_is_refused(nodes: list[str], edges: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        Wavefront.of(nodes, edges)
    assert str(raised.value) == message


def test_the_sinks_are_the_nodes_without_successors_in_declaration_order() -> None:
    front = Wavefront.of(["c", "a", "b", "d"], [("a", "b"), ("c", "b")])
    assert front.sinks == ("b", "d")
    assert front.ready_in_order() == ("c", "a", "d")


def test_a_step_out_of_order_is_refused() -> None:
    front = Wavefront.of(["a", "b"], [("a", "b")])
    with pytest.raises(ValueError, match="node 'b' is not ready to start"):
        front.start("b")
    with pytest.raises(ValueError, match="node 'a' is not running, so it cannot complete"):
        front.complete("a")
    with pytest.raises(ValueError, match="node 'a' is not running, so it cannot fail"):
        front.fail("a")
