"""What the `helikon eval` tests point --agent and DATASET at."""

from __future__ import annotations

from tests.evals.agents import budget_agent

from helikon_fc.evals import Case, CaseRun, Dataset, UserFunction

budget = budget_agent()


def polite(case: Case, run: CaseRun) -> tuple[float, str]:
    """Every answer is polite enough."""
    return 1.0, "fine"


DATASET = Dataset(cases=[Case(name="dining", input="budget for dining")], evaluators=[UserFunction(fn=polite)])


def dataset() -> Dataset:
    """The dataset, built by a function."""
    return DATASET
