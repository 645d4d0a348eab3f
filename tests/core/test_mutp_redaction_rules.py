"""Secret redaction at the edges of its two passes (`helikon_fc.core.redaction`'s module docstring)."""

from __future__ import annotations

import pytest

from helikon_fc.core.json_value import JsonValue
from helikon_fc.core.redaction import (
    MASK,
    MIN_SECRET_BYTES,
    RedactionConfig,
    is_secret_name,
    is_secret_value,
    redact_json,
    redact_known,
    redact_text,
    secrets_from_environment,
)


@pytest.mark.parametrize(
    ("line", "redacted"),
    [
        ("export GITHUB_TOKEN=abc  \n", "export GITHUB_TOKEN=***  \n"),
        ("GITHUB_TOKEN:abc", "GITHUB_TOKEN:***"),
        ("x my_secret=\tv\t", "x my_secret= ***\t"),
        ('  "api_token": "v",', '  "api_token": ***'),
        ("[DB_PASSWORD]=hunter2", "[DB_PASSWORD]=***"),
        ("AWS_CREDENTIAL=x", "AWS_CREDENTIAL=***"),
        ("OPENAI_API_KEY = sk", "OPENAI_API_KEY = ***"),
    ],
)
def test_a_secret_assignment_keeps_its_key_one_leading_space_and_the_trailing_whitespace(
    line: str, redacted: str
) -> None:
    assert redact_text(line) == redacted


@pytest.mark.parametrize(
    "line",
    [
        "a=1 GITHUB_TOKEN: x",  # the first "=" decides: its key is "a"
        "GITHUB_TOKEN=",
        "GITHUB_TOKEN=   \n",  # an empty value is left alone
        "=x",
        ": x",
        "no separator here",
        "TOKEN=x",  # the suffix needs its underscore
        "GITHUB_TOKENS=x",
    ],
)
def test_lines_that_are_not_secret_assignments_are_left_alone(line: str) -> None:
    assert redact_text(line) == line


def test_a_colon_counts_only_on_a_line_without_an_equals_sign() -> None:
    assert redact_text("API_TOKEN: a=b") == "API_TOKEN: a=b"
    assert redact_text("API_TOKEN: ab") == "API_TOKEN: ***"


@pytest.mark.parametrize(
    ("name", "secret"),
    [("openai_api_key", True), ('"X_SECRET"', True), ("(MY_TOKEN),", True), ("SECRET", False), ("HOME", False)],
)
def test_secret_names_by_suffix_without_quotes_or_brackets(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_secret_values_by_length_in_bytes_digits_and_exclusions() -> None:
    assert MIN_SECRET_BYTES == 8
    assert is_secret_value("abcdefgh") and not is_secret_value("abcdefg")
    assert is_secret_value("\u00e9\u00e9\u00e9\u00e9")  # four characters, eight bytes
    assert not is_secret_value("12345678") and is_secret_value("1234567x")
    assert is_secret_value("TRUExxxx")


def test_every_occurrence_and_every_overlap_is_masked() -> None:
    assert redact_known("abcdefgh abcdefgh", ["abcdefgh"]) == "*** ***"
    assert redact_known("xxabcdefghijklyy", ["abcdefgh", "efghijkl"]) == f"xx{MASK}yy"
    assert redact_known("aaaaaaaaa", ["aaaaaaaa"]) == MASK
    assert redact_known("\u00e9\u00e9\u00e9\u00e9x", ["\u00e9\u00e9\u00e9\u00e9"]) == "***x"


def test_masking_is_repeated_until_no_secret_is_left() -> None:
    """A mask can complete another secret (one that starts with ``*``): it is masked in the next round."""
    assert redact_known("aaaaaaaa1bbbbbbbb", ["aaaaaaaa1", "*bbbbbbbb"]) == "*****"


def test_values_that_do_not_count_are_never_masked() -> None:
    assert redact_known("abcdefg 12345678 prod", ["abcdefg", "12345678", "prod"]) == "abcdefg 12345678 prod"
    assert redact_known("", ["abcdefgh"]) == ""


def test_json_leaves_get_both_passes_and_keys_only_the_known_secrets() -> None:
    value: JsonValue = {
        "sk-live-123456": ["API_TOKEN=abc", {"k": "use sk-live-123456"}],
        "MY_TOKEN=key": 3,
        "n": None,
        "b": True,
    }
    assert redact_json(value, ["sk-live-123456"]) == {
        "***": ["API_TOKEN=***", {"k": "use ***"}],
        "MY_TOKEN=key": 3,
        "n": None,
        "b": True,
    }
    assert redact_json("GH_TOKEN=x") == "GH_TOKEN=***"
    assert redact_json(1.5, ["sk-live-123456"]) == 1.5


def test_environment_secrets_are_sorted_unique_and_filtered() -> None:
    env = {
        "A_TOKEN": "zzzzzzzzzz",
        "B_TOKEN": "aaaaaaaaaa",
        "C_TOKEN": "zzzzzzzzzz",
        "D_TOKEN": "short",
        "HOME": "/h/x/yy",
    }
    assert secrets_from_environment(env) == ("aaaaaaaaaa", "zzzzzzzzzz")


def test_the_config_refuses_a_string_or_non_strings_and_appends_secrets() -> None:
    with pytest.raises(TypeError, match="secrets must be a sequence of strings"):
        RedactionConfig(secrets="abcdefgh")
    with pytest.raises(TypeError, match="secrets must be a sequence of strings"):
        RedactionConfig(secrets=["abcdefgh", 3])  # type: ignore[list-item]
    config = RedactionConfig(secrets=["first-secret"]).with_secrets(["second-secret"])
    assert config.secrets == ("first-secret", "second-secret") and config.enabled
    assert RedactionConfig(enabled=False).secrets == ()


def test_a_line_without_separator_is_never_an_assignment() -> None:
    """No ``=`` and no ``:``: nothing is masked, even when the text ends just after a secret-looking name."""
    assert redact_text("see MY_TOKEN.") == "see MY_TOKEN."
    assert redact_text("GITHUB_TOKEN x") == "GITHUB_TOKEN x"
