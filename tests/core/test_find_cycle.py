"""`find_cycle`: the pure check a graph builder uses; edges naming unknown nodes are ignored."""

from __future__ import annotations

from helikon_fc.core import find_cycle


def test_edges_naming_unknown_nodes_are_ignored() -> None:
    """An edge from or to a node outside `nodes` neither raises nor makes a cycle."""
    assert find_cycle(("a", "b"), [("a", "x"), ("x", "a"), ("y", "b"), ("a", "b")]) is None
    assert find_cycle(("a", "b"), [("a", "b"), ("b", "a"), ("b", "z")]) == ("a", "b", "a")
