"""Redaction of a tool result's text: JSON text stays JSON of the same shape, every secret masked at every depth."""

from __future__ import annotations

import json

import pytest

from helikon_fc.core import JsonValue, redact_json, redact_output

SECRET = "sk-live-123456"


def test_json_text_is_redacted_leaf_by_leaf_and_keeps_every_field() -> None:
    """The issue's tool output: the assignment in the array is masked, the other fields stay, the text stays JSON."""
    text = '{"env":["DEPLOY_TOKEN=abc123"],"region":"eu","url":"postgres://app:SECRET@db"}'
    assert redact_output(text) == '{"env":["DEPLOY_TOKEN=***"],"region":"eu","url":"postgres://app:SECRET@db"}'


def test_a_secret_named_key_is_masked_at_any_depth() -> None:
    """The value of a key named like a secret is masked wherever the key is, in the value and in the text."""
    assert redact_output('{"ci":{"GITHUB_TOKEN":"ghp-abc"}}') == '{"ci":{"GITHUB_TOKEN":"***"}}'
    assert redact_json([{"ci": {"db_password": "hunter2"}}]) == [{"ci": {"db_password": "***"}}]


def test_every_leaf_under_a_secret_named_key_is_masked_and_nothing_stays_as_it_was() -> None:
    """Under a secret-named key, containers keep their shape and each leaf with a value becomes the mask; null and
    an empty or blank string (nothing to hide, as for an empty assignment) stay."""
    value: JsonValue = {"A_TOKEN": ["x", 1, True, None, "", " "], "B_SECRET": {"k": 2.5, SECRET: "v"}, "c": "x"}
    assert redact_json(value, [SECRET]) == {
        "A_TOKEN": ["***", "***", "***", None, "", " "],
        "B_SECRET": {"k": "***", "***": "***"},
        "c": "x",
    }
    assert redact_json({"A_TOKEN": False}) == {"A_TOKEN": "***"}


def test_keys_that_mask_to_the_same_text_are_told_apart() -> None:
    """Two keys that become equal once masked both stay (the later one numbered); a key left as it was keeps its
    name, so no entry is lost."""
    assert redact_json({"abcdefgh-1": 1, "***-1": 2}, ["abcdefgh"]) == {"***-1 (2)": 1, "***-1": 2}
    assert redact_json({"abcdefgh": 1, "abcdefghabcdefgh": 2, "*** (2)": 3}, ["abcdefgh"]) == {
        "***": 1,
        "*** (3)": 2,
        "*** (2)": 3,
    }


def test_text_that_is_not_json_is_redacted_as_text() -> None:
    assert redact_output("GH_TOKEN=x\nuse sk-live-123456", [SECRET]) == "GH_TOKEN=***\nuse ***"
    assert redact_output("{not json: GH_TOKEN=x") == "{not json: GH_TOKEN=***"
    assert redact_output("") == ""


def test_json_text_with_nothing_to_mask_is_returned_as_it_was() -> None:
    """Formatting and key order are kept when no secret is found."""
    text = '{ "b": [1, 2.50],\n  "a": "plain" }'
    assert redact_output(text, [SECRET]) is text


def test_json_text_with_a_secret_is_rendered_compactly_in_its_own_key_order() -> None:
    assert redact_output('{"b": "key sk-live-123456",\n "a": 1.50}', [SECRET]) == '{"b":"key ***","a":1.5}'
    assert redact_output('"GH_TOKEN=x"') == '"GH_TOKEN=***"'  # a JSON string stays a JSON string
    assert redact_output('["caf\\u00e9 sk-live-123456"]', [SECRET]) == '["café ***"]'


def test_a_secret_found_only_in_the_original_spacing_is_gone_from_the_compact_text() -> None:
    """A secret that spans the whitespace between tokens: the text is rendered compactly, where it is not."""
    secret = 'xy",   "b'
    assert redact_output('{"a": "xy",   "b": 1}', [secret]) == '{"a":"xy","b":1}'


def test_a_secret_across_tokens_masks_each_token_it_touches() -> None:
    """A secret that spans keys, values and the punctuation between them in the rendered text masks every key and
    value it touches; the punctuation stays, so the text is still JSON."""
    assert redact_output('{"k":"abcd","l":"efgh"}', ['cd","l":"ef']) == '{"k":"***","***":"***"}'
    assert redact_output('{"n":12345678.5,"t":true}', ["12345678.5"]) == '{"n":"***","t":true}'
    assert redact_output("[true,null,true]", ["true,null"]) == '["***","***",true]'


def test_a_string_is_touched_by_its_characters_not_by_its_quotes() -> None:
    """A secret that reaches only a string's opening or closing quote leaves that string as it is."""
    assert redact_output('[11111111,"x"]', ['11111111,"']) == '["***","x"]'
    assert redact_output('["x",11111111]', ['",11111111']) == '["x","***"]'


@pytest.mark.parametrize(
    ("text", "secret", "redacted"),
    [
        ('{"kkkkkkkk":1}', '{"kkkkkkkk', '{"***":1}'),
        ('{"k":11111111}', "11111111}", '{"k":"***"}'),
        ("[11111111]", "[11111111", '["***"]'),
        ("[11111111]", "11111111]", '["***"]'),
        ('{"kkkkkk":1234}', 'kkkkkk":1', '{"***":"***"}'),
    ],
)
def test_a_secret_across_brackets_or_a_numbers_first_digit_masks_the_token_it_touches(
    text: str, secret: str, redacted: str
) -> None:
    """The rendered text the secrets are looked for in has every bracket, and a number's span is all its digits."""
    assert redact_output(text, [secret]) == redacted


def test_a_key_masked_across_tokens_is_told_apart_from_its_siblings() -> None:
    assert redact_output('{"***":1,"kkkkkkkk":2}', ['"kkkkkkkk']) == '{"***":1,"*** (2)":2}'


def test_a_secret_that_still_spans_masked_tokens_is_masked_in_the_text() -> None:
    """Tokens already masked are not masked again (the rounds end); what still spans them is masked in the text."""
    assert redact_output('["***","***"]', ['***","***']) == '["***"]'


def test_a_secret_in_a_leafs_escaped_form_masks_the_leaf() -> None:
    """A secret that is the JSON-escaped form of a leaf's text (as the model reads it) masks that leaf."""
    assert redact_output(json.dumps({"raw": 'a"bcdefgh'}), ['a\\"bcdefgh']) == '{"raw":"***"}'
    assert redact_output('{"a\\nbcdefgh":1}', ["a\\nbcdefgh"]) == '{"***":1}'


def test_a_secret_made_of_json_punctuation_alone_is_masked_in_the_text() -> None:
    """A secret no key or value of the rendered text touches can only be masked in the text itself."""
    assert redact_output("[[[[[[[[1]]]]]]]]", ["[[[[[[[["]) == "***1]]]]]]]]"


def test_json_too_deep_to_walk_is_redacted_as_text() -> None:
    """Nesting deeper than the interpreter's recursion limit falls back to the text rules, never to an error."""
    deep = "[" * 100_000 + '"GH_TOKEN=x"' + "]" * 100_000
    assert redact_output(deep) == "[" * 100_000 + '"GH_TOKEN=***'


@pytest.mark.parametrize("text", ["1", "2.5", "true", "null", "NaN", '"plain"', "[]", "{}"])
def test_json_scalars_and_empty_containers_pass_unchanged(text: str) -> None:
    assert redact_output(text, [SECRET]) == text
