"""The evaluators of the final output: exact, contains, regex, structured output; each passing and failing."""

from __future__ import annotations

import attrs
import pytest
from tests.evals.agents import CASE, run_of

from helikon_fc.evals import Case, Contains, ExactOutput, MatchesRegex, StructuredOutput


def test_exact_output_reads_the_case_s_expected_output() -> None:
    """`ExactOutput()` compares with the case's `expected_output` (surrounding whitespace ignored): equal passes."""
    case = Case(name="c", input="hi", expected_output="It is 42.")
    verdict = ExactOutput().evaluate(case, run_of("  It is 42.\n"))
    assert verdict is not None and verdict.passed and verdict.score == 1.0


def test_exact_output_fails_with_both_texts_in_the_reason() -> None:
    """A different output fails with score 0, and the reason shows the expected and the actual text."""
    verdict = ExactOutput(expected="yes").evaluate(CASE, run_of("no"))
    assert verdict is not None and not verdict.passed and verdict.score == 0.0
    assert verdict.reason == "expected 'yes', got 'no'"


def test_exact_output_does_not_apply_without_an_expected_text() -> None:
    """A case with no `expected_output` is not scored by `ExactOutput()` (`None`), and `applies` says so."""
    assert ExactOutput().evaluate(CASE, run_of("x")) is None
    assert not ExactOutput().applies(CASE)


@pytest.mark.parametrize(
    ("text", "ignore_case", "passed"), [("42", False, True), ("BUDGET", False, False), ("BUDGET", True, True)]
)
def test_contains(text: str, ignore_case: bool, passed: bool) -> None:
    """`Contains` finds the text in the output, case-sensitively unless `ignore_case`."""
    verdict = Contains(text=text, ignore_case=ignore_case).evaluate(CASE, run_of("The budget is 42."))
    assert verdict.passed is passed and verdict.score == float(passed)


def test_regex_matches_anywhere_and_fails_naming_the_pattern() -> None:
    """`MatchesRegex` searches the output; a miss names the pattern and the output."""
    assert MatchesRegex(pattern=r"\$\d+").evaluate(CASE, run_of("left: $88")).passed
    verdict = MatchesRegex(pattern=r"\$\d+").evaluate(CASE, run_of("nothing left"))
    assert not verdict.passed and verdict.reason == "/\\$\\d+/ does not match 'nothing left'"


def test_a_bad_regex_is_refused_when_the_evaluator_is_built() -> None:
    """An invalid pattern raises `ValueError` naming it, before any eval runs."""
    with pytest.raises(ValueError, match=r"MatchesRegex: pattern '\(' is not a regular expression"):
        MatchesRegex(pattern="(")


@attrs.frozen
class Advice:
    category: str
    left: int


def test_structured_output_passes_a_valid_value() -> None:
    """JSON that decodes into the output type passes."""
    verdict = StructuredOutput(output_type=Advice).evaluate(CASE, run_of('{"category": "dining", "left": 88}'))
    assert verdict.passed, verdict.reason


def test_structured_output_fails_on_text_and_on_a_wrong_shape() -> None:
    """Text that is not JSON fails saying so; JSON of the wrong shape fails naming the field at fault."""
    not_json = StructuredOutput(output_type=Advice).evaluate(CASE, run_of("You have $88 left."))
    assert not not_json.passed and not_json.reason.startswith("the output is not JSON")
    wrong = StructuredOutput(output_type=Advice).evaluate(CASE, run_of('{"category": "dining", "left": "lots"}'))
    assert not wrong.passed and "not a valid Advice" in wrong.reason and "left" in wrong.reason
