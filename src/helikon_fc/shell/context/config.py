"""`RunConfig`: the knobs of a run."""

from __future__ import annotations

import attrs

from .. import _checks
from ..durable.compaction import Compaction


def _count(minimum: int, *, optional: bool = False) -> _checks.Validator:
    """A validator: an int of at least `minimum` (or `None` when `optional`); a bool is no count."""

    def check(owner: str, argument: str, value: object) -> None:
        _checks.require_int(owner, argument, value, minimum, optional=optional)

    return _checks.field(check)


@attrs.frozen(kw_only=True)
class RunConfig:
    """How a run is bounded.

    Attributes:
        max_turns: model calls the tool loop may make before the run fails with `MaxTurnsExceeded`.
        parallel_tool_call_limit: most tool calls running at once; `None` runs all calls of a turn together.
        max_agent_depth: deepest nesting of handoffs and agent-as-tool sub-runs (`MaxAgentDepthExceeded`).
        timeout: seconds the whole run may take; honoured by `Runner` only (`TimedOut`).
        compaction: the budget past which the conversation the model sees is summarised
            (`Compaction`); `None` never compacts.
    """

    max_turns: int = attrs.field(default=16, validator=_count(0))
    parallel_tool_call_limit: int | None = attrs.field(default=None, validator=_count(1, optional=True))
    max_agent_depth: int = attrs.field(default=8, validator=_count(0))
    timeout: float | None = attrs.field(default=None, validator=_checks.field(_checks.require_seconds))
    compaction: Compaction | None = attrs.field(
        default=None,
        validator=_checks.field(_checks.optional(_checks.instance_of(Compaction, "a Compaction or None"))),
    )

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

    def with_compaction(self, compaction: Compaction | None) -> RunConfig:
        """A copy with `compaction` set (`None` never compacts)."""
        return attrs.evolve(self, compaction=compaction)
