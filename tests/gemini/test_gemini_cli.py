"""``helikon run --model gemini:NAME --base-url URL`` drives a tool loop against the local Gemini server, from a
real subprocess, as a user would from a shell."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import trio
from tests.gemini.conftest import API_KEY
from tests.gemini.gemini_wire import GeminiServer

ROOT = pathlib.Path(__file__).resolve().parents[2]


async def helikon(*args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI", "HTTP"))}
    clean.update(NO_COLOR="1", PYTHONPATH=str(ROOT / "src"), **env)
    command = [sys.executable, "-m", "helikon_fc", "run", *args]
    with trio.fail_after(120):
        return await trio.run_process(
            command, cwd=ROOT, env=clean, capture_stdout=True, capture_stderr=True, check=False
        )


async def test_helikon_run_drives_a_tool_loop_on_gemini(gemini: GeminiServer) -> None:
    """Two model calls: a function call (no id, signed), the tool runs, its result goes back in a function
    response with the call's name and the signature on the call; then the answer is shown and the run exits 0."""
    gemini.enqueue("spending_call")
    gemini.enqueue("spending_answer")
    done = await helikon(
        "tests/cli/cli_agents.py:build",
        "How much on dining?",
        "--model",
        "gemini:gemini-2.5-flash",
        "--base-url",
        gemini.root,
        "--api-key-env",
        "MY_GEMINI_KEY",
        MY_GEMINI_KEY=API_KEY,
    )
    stdout = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert '-> get_spending {"category":"dining"}' in stdout
    assert "You spent $212 on dining." in stdout
    first, second = gemini.requests
    assert first.body["systemInstruction"] == {"parts": [{"text": "Answer briefly."}]}
    model_turn, results = second.body["contents"][1:]  # type: ignore[index]
    assert model_turn == {
        "role": "model",
        "parts": [
            {
                "functionCall": {"name": "get_spending", "args": {"category": "dining"}},
                "thoughtSignature": "c2lnLXNwZW5kaW5n",
            }
        ],
    }
    assert results == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "get_spending", "response": {"output": "212"}}}],
    }


async def test_helikon_run_with_gemini_and_no_key_is_a_usage_error() -> None:
    """Without a key for Google's servers the command names the variables to set and exits 2."""
    done = await helikon("tests/cli/cli_agents.py:build", "hi", "--model", "gemini:gemini-2.5-flash")
    assert done.returncode == 2
    assert "no API key; set GOOGLE_API_KEY or GEMINI_API_KEY" in done.stderr.decode()


async def test_an_example_runs_on_gemini_with_its_model_option(gemini: GeminiServer) -> None:
    """``python examples/budget_assistant.py --model gemini:NAME --base-url URL`` runs the example's agent on
    the local Gemini server (the examples build their model with `model_from_name`, as ``helikon run`` does)."""
    gemini.enqueue("spending_call")
    gemini.enqueue("spending_answer")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE", "OPENAI", "HTTP"))}
    clean.update(NO_COLOR="1", PYTHONPATH=str(ROOT / "src"), GEMINI_API_KEY=API_KEY)
    command = [sys.executable, "examples/budget_assistant.py", "--model", "gemini:gemini-2.5-flash"]
    with trio.fail_after(120):
        done = await trio.run_process(
            [*command, "--base-url", gemini.root], cwd=ROOT, env=clean, capture_stdout=True, capture_stderr=True
        )
    assert "You spent $212 on dining." in done.stdout.decode()
    assert len(gemini.requests) == 2
    assert "budgeting assistant" in str(gemini.requests[0].body["systemInstruction"])
