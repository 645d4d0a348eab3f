"""The bookkeeping of a `GraphAgent` run as one pure, frozen value: a Kahn wavefront over a DAG.

A `Wavefront` knows, for every node, how many predecessors it still waits for, and which nodes
are ready, running, done, failed or skipped. Three pure steps move it on:

- `start(node)` moves a ready node to running;
- `complete(node)` moves a running node to done and returns the nodes that became ready by it
  (every successor whose last outstanding predecessor this was);
- `fail(node)` moves a running node to failed and skips its transitive descendants (none of
  which can have started, since each waits on this node directly or indirectly).

The shell owns the nursery, the clock and the child runs; it only asks this value what to start
next. `find_cycle` is the pure check a graph builder uses to reject a cyclic definition.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

import attrs


def _freeze_map(value: Mapping[str, tuple[str, ...]]) -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType(dict(value))


def _freeze_counts(value: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(value))


def find_cycle(nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> tuple[str, ...] | None:
    """A cycle among `edges`, as the nodes along it (first node repeated at the end), or `None`.

    Edges naming nodes outside `nodes` are ignored. The search is deterministic: it starts from
    the nodes in the order given and follows successors in edge order.

    Args:
        nodes: every node of the graph.
        edges: ``(predecessor, successor)`` pairs.

    Returns:
        For example ``("a", "b", "c", "a")`` for ``a -> b -> c -> a``, or `None` for a DAG.
    """
    order = list(dict.fromkeys(nodes))
    known = set(order)
    successors: dict[str, list[str]] = {node: [] for node in order}
    for source, target in edges:
        if source in known and target in known:
            successors[source].append(target)
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(order, white)
    for root in order:
        if colour[root] != white:
            continue
        path: list[str] = [root]
        stack: list[int] = [0]  # next successor index to visit, per node on the path
        colour[root] = grey
        while path:
            node = path[-1]
            index = stack[-1]
            if index == len(successors[node]):
                colour[node] = black
                path.pop()
                stack.pop()
                continue
            stack[-1] = index + 1
            nxt = successors[node][index]
            if colour[nxt] == grey:
                start = path.index(nxt)
                return (*path[start:], nxt)
            if colour[nxt] == white:
                colour[nxt] = grey
                path.append(nxt)
                stack.append(0)
    return None


@attrs.frozen(kw_only=True)
class Wavefront:
    """Where a DAG run stands: which nodes wait, are ready, run, are done, failed or were skipped.

    Build one with `Wavefront.of(nodes, edges)`; every step returns a new value and leaves this
    one untouched. Node order (as declared) makes every returned tuple deterministic.

    Attributes:
        nodes: every node, in declaration order.
        predecessors: each node's direct predecessors, in declaration order.
        successors: each node's direct successors, in declaration order.
        pending: for each node that is not yet ready, how many predecessors it still waits for.
        ready: nodes whose predecessors are all done and that have not started.
        running: nodes started and not yet completed or failed.
        done: nodes that completed.
        failed: nodes that failed.
        skipped: nodes that will never run because an ancestor failed.
    """

    nodes: tuple[str, ...]
    predecessors: Mapping[str, tuple[str, ...]] = attrs.field(converter=_freeze_map, eq=False, repr=False)
    successors: Mapping[str, tuple[str, ...]] = attrs.field(converter=_freeze_map, eq=False, repr=False)
    pending: Mapping[str, int] = attrs.field(converter=_freeze_counts)
    ready: frozenset[str] = frozenset()
    running: frozenset[str] = frozenset()
    done: frozenset[str] = frozenset()
    failed: frozenset[str] = frozenset()
    skipped: frozenset[str] = frozenset()

    @classmethod
    def of(cls, nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> Wavefront:
        """The wavefront before anything ran: the sources are ready, every other node waits.

        Args:
            nodes: the nodes, in declaration order (duplicates are an error).
            edges: ``(predecessor, successor)`` pairs between known nodes; repeats count once.

        Raises:
            ValueError: for a duplicate node, an edge naming an unknown node, or a cycle
                (a graph builder reports these first, with `GraphBuildError`).
        """
        order = tuple(nodes)
        if len(set(order)) != len(order):
            raise ValueError(f"duplicate nodes in {order!r}")
        known = set(order)
        unique_edges = tuple(dict.fromkeys(edges))
        for source, target in unique_edges:
            if source not in known or target not in known:
                raise ValueError(f"edge {source!r} -> {target!r} names a node that is not in the graph")
        cycle = find_cycle(order, unique_edges)
        if cycle is not None:
            raise ValueError(f"the graph has a cycle: {' -> '.join(cycle)}")
        position = {node: i for i, node in enumerate(order)}
        preds: dict[str, list[str]] = {node: [] for node in order}
        succs: dict[str, list[str]] = {node: [] for node in order}
        for source, target in unique_edges:
            preds[target].append(source)
            succs[source].append(target)
        predecessors = {node: tuple(sorted(preds[node], key=position.__getitem__)) for node in order}
        successors = {node: tuple(sorted(succs[node], key=position.__getitem__)) for node in order}
        return cls(
            nodes=order,
            predecessors=predecessors,
            successors=successors,
            pending={node: len(predecessors[node]) for node in order if predecessors[node]},
            ready=frozenset(node for node in order if not predecessors[node]),
        )

    @property
    def sinks(self) -> tuple[str, ...]:
        """The nodes with no successors, in declaration order."""
        return tuple(node for node in self.nodes if not self.successors[node])

    @property
    def finished(self) -> bool:
        """Whether every node is done, failed or skipped (nothing ready, running or waiting)."""
        return not self.ready and not self.running and not self.pending

    def ready_in_order(self) -> tuple[str, ...]:
        """The ready nodes, in declaration order."""
        return tuple(node for node in self.nodes if node in self.ready)

    def descendants(self, node: str) -> frozenset[str]:
        """Every node reachable from `node` along edges (`node` itself excluded)."""
        seen: set[str] = set()
        frontier = list(self.successors[node])
        while frontier:
            nxt = frontier.pop()
            if nxt not in seen:
                seen.add(nxt)
                frontier.extend(self.successors[nxt])
        return frozenset(seen)

    def start(self, node: str) -> Wavefront:
        """The wavefront with ready `node` running.

        Raises:
            ValueError: if `node` is not ready.
        """
        if node not in self.ready:
            raise ValueError(f"node {node!r} is not ready to start")
        return attrs.evolve(self, ready=self.ready - {node}, running=self.running | {node})

    def complete(self, node: str) -> tuple[Wavefront, tuple[str, ...]]:
        """The wavefront with running `node` done, and the successors that became ready by it.

        Returns:
            The next wavefront and the newly ready nodes, in declaration order.

        Raises:
            ValueError: if `node` is not running.
        """
        if node not in self.running:
            raise ValueError(f"node {node!r} is not running, so it cannot complete")
        pending = dict(self.pending)
        newly_ready: list[str] = []
        for successor in self.successors[node]:
            if successor not in pending:
                continue  # skipped by another failure
            remaining = pending[successor] - 1
            if remaining == 0:
                del pending[successor]
                newly_ready.append(successor)
            else:
                pending[successor] = remaining
        step = attrs.evolve(
            self,
            pending=pending,
            running=self.running - {node},
            done=self.done | {node},
            ready=self.ready | frozenset(newly_ready),
        )
        return step, tuple(newly_ready)

    def fail(self, node: str) -> tuple[Wavefront, tuple[str, ...]]:
        """The wavefront with running `node` failed and its transitive descendants skipped.

        Returns:
            The next wavefront and the nodes newly skipped, in declaration order (a failure
            makes no node ready).

        Raises:
            ValueError: if `node` is not running.
        """
        if node not in self.running:
            raise ValueError(f"node {node!r} is not running, so it cannot fail")
        fresh = self.descendants(node) - self.skipped
        pending = {key: count for key, count in self.pending.items() if key not in fresh}
        step = attrs.evolve(
            self,
            pending=pending,
            running=self.running - {node},
            failed=self.failed | {node},
            skipped=self.skipped | fresh,
        )
        return step, tuple(n for n in self.nodes if n in fresh)
