"""Laws of `helikon_fc.evals.run_eval`: an eval's scores do not depend on how many runs go at once, nor on the
order its cases finish in."""

from __future__ import annotations

import attrs
import trio
from hypothesis import given, strategies as st

from helikon_fc import LlmAgent, ModelRequest, ToolResult, UserMessage, function_tool
from helikon_fc.evals import Case, Contains, Dataset, EvalReport, ExpectedCall, UsageBudget, run_eval_sync
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, fail, reply


@attrs.frozen
class Behaviour:
    """What the simulated agent does on one case's input: how long each model call takes, and how it answers."""

    latency: float
    calls_tool: bool
    answer: str
    fails: bool


@function_tool
def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: the key.
    """
    return key.upper()


def _agent(behaviours: dict[str, Behaviour]) -> LlmAgent[None]:
    async def answer(request: ModelRequest) -> ScriptedTurn:
        question = next(item.text for item in request.items if isinstance(item, UserMessage))
        behaviour = behaviours[question]
        await trio.sleep(behaviour.latency)
        if behaviour.fails:
            return fail("the model is down")
        if behaviour.calls_tool and not any(isinstance(item, ToolResult) for item in request.items):
            return call_tools(call("lookup", key=question))
        return reply(behaviour.answer)

    return LlmAgent(name="subject", model=FunctionModel(answer), instructions="Answer.", tools=[lookup])


behaviours = st.builds(
    Behaviour,
    latency=st.sampled_from([0.0, 0.5, 1.0, 3.0]),
    calls_tool=st.booleans(),
    answer=st.sampled_from(["yes", "no", "yes and no"]),
    fails=st.booleans(),
)


@st.composite
def evals(draw: st.DrawFn) -> tuple[Dataset, dict[str, Behaviour], list[float]]:
    """A dataset of 1 to 6 cases, the agent's behaviour on each, and another set of latencies (another finish order)."""
    count = draw(st.integers(min_value=1, max_value=6))
    chosen = [draw(behaviours) for _ in range(count)]
    cases = [
        Case(
            name=f"case {index}",
            input=f"q{index}",
            expected_calls=[ExpectedCall(name="lookup")] if draw(st.booleans()) else None,
            evaluators=[Contains(text=draw(st.sampled_from(["yes", "no"])))],
        )
        for index in range(count)
    ]
    shuffled = draw(st.permutations([b.latency for b in chosen]))
    dataset = Dataset(cases=cases, evaluators=[UsageBudget(max_requests=1)])
    return dataset, {f"q{i}": b for i, b in enumerate(chosen)}, list(shuffled)


def scores(report: EvalReport) -> list[tuple[str, dict[str, float], bool, tuple[bool, ...], tuple[str | None, ...]]]:
    """What an eval scored: per case, each evaluator's mean, whether it passed, each repetition's pass and error."""
    return [
        (
            case.name,
            dict(case.scores),
            case.passed,
            tuple(rep.passed for rep in case.repetitions),
            tuple(rep.error for rep in case.repetitions),
        )
        for case in report.cases
    ]


@given(evals(), st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=3))
def test_scores_do_not_depend_on_concurrency_or_finish_order(
    drawn: tuple[Dataset, dict[str, Behaviour], list[float]], concurrency: int, repeat: int
) -> None:
    """Run one at a time with the drawn latencies, or `concurrency` at a time with the latencies shuffled among the
    cases (so they finish in another order): the same scores, case by case, repetition by repetition."""
    dataset, behaviour, shuffled = drawn
    one_by_one = run_eval_sync(_agent(behaviour), dataset, virtual_time=True, concurrency=1, repeat=repeat)
    reordered = {
        question: attrs.evolve(b, latency=latency)
        for (question, b), latency in zip(behaviour.items(), shuffled, strict=True)
    }
    together = run_eval_sync(_agent(reordered), dataset, virtual_time=True, concurrency=concurrency, repeat=repeat)
    assert scores(together) == scores(one_by_one)
    assert [case.name for case in together.cases] == [case.name for case in dataset.cases]
    assert together.score == one_by_one.score and dict(together.scores) == dict(one_by_one.scores)
