"""`ToolTrajectory` (in order, any order, subset; arguments exactly or by a predicate; per agent) and `HandoffPath`."""

from __future__ import annotations

from tests.evals.agents import CASE, run_of

from helikon_fc.core import JsonValue
from helikon_fc.evals import Case, ExpectedCall, HandoffPath, ToolTrajectory

RUN = run_of(
    "done",
    calls=(
        ("triage", "transfer_to_budget", {}),
        ("budget", "get_budget", {"category": "dining"}),
        ("budget", "get_spending", {"category": "dining"}),
    ),
    agents=("triage", "budget"),
)
BUDGET = ExpectedCall(name="get_budget", arguments={"category": "dining"})
SPENDING = ExpectedCall(name="get_spending", arguments={"category": "dining"})
HANDOFF = ExpectedCall(name="transfer_to_budget")


def _tools(*expected: ExpectedCall, match: str = "in_order") -> ToolTrajectory:
    return ToolTrajectory(expected=expected, match=match)  # type: ignore[arg-type]


def test_in_order_passes_the_exact_sequence() -> None:
    """The calls made, in order, with their arguments: a pass with score 1."""
    verdict = _tools(HANDOFF, BUDGET, SPENDING).evaluate(CASE, RUN)
    assert verdict is not None and verdict.passed and verdict.score == 1.0


def test_in_order_fails_at_the_first_difference_and_scores_the_common_prefix() -> None:
    """Swapped calls fail at call 2, naming what was expected and what was made; the score is 1 of 3 calls."""
    verdict = _tools(HANDOFF, SPENDING, BUDGET).evaluate(CASE, RUN)
    assert verdict is not None and not verdict.passed
    assert verdict.score == 1 / 3
    assert verdict.reason.startswith('call 2: expected get_spending({"category": "dining"}), got budget: get_budget(')


def test_any_order_accepts_a_permutation_but_not_an_extra_call() -> None:
    """In any order the permutation passes; leaving a made call out of the expectation fails naming it as unexpected."""
    assert _tools(SPENDING, HANDOFF, BUDGET, match="any_order").evaluate(CASE, RUN).passed  # type: ignore[union-attr]
    verdict = _tools(SPENDING, BUDGET, match="any_order").evaluate(CASE, RUN)
    assert verdict is not None and not verdict.passed and verdict.score == 2 / 3
    assert verdict.reason == "unexpected triage: transfer_to_budget({})"


def test_subset_needs_every_expected_call_and_allows_others() -> None:
    """As a subset, extra calls are fine; a missing one fails, named, with the share found as the score."""
    assert _tools(SPENDING, match="subset").evaluate(CASE, RUN).passed  # type: ignore[union-attr]
    verdict = _tools(SPENDING, ExpectedCall(name="get_savings"), match="subset").evaluate(CASE, RUN)
    assert verdict is not None and not verdict.passed and verdict.score == 0.5
    assert verdict.reason == "missing get_savings(...)"


def test_arguments_by_predicate_and_by_agent() -> None:
    """Arguments can be checked by a predicate; a call expected of one agent does not match another's."""

    def dining(arguments: JsonValue) -> bool:
        return isinstance(arguments, dict) and arguments.get("category") == "dining"

    by_predicate = ExpectedCall(name="get_budget", arguments=dining, agent="budget")
    assert _tools(by_predicate, match="subset").evaluate(CASE, RUN).passed  # type: ignore[union-attr]
    wrong_agent = ExpectedCall(name="get_budget", agent="triage")
    assert not _tools(wrong_agent, match="subset").evaluate(CASE, RUN).passed  # type: ignore[union-attr]
    rejecting = ExpectedCall(name="get_budget", arguments=lambda arguments: False)
    assert not _tools(rejecting, match="subset").evaluate(CASE, RUN).passed  # type: ignore[union-attr]


def test_a_predicate_that_raises_rejects_the_call_instead_of_crashing() -> None:
    """A predicate that cannot read the arguments does not accept them: the verdict fails, nothing raises."""

    def reads_missing(arguments: JsonValue) -> bool:
        return bool(arguments["missing"])  # type: ignore[call-overload,index]

    raising = ExpectedCall(name="get_budget", arguments=reads_missing)
    assert not _tools(raising, match="subset").evaluate(CASE, RUN).passed  # type: ignore[union-attr]


def test_the_case_s_expected_calls_and_match_are_used_by_default() -> None:
    """`ToolTrajectory()` reads `expected_calls` and `calls_match` from the case, and does not apply without them."""
    case = Case(name="c", input="hi", expected_calls=[BUDGET], calls_match="subset")
    assert ToolTrajectory().evaluate(case, RUN).passed  # type: ignore[union-attr]
    assert ToolTrajectory().evaluate(CASE, RUN) is None


def test_handoff_path() -> None:
    """The agents that ran, in order: the expected path passes; another fails naming both, scored by common prefix."""
    assert HandoffPath(expected=("triage", "budget")).evaluate(CASE, RUN).passed  # type: ignore[union-attr]
    verdict = HandoffPath(expected=("triage", "investing")).evaluate(CASE, RUN)
    assert verdict is not None and not verdict.passed and verdict.score == 0.5
    assert verdict.reason == "expected triage -> investing, ran triage -> budget"
    assert HandoffPath().evaluate(Case(name="c", input="hi", expected_agents=["triage", "budget"]), RUN).passed  # type: ignore[union-attr]
