"""Hypothesis strategies for redaction: secrets, and JSON values with secrets planted at every depth.

A planted value's strings are made of whole secrets, their beginnings and filler, so secrets touch,
overlap and run across keys, values and the punctuation between them once rendered; its keys include
secret-named ones (``GITHUB_TOKEN``) holding any JSON value.
"""

from __future__ import annotations

from hypothesis import strategies as st
from properties.strategies import finite_floats

from helikon_fc.core import JsonValue

SECRET_ALPHABET = "ab*=: _\n\"'{}[],\\é🔑0123456789XYZ"
"""What secrets and filler are made of: JSON punctuation, escapes and assignment separators among letters."""
SECRET_NAMED_KEYS = ("GITHUB_TOKEN", "db_password", '"OPENAI_API_KEY"', "aws_secret", "X_CREDENTIAL")
"""Keys whose values are secrets, whatever they hold."""


def lettered_secrets() -> st.SearchStrategy[str]:
    """Secrets with at least one letter among any characters (a secret of JSON punctuation alone has no key or
    value to mask: `redact_output` masks it in the text, which is then no longer JSON)."""
    part = st.text(st.sampled_from(SECRET_ALPHABET), max_size=7)
    return st.tuples(part, st.sampled_from("abXYZé"), part).map("".join)


@st.composite
def json_values_with_secrets(draw: st.DrawFn) -> tuple[JsonValue, list[str]]:
    """A JSON value with secrets planted in its strings and keys at any depth, and the secrets (some of which may
    be too short to count)."""
    secrets = draw(st.lists(lettered_secrets(), min_size=1, max_size=3))
    beginnings = st.sampled_from(secrets).flatmap(lambda s: st.integers(0, len(s)).map(lambda n: s[:n]))
    pieces = st.sampled_from(secrets) | beginnings | st.text(st.sampled_from(SECRET_ALPHABET), max_size=5)
    strings = st.lists(pieces, max_size=4).map("".join)
    keys = strings | st.sampled_from(SECRET_NAMED_KEYS)
    scalars = st.none() | st.booleans() | st.integers() | finite_floats() | strings
    value = draw(
        st.recursive(
            scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=10
        )
    )
    return value, secrets
