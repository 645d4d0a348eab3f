"""`RunState`: the run-scoped map of JSON values an agent shares with the sub-agents it runs (``ctx.state``)."""

from __future__ import annotations

import copy
import json

from ...core import JsonValue


class RunState:
    """A run-scoped map from keys to JSON values, shared by an agent and the sub-agents it runs
    (``ctx.state``; its old name, `SessionState`, still imports: it has nothing to do with a `Session`).

    Workflow agents write each child's final text here under the child's key (as a JSON string);
    dynamic instructions read it back. Values are copied in and out, so no caller can change a
    stored value behind the state's back.
    """

    __slots__ = ("_values",)

    def __init__(self, values: dict[str, JsonValue] | None = None) -> None:
        self._values: dict[str, JsonValue] = {}
        for key, value in (values or {}).items():
            self.set(key, value)

    def get(self, key: str) -> JsonValue | None:
        """The value stored under `key`, or `None`."""
        value = self._values.get(key)
        return value if isinstance(value, str | int | float | bool) or value is None else copy.deepcopy(value)

    def set(self, key: str, value: JsonValue) -> None:
        """Store `value` under `key`; raises `TypeError` if it is not JSON."""
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"state[{key!r}] must be a JSON value: {exc}") from None
        self._values[key] = copy.deepcopy(value)

    def keys(self) -> tuple[str, ...]:
        """The keys, in the order they were first set."""
        return tuple(self._values)

    def snapshot(self) -> dict[str, JsonValue]:
        """A copy of everything stored."""
        return copy.deepcopy(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __repr__(self) -> str:
        return f"RunState({self._values!r})"


SessionState = RunState
"""Deprecated: the old name of `RunState` (the same class)."""
