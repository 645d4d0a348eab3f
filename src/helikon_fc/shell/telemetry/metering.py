"""`UsageMeter`: what a run and everything it ran cost, counted where each model call happens.

Every run (a model loop, a workflow) gets its own meter, a child of the meter in force where it
started (`RunContext.for_run`). The driver adds each model call's usage to its run's meter, and the
addition flows up to every enclosing run's meter, so a run's `RunCompleted` carries its whole
subtree: handoffs, workflow children, agent-as-tool sub-runs — failed ones included, since their
calls were counted when they were made. A child run started through `run_child` or a handoff gets a
meter of its own (a slot) too, so usage a custom `Agent` reports without a meter is still added
(`settle`).

Counts are kept per agent and per model that answered, so the price of a run (`helikon_fc.pricing`)
can be told: `by_agent` sums over the models, `by_model` does not.
"""

from __future__ import annotations

from ...core import AgentUsage, ModelShare, RunCompleted, RunPaused, TerminalEvent, Usage

_NONE = Usage()


class UsageMeter:
    """The usage of one run and everything below it, by agent and model; additions flow up to the
    enclosing meters.

    Counts are kept as plain integers per (agent, model) (``[input, output, cached input, reasoning,
    requests, unreported requests]``) and turned into `Usage` values only when read: a model call
    costs a few additions per level.
    """

    __slots__ = ("_counts", "_parent")

    def __init__(self, parent: UsageMeter | None = None) -> None:
        self._parent = parent
        self._counts: dict[tuple[str, str | None], list[int]] = {}

    def child(self) -> UsageMeter:
        """A meter for a run started below this one."""
        return UsageMeter(self)

    def add(self, agent: str, usage: Usage, model: str | None) -> None:
        """Count `usage` of a model call `agent` made, answered by `model` (`None`: not known), here and
        in every enclosing meter."""
        key = (agent, model)
        meter: UsageMeter | None = self
        while meter is not None:
            counts = meter._counts.get(key)
            if counts is None:
                meter._counts[key] = [
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
        sums: dict[str, list[int]] = {}
        for (agent, _), counts in self._counts.items():
            into = sums.setdefault(agent, [0, 0, 0, 0, 0, 0])
            for index, value in enumerate(counts):
                into[index] += value
        return tuple(AgentUsage(agent, _usage(sums[agent])) for agent in sorted(sums))

    def by_model(self) -> tuple[ModelShare, ...]:
        """The total split by agent and the model that answered, sorted by agent, then model (unknown first)."""
        keys = sorted(self._counts, key=_order)
        return tuple(ModelShare(agent, model, _usage(self._counts[agent, model])) for agent, model in keys)

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
            self.add(agent, missing, None)

    def completed(self, terminal: TerminalEvent) -> TerminalEvent:
        """`terminal`, a `RunCompleted` replaced by one carrying this meter's total and breakdown (a
        `RunPaused` by one carrying its total)."""
        if type(terminal) is RunPaused:
            return RunPaused(terminal.pending, self.total)
        if type(terminal) is not RunCompleted:
            return terminal
        by_agent, by_model = self.by_agent(), self.by_model()
        if len(by_agent) == 1:
            return RunCompleted(by_agent[0].usage, by_agent, by_model)
        return RunCompleted(self.total, by_agent, by_model)


def _order(key: tuple[str, str | None]) -> tuple[str, bool, str]:
    agent, model = key
    return (agent, model is not None, model or "")


def _usage(counts: list[int]) -> Usage:
    return Usage(
        input_tokens=counts[0],
        output_tokens=counts[1],
        cached_input_tokens=counts[2],
        reasoning_tokens=counts[3],
        requests=counts[4],
        unreported_requests=counts[5],
    )
