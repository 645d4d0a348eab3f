"""S7's reference schedules: the critical path and the level-by-level (superstep) makespan."""

from __future__ import annotations

import random

from bench.graphs import Graph, critical_path, levels, random_graph, random_graphs, superstep


def diamond() -> Graph:
    """0 -> {1, 2} -> 3, plus a slow node 4 hanging off 0 on level 1 and feeding 3."""
    return Graph(5, [(0, 1), (0, 2), (1, 3), (2, 3)], [1, 5, 2, 1, 9])


def test_critical_path_is_the_longest_weighted_path() -> None:
    """0(1) -> 1(5) -> 3(1) is the longest chain; the isolated node 4 (9) is longer still."""
    assert critical_path(Graph(4, [(0, 1), (0, 2), (1, 3), (2, 3)], [1, 5, 2, 1])) == 7
    assert critical_path(diamond()) == 9


def test_levels_are_one_more_than_the_deepest_predecessor() -> None:
    """Sources are level 0; every other node sits one level below its deepest predecessor."""
    assert levels(Graph(4, [(0, 1), (1, 2), (0, 2), (0, 3)], [1, 1, 1, 1])) == [0, 1, 2, 1]


def test_superstep_waits_for_the_slowest_node_of_each_level() -> None:
    """Level 0 holds nodes 0 and 4 (max 9), level 1 nodes 1 and 2 (max 5), level 2 node 3 (1): 15."""
    assert superstep(diamond()) == 15


def test_superstep_is_never_shorter_than_the_critical_path() -> None:
    """No schedule beats the critical path; the level-by-level one often loses to it."""
    graphs = random_graphs(30, seed=3)
    assert all(superstep(g) >= critical_path(g) for g in graphs)
    assert any(superstep(g) > critical_path(g) for g in graphs)


def test_random_graphs_are_dags_of_the_promised_size_and_repeat_per_seed() -> None:
    """20-200 nodes, edges from lower to higher index, latencies 1-10 s; one seed, one set of graphs."""
    for graph in random_graphs(20):
        assert 20 <= graph.nodes <= 200
        assert all(0 <= a < b < graph.nodes for a, b in graph.edges)
        assert all(1 <= lat <= 10 for lat in graph.latency)
    assert random_graphs(5) == random_graphs(5)
    assert random_graph(random.Random(1)) != random_graph(random.Random(2))
