"""Redaction on Temporal is the trio runner's: a tool's JSON output (in the tool activity) and an agent-as-tool's
answer (in the finishing activity) stay JSON, with secret-named keys masked at every depth, event for event as
on trio."""

from __future__ import annotations

import json

from tests.control.leaky import CONFIGURED, HIDDEN, OUTPUT, REDACTED, ReturningTool

from helikon_fc import AgentAsTool, LlmAgent, RunContext
from helikon_fc.core import ModelRequest, RedactionConfig, ToolResult, to_json
from helikon_fc.shell.control.permissions import Permissions
from helikon_fc.shell.tools.tool import Tool
from helikon_fc.testing import FunctionModel, ScriptedModel, call, call_tools, reply, simulate
from helikon_fc.testing.script import ScriptedTurn

from .harness import on_temporal, without_deltas

ANSWER = '{"ci":{"GITHUB_TOKEN":"ghp-nested-7777"},"ok":true}'
"""What the agent-as-tool answers: JSON with a secret-named key."""


def _echo(request: ModelRequest) -> ScriptedTurn:
    """Calls the JSON tool and the sub-agent, then answers with what each returned, one per line."""
    results = [item.output for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(call("inspect").with_id("c1"), call("reporter", input="go").with_id("c2"))
    return reply("\n".join(results))


def _agent() -> LlmAgent[None]:
    reporter = LlmAgent(name="reporter", model=ScriptedModel([reply(ANSWER)]))
    tools: list[Tool[None]] = [ReturningTool("inspect", OUTPUT), AgentAsTool(reporter)]
    return LlmAgent(name="ops", model=FunctionModel(_echo), tools=tools)


def test_json_output_stays_json_with_every_secret_masked_as_on_trio(temporal_address: str) -> None:
    """Both tool results reach the model as redacted JSON; no secret is in any event; the events equal trio's."""
    permissions = Permissions(redaction=RedactionConfig(secrets=(CONFIGURED,)))
    outcome = on_temporal(temporal_address, [_agent()], "ops", "go", permissions=permissions)
    tool, sub = outcome.result.output.split("\n")
    assert json.loads(tool) == REDACTED
    assert json.loads(sub) == {"ci": {"GITHUB_TOKEN": "***"}, "ok": True}
    for event in outcome.streamed:
        assert not any(secret in to_json(event) for secret in HIDDEN), event
    trio = simulate(_agent(), "go", RunContext.ephemeral(None).with_permissions(permissions))
    assert outcome.events == without_deltas(trio.events)
