"""The agent-loop examples run offline, on the simulator, as ``python examples/<name>.py``."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import trio

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


async def run_example(name: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run an example in a fresh interpreter with no API key (so it must use the simulator)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENAI_")}
    return await trio.run_process(
        [sys.executable, str(EXAMPLES / name), *args], env=env, capture_stdout=True, capture_stderr=True, check=False
    )


async def test_budget_assistant_answers_from_its_tools() -> None:
    """The budget assistant prints the scripted answer built on its two tool results, and notes the simulator."""
    done = await run_example("budget_assistant.py")
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode().splitlines()
    assert out == [
        "You have spent $212 of your $300 dining budget this month, so $88 is left. You are on track.",
        "(2 model calls, 20 input + 10 output tokens)",
    ]
    assert "scripted simulator" in done.stderr.decode()


async def test_streaming_tokens_prints_turns_tools_and_tokens_live() -> None:
    """The streaming example prints each turn, the tool call and its result, the streamed text and the usage."""
    done = await run_example("streaming_tokens.py")
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode().splitlines()
    assert out[:4] == [
        "[turn 0]",
        "  -> spending_by_category({})",
        '  <- {"dining":212,"groceries":380,"transport":96}',
        "[turn 1]",
    ]
    assert out[4].startswith("This month you spent $688 in total")
    assert out[5] == "[done: 2 model calls, 30 tokens]"


async def test_a_bad_model_flag_is_a_clear_usage_error() -> None:
    """``--model`` that is not ``openai:<name>`` fails with a usage message (a real model was asked for)."""
    done = await run_example("budget_assistant.py", "--base-url", "http://127.0.0.1:9/v1", "--model", "gpt")
    assert done.returncode == 2
    assert "--model must look like openai:<name>" in done.stderr.decode()
