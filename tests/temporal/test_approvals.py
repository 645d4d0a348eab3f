"""Human approval on Temporal: a waiting call is listed by `RunHandle.pending` and answered by `RunHandle.decide`.

The run waits durably (a workflow condition, under its deadline) and goes on exactly as the trio
runner does after ``runner.resume(..., approvals=...)``: approved calls run (replaced arguments
checked again), rejected ones are answered with the reason, undecided ones wait on, and a decision
reaches the sub-run (child workflow) that asked. The scenarios are the trio approval tests'
(`tests.control.scenario`), compared with the trio runner's in-process answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from tests.control.scenario import (
    DECISIONS,
    Answers,
    LoggingTool,
    commands_run,
    context,
    graph,
    lead,
    ops,
    scoped,
)

from helikon_fc import AgentAsTool, LlmAgent
from helikon_fc.core import (
    ApprovalRequested,
    Cancelled,
    ModelRequest,
    PermissionDenied,
    PermissionGranted,
    RunCompleted,
    RunFailed,
    TimedOut,
    ToolResult,
)
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.shell.control.permissions import ApprovalAnswer, Approve, Permissions, Reject
from helikon_fc.temporal import RunHandle
from helikon_fc.testing import FunctionModel, call, call_tools, reply, simulate
from helikon_fc.testing.script import ScriptedTurn

from .harness import on_temporal, without_deltas

IN_PROCESS_ANSWER = (
    "cmd0: ran rm -rf / | cmd1: ran ls -la | cmd2: permission denied: not the home directory"
    " | cmd3: ran echo hi > /tmp/motd"
)
"""What the trio runner's `ops` run answers with `DECISIONS` given in-process (tests/control/test_approval.py)."""


async def _until_pending(handle: RunHandle, count: int) -> list[str]:
    """Poll `pending` until it lists `count` calls; their ids, sorted (a round's calls run at once, and each is
    listed as soon as it is held: the order they are listed in is the order their permission checks ended)."""
    for _ in range(600):
        pending = await handle.pending()
        if len(pending) == count:
            return sorted(request.call_id for request in pending)
        await asyncio.sleep(0.05)
    raise AssertionError(f"the run never had {count} waiting calls: {await handle.pending()}")


def _deciding(
    *rounds: tuple[int, dict[str, ApprovalAnswer]], seen: list[list[str]]
) -> Callable[[RunHandle], Awaitable[None]]:
    """A `during` that, for each round, waits for that many waiting calls, records their ids and decides."""

    async def during(handle: RunHandle) -> None:
        for count, decisions in rounds:
            seen.append(await _until_pending(handle, count))
            await handle.decide(decisions)

    return during


def test_a_waiting_round_decided_at_once_ends_as_the_trio_runners_in_process_approval(
    temporal_address: str, tmp_path: Path
) -> None:
    """Three calls ask (guards), one runs; the decisions come by signal: the events, the answer and the
    commands run equal the trio runner's with an in-process handler giving the same decisions."""
    log = tmp_path / "log"
    seen: list[list[str]] = []
    outcome = on_temporal(
        temporal_address,
        [ops(log)],
        "ops",
        "go",
        permissions=Permissions(),
        during=_deciding((3, dict(DECISIONS)), seen=seen),
    )
    assert seen == [["cmd0", "cmd2", "cmd3"]]
    assert outcome.result.output == IN_PROCESS_ANSWER
    assert sorted(commands_run(log)) == sorted(["ls -la", "rm -rf /", "echo hi > /tmp/motd"])
    reference = tmp_path / "reference"
    trio = simulate(ops(reference), "go", context(Permissions(approval_handler=Answers(dict(DECISIONS)))))
    assert outcome.events == without_deltas(trio.events)
    assert isinstance(outcome.result.terminal, RunCompleted)
    assert outcome.result.terminal == trio.events[-1]


def test_mixed_decisions_over_two_rounds_keep_the_undecided_waiting(temporal_address: str, tmp_path: Path) -> None:
    """Approve one, reject one, leave one: the one left waits on (asked again), then its decision, with
    replaced arguments that pass the guard, finishes the run; the old arguments never run."""
    log = tmp_path / "log"
    seen: list[list[str]] = []
    first = {key: DECISIONS[key] for key in ("cmd0", "cmd2")}
    outcome = on_temporal(
        temporal_address,
        [ops(log)],
        "ops",
        "go",
        permissions=Permissions(),
        during=_deciding((3, first), (1, {"cmd3": DECISIONS["cmd3"]}), seen=seen),
    )
    assert seen == [["cmd0", "cmd2", "cmd3"], ["cmd3"]]
    assert outcome.result.output == IN_PROCESS_ANSWER
    assert "echo hi > /etc/motd" not in commands_run(log)
    denied = [e for e in outcome.events if isinstance(e, PermissionDenied)]
    assert [(e.call_id, e.reason) for e in denied] == [("cmd2", "not the home directory")]
    asked = [e.call_id for e in outcome.events if isinstance(e, ApprovalRequested)]
    assert asked == ["cmd0", "cmd2", "cmd3", "cmd3"]  # the undecided call is asked again, as on trio
    granted = [e.call_id for e in outcome.events if isinstance(e, PermissionGranted)]
    assert sorted(granted) == ["cmd0", "cmd1", "cmd3"]


def test_replaced_arguments_that_a_guard_stops_wait_again(temporal_address: str, tmp_path: Path) -> None:
    """Approving cmd3 with arguments that another guard stops (rm of root) raises a new question: the call waits on."""
    log = tmp_path / "log"
    seen: list[list[str]] = []
    still_etc = Approve(arguments='{"command": "rm -rf /"}')
    rest = {"cmd0": Reject("no"), "cmd2": Reject("no")}
    outcome = on_temporal(
        temporal_address,
        [ops(log)],
        "ops",
        "go",
        permissions=Permissions(),
        during=_deciding((3, {**rest, "cmd3": still_etc}), (1, {"cmd3": Reject("still no")}), seen=seen),
    )
    assert seen == [["cmd0", "cmd2", "cmd3"], ["cmd3"]]
    assert commands_run(log) == ["ls -la"]
    assert "cmd3: permission denied: still no" in outcome.result.output


def test_replaced_arguments_that_ask_again_are_listed_and_run_as_replaced(
    temporal_address: str, tmp_path: Path
) -> None:
    """Approving `rm -rf ~` with arguments another guard stops lists the call again with those arguments
    (as on trio); a plain yes then runs the replacement, and `rm -rf ~` never runs."""
    log = tmp_path / "log"
    replacement = '{"command": "echo bye > /etc/issue"}'
    listed: list[list[str]] = []

    async def during(handle: RunHandle) -> None:
        await _until_pending(handle, 3)
        await handle.decide({"cmd0": Reject("no"), "cmd2": Approve(arguments=replacement), "cmd3": Reject("no")})
        for _ in range(600):
            pending = await handle.pending()
            if [request.call_id for request in pending] == ["cmd2"] and pending[0].args == replacement:
                break
            await asyncio.sleep(0.05)
        listed.append([request.args for request in await handle.pending()])
        await handle.decide({"cmd2": Approve()})

    outcome = on_temporal(temporal_address, [ops(log)], "ops", "go", permissions=Permissions(), during=during)
    assert listed == [[replacement]]
    assert "rm -rf ~" not in commands_run(log)
    assert sorted(commands_run(log)) == ["echo bye > /etc/issue", "ls -la"]
    assert "cmd2: ran echo bye > /etc/issue" in outcome.result.output
    granted = {e.call_id: e.arguments for e in outcome.events if isinstance(e, PermissionGranted)}
    assert granted["cmd2"] == replacement  # the audit trail names the arguments that ran, not the model's


def test_an_agent_as_tool_sub_run_waits_in_its_child_workflow_and_gets_its_decisions(
    temporal_address: str, tmp_path: Path
) -> None:
    """The sub-run's calls are listed under ``tool:ask-ops/``; decisions given to the root reach the child
    workflow, and the parent's answer equals the trio runner's after a resume with the same decisions."""
    log = tmp_path / "log"
    seen: list[list[str]] = []
    outcome = on_temporal(
        temporal_address,
        [lead(log)],
        "lead",
        "go",
        permissions=Permissions(),
        during=_deciding((3, scoped("tool:ask-ops/", dict(DECISIONS))), seen=seen),
    )
    assert seen == [["tool:ask-ops/cmd0", "tool:ask-ops/cmd2", "tool:ask-ops/cmd3"]]
    assert outcome.result.output == f"ops says: {IN_PROCESS_ANSWER}"
    announced = [e.call_id for e in outcome.events if isinstance(e, ApprovalRequested)]
    assert sorted(announced) == ["tool:ask-ops/cmd0", "tool:ask-ops/cmd2", "tool:ask-ops/cmd3"]  # each once, as held
    assert len(outcome.histories) == 2  # the sub-run's history replayed too


def test_a_graph_node_waits_and_its_decisions_are_scoped_by_its_key(temporal_address: str, tmp_path: Path) -> None:
    """A graph node's calls are ``clean/...``; the node's events (its requests among them) reach the graph's stream."""
    log = tmp_path / "log"
    seen: list[list[str]] = []
    outcome = on_temporal(
        temporal_address,
        [graph(log)],
        "pipeline",
        "go",
        permissions=Permissions(),
        during=_deciding((3, scoped("clean/", dict(DECISIONS))), seen=seen),
    )
    assert seen == [["clean/cmd0", "clean/cmd2", "clean/cmd3"]]
    assert isinstance(outcome.result.terminal, RunCompleted)
    assert outcome.result.output == "report written"
    assert sorted(commands_run(log)) == sorted(["ls -la", "rm -rf /", "echo hi > /tmp/motd"])
    asked = [e.call_id for e in outcome.events if isinstance(e, ApprovalRequested)]
    assert asked == ["clean/cmd0", "clean/cmd2", "clean/cmd3"]


def test_a_decision_given_before_its_call_waits_is_kept_for_it(temporal_address: str, tmp_path: Path) -> None:
    """Decisions sent right after the start, before the round ran, are taken when the calls wait."""

    async def early(handle: RunHandle) -> None:
        await handle.decide(dict(DECISIONS))

    log = tmp_path / "log"
    outcome = on_temporal(temporal_address, [ops(log)], "ops", "go", permissions=Permissions(), during=early)
    assert outcome.result.output == IN_PROCESS_ANSWER


def test_a_waiting_run_ends_at_its_deadline(temporal_address: str, tmp_path: Path) -> None:
    """Nobody decides: the run's timeout (a workflow timer) ends it with `TimedOut`; the waiting calls never ran."""
    log = tmp_path / "log"
    outcome = on_temporal(
        temporal_address, [ops(log)], "ops", "go", permissions=Permissions(), config=RunConfig(timeout=2.0)
    )
    assert outcome.result.terminal == RunFailed(TimedOut(2.0))
    assert commands_run(log) == ["ls -la"]


def test_a_waiting_run_can_be_cancelled(temporal_address: str, tmp_path: Path) -> None:
    async def cancel(handle: RunHandle) -> None:
        await _until_pending(handle, 3)
        await handle.cancel()

    log = tmp_path / "log"
    outcome = on_temporal(temporal_address, [ops(log)], "ops", "go", permissions=Permissions(), during=cancel)
    assert outcome.result.terminal == RunFailed(Cancelled("run cancelled"))
    assert commands_run(log) == ["ls -la"]


def _both_turn(request: ModelRequest) -> ScriptedTurn:
    results = [item for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(call("Bash", command="rm -rf /").with_id("p0"), call("ops", input="go").with_id("ask-ops"))
    return reply(" | ".join(f"{result.call_id}: {result.output}" for result in results))


def test_a_rounds_own_waiting_call_is_listed_while_its_sub_run_waits_too(temporal_address: str, tmp_path: Path) -> None:
    """One round: a call of the caller that asks, and an agent-as-tool call whose sub-run asks. Both wait at
    once (the round still runs, blocked on its sub-run), so one `decide` answers all four."""
    log = tmp_path / "log"
    agent = LlmAgent[None](
        name="both", model=FunctionModel(_both_turn), tools=[LoggingTool("Bash", log), AgentAsTool(ops(log))]
    )
    seen: list[list[str]] = []
    decisions = {"p0": Reject("not here"), **scoped("tool:ask-ops/", dict(DECISIONS))}
    outcome = on_temporal(
        temporal_address, [agent], "both", "go", permissions=Permissions(), during=_deciding((4, decisions), seen=seen)
    )
    assert sorted(seen[0]) == ["p0", "tool:ask-ops/cmd0", "tool:ask-ops/cmd2", "tool:ask-ops/cmd3"]
    assert outcome.result.output == f"p0: permission denied: not here | ask-ops: {IN_PROCESS_ANSWER}"
