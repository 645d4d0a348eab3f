"""The shell's redaction: secrets from the environment and configuration, masked in tool output."""

from __future__ import annotations

from helikon_fc.core import RedactionConfig
from helikon_fc.shell.redaction import known_secrets, redact_tool_output
from helikon_fc.shell.tool import ToolOutput

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
