"""Secret redaction for tool output, before it reaches the conversation, the events or a log.

Two passes, in this order (the original's rules, with the differences marked):

1. *Assignments*, line by line: the first ``=`` on a line (or, when there is none, the first
   ``:``) is an assignment whose key is the last whitespace-separated token before it. When the
   key, upper-cased, ends with ``_API_KEY``, ``_TOKEN``, ``_SECRET``, ``_PASSWORD`` or
   ``_CREDENTIAL``, the value (the rest of the line) becomes ``***``, keeping one leading space
   and the trailing whitespace; an empty value is left alone. *(Beyond the original:* quotes and
   brackets around the key are ignored, so ``"GITHUB_TOKEN": "..."`` is caught too.)
2. *Known secrets*: every character of every occurrence of a known secret value is masked (a run
   of them becomes one ``***``; overlapping occurrences are masked whole, where the original
   replaced one secret after another and could leave the end of one beside a mask), repeated
   until none is left. A value counts only when it is at least `MIN_SECRET_BYTES` long
   in UTF-8, not all digits, and not one of `EXCLUDED_VALUES` (compared without case). The
   known values come from the environment (`secrets_from_environment`) and from configuration.

For JSON (`redact_json`) both passes run on every string leaf; object keys get the second pass
only *(the original never scanned keys)*, and every leaf under a secret-named key, at any depth,
is masked whole *(the original only read ``KEY=value`` lines)*. A tool result's text
(`redact_output`) that is JSON stays JSON of the same shape: see `redact_output`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping

import attrs

from .json_value import JsonValue

__all__ = [
    "EXCLUDED_VALUES",
    "MASK",
    "MIN_SECRET_BYTES",
    "SECRET_SUFFIXES",
    "RedactionConfig",
    "is_secret_name",
    "is_secret_value",
    "redact_json",
    "redact_known",
    "redact_output",
    "redact_text",
    "secrets_from_environment",
]

MASK = "***"
"""What a redacted value becomes."""
SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_CREDENTIAL")
"""Names ending with one of these (upper-cased) hold secrets."""
MIN_SECRET_BYTES = 8
"""A known secret shorter than this (in UTF-8 bytes) is not replaced: it would match too much."""
EXCLUDED_VALUES = frozenset({"true", "false", "dev", "prod", "test", "none", "null"})
"""Values never treated as secrets, whatever variable holds them."""

_KEY_PUNCTUATION = "\"'`{}[](),;"


def is_secret_name(name: str) -> bool:
    """Whether a variable or key called `name` holds a secret (``OPENAI_API_KEY``, ``db_password``)."""
    return name.strip(_KEY_PUNCTUATION).upper().endswith(SECRET_SUFFIXES)


def is_secret_value(value: str) -> bool:
    """Whether `value` is replaced wherever it appears: long enough, not all digits, not an excluded literal."""
    return (
        len(value.encode("utf-8")) >= MIN_SECRET_BYTES
        and not all(char in "0123456789" for char in value)
        and value.lower() not in EXCLUDED_VALUES
    )


def secrets_from_environment(environment: Mapping[str, str]) -> tuple[str, ...]:
    """The values of the variables in `environment` whose names hold secrets, that count as secrets.

    Pure: the shell passes ``os.environ``.
    """
    return tuple(sorted({v for k, v in environment.items() if is_secret_name(k) and is_secret_value(v)}))


def _strings(value: Iterable[str]) -> tuple[str, ...]:
    items = () if isinstance(value, str) else tuple(value)
    if isinstance(value, str) or not all(isinstance(item, str) for item in items):
        raise TypeError(f"RedactionConfig: secrets must be a sequence of strings, got {value!r}")
    return items


@attrs.frozen
class RedactionConfig:
    """Whether tool output is redacted, and the known secret values (beside the environment's).

    Attributes:
        enabled: Redact at all.
        secrets: Known secret values from configuration; only those `is_secret_value` accepts are used.
    """

    enabled: bool = True
    secrets: tuple[str, ...] = attrs.field(default=(), converter=_strings)

    def with_secrets(self, secrets: Iterable[str]) -> RedactionConfig:
        """A copy that also knows `secrets`."""
        return attrs.evolve(self, secrets=self.secrets + tuple(secrets))


def redact_text(text: str, secrets: Collection[str] = ()) -> str:
    """`text` with secret assignments masked line by line, then every known secret masked."""
    lines = [_redact_assignment(line) for line in text.splitlines(keepends=True)]
    return redact_known("".join(lines), secrets)


def redact_json(value: JsonValue, secrets: Collection[str] = ()) -> JsonValue:
    """`value` with `redact_text` applied to every string leaf, known secrets masked in object keys, and every
    leaf under a secret-named key masked whole (`_hidden`), at any depth.

    The shape stays: containers keep their items, and keys that mask to the same text are told apart
    (`_distinct`), so no entry is lost.
    """
    return _redact(value, _counting(secrets), hidden=False)


def _redact(value: JsonValue, known: frozenset[str], *, hidden: bool) -> JsonValue:
    if isinstance(value, dict):
        names = _distinct({key: redact_known(key, known) for key in value})
        return {names[key]: _redact(item, known, hidden=hidden or is_secret_name(key)) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item, known, hidden=hidden) for item in value]
    if hidden:
        return _hidden(value)
    return redact_text(value, known) if isinstance(value, str) else value


def _hidden(leaf: JsonValue) -> JsonValue:
    """A leaf under a secret-named key: the mask, unless there is nothing to hide (null, a blank string)."""
    return leaf if leaf is None or (isinstance(leaf, str) and not leaf.strip()) else MASK


def _distinct(masked: dict[str, str]) -> dict[str, str]:
    """The name of each key of an object, given what each `masked` to: a key left as it was keeps its name, a
    changed one that meets another is numbered `` (2)``, `` (3)``..."""
    taken = {name for key, name in masked.items() if name == key}
    names: dict[str, str] = {}
    for key, name in masked.items():
        if name != key:
            base, number = name, 2
            while name in taken:
                name, number = f"{base} ({number})", number + 1
            taken.add(name)
        names[key] = name
    return names


def _counting(secrets: Collection[str]) -> frozenset[str]:
    return frozenset(secret for secret in secrets if is_secret_value(secret))


def redact_output(text: str, secrets: Collection[str] = ()) -> str:
    """A tool result's `text` with secrets masked; JSON text stays JSON of the same shape.

    Text that is not JSON gets `redact_text`. JSON text gets `redact_json`, then every key and scalar
    that a known secret touches in the rendered text (across punctuation, or in a string's escaped
    form) is masked too, until none is touched; the answer is rendered compactly in the text's own key
    order. When nothing was masked the text comes back as it was. Only a secret made of JSON
    punctuation alone (no key or scalar to mask) is masked in the rendered text, which may then no
    longer be JSON; JSON nested too deep to walk is redacted as text.
    """
    known = _counting(secrets)
    try:
        value = json.loads(text)
        redacted = _masked_across_tokens(_redact(value, known, hidden=False), known)
    except (ValueError, RecursionError):
        return redact_text(text, known)
    rendered = _render(redacted)
    if rendered == _render(value) and redact_known(text, known) == text:
        return text
    return redact_known(rendered, known)


def _render(value: JsonValue) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _masked_across_tokens(value: JsonValue, known: frozenset[str]) -> JsonValue:
    """`value` with every key and scalar masked that an occurrence of a known secret touches in its rendered text.

    Tokens are numbered in rendering order, and masking keeps their number, so each round masks at least
    one token not masked before, or ends.
    """
    done: set[int] = set()
    while known:
        rendering = _Rendering()
        rendering.add(value)
        covered = _covered("".join(rendering.parts), known)
        spans = rendering.spans
        touched = {n for n, (start, end) in enumerate(spans) if n not in done and any(covered[start:end])}
        if not touched:
            break
        done |= touched
        value = _mask_tokens(value, touched, iter(range(len(spans))))
    return value


class _Rendering:
    """A JSON value's compact rendering, piece by piece, and the span of each key and scalar in it (a string's
    characters without its quotes), in rendering order."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[tuple[int, int]] = []
        self._length = 0

    def add(self, value: JsonValue) -> None:
        """Render `value` after what is rendered so far."""
        if isinstance(value, dict):
            self._put("{")
            for index, (key, item) in enumerate(value.items()):
                self._put("," if index else "")
                self._token(key)
                self._put(":")
                self.add(item)
            self._put("}")
        elif isinstance(value, list):
            self._put("[")
            for index, item in enumerate(value):
                self._put("," if index else "")
                self.add(item)
            self._put("]")
        else:
            self._token(value)

    def _token(self, value: JsonValue) -> None:
        text = _render(value)
        quotes = 1 if isinstance(value, str) else 0
        self.spans.append((self._length + quotes, self._length + len(text) - quotes))
        self._put(text)

    def _put(self, text: str) -> None:
        self.parts.append(text)
        self._length += len(text)


def _mask_tokens(value: JsonValue, touched: set[int], numbers: Iterator[int]) -> JsonValue:
    """`value` with the tokens numbered in `touched` masked (`numbers` counts the tokens in rendering order)."""
    if isinstance(value, dict):
        masked: dict[str, str] = {}
        items: dict[str, JsonValue] = {}
        for key, item in value.items():
            masked[key] = MASK if next(numbers) in touched else key
            items[key] = _mask_tokens(item, touched, numbers)
        names = _distinct(masked)
        return {names[key]: item for key, item in items.items()}
    if isinstance(value, list):
        return [_mask_tokens(item, touched, numbers) for item in value]
    return MASK if next(numbers) in touched else value


def _redact_assignment(line: str) -> str:
    separator = line.find("=")
    if separator == -1:
        separator = line.find(":")
    if separator == -1:
        return line
    tokens = line[:separator].split()
    if not tokens or not is_secret_name(tokens[-1]):
        return line
    value = line[separator + 1 :]
    if not value.strip():
        return line
    lead = " " if value[0].isspace() else ""
    trail = value[len(value.rstrip()) :]
    return line[: separator + 1] + lead + MASK + trail


def redact_known(text: str, secrets: Collection[str]) -> str:
    """`text` with every known secret masked (the second pass alone), until none is left.

    Every character of every occurrence is masked, overlapping occurrences included: each run of
    covered characters becomes one ``***``, so no end of a secret survives beside a mask. The loop
    ends: each round removes a character other than ``*`` or shortens the text.
    """
    known = {secret for secret in secrets if is_secret_value(secret)}
    while True:
        covered = _covered(text, known)
        if not any(covered):
            return text
        text = _mask_runs(text, covered)


def _covered(text: str, known: Collection[str]) -> list[bool]:
    """Which characters of `text` lie inside an occurrence of a known secret."""
    covered = [False] * len(text)
    for secret in known:
        start = text.find(secret)
        while start != -1:
            covered[start : start + len(secret)] = [True] * len(secret)
            start = text.find(secret, start + 1)
    return covered


def _mask_runs(text: str, covered: list[bool]) -> str:
    out: list[str] = []
    for index, char in enumerate(text):
        if not covered[index]:
            out.append(char)
        elif index == 0 or not covered[index - 1]:
            out.append(MASK)
    return "".join(out)
