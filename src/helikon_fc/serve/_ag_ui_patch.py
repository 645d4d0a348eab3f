"""The JSON Patch (RFC 6902) that turns one JSON document into another: what a ``STATE_DELTA`` carries.

Pure: no IO. Objects are compared key by key (a removed key is a ``remove``, a new one an ``add``, a
changed value below a shared key is patched below it); any other change (a list, a number, a value of
another kind) is one ``replace`` of the whole value. So the patch is not the shortest possible, but it
always applies to the old document and gives exactly the new one.
"""

from __future__ import annotations

import json

from ..core import JsonValue

JsonPatchOperation = dict[str, JsonValue]
"""One RFC 6902 operation as JSON: ``{"op": "add", "path": "/a", "value": 1}``."""


def json_patch(old: JsonValue, new: JsonValue, path: str = "") -> list[JsonPatchOperation]:
    """The operations that turn `old` into `new` (empty when they are equal).

    Args:
        old: the document as the consumer has it.
        new: the document it should have.
        path: the JSON Pointer (RFC 6901) of both within a larger document (``""``: the whole).
    """
    if isinstance(old, dict) and isinstance(new, dict):
        operations: list[JsonPatchOperation] = [
            {"op": "remove", "path": f"{path}/{pointer_token(key)}"} for key in old if key not in new
        ]
        for key, value in new.items():
            at = f"{path}/{pointer_token(key)}"
            if key in old:
                operations.extend(json_patch(old[key], value, at))
            else:
                operations.append({"op": "add", "path": at, "value": value})
        return operations
    if _same(old, new):
        return []
    return [{"op": "replace", "path": path, "value": new}]


def pointer_token(key: str) -> str:
    """`key` as one reference token of a JSON Pointer: ``~`` written ``~0`` and ``/`` written ``~1``."""
    return key.replace("~", "~0").replace("/", "~1")


def _same(old: JsonValue, new: JsonValue) -> bool:
    """Whether two JSON values are the same document, compared as JSON text (``1``, ``1.0``, ``true`` differ)."""
    return json.dumps(old, sort_keys=True) == json.dumps(new, sort_keys=True)
