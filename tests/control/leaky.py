"""A tool whose JSON output holds secrets at every depth, and what the run's redaction makes of it."""

from __future__ import annotations

import attrs
import trio

from helikon_fc.core import JsonObject, JsonValue
from helikon_fc.shell.tools.tool import ToolContext, ToolOutput


@attrs.frozen
class ReturningTool:
    """A tool that returns `output`, whatever it is called with."""

    name: str
    output: JsonValue
    description: str = "Returns its output."

    @property
    def parameters(self) -> JsonObject:
        return {"type": "object"}

    async def invoke(self, ctx: ToolContext[None], arguments: JsonObject) -> ToolOutput:
        await trio.lowlevel.checkpoint()
        return ToolOutput(self.output)


CONFIGURED = "cfg-secret-0042"
OUTPUT: JsonValue = {
    "env": ["DEPLOY_TOKEN=abc123-deploy"],
    "region": "eu",
    "url": "postgres://app:SECRET@db",
    "ci": {"GITHUB_TOKEN": "ghp-nested-7777", "steps": [{"db_password": "hunter2-pass"}]},
    "note": f"uses {CONFIGURED}",
}
REDACTED: JsonValue = {
    "env": ["DEPLOY_TOKEN=***"],
    "region": "eu",
    "url": "postgres://app:SECRET@db",
    "ci": {"GITHUB_TOKEN": "***", "steps": [{"db_password": "***"}]},
    "note": "uses ***",
}
HIDDEN = ("abc123-deploy", "ghp-nested-7777", "hunter2-pass", CONFIGURED)
