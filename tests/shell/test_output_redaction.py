"""The shell's redaction: secrets from the environment and configuration, masked in tool output."""

from __future__ import annotations

import os
from typing import Any

import pytest

from helikon_fc.core import RedactionConfig
from helikon_fc.shell.control.redaction import known_secrets, redact_tool_output
from helikon_fc.shell.tools.tool import ToolOutput

ENV = {"OPENAI_API_KEY": "sk-live-abcdef", "HOME": "/home/ann", "DEBUG_TOKEN": "true"}


def test_known_secrets_come_from_the_environment_and_the_config() -> None:
    """Rule: known secrets are "env vars with those suffixes + extra_secrets", at least 8 bytes, not excluded."""
    config = RedactionConfig(secrets=("configured-secret", "short"))
    assert known_secrets(config, ENV) == ("configured-secret", "sk-live-abcdef")


def test_text_output_is_redacted() -> None:
    """A string output loses its secret assignments and known secret values."""
    output = ToolOutput("key is sk-live-abcdef\nDB_PASSWORD=hunter2\n")
    assert redact_tool_output(output, known_secrets(RedactionConfig(), ENV)) == "key is ***\nDB_PASSWORD=***\n"


def test_json_output_is_redacted_leaf_by_leaf_and_as_text() -> None:
    """A JSON output is redacted per string leaf, then its rendered text once more, so an escaped secret is caught."""
    secrets = ('quote"d-secret', "sk-live-abcdef")
    output = ToolOutput({"env": "OPENAI_API_KEY=sk-live-abcdef", "note": 'quote"d-secret'})
    assert redact_tool_output(output, secrets) == '{"env":"OPENAI_API_KEY=***","note":"***"}'
    escaped = 'a\\"bcdefgh'  # a secret that is the JSON-escaped form of the leaf's text
    assert redact_tool_output(ToolOutput({"raw": 'a"bcdefgh'}), (escaped,)) == '{"raw":"***"}'


def test_the_environment_is_read_once_per_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """Redacting each tool result does not walk ``os.environ`` again: a config reads it on first use, and
    a variable set after that is a secret for a config made afterwards, not for the one already used."""
    monkeypatch.setenv("HELIKON_EARLY_TOKEN", "early-secret-value")
    used = RedactionConfig(secrets=("configured-secret",))
    assert "early-secret-value" in known_secrets(used)
    monkeypatch.setenv("HELIKON_LATE_TOKEN", "late-secret-value")
    assert "late-secret-value" not in known_secrets(used)
    assert "late-secret-value" in known_secrets(RedactionConfig(secrets=("configured-secret",)))
    assert "late-secret-value" in known_secrets(used, dict(os.environ))  # an explicit environment is read as given


def test_a_used_config_does_not_read_the_environment_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost the cache removes: after the first call, no call reads ``os.environ``."""
    config = RedactionConfig()
    first = known_secrets(config)
    reads: list[str] = []

    class Watched(dict[str, str]):
        def items(self) -> Any:
            reads.append("items")
            return super().items()

    monkeypatch.setattr(os, "environ", Watched(os.environ))
    assert [known_secrets(config) for _ in range(3)] == [first] * 3
    assert reads == []
    known_secrets(RedactionConfig())
    assert reads == ["items"]  # a new config does read it (so the watch can see a read)
