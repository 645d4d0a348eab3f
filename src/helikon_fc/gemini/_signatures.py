"""Thought signatures: opaque tokens Gemini attaches to parts of its answer, to be sent back unchanged.

The conversation items (`ToolCall`, `AssistantMessage`) have no field for provider data, so the
signatures received are kept here, keyed by what comes back in a later request: a function
call's ``call_id``, or a turn's whole answer text. Gemini 3 requires the signature of each
function call of the current turn (a request without it is refused with HTTP 400); earlier models
accept a request without them.

One store serves every `GeminiModel` of the process (`SHARED`): in a multi-agent run each agent
may have its own model object, and the agent that receives a conversation must send back the
signatures of calls another agent's model received. Call ids are unique (the API's own, or made
from the request's digest), so models cannot mix their signatures up. The store is bounded (the
least recently noted go first) and lives in memory: a conversation continued in another process
(a resumed durable run) is sent without the signatures of the turns that process did not see.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Literal

SignedKind = Literal["call", "text"]
"""What a signature came with: a function call (keyed by call id) or a turn's answer text (keyed by the text)."""

MAX_SIGNATURES = 16384
"""How many signatures the store keeps (a long conversation only sends back its recent turns' anyway)."""


class ThoughtSignatures:
    """Signatures by ``(kind, key)``; the least recently noted go first once `limit` are held. Thread-safe."""

    __slots__ = ("_by_key", "_lock", "limit")

    def __init__(self, limit: int = MAX_SIGNATURES) -> None:
        self.limit = limit
        self._by_key: OrderedDict[tuple[SignedKind, str], str] = OrderedDict()
        self._lock = threading.Lock()

    def note(self, kind: SignedKind, key: str, signature: str) -> None:
        """Remember `signature` for the item `key` of `kind`."""
        with self._lock:
            self._by_key[(kind, key)] = signature
            self._by_key.move_to_end((kind, key))
            while len(self._by_key) > self.limit:
                self._by_key.popitem(last=False)

    def get(self, kind: SignedKind, key: str) -> str | None:
        """The signature noted for the item `key` of `kind`, if any."""
        with self._lock:
            return self._by_key.get((kind, key))

    def __len__(self) -> int:
        with self._lock:
            return len(self._by_key)


SHARED = ThoughtSignatures()
"""The store every `GeminiModel` uses."""
