"""Which evaluators score a case: the dataset's, the case's own, and those its expectations imply."""

from __future__ import annotations

from ._case import Case, Dataset, Evaluator
from ._output_checks import ExactOutput
from ._trajectory_checks import HandoffPath, ToolTrajectory


def evaluators_for(dataset: Dataset, case: Case) -> tuple[tuple[str, Evaluator], ...]:
    """The case's evaluators, each with a name unique among them (``tools``, ``tools#2``...), in order.

    An expectation of the case (`expected_output`, `expected_calls`, `expected_agents`) brings its evaluator
    (`ExactOutput`, `ToolTrajectory`, `HandoffPath`) unless one that reads the case's expectation is there.
    """
    given = (*dataset.evaluators, *case.evaluators)
    implied: list[Evaluator] = []
    if case.expected_output is not None and not any(isinstance(e, ExactOutput) and e.expected is None for e in given):
        implied.append(ExactOutput())
    if case.expected_calls is not None and not any(isinstance(e, ToolTrajectory) and e.expected is None for e in given):
        implied.append(ToolTrajectory())
    if case.expected_agents is not None and not any(isinstance(e, HandoffPath) and e.expected is None for e in given):
        implied.append(HandoffPath())
    named: list[tuple[str, Evaluator]] = []
    seen: dict[str, int] = {}
    for evaluator in (*given, *implied):
        base = str(evaluator.name)
        seen[base] = seen.get(base, 0) + 1
        named.append((base if seen[base] == 1 else f"{base}#{seen[base]}", evaluator))
    return tuple(named)


def applies(evaluator: Evaluator, case: Case) -> bool:
    """Whether `evaluator` scores `case` (an evaluator with no ``applies(case)`` method scores every case)."""
    check = getattr(evaluator, "applies", None)
    return bool(check(case)) if callable(check) else True
