"""The examples run against an OpenAI-compatible server with ``--model openai:<name> --base-url``."""

from __future__ import annotations

import os
import pathlib
import sys

import trio
from tests.openai.openai_wire import WireServer

ROOT = pathlib.Path(__file__).resolve().parents[2]


async def test_streaming_tokens_example_runs_over_the_wire(wire: WireServer) -> None:
    """No key, a base URL: the example calls the server twice, runs its tool, and prints the streamed answer."""
    wire.enqueue("chat", "examples/spending_call")
    wire.enqueue("chat", "text_stream")
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENAI_")}
    command = [
        sys.executable,
        str(ROOT / "examples" / "streaming_tokens.py"),
        "--model",
        "openai:gpt-5-mini",
        "--base-url",
        wire.base_url,
    ]
    with trio.fail_after(60):
        done = await trio.run_process(command, cwd=ROOT, env=env, capture_stdout=True, capture_stderr=True, check=False)
    stdout = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert "-> spending_by_category({})" in stdout
    assert "Hello, world!" in stdout
    assert "[done: 2 model calls, 32 tokens]" in stdout
    assert [(r.path, r.body["model"]) for r in wire.requests] == [("/v1/chat/completions", "gpt-5-mini")] * 2
    assert "simulator" not in done.stderr.decode()
