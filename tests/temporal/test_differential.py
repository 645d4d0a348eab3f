"""The differential suite: each scripted system runs once on the trio runner and once on Temporal, and both
runs must say the same events.

Every case is a row of `CASES`: how to build the system (fresh models each time, so a script's position
never carries over), the run's controls on each runtime (run-level hooks and guardrails are the trio
context's and the Temporal worker's; a human's decisions are an in-process handler on trio and the
``helikon.decide`` signal on Temporal), and how the two event sequences are compared. The comparison is
exact, deltas aside (both runtimes deliver the same text; how finely it is split is theirs), except where
children run concurrently: there the interleaving is scheduling, so each agent's own events are compared
in order (`by_agent`) and the workflow's terminal exactly, and where an agent-as-tool sub-run's questions reach
its caller as each call is held (`questions_as_held`). Whatever hook points fired are compared too.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from tests.compaction.fakes import config, step, worker_turn
from tests.control.control_fakes import logging_hook, lookup_tool, timed_guardrail
from tests.control.scenario import COMMANDS, DECISIONS, Answers, LoggingTool, graph, lead, scoped

import helikon_fc as hk
from helikon_fc import (
    AgentAsTool,
    Handoff,
    LlmAgent,
    function_tool,
)
from helikon_fc.core import (
    AgentEvent,
    AgentUpdated,
    ApprovalRequested,
    ModelFailureKind,
    ModelRequest,
    PermissionConfig,
    PolicyAsk,
    PolicyRule,
    RunStarted,
    ToolResult,
    ToolRule,
    TurnStarted,
    to_json,
)
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.control.guardrails import Pass, Tripwire
from helikon_fc.shell.control.hooks import (
    Deny,
    Hook,
    HookDecision,
    HookPoint,
    InjectSystemMessage,
    OnTurnStart,
    PreToolUse,
)
from helikon_fc.shell.control.permissions import ApprovalAnswer, Approve, Permissions, Reject
from helikon_fc.shell.loop.protocol import Agent
from helikon_fc.shell.tools.tool import ToolContext
from helikon_fc.temporal import RunHandle
from helikon_fc.testing import FunctionModel, ScriptedModel, ScriptedTurn, call, call_tools, fail, reply, simulate

from .harness import on_temporal, without_deltas

Events = tuple[AgentEvent, ...]


@attrs.define
class Probe:
    """What one run of a case leaves behind besides its events: the hook points that fired, a tool log."""

    root: Path
    log: list[str] = attrs.field(factory=list)

    @property
    def calls(self) -> Path:
        return self.root / "calls.log"


def exact(events: Events) -> object:
    """The events as they are (deltas already dropped)."""
    return events


def questions_as_held(events: Events) -> object:
    """The events as they are, but each run of consecutive questions as a set.

    An agent-as-tool sub-run's questions reach its caller's stream as each of its calls is held, so that a round
    whose other calls go on can be decided at once: on Temporal each call's permission step is an activity of its
    own, and a round's questions come in the order those finish; on trio, in call order.
    """
    compared: list[object] = []
    for event in events:
        if isinstance(event, ApprovalRequested) and compared and isinstance(compared[-1], frozenset):
            compared[-1] = compared[-1] | {to_json(event)}
        elif isinstance(event, ApprovalRequested):
            compared.append(frozenset({to_json(event)}))
        else:
            compared.append(event)
    return compared


def by_agent(events: Events) -> object:
    """Each agent's events in order (concurrent children interleave as they are scheduled), and the terminal.

    An event belongs to the agent announced last before it (`RunStarted`, `AgentUpdated`): the merge
    convention both runtimes keep. The announcements themselves depend on the interleaving, so they go.
    """
    own: dict[str, list[str]] = {}
    current = ""
    for event in events:
        if isinstance(event, RunStarted | AgentUpdated):
            current = event.agent
            continue
        own.setdefault(current, []).append(to_json(event))
    return own, events[-1]


Decisions = Mapping[str, ApprovalAnswer]


@attrs.frozen
class Case:
    """One scripted system, run on both runtimes (see the module).

    Attributes:
        build: the system, fresh (its models' scripts at their start), logging into the probe.
        compare: what of the events must be equal.
        hooks: run-level hooks (the trio context's, the Temporal worker's).
        input_guardrails: run-level input guardrails.
        output_guardrails: run-level output guardrails.
        permissions: the permissions deciding every call (`Permissions()`: the built-in guards).
        decisions: a human's answers by call id as the run's caller sees them (qualified by the sub-run).
        prefix: the qualifier of the asking sub-run's calls (the in-process handler sees them unqualified).
        rounds: how many calls wait at once in each round decided.
    """

    build: Callable[[Probe], Agent[None]]
    compare: Callable[[Events], object] = exact
    hooks: Callable[[Probe], Sequence[Hook[None]]] = lambda probe: ()
    input_guardrails: Callable[[Probe], Sequence[Any]] = lambda probe: ()
    output_guardrails: Callable[[Probe], Sequence[Any]] = lambda probe: ()
    permissions: Permissions | None = None
    decisions: Decisions = attrs.field(factory=dict)
    prefix: str = ""
    rounds: tuple[int, ...] = ()
    config: hk.RunConfig | None = None


def _llm(name: str, *turns: ScriptedTurn, **kwargs: Any) -> LlmAgent[None]:
    return LlmAgent(name=name, model=ScriptedModel(list(turns)), **kwargs)


def _answering(name: str, make: Callable[[tuple[ToolResult, ...]], ScriptedTurn], **kwargs: Any) -> LlmAgent[None]:
    """An agent whose model answers from the tool results in view (no script position: the same on a resume)."""

    def turn(request: ModelRequest) -> ScriptedTurn:
        return make(tuple(item for item in request.items if isinstance(item, ToolResult)))

    return LlmAgent(name=name, model=FunctionModel(turn), **kwargs)


@function_tool
async def approve(ctx: ToolContext[None]) -> str:
    """Accept the draft."""
    ctx.actions.escalate()
    return "approved"


def _sequential(probe: Probe) -> Agent[None]:
    return hk.SequentialAgent[None]("pipeline").then(_llm("first", reply("alpha"))).then(_llm("second", reply("beta")))


def _sequential_fails_fast(probe: Probe) -> Agent[None]:
    third = _llm("third", reply("never"))
    failing = _llm("second", fail(ModelFailureKind.REFUSED))
    return hk.SequentialAgent[None]("pipeline").then(_llm("first", reply("alpha"))).then(failing).then(third)


def _loop_escalates(probe: Probe) -> Agent[None]:
    drafter = _llm("drafter", reply("draft 1"), reply("draft 2"))
    critic = _llm("critic", reply("needs work"), call_tools(call("approve")), reply("approved"), tools=(approve,))
    return hk.LoopAgent[None]("refine", max_iterations=5).then(drafter).then(critic)


def _loop_exhausted(probe: Probe) -> Agent[None]:
    return hk.LoopAgent[None]("spin", max_iterations=2).then(_llm("step", reply("one"), reply("two")))


def _parallel(probe: Probe) -> Agent[None]:
    return hk.ParallelAgent[None]("fan").add(_llm("a", reply("from a"))).add(_llm("b", reply("from b")))


def _parallel_collects_failures(probe: Probe) -> Agent[None]:
    fan = hk.ParallelAgent[None]("fan").add(_llm("a", fail(ModelFailureKind.REFUSED))).add(_llm("b", reply("from b")))
    return fan.add(_llm("c", fail(ModelFailureKind.CONTEXT_LENGTH)))


def _swarm_answers(probe: Probe) -> Agent[None]:
    front = _llm("front", call_tools(call("transfer_to_expert")), reply("unused"))
    expert = _llm("expert", reply("the answer"))
    return hk.SwarmAgent.builder().name("desk").member(front).member(expert).build()


def _swarm_over_budget(probe: Probe) -> Agent[None]:
    ping = _llm("ping", call_tools(call("transfer_to_pong")), call_tools(call("transfer_to_pong")))
    pong = _llm("pong", call_tools(call("transfer_to_ping")), call_tools(call("transfer_to_ping")))
    return hk.SwarmAgent.builder().name("rally").member(ping).member(pong).max_handoffs(2).build()


def _graph(name: str, first: ScriptedTurn, edges: tuple[str, ...]) -> Callable[[Probe], Agent[None]]:
    """A graph of nodes a, b, c, d (each answering its own letter, `a` with `first`) and `edges` (``"ab"``: a -> b)."""

    def build(probe: Probe) -> Agent[None]:
        builder = hk.GraphAgent[None].builder().name(name)
        for key in "abcd":
            builder = builder.node(key, _llm(key, first if key == "a" else reply(key.upper())))
        for edge in edges:
            builder = builder.edge(edge[0], edge[1])
        return builder.build()

    return build


def _handoff(probe: Probe) -> Agent[None]:
    billing = _llm("billing", reply("refund sent"))
    return _llm("triage", call_tools(call("transfer_to_billing")), reply("unused"), handoffs=[Handoff.to(billing)])


def _agent_as_tool(probe: Probe) -> Agent[None]:
    summarizer = _llm("summarizer", reply("short version"))
    return _llm(
        "writer",
        call_tools(call("summarizer", input="a long text")),
        reply("done: short version"),
        tools=[AgentAsTool(summarizer)],
    )


def _agent_as_tool_fails(probe: Probe) -> Agent[None]:
    summarizer = _llm("summarizer", call_tools(call("no_such_tool")), fail(ModelFailureKind.REFUSED))
    return _llm(
        "writer",
        call_tools(call("summarizer", input="a long text")),
        reply("it failed"),
        tools=[AgentAsTool(summarizer)],
    )


def _lookup_turn(results: tuple[ToolResult, ...]) -> ScriptedTurn:
    return reply(f"got {results[0].output}") if results else call_tools(call("lookup", key="k").with_id("c1"))


def _hooked_handoff(probe: Probe) -> Agent[None]:
    """A triage agent that looks something up, then hands off to billing, which asks a helper (agent-as-tool)."""
    helper = _llm("helper", reply("helped"))

    def billing_turn(results: tuple[ToolResult, ...]) -> ScriptedTurn:
        mine = [result for result in results if result.call_id == "h"]  # triage's results came with the transcript
        return reply(f"billing: {mine[0].output}") if mine else call_tools(call("helper", input="?").with_id("h"))

    billing = _answering("billing", billing_turn, tools=[AgentAsTool(helper)])

    def triage_turn(results: tuple[ToolResult, ...]) -> ScriptedTurn:
        if not results:
            return call_tools(call("lookup", key="k").with_id("c1"))
        return call_tools(call("transfer_to_billing").with_id("t1"))

    calls: list[str] = []
    return _answering("triage", triage_turn, tools=[lookup_tool(calls)], handoffs=[Handoff.to(billing)])


def _run_hooks(probe: Probe) -> Sequence[Hook[None]]:
    def answer(point: HookPoint) -> HookDecision | None:
        if isinstance(point, OnTurnStart) and point.turn == 0:
            return InjectSystemMessage("from the run")
        return None

    return (logging_hook(probe.log, "run", answer),)


def _run_hooks_in_a_workflow(probe: Probe) -> Agent[None]:
    step_tool = lookup_tool([])
    first = _answering("first", _lookup_turn, tools=[step_tool])
    return hk.SequentialAgent[None]("pipeline").then(first).then(_llm("second", reply("beta")))


def _denying_hooks(probe: Probe) -> Sequence[Hook[None]]:
    return (
        logging_hook(probe.log, "run", lambda point: Deny("no lookups") if isinstance(point, PreToolUse) else None),
    )


def _looking_up(probe: Probe) -> Agent[None]:
    return _answering("a", _lookup_turn, tools=[lookup_tool([])])


def _replying(probe: Probe) -> Agent[None]:
    return _llm("a", reply("you fool"))


def _trip(name: str, probe: Probe) -> Sequence[Any]:
    return (timed_guardrail(name, 0, Tripwire(f"{name}_policy", {"why": "no"}), probe.log),)


def _pass(name: str, probe: Probe) -> Sequence[Any]:
    return (timed_guardrail(name, 0, Pass(), probe.log),)


RULES = PermissionConfig(
    deny=(ToolRule("Drop"),),
    allow=(ToolRule("Read"),),
    policy=(PolicyRule(ToolRule("Write"), PolicyAsk("may I write?")),),
    builtin_guards=False,
)
"""Deny ``Drop``, allow ``Read``, ask before ``Write``."""


def _by_rule(probe: Probe) -> Agent[None]:
    def turn(results: tuple[ToolResult, ...]) -> ScriptedTurn:
        if results:
            return reply(" | ".join(f"{r.call_id}: {r.output}" for r in results))
        names = ("Read", "Drop", "Write", "Write")
        return call_tools(*(call(name, command=f"{name.lower()} {i}").with_id(f"p{i}") for i, name in enumerate(names)))

    tools = [LoggingTool(name, probe.calls) for name in ("Read", "Drop", "Write")]
    return _answering("rules", turn, tools=tools)


def _handoff_to_ops(probe: Probe) -> Agent[None]:
    """A front desk that hands off to an ops agent whose round asks for approval (`scenario.ops`' round)."""

    def turn(results: tuple[ToolResult, ...]) -> ScriptedTurn:
        mine = [result for result in results if result.call_id.startswith("cmd")]  # the transfer's is not its own
        if mine:
            return reply(" | ".join(f"{result.call_id}: {result.output}" for result in mine))
        return call_tools(*(call("Bash", command=text).with_id(f"cmd{i}") for i, text in enumerate(COMMANDS)))

    target = _answering("ops", turn, tools=[LoggingTool("Bash", probe.calls)])
    return _llm("front", call_tools(call("transfer_to_ops").with_id("t1")), handoffs=[Handoff.to(target)])


BUDGET = config(max_tokens=200)
"""The compacting worker's run config: a budget it outgrows."""


def _compacting(probe: Probe, run_config: hk.RunConfig | None = BUDGET) -> Agent[None]:
    """A worker that outgrows its compaction budget (its own `run_config`; `None`: a run's config may give one)."""

    def turn(request: ModelRequest) -> ScriptedTurn:
        if request.instructions and request.instructions.startswith("You compress"):
            return reply("the steps so far are done")
        return worker_turn(request)

    return LlmAgent(name="worker", model=FunctionModel(turn), tools=[step], run_config=run_config)


def _asking(build: Callable[[Probe], Agent[None]], prefix: str, compare: Callable[[Events], object] = exact) -> Case:
    """The `ops` round (three calls ask) in the sub-run at `prefix`, decided with `DECISIONS`."""
    return Case(build, compare, permissions=Permissions(), decisions=DECISIONS, prefix=prefix, rounds=(3,))


CASES: dict[str, Case] = {
    "sequential": Case(_sequential),
    "sequential fails fast": Case(_sequential_fails_fast),
    "loop escalates": Case(_loop_escalates),
    "loop exhausted": Case(_loop_exhausted),
    "parallel": Case(_parallel, by_agent),
    "parallel collects failures": Case(_parallel_collects_failures, by_agent),
    "swarm answers": Case(_swarm_answers),
    "swarm over budget": Case(_swarm_over_budget),
    "graph": Case(_graph("diamond", reply("A"), ("ab", "ac", "bd", "cd")), by_agent),
    "graph skips a failed node's descendants": Case(
        _graph("broken", fail(ModelFailureKind.REFUSED), ("ab", "bd", "cd")), by_agent
    ),
    "handoff": Case(_handoff),
    "agent as tool": Case(_agent_as_tool),
    "agent as tool fails": Case(_agent_as_tool_fails),
    "run-level hooks: run, turn, tool, handoff, sub-run": Case(_hooked_handoff, hooks=_run_hooks),
    "run-level hooks in a workflow": Case(_run_hooks_in_a_workflow, hooks=_run_hooks),
    "run-level hook denies a tool": Case(_looking_up, hooks=_denying_hooks),
    "run-level input guardrail passes": Case(_looking_up, input_guardrails=lambda p: _pass("in", p)),
    "run-level input guardrail trips": Case(_looking_up, input_guardrails=lambda p: _trip("in", p)),
    "run-level output guardrail passes": Case(_replying, output_guardrails=lambda p: _pass("out", p)),
    "run-level output guardrail trips": Case(_replying, output_guardrails=lambda p: _trip("out", p)),
    "permissions by rule": Case(
        _by_rule,
        permissions=Permissions(config=RULES),
        decisions={"p2": Approve(), "p3": Reject("not now")},
        rounds=(2,),
    ),
    "approvals in an agent-as-tool sub-run, its questions in its caller's stream": _asking(
        lambda probe: lead(probe.calls), "tool:ask-ops/", questions_as_held
    ),
    "approvals in a graph node": _asking(lambda probe: graph(probe.calls), "clean/", by_agent),
    "approvals in a handoff target": _asking(_handoff_to_ops, "handoff:ops/"),
    "compaction": Case(_compacting),
    "a run's config replaces the agent's compaction": Case(_compacting, config=hk.RunConfig(max_turns=20)),
    "a run's config brings a compaction": Case(lambda probe: _compacting(probe, None), config=BUDGET),
}


def _trio(case: Case, probe: Probe) -> Events:
    """The case on the trio runner (the simulator: virtual time, deterministic scheduling)."""
    ctx = RunContext[None].ephemeral(None).with_run_config(case.config)
    ctx = ctx.with_hooks(*case.hooks(probe))
    ctx = ctx.with_input_guardrails(*case.input_guardrails(probe)).with_output_guardrails(
        *case.output_guardrails(probe)
    )
    if case.permissions is not None:
        handler = Answers(dict(case.decisions)) if case.decisions else None
        ctx = ctx.with_permissions(attrs.evolve(case.permissions, approval_handler=handler))
    return without_deltas(simulate(case.build(probe), "go", ctx).events)


def _deciding(case: Case) -> Callable[[RunHandle], Awaitable[None]] | None:
    """Answer each round once that many calls wait, with the case's decisions qualified by its sub-run."""
    if not case.rounds:
        return None

    async def during(handle: RunHandle) -> None:
        decisions = scoped(case.prefix, dict(case.decisions))
        for count in case.rounds:
            for _ in range(600):
                if len(await handle.pending()) >= count:
                    break
                await asyncio.sleep(0.05)
            await handle.decide(decisions)

    return during


def _temporal(case: Case, probe: Probe, address: str) -> Events:
    agent = case.build(probe)
    worker: dict[str, Any] = {}
    for option in ("hooks", "input_guardrails", "output_guardrails"):
        given = getattr(case, option)(probe)
        if given:
            worker[option] = tuple(given)
    outcome = on_temporal(
        address,
        [agent],
        agent.name,
        "go",
        permissions=case.permissions,
        config=case.config,
        during=_deciding(case),
        worker_options=worker,
    )
    return outcome.events


def _params() -> list[Any]:
    return [pytest.param(name, id=name.replace(" ", "-")) for name in CASES]


@pytest.mark.parametrize("name", _params())
def test_both_runtimes_say_the_same_events(name: str, temporal_address: str, tmp_path: Path) -> None:
    case = CASES[name]
    on_trio = Probe(tmp_path / "trio")
    on_trio.root.mkdir()
    expected = _trio(case, on_trio)
    on_temporal_ = Probe(tmp_path / "temporal")
    on_temporal_.root.mkdir()
    events = _temporal(case, on_temporal_, temporal_address)
    assert case.compare(events) == case.compare(expected)
    assert on_temporal_.log == on_trio.log  # the same hook points fired, in the same order
    assert sorted(_calls(on_temporal_)) == sorted(_calls(on_trio))  # the same calls ran (a round's at once)


def _calls(probe: Probe) -> list[str]:
    """The ids of the calls the logging tools ran in one run."""
    if not probe.calls.exists():
        return []
    return [json.loads(line)["call"] for line in probe.calls.read_text().splitlines()]


def test_every_case_says_something_of_its_own() -> None:
    """No two cases build the same system with the same controls and config (a copy would test nothing new)."""
    seen = {
        (case.build, case.hooks, case.input_guardrails, case.output_guardrails, case.config) for case in CASES.values()
    }
    assert len(seen) == len(CASES)


def test_questions_as_held_loosens_only_the_order_of_consecutive_questions() -> None:
    one, two = ApprovalRequested("a", "Bash", "{}"), ApprovalRequested("b", "Bash", "{}")
    started, turn = RunStarted("lead"), TurnStarted(0)
    assert questions_as_held((started, one, two, turn)) == questions_as_held((started, two, one, turn))
    assert questions_as_held((started, one, turn, two)) != questions_as_held((started, two, turn, one))
    assert questions_as_held((started, one, turn)) != questions_as_held((started, two, turn))
