"""The agent-loop examples run offline, on the simulator, as ``python examples/<name>.py``."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
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
    """``--model`` that is not ``PROVIDER:NAME`` fails with a usage message (a real model was asked for)."""
    done = await run_example("budget_assistant.py", "--base-url", "http://127.0.0.1:9/v1", "--model", "gpt")
    assert done.returncode == 2
    assert "--model must look like PROVIDER:NAME" in done.stderr.decode()


EXAMPLE_NAMES = sorted(path.name for path in EXAMPLES.glob("[a-z]*.py"))


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
async def test_an_unknown_provider_is_an_error_not_the_simulator(name: str) -> None:
    """``--model`` with a provider that does not exist exits 2 naming it, even with no key set: it never
    falls back to the simulator silently."""
    done = await run_example(name, "--model", "claude:opus")
    assert done.returncode == 2
    assert "unknown provider 'claude'" in done.stderr.decode()
    assert done.stdout == b""


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
async def test_a_failed_run_is_one_line_and_a_non_zero_exit(name: str) -> None:
    """Against a server that is not there (``--base-url`` to a closed port) every example's run fails: it
    prints one ``run failed: ...`` line on stderr, exits 1, and shows no traceback."""
    done = await run_example(name, "--model", "openai:some-model", "--base-url", "http://127.0.0.1:9/v1")
    errors = done.stderr.decode()
    assert done.returncode == 1, errors
    assert "Traceback" not in errors
    failures = [line for line in errors.splitlines() if line.startswith("run failed: ")]
    assert len(failures) == 1, errors


async def test_base_url_without_model_is_an_error() -> None:
    """``--base-url`` alone says where a model is but not which: a usage error, not the simulator."""
    done = await run_example("budget_assistant.py", "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 2
    assert "add --model" in done.stderr.decode()
