"""`GraphAgent`: run a declared DAG of agents as a Kahn wavefront, each node as soon as it can."""

from __future__ import annotations

from typing import Generic

import attrs
from typing_extensions import TypeVar

from ..core import TerminalEvent
from ..core.patterns import context_message as context_message, graph
from ..core.wavefront import Wavefront, find_cycle
from ..shell import _checks
from ..shell.context.run_context import RunContext
from ..shell.input import AgentInput, as_input
from ._children import child_runner
from ._interpreter import interpret
from ._workflow import Emit, Interleaving, open_workflow_stream, workflow_fingerprint
from .protocol import Agent, RunStream

Ctx = TypeVar("Ctx", default=None)


class GraphBuildError(ValueError):
    """A graph definition is not a valid DAG: empty, a duplicate or unknown node, an edge declared twice, or a cycle.

    Attributes:
        nodes: the nodes the problem is about (for a cycle, the nodes along it, the first repeated
            at the end).
    """

    def __init__(self, message: str, nodes: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.nodes = nodes


@attrs.frozen
class GraphAgent(Generic[Ctx]):
    """Runs a fixed DAG of agents: a node starts the moment its last predecessor completes.

    Build one with `GraphAgent.builder()`. Nodes run in ``ctx.subagent_child()``, concurrently
    where the graph allows. A node's input is the graph's input followed by one context message
    per predecessor, in node declaration order: ``UserMessage("[<predecessor key>]\\n<its final
    text>")`` (see `context_message`). When a node completes its final text is written to
    ``ctx.state[key]`` (a JSON string). Nodes' events interleave live on the outer stream, each run
    of one node's events preceded by an `AgentUpdated` naming its agent.

    Once every node has run, the graph emits one `MessageOutput` built from its sinks (nodes with
    no successors): one sink's text verbatim; several sinks merged into a compact JSON object
    ``{key: text}`` with sorted keys. So the final output does not depend on completion order.

    Failure is collect-all: a failed node's transitive descendants are skipped (never started),
    independent branches run to their end, and the run fails once with `GraphFailed`, naming the
    failed nodes (sorted by key, each with its error) and the skipped ones (sorted). A skip has
    no event of its own.

    Attributes:
        name: the graph's name (its `RunStarted`, and the `agent` of the final message).
        description: what the graph does, in one sentence.
        nodes: ``(key, agent)`` pairs in declaration order.
        edges: ``(predecessor, successor)`` key pairs.
    """

    name: str = attrs.field(validator=_checks.field(_checks.require_name))
    description: str
    nodes: tuple[tuple[str, Agent[Ctx]], ...] = attrs.field(validator=_checks.field(_checks.keyed_agents))
    edges: tuple[tuple[str, str], ...]
    wavefront: Wavefront = attrs.field(repr=False, eq=False)

    @staticmethod
    def builder() -> GraphBuilder[Ctx]:
        """A builder with no name, nodes or edges yet."""
        return GraphBuilder()

    def run(self, ctx: RunContext[Ctx], input: AgentInput | str) -> RunStream:
        """Run the wavefront; see `GraphAgent`."""
        input = as_input("GraphAgent.run", input)

        async def body(emit: Emit, ctx: RunContext[Ctx]) -> TerminalEvent:
            merged = Interleaving(emit, self.name)
            runner = child_runner(ctx, self.nodes, input, merged.emitter)
            return await interpret(graph(self.name, self.wavefront), ctx, merged.emit, runner)

        return open_workflow_stream(
            self.name, ctx, body, input=input, pattern="graph", fingerprint=self.durable_fingerprint()
        )

    def durable_fingerprint(self) -> str:
        """The fingerprint of this graph's recorded runs (its name, nodes and edges)."""
        return workflow_fingerprint("graph", self.name, self.nodes, edges=[list(edge) for edge in self.edges])


@attrs.frozen
class GraphBuilder(Generic[Ctx]):
    """Declares a `GraphAgent` step by step; every method returns a new builder.

    ``GraphAgent.builder().name(..).description(..).node(key, agent).edge(a, b).build()``.
    """

    graph_name: str = "graph"
    graph_description: str = ""
    graph_nodes: tuple[tuple[str, Agent[Ctx]], ...] = ()
    graph_edges: tuple[tuple[str, str], ...] = ()

    def name(self, name: str) -> GraphBuilder[Ctx]:
        """Set the graph's name (default ``"graph"``)."""
        _checks.require_name("GraphBuilder.name", "name", name)
        return attrs.evolve(self, graph_name=name)

    def description(self, description: str) -> GraphBuilder[Ctx]:
        """Set the graph's one-sentence description."""
        return attrs.evolve(self, graph_description=description)

    def node(self, key: str, agent: Agent[Ctx]) -> GraphBuilder[Ctx]:
        """Add `agent` as the node `key` (its state key and its label in successors' context).

        Raises:
            TypeError, ValueError: `key` is not a non-empty string, or `agent` is not an `Agent`.
        """
        _checks.require_name("GraphBuilder.node", "key", key)
        _checks.require_agent("GraphBuilder.node", "agent", agent)
        return attrs.evolve(self, graph_nodes=(*self.graph_nodes, (key, agent)))

    def edge(self, before: str, after: str) -> GraphBuilder[Ctx]:
        """Make node `after` wait for node `before` (and receive its output as context)."""
        _checks.require_name("GraphBuilder.edge", "before", before)
        _checks.require_name("GraphBuilder.edge", "after", after)
        return attrs.evolve(self, graph_edges=(*self.graph_edges, (before, after)))

    def build(self) -> GraphAgent[Ctx]:
        """The graph, checked.

        Raises:
            GraphBuildError: no nodes; a node key used twice; an edge naming an unknown node; an
                edge declared twice; a cycle (the error names the nodes along it, e.g. ``a -> b -> a``).
        """
        keys = [key for key, _ in self.graph_nodes]
        if not keys:
            raise GraphBuildError(f"graph {self.graph_name!r} has no nodes; add at least one with .node(key, agent)")
        seen: set[str] = set()
        for key in keys:
            if key in seen:
                raise GraphBuildError(f"graph {self.graph_name!r} declares node {key!r} twice", (key,))
            seen.add(key)
        for before, after in self.graph_edges:
            unknown = tuple(k for k in (before, after) if k not in seen)
            if unknown:
                raise GraphBuildError(
                    f"edge {before!r} -> {after!r} names unknown node(s) {', '.join(map(repr, unknown))}; "
                    f"the nodes are {', '.join(map(repr, keys))}",
                    unknown,
                )
        declared: set[tuple[str, str]] = set()
        for edge in self.graph_edges:
            if edge in declared:
                raise GraphBuildError(
                    f"graph {self.graph_name!r} declares edge {edge[0]!r} -> {edge[1]!r} twice; each edge once", edge
                )
            declared.add(edge)
        cycle = find_cycle(keys, self.graph_edges)
        if cycle is not None:
            raise GraphBuildError(
                f"graph {self.graph_name!r} has a cycle: {' -> '.join(cycle)}; a graph must be acyclic", cycle
            )
        return GraphAgent(
            name=self.graph_name,
            description=self.graph_description,
            nodes=self.graph_nodes,
            edges=self.graph_edges,
            wavefront=Wavefront.of(keys, self.graph_edges),
        )
