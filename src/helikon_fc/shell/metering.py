"""`UsageMeter`: what a run and everything it ran cost, counted where each model call happens.

Every run (a model loop, a workflow) gets its own meter, a child of the meter in force where it
started (`RunContext.for_run`). The driver adds each model call's usage to its run's meter, and the
addition flows up to every enclosing run's meter, so a run's `RunCompleted` carries its whole
subtree: handoffs, workflow children, agent-as-tool sub-runs — failed ones included, since their
calls were counted when they were made. A child run started through `run_child` or a handoff gets a
meter of its own (a slot) too, so usage a custom `Agent` reports without a meter is still added
(`settle`).
"""

from __future__ import annotations

from ..core import AgentUsage, RunCompleted, RunPaused, TerminalEvent, Usage

_NONE = Usage()


class UsageMeter:
    """The usage of one run and everything below it, by agent; additions flow up to the enclosing meters.

    Counts are kept as plain integers per agent (``[input, output, cached input, reasoning, requests,
    unreported requests]``) and turned into `Usage` values only when read: a model call costs a few
    additions per level.
    """

    __slots__ = ("_counts", "_parent")

    def __init__(self, parent: UsageMeter | None = None) -> None:
        self._parent = parent
        self._counts: dict[str, list[int]] = {}

    def child(self) -> UsageMeter:
        """A meter for a run started below this one."""
        return UsageMeter(self)

    def add(self, agent: str, usage: Usage) -> None:
        """Count `usage` of a model call `agent` made, here and in every enclosing meter."""
        meter: UsageMeter | None = self
        while meter is not None:
            counts = meter._counts.get(agent)
            if counts is None:
                meter._counts[agent] = [
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.cached_input_tokens,
                    usage.reasoning_tokens,
                    usage.requests,
                    usage.unreported_requests,
                ]
            else:
                counts[0] += usage.input_tokens
                counts[1] += usage.output_tokens
                counts[2] += usage.cached_input_tokens
                counts[3] += usage.reasoning_tokens
                counts[4] += usage.requests
                counts[5] += usage.unreported_requests
            meter = meter._parent

    @property
    def total(self) -> Usage:
        """Everything counted here."""
        sums = [0, 0, 0, 0, 0, 0]
        for counts in self._counts.values():
            for index, value in enumerate(counts):
                sums[index] += value
        return _usage(sums)

    def by_agent(self) -> tuple[AgentUsage, ...]:
        """The total split by agent, sorted by agent name (so concurrent children cannot change it)."""
        counts = self._counts
        return tuple(AgentUsage(agent, _usage(counts[agent])) for agent in sorted(counts))

    def settle(self, agent: str, reported: Usage) -> None:
        """A child run on this meter completed reporting `reported`: count what of it was not counted here.

        Our own agents count every call as it happens, so nothing is added for them; an `Agent` of
        your own that reports usage without a meter has it added, attributed to `agent`.
        """
        seen = self.total
        missing = Usage(
            input_tokens=max(0, reported.input_tokens - seen.input_tokens),
            output_tokens=max(0, reported.output_tokens - seen.output_tokens),
            cached_input_tokens=max(0, reported.cached_input_tokens - seen.cached_input_tokens),
            reasoning_tokens=max(0, reported.reasoning_tokens - seen.reasoning_tokens),
            requests=max(0, reported.requests - seen.requests),
            unreported_requests=max(0, reported.unreported_requests - seen.unreported_requests),
        )
        if missing != _NONE:
            self.add(agent, missing)

    def completed(self, terminal: TerminalEvent) -> TerminalEvent:
        """`terminal`, a `RunCompleted` replaced by one carrying this meter's total and breakdown (a
        `RunPaused` by one carrying its total)."""
        if type(terminal) is RunPaused:
            return RunPaused(terminal.pending, self.total)
        if type(terminal) is not RunCompleted:
            return terminal
        by_agent = self.by_agent()
        if len(by_agent) == 1:
            return RunCompleted(by_agent[0].usage, by_agent)
        return RunCompleted(self.total, by_agent)


def _usage(counts: list[int]) -> Usage:
    return Usage(
        input_tokens=counts[0],
        output_tokens=counts[1],
        cached_input_tokens=counts[2],
        reasoning_tokens=counts[3],
        requests=counts[4],
        unreported_requests=counts[5],
    )
