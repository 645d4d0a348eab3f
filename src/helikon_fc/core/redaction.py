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

For JSON output (`redact_json`) both passes run on every string leaf; object keys get the
second pass only *(the original never scanned keys)*.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

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
    """`value` with `redact_text` applied to every string leaf, and known secrets masked in object keys."""
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, list):
        return [redact_json(item, secrets) for item in value]
    if isinstance(value, dict):
        return {redact_known(key, secrets): redact_json(item, secrets) for key, item in value.items()}
    return value


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
