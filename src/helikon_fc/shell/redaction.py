"""Redacting tool output in the shell: the known secrets gathered from the environment and configuration.

The rules are pure (`helikon_fc.core.redaction`); this module only reads ``os.environ``, once per
`RedactionConfig` object (see `known_secrets`).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping

from ..core import RedactionConfig, redact_json, redact_text, secrets_from_environment
from ..core.redaction import is_secret_value, redact_known
from .tool import ToolOutput

__all__ = ["known_secrets", "redact_tool_output"]


_KNOWN: dict[int, tuple[str, ...]] = {}
"""`known_secrets` of each live config object read from ``os.environ``, by the object's id."""


def known_secrets(config: RedactionConfig, environment: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The secret values to mask: the environment's secret-named variables and the configured values.

    With ``os.environ`` (no `environment`) the answer is computed once per `config` object, on its
    first use, and reused for every later tool result (walking the environment per result was most
    of redaction's cost). So a variable set after a config's first use is not one of its secrets;
    a config made afterwards (even an equal one) reads it. `Permissions()` made without a
    ``redaction`` share the default config, so theirs read the environment once per process.

    Args:
        config: The redaction configuration (its `secrets`).
        environment: The variables to read, every call; `None` reads ``os.environ`` as described above.
    """
    if environment is not None:
        return _known(config, environment)
    key = id(config)
    known = _KNOWN.get(key)
    if known is None:
        known = _KNOWN[key] = _known(config, os.environ)
        weakref.finalize(config, _KNOWN.pop, key, None)  # the id may be reused once the config is gone
    return known


def _known(config: RedactionConfig, environment: Mapping[str, str]) -> tuple[str, ...]:
    found = secrets_from_environment(environment)
    return tuple(sorted({*found, *(secret for secret in config.secrets if is_secret_value(secret))}))


def redact_tool_output(output: ToolOutput, secrets: tuple[str, ...]) -> str:
    """The text the model reads for `output`, with secrets masked.

    A string output is redacted as text; a JSON output leaf by leaf, then its rendered text once more
    for the known secrets (so an escaped form cannot slip through).
    """
    if isinstance(output.content, str):
        return redact_text(output.content, secrets)
    return redact_known(ToolOutput(redact_json(output.content, secrets)).render(), secrets)
