"""Redaction of secrets in tool output (original-notes section 8, "Redaction")."""

from __future__ import annotations

import pytest

from helikon_fc.core import JsonValue, RedactionConfig, redact_json, redact_text, secrets_from_environment
from helikon_fc.core.redaction import is_secret_name, is_secret_value


@pytest.mark.parametrize(
    ("line", "redacted"),
    [
        ("OPENAI_API_KEY=sk-abc123", "OPENAI_API_KEY=***"),
        ("export GITHUB_TOKEN=ghp_x", "export GITHUB_TOKEN=***"),
        ("DB_PASSWORD: hunter2", "DB_PASSWORD: ***"),
        ("db_password = hunter2  ", "db_password = ***  "),
        ("AWS_SECRET=abc\n", "AWS_SECRET=***\n"),
        ("GCP_CREDENTIAL:   x y z", "GCP_CREDENTIAL: ***"),
        ("MY_TOKEN=", "MY_TOKEN="),
        ("MY_TOKEN=   ", "MY_TOKEN=   "),
        ("PASSWORD=hunter2", "PASSWORD=hunter2"),
        ("TOKENS=5", "TOKENS=5"),
        ("url: http://x/?api_token=abc", "url: http://x/?api_token=***"),
        ("note API_KEY_HINT=abc", "note API_KEY_HINT=abc"),
        ('"GITHUB_TOKEN": "ghp_x"', '"GITHUB_TOKEN": ***'),
        ("no assignment here", "no assignment here"),
    ],
)
def test_secret_assignments_are_masked(line: str, redacted: str) -> None:
    """Rule: "per line, first = then :; key = last whitespace token before it; key upper-cased ending
    _API_KEY/_TOKEN/_SECRET/_PASSWORD/_CREDENTIAL -> value becomes *** (keep one leading space and trailing
    whitespace; empty value untouched)"; beyond the original, a quoted key counts too."""
    assert redact_text(line) == redacted


def test_assignments_are_read_line_by_line() -> None:
    """Each line has its own assignment; the others are untouched."""
    text = "user=ann\nAPI_TOKEN=abc\r\nhost: db\n"
    assert redact_text(text) == "user=ann\nAPI_TOKEN=***\r\nhost: db\n"


def test_known_secrets_are_replaced_wherever_they_appear() -> None:
    """Rule: "then literal replacement of known secrets (env vars with those suffixes + extra_secrets)"."""
    assert redact_text("connecting with s3cr3t-value-42 now", ["s3cr3t-value-42"]) == "connecting with *** now"


@pytest.mark.parametrize("value", ["short", "1234567890", "TRUE", "false", "dev", "PROD", "test", "None", "null"])
def test_values_that_are_too_common_are_not_secrets(value: str) -> None:
    """Rule: "if >= 8 bytes and not true/false/dev/prod/test/none/null/all-digits"."""
    assert not is_secret_value(value)
    assert redact_text(f"value {value} here", [value]) == f"value {value} here"


def test_the_minimum_length_counts_bytes() -> None:
    """Eight UTF-8 bytes, not characters: two four-byte characters are long enough."""
    assert is_secret_value("\U0001f511\U0001f511")
    assert not is_secret_value("abcdefg")


def test_a_secret_containing_another_is_masked_whole() -> None:
    """A secret that contains another is masked whole, so no tail of it leaks."""
    assert redact_text("x abcdefgh-and-more y", ["abcdefgh", "abcdefgh-and-more"]) == "x *** y"


def test_overlapping_occurrences_are_masked_as_one_run() -> None:
    """Differs from the original (one secret after another): occurrences that overlap across a boundary are masked
    together, so masking the longer one first cannot leave the end of the other."""
    assert redact_text("ZXXXXXXXZXXXXXXX!", ["ZXXXXXXX", "ZXXXXXXXZ"]) == "***!"


def test_secrets_come_from_the_environment_by_name() -> None:
    """Rule: known secrets are "env vars with those suffixes": only secret-named, secret-looking values."""
    env = {"OPENAI_API_KEY": "sk-live-123456", "HOME": "/home/ann", "CI_TOKEN": "true", "X_SECRET": "zzzzzzzzzz"}
    assert secrets_from_environment(env) == ("sk-live-123456", "zzzzzzzzzz")
    assert is_secret_name("openai_api_key") and not is_secret_name("HOME")


def test_json_output_is_redacted_per_string_leaf() -> None:
    """Rule: "per string leaf"; keys are not scanned for assignments, but known secrets in keys are masked
    (beyond the original, which never looked at keys), and so is the value of a secret-named key."""
    value: JsonValue = {"env": ["API_TOKEN=abc", 7, None], "k-sk-live-123456": "sk-live-123456", "API_TOKEN": "plain"}
    assert redact_json(value, ["sk-live-123456"]) == {
        "env": ["API_TOKEN=***", 7, None],
        "k-***": "***",
        "API_TOKEN": "***",
    }


def test_the_config_collects_secrets_as_a_frozen_value() -> None:
    """`RedactionConfig` is data that crosses handoffs; bad secrets are refused at construction."""
    config = RedactionConfig().with_secrets(["a-long-secret"])
    assert config.secrets == ("a-long-secret",) and config.enabled
    with pytest.raises(TypeError, match="secrets must be a sequence of strings"):
        RedactionConfig(secrets="abc")
