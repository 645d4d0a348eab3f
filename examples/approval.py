"""A run that stops for a human: it pauses on a dangerous command, its process exits, another resumes it.

    python examples/approval.py

The agent cleans up a build folder with three shell commands in one turn. The built-in guards let
``ls`` through but stop ``rm -rf /`` and ``rm -rf ~``: with no approval handler the run *pauses*
(`RunPaused`, not a failure), recorded in SQLite, and the first process (a child) exits. This process
then resumes the run with a decision per waiting call — one approved with safer arguments (checked
again), one rejected — and the run finishes: the approved call runs, the rejected one is answered
``permission denied: <reason>``. The tool's output is redacted on the way (a token it prints never
reaches the model, the events or the store). It runs on the scripted simulator: no key, no network.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import trio
from _support import pick_model

from helikon_fc import (
    AgentInput,
    Approve,
    LlmAgent,
    Model,
    Permissions,
    Reject,
    RunContext,
    RunError,
    Runner,
    RunResultStreaming,
    function_tool,
)
from helikon_fc.core import ModelRequest, RedactionConfig, ToolResult
from helikon_fc.stores import SQLiteStore
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply

RUN_ID = "cleanup"
TOKEN = "tok-8c1f27d9e4"
COMMANDS = {"list": "ls build/", "wipe": "rm -rf /", "home": "rm -rf ~"}


@function_tool(name="Bash")
async def bash(command: str) -> str:
    """Run a shell command (here: pretend to).

    Args:
        command: the command line.
    """
    return f"$ {command}\nok (deploy token {TOKEN})"


def build(model_args: list[str]) -> LlmAgent[None]:
    """The housekeeping agent: three commands in one turn, then a summary of what came back."""

    def turn(request: ModelRequest) -> ScriptedTurn:
        results = [item for item in request.items if isinstance(item, ToolResult)]
        if not results:
            return call_tools(*(call("Bash", command=line).with_id(key) for key, line in COMMANDS.items()))
        return reply("; ".join(f"{result.call_id}: {result.output.splitlines()[-1]}" for result in results))

    model: Model = pick_model(FunctionModel(turn), model_args)
    return LlmAgent(name="housekeeping", model=model, tools=[bash], instructions="Clean up the build folder.")


def context() -> RunContext[None]:
    """The built-in guards ask about destructive commands; the token is a known secret."""
    return RunContext.ephemeral(None).with_permissions(Permissions(redaction=RedactionConfig(secrets=(TOKEN,))))


async def first_process(db: Path, model_args: list[str]) -> None:
    """Start the run; it pauses, and this process ends."""
    async with SQLiteStore(db) as store:
        stream = Runner(store=store).run(
            build(model_args), context(), AgentInput.from_user_text("Tidy up."), run_id=RUN_ID
        )
        result = await RunResultStreaming(stream).collect()
        print(json.dumps([[request.call_id, request.args] for request in result.pending]))


async def second_process(db: Path, model_args: list[str]) -> None:
    """Resume the paused run with the human's decisions."""
    async with SQLiteStore(db) as store:
        print(f"status: {(await store.run_summary(RUN_ID)).status}")
        decisions = {
            "wipe": Approve(arguments=json.dumps({"command": "rm -rf build/"})),
            "home": Reject("never the home directory"),
        }
        print("decisions: wipe approved as `rm -rf build/`, home rejected")
        stream = Runner(store=store).resume(RUN_ID, build(model_args), context(), approvals=decisions)
        result = await RunResultStreaming(stream).collect()
        print(result.final_output)
        print(f"status: {(await store.run_summary(RUN_ID)).status}")


def main() -> None:
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        try:
            trio.run(first_process, Path(sys.argv[2]), sys.argv[3:])
        except RunError as exc:  # as `_support.run_example`: a failed run is one line, never a traceback
            print(f"run failed: {exc}", file=sys.stderr)
            raise SystemExit(1) from None
        return
    model_args = sys.argv[1:]
    pick_model(FunctionModel(lambda request: reply("")), model_args)  # a bad --model exits 2 before anything runs
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "runs.db"
        child = subprocess.run(
            [sys.executable, __file__, "--child", str(db), *model_args], capture_output=True, text=True, check=False
        )
        if child.returncode != 0:
            sys.stderr.write(child.stderr)
            raise SystemExit(child.returncode)
        waiting = json.loads(child.stdout.splitlines()[-1])
        print(f"first process exited; the run waits for approval of {len(waiting)} call(s):")
        for call_id, args in waiting:
            print(f"  {call_id}: {args}")
        try:
            trio.run(second_process, db, model_args)
        except RunError as exc:  # as `_support.run_example`: a failed run is one line, never a traceback
            print(f"run failed: {exc}", file=sys.stderr)
            raise SystemExit(1) from None


if __name__ == "__main__":
    main()
