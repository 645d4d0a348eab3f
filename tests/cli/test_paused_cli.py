"""A run that paused for approval (`RunPaused`) through ``helikon replay`` and ``helikon runs show``: it
renders as a pause naming the waiting calls, and replay exits 3 (paused), neither 0 nor 1."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from helikon_fc import AgentInput, LlmAgent, Permissions, RunContext, Runner, function_tool
from helikon_fc.cli import main
from helikon_fc.cli.terminal import EXIT_PAUSED
from helikon_fc.core import AgentEvent, RunPaused, to_json
from helikon_fc.stores import SQLiteStore
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

RUN_ID = "cleanup"


@function_tool(name="Bash")
async def bash(command: str) -> str:
    """Run a shell command (here: pretend to).

    Args:
        command: the command line.
    """
    return f"ran {command}"


async def _record_paused_run(db: Path) -> list[AgentEvent]:
    """Run an agent whose destructive command the built-in guards ask about; with no handler it pauses."""
    calls = call("Bash", command="ls build/").with_id("list"), call("Bash", command="rm -rf /").with_id("wipe")
    model = ScriptedModel([call_tools(*calls), reply("done")])
    agent = LlmAgent(name="housekeeping", model=model, tools=[bash])
    ctx = RunContext.ephemeral(None).with_permissions(Permissions())
    events: list[AgentEvent] = []
    async with SQLiteStore(db) as store:
        stream = Runner(store=store).run(agent, ctx, AgentInput.from_user_text("Tidy up."), run_id=RUN_ID)
        async with stream as received:
            async for event in received:
                events.append(event)
    return events


@pytest.fixture
def paused_run(tmp_path: Path) -> tuple[Path, list[AgentEvent]]:
    db = tmp_path / "runs.db"
    events = trio.run(_record_paused_run, db)
    assert isinstance(events[-1], RunPaused), events[-1]
    return db, events


def test_replay_renders_the_pause_and_exits_3(
    paused_run: tuple[Path, list[AgentEvent]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The replayed pause names each waiting call, and the exit status is the paused one (3)."""
    _, events = paused_run
    recording = tmp_path / "events.jsonl"
    recording.write_text("".join(to_json(event) + "\n" for event in events))
    assert main(["replay", str(recording), "--no-color"]) == EXIT_PAUSED == 3
    out = capsys.readouterr().out
    assert "approval requested for Bash" in out
    assert "paused: waiting for approval of Bash (wipe)" in out
    assert "-> Bash" in out and "done" not in out.splitlines()[-1]


def test_runs_show_and_list_say_paused(
    paused_run: tuple[Path, list[AgentEvent]], capsys: pytest.CaptureFixture[str]
) -> None:
    """``runs show --records`` heads the paused run with its status and lists its records; ``runs list`` says paused."""
    db, _ = paused_run
    assert main(["runs", "show", RUN_ID, "--records", "--store", str(db)]) == 0
    shown = capsys.readouterr().out
    headline, *records = shown.splitlines()
    assert headline.startswith(f"run {RUN_ID}  agent housekeeping  paused  ")
    assert records and all(line.split()[0].isdigit() for line in records)
    assert main(["runs", "list", "--store", str(db)]) == 0
    assert "paused" in capsys.readouterr().out.splitlines()[1].split()


def test_runs_show_renders_the_pause_as_replay_does(
    paused_run: tuple[Path, list[AgentEvent]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``runs show`` (without ``--records``) renders the stored paused run as the live view does: the same lines
    ``helikon replay`` prints for its recorded events."""
    db, events = paused_run
    recording = tmp_path / "paused.jsonl"
    recording.write_text("".join(to_json(event) + "\n" for event in events))
    main(["replay", str(recording), "--no-color"])
    replayed = capsys.readouterr().out.splitlines()
    assert main(["runs", "show", RUN_ID, "--store", str(db), "--no-color"]) == 0
    headline, *shown = capsys.readouterr().out.splitlines()
    assert headline.startswith(f"run {RUN_ID}  agent housekeeping  paused  ")
    assert shown == replayed
