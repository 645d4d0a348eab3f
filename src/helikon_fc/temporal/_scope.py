"""Where an agent runs inside a `RunWorkflow`: its `Scope` (shared state, depth, bounds, meter, event sink) and
its run's escalate signal (`Actions`)."""

from __future__ import annotations

from collections.abc import Callable

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    import attrs

    from ..core import AgentEvent, JsonValue
    from ..shell.telemetry.metering import UsageMeter
    from ._payloads import RunSettings

Emit = Callable[[AgentEvent], None]
"""Where a workflow's agent sends an event."""

State = dict[str, JsonValue]
"""The run's shared state, as workflow data."""


class Actions:
    """A run's escalate signal (`ActionsHandle` as workflow data)."""

    __slots__ = ("escalated",)

    def __init__(self) -> None:
        self.escalated = False


@attrs.frozen
class Scope:
    """Where an agent runs in this workflow: the shared state, its depth and bounds, its meter and event sink."""

    state: State
    depth: int
    config: RunSettings | None
    meter: UsageMeter
    emit: Emit
    prefix: str = ""
    run_hooked: bool = False
    """The worker's run-level hooks apply to the agent running here (they hear `OnSubagentStop`)."""

    def under(self, segment: str) -> Scope:
        """The same scope for a sub-run at `segment` (its waiting calls' ids qualified by it, as on trio)."""
        return attrs.evolve(self, prefix=f"{self.prefix}{segment}/")

    def emitting(self, emit: Emit) -> Scope:
        """The same scope, its events sent to `emit`."""
        return attrs.evolve(self, emit=emit)

    def metered(self, meter: UsageMeter) -> Scope:
        """The same scope, counting on `meter`."""
        return attrs.evolve(self, meter=meter)

    def deeper(self) -> Scope:
        """The scope of a child one level down (the same state, bounds, meter and sink)."""
        return attrs.evolve(self, depth=self.depth + 1)

    @property
    def limit(self) -> int:
        """The deepest level a child may start at."""
        return (self.config or RunSettings()).max_agent_depth
