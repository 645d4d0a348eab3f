"""The redaction a run applies to a tool result, and the known secrets it reads from the environment.

Shown by `helikon_fc.shell.control.redaction`; kept apart because it imports nothing else of the shell, so the
tool pipeline and its tracing can call it without an import cycle.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping

import attrs

from ...core import RedactionConfig, ToolResult, redact_output, secrets_from_environment
from ...core.redaction import is_secret_value

__all__ = ["known_secrets", "redact_result"]


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


def redact_result(result: ToolResult, config: RedactionConfig | None) -> ToolResult:
    """`result` with secrets masked by `config` (`None` or disabled: unchanged), the last step of a call's pipeline.

    Its output is redacted by `redact_output`: JSON text leaf by leaf, staying JSON; other text line by line.
    """
    if config is None or not config.enabled:
        return result
    output = redact_output(result.output, known_secrets(config))
    return result if output == result.output else attrs.evolve(result, output=output)
