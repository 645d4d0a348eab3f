"""S7: random DAGs and the two reference schedules a graph runner is compared with (standard library only).

- The *critical path* is the longest latency-weighted path: no schedule of the graph can finish sooner.
- The *superstep* schedule runs the graph level by level (a node's level is one more than its deepest
  predecessor's) and waits for the slowest node of a level before starting the next, as a
  bulk-synchronous (Pregel-style) runner does. It is never shorter than the critical path.

A wavefront runner, which starts each node the moment its last predecessor finishes, achieves the
critical path exactly when scheduling costs no time (as under trio's ``MockClock``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Graph:
    """A DAG on nodes ``0..nodes-1`` whose edges go from lower to higher index; `latency[i]` in seconds."""

    nodes: int
    edges: list[tuple[int, int]]
    latency: list[int]

    def predecessors(self) -> list[list[int]]:
        """For each node, the nodes it depends on."""
        preds: list[list[int]] = [[] for _ in range(self.nodes)]
        for a, b in self.edges:
            preds[b].append(a)
        return preds

    def summary(self) -> dict[str, object]:
        """Size and both reference schedules, for the results file."""
        return {
            "nodes": self.nodes,
            "edges": len(self.edges),
            "critical_path": critical_path(self),
            "superstep": superstep(self),
        }


def random_graph(rng: random.Random) -> Graph:
    """A random DAG of 20-200 nodes with about three predecessors per node (fewer near the start)
    and integer latencies of 1-10 s (integers keep virtual-time sums exact)."""
    nodes = rng.randint(20, 200)
    edges: set[tuple[int, int]] = set()
    for b in range(1, nodes):
        for _ in range(rng.randint(0, 3)):
            edges.add((rng.randrange(max(0, b - 30), b), b))
    latency = [rng.randint(1, 10) for _ in range(nodes)]
    return Graph(nodes, sorted(edges), latency)


def random_graphs(count: int, seed: int = 7) -> list[Graph]:
    """`count` graphs from a fixed seed: every library and every run sees the same graphs."""
    rng = random.Random(seed)
    return [random_graph(rng) for _ in range(count)]


def critical_path(graph: Graph) -> int:
    """The longest latency-weighted path (nodes are in topological order by construction)."""
    finish = [0] * graph.nodes
    for node, preds in enumerate(graph.predecessors()):
        finish[node] = max((finish[p] for p in preds), default=0) + graph.latency[node]
    return max(finish, default=0)


def levels(graph: Graph) -> list[int]:
    """Each node's level: 0 for a node with no predecessors, else one more than its deepest predecessor."""
    level = [0] * graph.nodes
    for node, preds in enumerate(graph.predecessors()):
        level[node] = max((level[p] + 1 for p in preds), default=0)
    return level


def superstep(graph: Graph) -> int:
    """The makespan of the level-by-level schedule: the sum over levels of the slowest node's latency."""
    slowest: dict[int, int] = {}
    for node, level in enumerate(levels(graph)):
        slowest[level] = max(slowest.get(level, 0), graph.latency[node])
    return sum(slowest.values())
