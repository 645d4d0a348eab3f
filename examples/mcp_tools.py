"""Tools from an MCP server: the model calls the PyPI server ``mcp-server-time``, started over stdio.

python examples/mcp_tools.py            # offline: the scripted simulator calls the real server's tools
OPENAI_API_KEY=sk-... python examples/mcp_tools.py --model openai:gpt-5-mini

Needs the ``mcp`` extra and the server: ``pip install 'helikon_fc[mcp]' mcp-server-time``.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from _support import needs, pick_model, run_example

from helikon_fc import LlmAgent, RunContext
from helikon_fc.console import print_events
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

with needs("pip install 'helikon_fc[mcp]' mcp-server-time"):
    from helikon_fc.mcp import MCPServerStdio

QUESTION = "It is 14:30 in Kolkata. What time is it in Tokyo?"

SCRIPT = ScriptedModel(
    [
        call_tools(call("convert_time", source_timezone="Asia/Kolkata", time="14:30", target_timezone="Asia/Tokyo")),
        reply("When it is 14:30 in Kolkata it is 18:00 in Tokyo, three and a half hours ahead."),
    ],
    name="time-script",
)


def time_server() -> MCPServerStdio:
    """``mcp-server-time`` in UTC: from PATH, or beside this interpreter (a virtualenv that is not activated)."""
    found = shutil.which("mcp-server-time") or shutil.which("mcp-server-time", path=str(Path(sys.executable).parent))
    if found is None:
        print("mcp_tools.py needs mcp-server-time: pip install mcp-server-time", file=sys.stderr)
        raise SystemExit(1)
    return MCPServerStdio(found, ["--local-timezone", "UTC"])


async def main() -> None:
    server = time_server()
    agent = LlmAgent(
        name="clock",
        model=pick_model(SCRIPT),
        instructions="Answer questions about times and time zones with the time tools.",
        tools=[server],
    )
    async with server:  # one server process for every run inside the block (a run could also open its own)
        async with server.run_tools() as tools:
            print("tools:", ", ".join(tool.name for tool in tools))
        await print_events(agent.run(RunContext.ephemeral(None), QUESTION))


if __name__ == "__main__":
    run_example(main)
