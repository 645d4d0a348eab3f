"""A paused run's pending ids are the ids its stream asked under, recorded or not: a sub-run's waiting calls are
qualified by its place (``tool:CALL/ID``, ``NODE/ID``, ``handoff:TARGET/ID``) also when nothing is recorded, so a
decision given by an id read from the stream reaches the call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import pytest
from tests.control.scenario import DECISIONS, commands_run, context, front, graph, lead, scoped

from helikon_fc import AgentInput, Runner, RunResultStreaming
from helikon_fc.core import ApprovalRequested
from helikon_fc.shell.context.permission_values import Approvals
from helikon_fc.shell.loop.protocol import Agent
from helikon_fc.shell.loop.results import RunResult

CASES: dict[str, tuple[Callable[[Path | None], Agent[None]], str]] = {
    "agent-as-tool": (lead, "tool:ask-ops/"),
    "graph node": (graph, "clean/"),
    "handoff target": (front, "handoff:ops/"),
}


async def _unrecorded(agent: Agent[None], approvals: Approvals | None = None) -> RunResult[str]:
    ctx = attrs.evolve(context(), approvals=approvals)
    return await RunResultStreaming(Runner().run(agent, ctx, AgentInput.from_user_text("go"))).collect()


@pytest.mark.parametrize("case", CASES)
async def test_an_unrecorded_sub_runs_pending_ids_are_its_streamed_ones(case: str, tmp_path: Path) -> None:
    """Each waiting call is pending under the id the stream asked it under, and a decision by that id decides it."""
    build, prefix = CASES[case]
    paused = await _unrecorded(build(None))
    asked = [event.call_id for event in paused.events if isinstance(event, ApprovalRequested)]
    pending = [request.call_id for request in paused.pending]
    assert pending == [prefix + call_id for call_id in ("cmd0", "cmd2", "cmd3")]
    assert set(pending) <= set(asked)
    log = tmp_path / "log"
    done = await _unrecorded(build(log), Approvals(scoped(prefix, DECISIONS)))
    assert not done.paused, done.pending
    assert sorted(commands_run(log)) == ["echo hi > /tmp/motd", "ls -la", "rm -rf /"]


async def test_a_run_started_from_a_sub_runs_context_pends_under_its_own_ids() -> None:
    """`Runner.run` starts a run of its own: a context taken from inside a sub-run (a tool's, whose scope is
    ``tool:CALL/``) does not qualify the new run's pending ids by the sub-run's place."""
    inner = context().child("tool", "tool:outer")
    paused = await RunResultStreaming(Runner().run(CASES["agent-as-tool"][0](None), inner, "go")).collect()
    assert [request.call_id for request in paused.pending] == [
        "tool:ask-ops/" + call_id for call_id in ("cmd0", "cmd2", "cmd3")
    ]
