"""Permissions on Temporal: each tool call is decided by the run's permissions before it runs, as on trio.

The run's `PermissionConfig` comes from the client (`HelikonClient.start(permissions=...)`) or the
worker (`HelikonWorker(permissions=...)`, which also holds the async policy and the redaction), and
crosses into agent-as-tool sub-runs and graph nodes (child workflows). Before, a run on Temporal ran
every call whatever its permissions said.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.control.scenario import LoggingTool, commands_run, graph, lead, ops

from helikon_fc import LlmAgent
from helikon_fc.core import (
    PermissionConfig,
    PermissionDenied,
    PermissionMode,
    PolicyAllow,
    PolicyDeny,
    PolicyVerdict,
    RedactionConfig,
    ToolCall,
    ToolInfo,
    ToolResult,
    ToolRule,
)
from helikon_fc.shell.control.permissions import Approve, Permissions
from helikon_fc.temporal import HelikonClient, HelikonWorker
from helikon_fc.testing import FunctionModel, call, call_tools, reply, simulate

from .harness import on_temporal, without_deltas

PLAN = PermissionConfig(mode=PermissionMode.PLAN)


def test_a_runs_plan_mode_from_the_client_runs_no_side_effect_tool(temporal_address: str, tmp_path: Path) -> None:
    """PLAN refuses every call of a non-read-only tool: none runs; the events equal the trio runner's."""
    log = tmp_path / "log"
    outcome = on_temporal(temporal_address, [ops(log)], "ops", "go", run_permissions=PLAN)
    assert commands_run(log) == []
    denied = [e for e in outcome.events if isinstance(e, PermissionDenied)]
    assert [e.call_id for e in denied] == ["cmd0", "cmd1", "cmd2", "cmd3"]
    assert outcome.result.output.count("permission denied") == 4
    from tests.control.scenario import context

    trio = simulate(ops(tmp_path / "reference"), "go", context(Permissions(config=PLAN)))
    assert outcome.events == without_deltas(trio.events)


def test_the_workers_deny_rule_reaches_agent_as_tool_sub_runs_and_graph_nodes(
    temporal_address: str, tmp_path: Path
) -> None:
    """A deny rule set on the worker decides the calls of child workflows too."""
    log = tmp_path / "log"
    deny = Permissions(config=PermissionConfig(deny=(ToolRule("Bash"),)))
    sub = on_temporal(temporal_address, [lead(log)], "lead", "go", permissions=deny)
    assert commands_run(log) == []
    assert sub.result.output.startswith("ops says: cmd0: permission denied")
    nodes = on_temporal(temporal_address, [graph(log)], "pipeline", "go", permissions=deny)
    assert commands_run(log) == []
    denied = [e for e in nodes.events if isinstance(e, PermissionDenied)]
    assert len(denied) == 4


def test_the_runs_config_replaces_the_workers_which_keeps_its_policy(temporal_address: str, tmp_path: Path) -> None:
    """The worker's async policy (user code, run in the tool activity) decides what the run's config leaves to it."""
    asked: list[str] = []

    async def policy(call: ToolCall, tool: ToolInfo) -> PolicyVerdict:
        asked.append(call.call_id)
        return PolicyDeny("not today") if call.call_id == "cmd1" else PolicyAllow()

    log = tmp_path / "log"
    worker = Permissions(config=PLAN, policy=policy)
    outcome = on_temporal(
        temporal_address,
        [ops(log)],
        "ops",
        "go",
        permissions=worker,
        run_permissions=PermissionConfig(builtin_guards=False),
    )
    assert sorted(asked) == ["cmd0", "cmd1", "cmd2", "cmd3"]
    denied = [(e.call_id, e.reason) for e in outcome.events if isinstance(e, PermissionDenied)]
    assert denied == [("cmd1", "not today")]  # not PLAN's four refusals: the run's config won
    assert sorted(commands_run(log)) == sorted(["rm -rf /", "rm -rf ~", "echo hi > /etc/motd"])


def test_secrets_in_tool_output_are_redacted_before_any_event(temporal_address: str) -> None:
    """The worker's redaction masks a known secret in the tool's output: it is in no event and not in the answer."""
    secret = "s3cr3t-Value-0123456789"
    leaky = LoggingTool("Bash", output=f"the key is {secret}")

    def turn(request: object) -> object:
        results = [i for i in request.items if isinstance(i, ToolResult)]  # type: ignore[attr-defined]
        return reply(results[0].output) if results else call_tools(call("Bash", command="cat key"))

    agent = LlmAgent[None](name="leaky", model=FunctionModel(turn), tools=[leaky])  # type: ignore[arg-type]
    redacting = Permissions(redaction=RedactionConfig(secrets=(secret,)))
    outcome = on_temporal(temporal_address, [agent], "leaky", "go", permissions=redacting)
    assert secret not in outcome.result.output
    assert all(secret not in repr(event) for event in outcome.streamed)
    assert "the key is" in outcome.result.output


def test_a_worker_refuses_an_approval_handler() -> None:
    """On Temporal a human answers through `RunHandle.decide`: a handler is refused, saying so."""

    async def handler(request: object) -> Approve:
        return Approve()

    with pytest.raises(ValueError, match=r"approval_handler.*RunHandle\.decide"):
        HelikonWorker(None, "q", agents=[ops(None)], permissions=Permissions(approval_handler=handler))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="permissions must be a Permissions or None, got 'plan'"):
        HelikonWorker(None, "q", agents=[ops(None)], permissions="plan")  # type: ignore[arg-type]


def test_a_client_refuses_permissions_that_are_not_a_config() -> None:
    """`start(permissions=...)` takes data only; a `Permissions` (with callables) is refused before anything starts."""
    client = HelikonClient(None, "q")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="permissions must be a PermissionConfig or None"):
        asyncio.run(client.start("ops", "go", permissions=Permissions()))  # type: ignore[arg-type]
