"""`LlmJudge` with the simulator as the judge, and `UserFunction` (sync and async); an evaluator's bug never crashes."""

from __future__ import annotations

import trio
from tests.evals.agents import CASE, budget_agent, run_of

from helikon_fc import ModelRequest, UserMessage
from helikon_fc.evals import (
    JUDGE_INSTRUCTIONS,
    Case,
    CaseRun,
    Dataset,
    LlmJudge,
    UserFunction,
    Verdict,
    format_html,
    run_eval,
)
from helikon_fc.testing import FunctionModel, ScriptedModel, ScriptedTurn, fail, reply

CASE_WITH_ANSWER = Case(name="c", input="How is my dining budget?", expected_output="$88 left")


async def test_the_judge_s_score_and_reason_become_the_verdict() -> None:
    """A judge answering ``{"score": 0.8, "reason": ...}`` gives score 0.8, a pass at threshold 0.5, and its reason."""
    judge = LlmJudge(model=ScriptedModel([reply('{"score": 0.8, "reason": "mostly right"}')]), rubric="Be exact.")
    verdict = await judge.evaluate(CASE_WITH_ANSWER, run_of("$88"))
    assert verdict.passed and verdict.score == 0.8 and verdict.reason == "judge: mostly right"


async def test_the_judge_reads_the_rubric_input_expected_and_answer_and_the_report_shows_its_prompt() -> None:
    """The judge's request holds its instructions and a message with the rubric, input, expected output and answer;
    the verdict's detail (shown in the report) is that prompt and the judge's answer."""
    seen: list[ModelRequest] = []

    def grade(request: ModelRequest) -> ScriptedTurn:
        seen.append(request)
        return reply('{"score": 0.2, "reason": "wrong amount"}')

    judge = LlmJudge(model=FunctionModel(grade), rubric="The amount must be right.", threshold=0.5)
    verdict = await judge.evaluate(CASE_WITH_ANSWER, run_of("$12"))
    assert not verdict.passed and verdict.score == 0.2
    assert seen[0].instructions == JUDGE_INSTRUCTIONS
    message = next(item.text for item in seen[0].items if isinstance(item, UserMessage))
    assert message == judge.prompt(CASE_WITH_ANSWER, run_of("$12"))
    assert "Rubric:\nThe amount must be right." in message and "Expected output:\n$88 left" in message
    assert message.endswith("Answer to grade:\n$12")
    assert message in verdict.detail and verdict.detail.endswith('answer:\n{"score": 0.2, "reason": "wrong amount"}')


async def test_a_judge_that_answers_badly_or_fails_fails_the_verdict() -> None:
    """A judge answering prose, a score out of range, or failing its run: a failed verdict saying which."""
    prose = await LlmJudge(model=ScriptedModel([reply("Looks good!")]), rubric="r").evaluate(CASE, run_of("x"))
    assert not prose.passed and prose.reason == "the judge did not answer JSON: 'Looks good!'"
    high = await LlmJudge(model=ScriptedModel([reply('{"score": 7}')]), rubric="r").evaluate(CASE, run_of("x"))
    assert not high.passed and 'no "score" from 0 to 1' in high.reason
    down = await LlmJudge(model=ScriptedModel([fail("overloaded")]), rubric="r").evaluate(CASE, run_of("x"))
    assert not down.passed and down.reason.startswith("the judge's run failed:") and "overloaded" in down.reason


async def test_user_functions_sync_and_async() -> None:
    """A sync function's ``(score, reason)`` passes at its threshold; an async one is awaited; `None` skips the case."""

    def short(case: Case, run: CaseRun) -> tuple[float, str]:
        return (1.0 if len(run.output or "") < 10 else 0.3), "length"

    async def polite(case: Case, run: CaseRun) -> Verdict | None:
        await trio.sleep(0)
        return Verdict.of("please" in (run.output or ""), "manners") if case.name == "c" else None

    verdict = await UserFunction(fn=short, threshold=0.5).evaluate(CASE, run_of("a long answer indeed"))
    assert verdict is not None and verdict.score == 0.3 and not verdict.passed
    assert UserFunction(fn=short).name == "short"
    assert (await UserFunction(fn=polite).evaluate(CASE, run_of("yes please"))).passed  # type: ignore[union-attr]
    assert await UserFunction(fn=polite).evaluate(Case(name="other", input="x"), run_of("")) is None


async def test_an_evaluator_that_raises_or_returns_junk_fails_its_verdict_and_the_eval_goes_on(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """An evaluator raising, or returning something that is not a score, fails that verdict with the reason; the
    other evaluators still score the run and the eval returns its report."""

    def boom(case: Case, run: CaseRun) -> tuple[float, str]:
        raise KeyError("no such field")

    def junk(case: Case, run: CaseRun) -> tuple[float, str]:
        return "great"  # type: ignore[return-value]

    def fine(case: Case, run: CaseRun) -> tuple[float, str]:
        return 1.0, "ok"

    dataset = Dataset(
        cases=[Case(name="c", input="budget for dining")],
        evaluators=[UserFunction(fn=boom), UserFunction(fn=junk), UserFunction(fn=fine)],
    )
    report = await run_eval(budget_agent(), dataset)
    results = {result.evaluator: result for result in report.cases[0].repetitions[0].results}
    assert results["boom"].reason == "the evaluator raised KeyError: 'no such field'" and not results["boom"].passed
    assert "returned 'great'" in results["junk"].reason and not results["junk"].passed
    assert results["fine"].passed
    assert not report.passed


async def test_the_report_shows_the_judge_s_prompt(autojump_clock: trio.testing.MockClock) -> None:
    """In an eval, a failing judge verdict's prompt appears (escaped) on the HTML page."""
    judge = LlmJudge(model=FunctionModel(lambda _: reply('{"score": 0, "reason": "no <b>"}')), rubric="Use <b> tags")
    report = await run_eval(
        budget_agent(), Dataset(cases=[Case(name="c", input="budget for dining")], evaluators=[judge])
    )
    page = format_html(report)
    assert "Rubric:\nUse &lt;b&gt; tags" in page and "judge: no &lt;b&gt;" in page and "<b>" not in page
