"""The JSON value type: what a tool argument, a schema or a structured output is made of."""

from __future__ import annotations

from typing import TypeAlias

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
"""Any value that `json.loads` can return."""

JsonObject: TypeAlias = dict[str, JsonValue]
"""A JSON object, such as a JSON Schema or a tool's decoded arguments."""
