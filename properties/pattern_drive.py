"""A pure simulated runtime for the pattern machines (`helikon_fc.core.patterns`): it feeds `Begin`,
ends the running children in an order Hypothesis draws, with outcomes a script decides, and keeps
every outcome, so the laws can look at the whole run."""

from __future__ import annotations

from collections.abc import Callable

import attrs
from hypothesis import strategies as st

from helikon_fc.core import ApprovalRequested, OtherError
from helikon_fc.core.patterns import (
    Begin,
    ChildEnded,
    ChildFailed,
    ChildOutcome,
    ChildPaused,
    ChildSucceeded,
    Finish,
    PatternAction,
    PatternOutcome,
    PatternState,
    RunChild,
    advance,
)

Script = Callable[[RunChild, int], tuple[ChildOutcome, bool]]
"""The outcome (and escalation) of a child run, given its action and how many runs started before it."""


@attrs.frozen
class Trace:
    """Everything one simulated run did."""

    outcomes: tuple[PatternOutcome[PatternState], ...]
    runs: tuple[RunChild, ...]
    ended: tuple[ChildEnded, ...]

    @property
    def actions(self) -> tuple[PatternAction, ...]:
        return tuple(action for outcome in self.outcomes for action in outcome.actions)

    @property
    def finishes(self) -> tuple[Finish, ...]:
        return tuple(action for action in self.actions if isinstance(action, Finish))


def drive(state: PatternState, script: Script, data: st.DataObject, *, limit: int = 10_000) -> Trace:
    """Run the machine from `state` until it finishes (or nothing runs, or `limit` steps: a law then fails)."""
    outcome = advance(state, Begin())
    outcomes = [outcome]
    running = [a for a in outcome.actions if isinstance(a, RunChild)]
    runs = list(running)
    ended: list[ChildEnded] = []
    while running and not any(isinstance(a, Finish) for a in outcome.actions) and len(outcomes) < limit:
        action = running.pop(data.draw(st.integers(0, len(running) - 1), label="which child ends"))
        child_outcome, escalated = script(action, ended.__len__())
        end = ChildEnded(action.index, child_outcome, escalated)
        ended.append(end)
        outcome = advance(outcome.state, end)
        outcomes.append(outcome)
        started = [a for a in outcome.actions if isinstance(a, RunChild)]
        running.extend(started)
        runs.extend(started)
    return Trace(tuple(outcomes), tuple(runs), tuple(ended))


def child_outcomes() -> st.SearchStrategy[tuple[ChildOutcome, bool]]:
    """One child's outcome (mostly successes) and whether it escalated."""
    succeeded = st.builds(ChildSucceeded, st.text(max_size=5))
    failed = st.builds(lambda m: ChildFailed(OtherError(m)), st.text(min_size=1, max_size=5))
    paused = st.builds(
        lambda c: ChildPaused((ApprovalRequested(c, "tool", "{}"),)), st.text(alphabet="abc", min_size=1, max_size=3)
    )
    outcome = st.one_of(succeeded, succeeded, succeeded, failed, paused)
    return st.tuples(outcome, st.booleans())


def scripted(data: st.DataObject) -> Script:
    """A script that draws each run's outcome as the run ends."""

    def script(action: RunChild, before: int) -> tuple[ChildOutcome, bool]:
        return data.draw(child_outcomes(), label=f"outcome of run {before} ({action.key})")

    return script
