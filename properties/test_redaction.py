"""Law: no configured secret ever survives redaction, in text or in any JSON value; redaction is idempotent."""

from __future__ import annotations

from hypothesis import given, strategies as st
from properties.strategies import json_values

from helikon_fc.core import JsonValue, redact_json, redact_text
from helikon_fc.core.redaction import is_secret_value

SECRET_ALPHABET = st.sampled_from("ab*=: _\n\"'é🔑0123456789XYZ")
SECRETS = st.lists(st.text(SECRET_ALPHABET, min_size=1, max_size=14), min_size=1, max_size=4)


@st.composite
def texts_with_secrets(draw: st.DrawFn) -> tuple[str, list[str]]:
    """Secrets, and a text made of pieces of them, whole copies of them and filler, so they overlap and touch."""
    secrets = draw(SECRETS)
    pieces = st.sampled_from(secrets) | st.text(SECRET_ALPHABET, max_size=6)
    fragments = st.sampled_from(secrets).flatmap(lambda s: st.integers(0, len(s)).map(lambda n: s[:n]))
    text = "".join(draw(st.lists(pieces | fragments, max_size=12)))
    return text, secrets


def _leaves(value: JsonValue) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in (key, *_leaves(item))]
    return []


@given(case=texts_with_secrets())
def test_no_configured_secret_survives_in_text(case: tuple[str, list[str]]) -> None:
    """For any text and secrets, no secret that counts (long enough, not digits, not excluded) appears in the
    redacted text, and redacting twice changes nothing more."""
    text, secrets = case
    redacted = redact_text(text, secrets)
    for secret in secrets:
        if is_secret_value(secret):
            assert secret not in redacted
    assert redact_text(redacted, secrets) == redacted


@given(value=json_values(), secrets=SECRETS, data=st.data())
def test_no_configured_secret_survives_in_json(value: JsonValue, secrets: list[str], data: st.DataObject) -> None:
    """For any JSON value with secrets planted in its strings and keys, no secret that counts appears in any
    string leaf or key of the redacted value."""
    planted: JsonValue = {data.draw(st.sampled_from(secrets)): [value, data.draw(st.sampled_from(secrets)) + "tail"]}
    redacted = redact_json(planted, secrets)
    for leaf in _leaves(redacted):
        for secret in secrets:
            if is_secret_value(secret):
                assert secret not in leaf


@given(text=st.text(st.sampled_from("abc XYZ.,-\n"), max_size=40))
def test_text_with_nothing_secret_is_unchanged(text: str) -> None:
    """Text with no assignment separator and no known secret passes through unchanged."""
    assert redact_text(text, ()) == text


# Secrets starting with "Z": the outer one ends with "Z", so two inner ones in a row hold an outer one across them.
SECRET_CHARS = st.text(st.sampled_from("abXYZé🔑_"), min_size=7, max_size=11).map(lambda rest: "Z" + rest)
FILLER = st.text(st.sampled_from(" -.,\n"), max_size=3)


@given(inner=SECRET_CHARS, prefix=st.text(st.sampled_from("abXYZ"), max_size=3), data=st.data())
def test_overlapping_secrets_leak_no_part_of_either(inner: str, prefix: str, data: st.DataObject) -> None:
    """When one secret contains another and their occurrences touch or overlap, every character of every occurrence
    is masked: no end of either is left beside a mask."""
    outer = prefix + inner + "Z"
    secrets = data.draw(st.permutations([inner, outer]))
    pieces = data.draw(st.lists(st.sampled_from([inner, outer]), min_size=1, max_size=4))
    text = "".join(data.draw(FILLER) + piece for piece in pieces) + data.draw(FILLER)
    left = redact_text(text, secrets).replace("***", "")
    assert set(left) <= set(" -.,\n")
