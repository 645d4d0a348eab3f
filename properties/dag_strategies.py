"""Hypothesis strategies for the graph and parallel laws: DAGs (acyclic by construction),
per-node latencies and failure sets."""

from __future__ import annotations

import attrs
from hypothesis import strategies as st


@attrs.frozen
class Dag:
    """A DAG: `nodes` in declaration order and `edges` as (predecessor, successor) pairs."""

    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]

    def predecessors(self, node: str) -> tuple[str, ...]:
        """Direct predecessors of `node`."""
        return tuple(a for a, b in self.edges if b == node)

    def descendants(self, node: str) -> frozenset[str]:
        """Every node reachable from `node` (itself excluded)."""
        seen: set[str] = set()
        frontier = [b for a, b in self.edges if a == node]
        while frontier:
            nxt = frontier.pop()
            if nxt not in seen:
                seen.add(nxt)
                frontier.extend(b for a, b in self.edges if a == nxt)
        return frozenset(seen)

    def ancestors(self, node: str) -> frozenset[str]:
        """Every node from which `node` is reachable (itself excluded)."""
        return frozenset(n for n in self.nodes if node in self.descendants(n))


@st.composite
def dags(draw: st.DrawFn, max_nodes: int = 7) -> Dag:
    """DAGs of 1..`max_nodes` nodes: edges only from a lower to a higher topological index, nodes
    declared in an arbitrary order (so declaration order never hints at the topology)."""
    count = draw(st.integers(min_value=1, max_value=max_nodes))
    topo = [f"n{i}" for i in range(count)]
    pairs = [(topo[i], topo[j]) for i in range(count) for j in range(i + 1, count)]
    chosen = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    edges = tuple(pair for pair, keep in zip(pairs, chosen, strict=True) if keep)
    declared = tuple(draw(st.permutations(topo)))
    return Dag(declared, edges)


def latencies(dag: Dag) -> st.SearchStrategy[dict[str, float]]:
    """Whole-second latencies (0..5 s) for every node of `dag`, so virtual times compare exactly."""
    return st.fixed_dictionaries({n: st.integers(min_value=0, max_value=5).map(float) for n in dag.nodes})


def failure_sets(dag: Dag) -> st.SearchStrategy[frozenset[str]]:
    """Any subset of `dag`'s nodes, to fail."""
    return st.frozensets(st.sampled_from(dag.nodes))
