"""Thought signatures: opaque tokens Gemini attaches to parts of its answer, to be sent back unchanged.

The conversation items (`ToolCall`, `Reasoning`, `AssistantMessage`) have no field for provider
data, so the model keeps the signatures it received itself, keyed by what comes back in the next
request: a function call's ``call_id``, and a turn's whole reasoning text or answer text. Gemini 3
requires the signature of each function call of the current turn (a request without it is refused
with HTTP 400); earlier models accept a request without them. The memory is bounded (the oldest
entries go first) and belongs to one `GeminiModel`: a conversation continued by another model
object, or in another process, is sent without the signatures of the turns it did not see.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Literal

import attrs

SignedKind = Literal["call", "reasoning", "text"]
"""What a signature came with: a function call (keyed by call id), a turn's reasoning or its answer text."""

MAX_SIGNATURES = 4096
"""How many signatures a model remembers (a long conversation sends back only its recent turns' anyway)."""


@attrs.define
class ThoughtSignatures:
    """Signatures by ``(kind, key)``; the least recently noted go first once `MAX_SIGNATURES` are held."""

    limit: int = MAX_SIGNATURES
    _by_key: OrderedDict[tuple[SignedKind, str], str] = attrs.Factory(OrderedDict)

    def note(self, kind: SignedKind, key: str, signature: str) -> None:
        """Remember `signature` for the item `key` of `kind`."""
        self._by_key[(kind, key)] = signature
        self._by_key.move_to_end((kind, key))
        while len(self._by_key) > self.limit:
            self._by_key.popitem(last=False)

    def get(self, kind: SignedKind, key: str) -> str | None:
        """The signature noted for the item `key` of `kind`, if any."""
        return self._by_key.get((kind, key))

    def __len__(self) -> int:
        return len(self._by_key)
