"""``helikon run --model anthropic:NAME --base-url URL`` drives a tool loop against the local Messages API server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest
from tests.anthropic.anthropic_wire import AnthropicWire

from helikon_fc.anthropic import AnthropicModel
from helikon_fc.cli.model_option import ModelOptionError, model_from_options

ROOT = Path(__file__).resolve().parents[2]


def helikon(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI of this tree in a subprocess, without any provider key in its environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "ANTHROPIC", "HTTP"))}
    env.update(NO_COLOR="1", PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "helikon_fc", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
        check=False,
    )


def test_helikon_run_drives_a_tool_loop_on_claude(messages_wire: AnthropicWire) -> None:
    """The budget agent calls its tool over the Messages API, gets the result back in turn 2, and answers."""
    messages_wire.enqueue("cli_spending_call")
    messages_wire.enqueue("cli_spending_answer")
    done = helikon(
        "run",
        "tests/cli/cli_agents.py:budget",
        "How much on dining?",
        "--model",
        "anthropic:claude-sonnet-4-5",
        "--base-url",
        messages_wire.base_url,
    )
    assert done.returncode == 0, done.stderr
    assert '-> get_spending {"category":"dining"}' in done.stdout
    assert "budget: You spent $212." in done.stdout
    first, second = (cast(dict[str, Any], body) for body in messages_wire.bodies())
    assert first["model"] == "claude-sonnet-4-5"
    assert second["messages"][-1]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_cli1", "content": "212"}]


def test_the_model_option_builds_an_anthropic_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """``anthropic:NAME`` is a known provider; without a key or a base URL it says to set ANTHROPIC_API_KEY."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    model = model_from_options("anthropic:claude-haiku-4-5", base_url="http://127.0.0.1:9")
    assert isinstance(model, AnthropicModel) and model.name == "claude-haiku-4-5"
    with pytest.raises(ModelOptionError, match="set ANTHROPIC_API_KEY"):
        model_from_options("anthropic:claude-haiku-4-5")
