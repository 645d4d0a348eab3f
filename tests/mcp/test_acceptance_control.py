"""Acceptance: permission rules, redaction and ACCEPT_EDITS see MCP calls by the name the model calls
(after a prefix), exactly as for function tools."""

from __future__ import annotations

from pathlib import Path

from tests.mcp.servers import fault_server, results, run_to_end

from helikon_fc import LlmAgent, Permissions, RunCompleted, RunContext
from helikon_fc.core import PermissionDenied
from helikon_fc.permissions import PermissionConfig, RedactionConfig, ToolRule
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


def _ctx(config: PermissionConfig, secrets: tuple[str, ...] = ()) -> RunContext[None]:
    permissions = Permissions(config=config, redaction=RedactionConfig(secrets=secrets))
    return RunContext.ephemeral(None).with_permissions(permissions)


async def test_a_deny_rule_names_the_prefixed_tool_and_only_that_one_is_refused(tmp_path: Path) -> None:
    """``ToolRule("fs_echo")`` refuses the server's ``echo`` offered as ``fs_echo``; ``fs_data`` runs."""
    model = ScriptedModel([call_tools(call("fs_echo", text="x"), call("fs_data")), reply("done")])
    agent = LlmAgent(name="a", model=model, tools=[fault_server("serve", tmp_path, prefix="fs_")])
    events = await run_to_end(agent, "go", _ctx(PermissionConfig(deny=(ToolRule("fs_echo"),))))
    assert [event.tool for event in events if isinstance(event, PermissionDenied)] == ["fs_echo"]
    echoed, data = results(events)
    assert echoed.is_error and "fs_echo" in str(echoed.output) and not data.is_error


async def test_a_known_secret_in_an_mcp_result_is_redacted_before_the_model_reads_it(tmp_path: Path) -> None:
    """The server echoes a secret and an assignment; the model, and the events, read them masked."""
    text = "db pass hunter2-db-pass\nDEPLOY_TOKEN=abc123"
    model = ScriptedModel([call_tools(call("echo", text=text)), reply("done")])
    agent = LlmAgent(name="a", model=model, tools=[fault_server("serve", tmp_path)])
    events = await run_to_end(agent, "go", _ctx(PermissionConfig(), ("hunter2-db-pass",)))
    assert isinstance(events[-1], RunCompleted)
    (echoed,) = results(events)
    assert echoed.output == "db pass ***\nDEPLOY_TOKEN=***"
    seen = repr(model.requests[-1])  # the model's own call still holds the secret: only the result is masked
    assert "db pass ***" in seen and seen.count("hunter2") == 1
