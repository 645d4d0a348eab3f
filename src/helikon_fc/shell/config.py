"""`RunConfig`: the knobs of a run."""

from __future__ import annotations

import attrs


def _positive_or_none(instance: object, attribute: attrs.Attribute[int | None], value: int | None) -> None:
    if value is not None and value < 1:
        raise ValueError(f"{attribute.name} must be at least 1 or None, got {value}")


def _not_negative(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 0:
        raise ValueError(f"{attribute.name} must not be negative, got {value}")


def _timeout(instance: object, attribute: attrs.Attribute[float | None], value: float | None) -> None:
    if value is not None and not value > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {value}")


@attrs.frozen(kw_only=True)
class RunConfig:
    """How a run is bounded.

    Attributes:
        max_turns: model calls the tool loop may make before the run fails with `MaxTurnsExceeded`.
        parallel_tool_call_limit: most tool calls running at once; `None` runs all calls of a turn together.
        max_agent_depth: deepest nesting of handoffs and agent-as-tool sub-runs (`MaxAgentDepthExceeded`).
        timeout: seconds the whole run may take; honoured by `Runner` only (`TimedOut`).
    """

    max_turns: int = attrs.field(default=16, validator=_not_negative)
    parallel_tool_call_limit: int | None = attrs.field(default=None, validator=_positive_or_none)
    max_agent_depth: int = attrs.field(default=8, validator=_not_negative)
    timeout: float | None = attrs.field(default=None, validator=_timeout)

    def with_max_turns(self, n: int) -> RunConfig:
        """A copy with `max_turns` set."""
        return attrs.evolve(self, max_turns=n)

    def with_parallel_tool_call_limit(self, n: int | None) -> RunConfig:
        """A copy with `parallel_tool_call_limit` set (`None` for no cap)."""
        return attrs.evolve(self, parallel_tool_call_limit=n)

    def with_max_agent_depth(self, n: int) -> RunConfig:
        """A copy with `max_agent_depth` set."""
        return attrs.evolve(self, max_agent_depth=n)

    def with_timeout(self, seconds: float | None) -> RunConfig:
        """A copy with `timeout` set (`None` for no deadline)."""
        return attrs.evolve(self, timeout=seconds)
