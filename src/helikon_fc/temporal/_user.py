"""`UserCodec`: how a run's user value crosses from a client to the workers, as JSON text.

A `RunContext`'s ``user`` is the application's own object, and on Temporal a run's tools execute
in worker processes the client never shares memory with. So the value crosses as JSON: the client
encodes it once, at `HelikonClient.start` (a value it cannot encode is refused there, before the run
starts), the run's workflow carries the text (into every tool call, instruction rendering and
agent-as-tool sub-run), and the worker decodes it into the ``user`` its tools and instructions see.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import attrs

from ..core import JsonValue


def _identity(value: Any) -> Any:
    return value


@attrs.frozen
class UserCodec:
    """A pair of functions between the application's user value and a JSON value.

    The default (`UserCodec()`) passes JSON values (dicts, lists, strings, numbers, booleans,
    ``None``) through as they are. Register the same codec on the client (encoding) and on every
    worker of the task queue (decoding).

    Attributes:
        encode: the user value as a JSON value (client side).
        decode: the JSON value back as the user value (worker side).

    Example:
        ``UserCodec(encode=attrs.asdict, decode=lambda value: Customer(**value))``
    """

    encode: Callable[[Any], JsonValue] = _identity
    decode: Callable[[JsonValue], Any] = _identity

    def to_text(self, user: Any) -> str:
        """`user` encoded, as JSON text.

        Raises:
            TypeError: the codec failed, or what it returned is not a JSON value.
        """
        try:
            value = self.encode(user)
            return json.dumps(value, ensure_ascii=False, allow_nan=False)
        except Exception as exc:  # the application's encoder may raise anything: the run is refused
            raise TypeError(
                f"user: a run on Temporal carries its user value to the workers as JSON, and "
                f"{type(user).__name__} {user!r:.80} does not encode ({exc}); pass a JSON value, or give "
                "HelikonClient and HelikonWorker a UserCodec(encode=..., decode=...)"
            ) from None

    def from_text(self, text: str | None) -> Any:
        """The user value that `text` encodes (`None` for a run started without one)."""
        if text is None:
            return None
        value: JsonValue = json.loads(text)
        return self.decode(value)
