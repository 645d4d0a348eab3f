"""Redacting tool output in the shell: the known secrets gathered from the environment and configuration.

The rules are pure (`helikon_fc.core.redaction`); this module only reads ``os.environ``, once per
`RedactionConfig` object (see `known_secrets`). `redact_result` is the one redaction a run applies
to a tool result, in process and on a Temporal worker alike.
"""

from __future__ import annotations

from typing import Protocol

from ...core import redact_output
from ._redaction import known_secrets, redact_result

__all__ = ["known_secrets", "redact_result", "redact_tool_output"]


class Rendered(Protocol):
    """What `redact_tool_output` redacts: an output that renders as the text the model reads (a `ToolOutput`)."""

    def render(self) -> str:
        """The text the model reads."""
        ...


def redact_tool_output(output: Rendered, secrets: tuple[str, ...]) -> str:
    """The text the model reads for `output`, with secrets masked (`redact_output` of its rendering).

    A string output is redacted as text (as JSON when it is JSON text); a JSON output leaf by leaf,
    and it stays JSON of the same shape.
    """
    return redact_output(output.render(), secrets)
