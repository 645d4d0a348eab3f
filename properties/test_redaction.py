"""Law: no configured secret ever survives redaction, in text or in any JSON value, nor the value of a
secret-named key at any depth; JSON text stays JSON of the same shape; redaction is idempotent."""

from __future__ import annotations

import json

from hypothesis import given, strategies as st
from properties.redaction_strategies import json_values_with_secrets
from properties.strategies import json_values

from helikon_fc.core import JsonValue, redact_json, redact_output, redact_text
from helikon_fc.core.redaction import MASK, is_secret_name, is_secret_value

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


def _shape(value: JsonValue) -> object:
    """The containers of `value` and where its leaves are, without the leaves or the keys."""
    if isinstance(value, dict):
        return {"object": [_shape(item) for item in value.values()]}
    if isinstance(value, list):
        return {"array": [_shape(item) for item in value]}
    return "leaf"


def _hidden_leaves(original: JsonValue, redacted: JsonValue, hidden: bool = False) -> list[JsonValue]:
    """The leaves of `redacted` that stand where `original` has a value under a secret-named key."""
    if isinstance(original, dict) and isinstance(redacted, dict):
        pairs = zip(original.items(), redacted.values(), strict=True)
        return [leaf for (key, a), b in pairs for leaf in _hidden_leaves(a, b, hidden or is_secret_name(key))]
    if isinstance(original, list) and isinstance(redacted, list):
        return [leaf for a, b in zip(original, redacted, strict=True) for leaf in _hidden_leaves(a, b, hidden)]
    return [redacted] if hidden and original is not None and original != "" and str(original).strip() else []


def _render(value: JsonValue) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@given(case=json_values_with_secrets())
def test_redacted_json_text_is_json_of_the_same_shape(case: tuple[JsonValue, list[str]]) -> None:
    """For any JSON value with secrets planted at any depth, its rendered text redacted is JSON again, with the
    same containers, as many keys and items in the same order, and a leaf wherever there was a leaf."""
    value, secrets = case
    redacted = json.loads(redact_output(_render(value), secrets))
    assert _shape(redacted) == _shape(value)


@given(case=json_values_with_secrets())
def test_no_secret_nor_secret_named_value_survives_in_json_text(case: tuple[JsonValue, list[str]]) -> None:
    """No secret that counts is in the redacted text, nor in any key or string leaf once decoded; every leaf under
    a secret-named key, at any depth, is the mask (unless it was null or blank); redacting again changes nothing."""
    value, secrets = case
    text = redact_output(_render(value), secrets)
    redacted = json.loads(text)
    counting = [secret for secret in secrets if is_secret_value(secret)]
    assert not any(secret in text for secret in counting)
    assert not any(secret in leaf for leaf in _leaves(redacted) for secret in counting)
    assert all(leaf == MASK for leaf in _hidden_leaves(value, redacted))
    assert redact_output(text, secrets) == text
