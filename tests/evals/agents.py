"""Agents the eval tests score: simulated models that compute each answer from the request (no script to share)."""

from __future__ import annotations

from collections.abc import Callable

import trio

from helikon_fc import Handoff, JsonValue, LlmAgent, ModelRequest, ToolResult, UserMessage, function_tool
from helikon_fc.evals import Case, CaseRun
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, fail, reply


@function_tool
def lookup(category: str) -> int:
    """The budget of a category.

    Args:
        category: the category.
    """
    return {"dining": 300, "travel": 200}.get(category, 0)


def question(request: ModelRequest) -> str:
    """The last user message of the request."""
    return next((item.text for item in reversed(request.items) if isinstance(item, UserMessage)), "")


def answered(request: ModelRequest) -> list[str]:
    """The outputs of the tool calls of the request's conversation, in order."""
    return [item.output for item in request.items if isinstance(item, ToolResult)]


def _lookup_turn(request: ModelRequest) -> ScriptedTurn:
    results = answered(request)
    if not results:
        return call_tools(call("lookup", category=question(request).split()[-1]))
    return reply(f"The budget is ${results[-1]}.")


def budget_agent(*, latency: Callable[[str], float] | None = None, name: str = "budget") -> LlmAgent[None]:
    """An agent that looks up the category named last in the question, then states its budget.

    With `latency`, each model call first sleeps `latency(question)` seconds (virtual time in these tests).
    """

    async def answer(request: ModelRequest) -> ScriptedTurn:
        if latency is not None:
            await trio.sleep(latency(question(request)))
        return _lookup_turn(request)

    return LlmAgent(name=name, model=FunctionModel(answer, name="budget-sim"), instructions="Answer.", tools=[lookup])


def failing_agent(message: str = "the model is down") -> LlmAgent[None]:
    """An agent whose model fails every request."""
    return LlmAgent(name="broken", model=FunctionModel(lambda _: fail(message)), instructions="Answer.")


def triage_agent() -> LlmAgent[None]:
    """A triage agent handing every question to a specialist that echoes it."""
    specialist: LlmAgent[None] = LlmAgent(
        name="specialist",
        description="Answers.",
        model=FunctionModel(lambda request: reply(f"answer to {question(request)}")),
        instructions="Answer.",
    )
    return LlmAgent(
        name="triage",
        model=FunctionModel(lambda _: call_tools(call("transfer_to_specialist"))),
        instructions="Route.",
        handoffs=[Handoff.to(specialist)],
    )


def run_of(
    output: str | None = "", *, calls: tuple[tuple[str, str, JsonValue], ...] = (), agents: tuple[str, ...] = ()
) -> CaseRun:
    """A `CaseRun` built by hand, for evaluators tested without running anything."""
    from helikon_fc.evals import ObservedCall

    observed = tuple(ObservedCall(agent=agent, name=name, arguments=arguments) for agent, name, arguments in calls)
    return CaseRun(output=output, error=None, calls=observed, agents=agents)


CASE = Case(name="c", input="hi")
"""A case with no expectations."""
