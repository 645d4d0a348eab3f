"""Typed reads from decoded JSON for the providers: wire payloads are untrusted, so every read checks the type it gets.

A negative count is read as it came (not as 0), so the driver's usage check fails the turn naming it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import cast

JsonMap = Mapping[str, object]
_EMPTY: JsonMap = {}


def decode_map(data: str) -> JsonMap | None:
    """`data` decoded as a JSON object, or `None` if it is not JSON or not an object."""
    try:
        decoded: object = json.loads(data)
    except ValueError:
        return None
    return cast(JsonMap, decoded) if isinstance(decoded, Mapping) else None


def get_map(obj: JsonMap, key: str) -> JsonMap:
    """``obj[key]`` if it is an object, else an empty one."""
    value = obj.get(key)
    return cast(JsonMap, value) if isinstance(value, Mapping) else _EMPTY


def get_list(obj: JsonMap, key: str) -> Sequence[JsonMap]:
    """The objects in the list ``obj[key]`` (non-objects skipped), else an empty list."""
    value = obj.get(key)
    if not isinstance(value, list):
        return ()
    return [cast(JsonMap, item) for item in value if isinstance(item, Mapping)]


def get_str(obj: JsonMap, key: str) -> str | None:
    """``obj[key]`` if it is a string, else `None`."""
    value = obj.get(key)
    return value if isinstance(value, str) else None


def get_int(obj: JsonMap, key: str) -> int:
    """``obj[key]`` if it is an integer, else 0."""
    value = obj.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
