"""The run's permissions cross every boundary: a handoff target, an agent-as-tool sub-run, a workflow child."""

from __future__ import annotations

from pathlib import Path

from tests.control.scenario import LoggingTool, executed

from helikon_fc import AgentAsTool, Handoff, LlmAgent, Permissions, RunContext, SequentialAgent
from helikon_fc.core import PermissionConfig, PermissionDenied, PermissionMode, ToolEffect
from helikon_fc.shell.loop.protocol import Agent
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate

PLAN = Permissions(config=PermissionConfig(mode=PermissionMode.PLAN))


def _worker(log: Path) -> LlmAgent[None]:
    """An agent that calls one read-only and one side-effect tool."""
    tools = [LoggingTool("look", log, ToolEffect.READ_ONLY), LoggingTool("change", log)]
    model = ScriptedModel([call_tools(call("look"), call("change")), reply("worked")])
    return LlmAgent(name="worker", model=model, tools=tools)


def _denials(agent: Agent[None]) -> list[str]:
    run = simulate(agent, "go", RunContext.ephemeral(None).with_permissions(PLAN))
    assert run.result is not None
    return [event.tool for event in run.events if isinstance(event, PermissionDenied)]


def test_plan_mode_reaches_a_handoff_target(tmp_path: Path) -> None:
    """A handoff target runs under the same PLAN mode: its side-effect tool is refused, the read-only one runs."""
    log = tmp_path / "log"
    triage = LlmAgent(
        name="triage",
        model=ScriptedModel([call_tools(call("transfer_to_worker"))]),
        handoffs=[Handoff.to(_worker(log))],
    )
    assert _denials(triage) == ["change"]
    assert [entry["tool"] for entry in executed(log)] == ["look"]


def test_plan_mode_reaches_an_agent_as_tool_sub_run(tmp_path: Path) -> None:
    """A read-only agent-as-tool is allowed, and inside it PLAN still refuses the side-effect tool (seed sentence)."""
    log = tmp_path / "log"
    ask = AgentAsTool(_worker(log), effect=ToolEffect.READ_ONLY)
    lead = LlmAgent(
        name="lead", model=ScriptedModel([call_tools(call("worker", input="go")), reply("ok")]), tools=[ask]
    )
    simulate(lead, "go", RunContext.ephemeral(None).with_permissions(PLAN))
    assert [entry["tool"] for entry in executed(log)] == ["look"]


def test_plan_mode_reaches_a_workflow_child(tmp_path: Path) -> None:
    """A sequential step runs under the workflow's permissions."""
    log = tmp_path / "log"
    assert _denials(SequentialAgent(name="seq").then(_worker(log))) == ["change"]
    assert [entry["tool"] for entry in executed(log)] == ["look"]
