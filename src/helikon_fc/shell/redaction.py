"""Redacting tool output in the shell: the known secrets gathered from the environment and configuration.

The rules are pure (`helikon_fc.core.redaction`); this module only reads ``os.environ``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..core import RedactionConfig, redact_json, redact_text, secrets_from_environment
from ..core.redaction import is_secret_value, redact_known
from .tool import ToolOutput

__all__ = ["known_secrets", "redact_tool_output"]


def known_secrets(config: RedactionConfig, environment: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The secret values to mask: the environment's secret-named variables and the configured values.

    Args:
        config: The redaction configuration (its `secrets`).
        environment: The variables to read; `None` reads ``os.environ``.
    """
    found = secrets_from_environment(os.environ if environment is None else environment)
    return tuple(sorted({*found, *(secret for secret in config.secrets if is_secret_value(secret))}))


def redact_tool_output(output: ToolOutput, secrets: tuple[str, ...]) -> str:
    """The text the model reads for `output`, with secrets masked.

    A string output is redacted as text; a JSON output leaf by leaf, then its rendered text once more
    for the known secrets (so an escaped form cannot slip through).
    """
    if isinstance(output.content, str):
        return redact_text(output.content, secrets)
    return redact_known(ToolOutput(redact_json(output.content, secrets)).render(), secrets)
