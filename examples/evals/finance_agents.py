"""The finance agents the eval example scores: a triage agent handing off to a budgeting or an investing specialist.

The simulator plays their models (`FunctionModel`s that read the request, so every case gets its own answer,
and the runs of an eval can go concurrently); `build(model)` puts every agent on a real model instead, which is
what ``helikon eval ... --model openai:gpt-5-mini`` does.

Two versions, for the story of a regression: `build_before` is last week's agents, `build` this week's, whose
investing specialist got shorter instructions ("simplified the prompt") and no longer mentions an emergency
fund. ``baseline.json`` is the report of `build_before`; against it, `build` regresses on one case.

    helikon eval examples/evals/finance.jsonl --agent examples/evals/finance_agents.py:build --virtual-time \\
        --baseline examples/evals/baseline.json
"""

from __future__ import annotations

from helikon_fc import Handoff, LlmAgent, Model, ModelRequest, ToolCall, ToolResult, UserMessage, function_tool
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply

BUDGETS = {"dining": 300, "groceries": 450, "travel": 200}
SPENT = {"dining": 212, "groceries": 380, "travel": 260}

INVESTING_BEFORE = (
    "You are an investing specialist. Give concrete, prudent advice: "
    "always make sure the user has an emergency fund before investing."
)
INVESTING_NOW = "You are an investing specialist. Give concrete advice."


@function_tool
def get_budget(category: str) -> int:
    """The monthly budget for a spending category, in dollars.

    Args:
        category: A spending category, e.g. "dining" or "groceries".
    """
    return BUDGETS[category]


@function_tool
def get_spending(category: str) -> int:
    """What was spent this month in a category, in dollars.

    Args:
        category: A spending category, e.g. "dining" or "groceries".
    """
    return SPENT.get(category, 0)


def _question(request: ModelRequest) -> str:
    return next((item.text for item in reversed(request.items) if isinstance(item, UserMessage)), "").lower()


def _triage(request: ModelRequest) -> ScriptedTurn:
    question = _question(request)
    investing = any(word in question for word in ("invest", "retire", "stock", "index fund"))
    return call_tools(call("transfer_to_investing_specialist" if investing else "transfer_to_budgeting_specialist"))


def _budgeting(request: ModelRequest) -> ScriptedTurn:
    asked = {item.call_id for item in request.items if isinstance(item, ToolCall) and item.name.startswith("get_")}
    results = [item for item in request.items if isinstance(item, ToolResult) and item.call_id in asked]
    category = next((name for name in BUDGETS if name in _question(request)), None)
    if category is None:
        return reply("Track a month of spending, then cap your top two categories.")
    if not results:
        return call_tools(call("get_budget", category=category), call("get_spending", category=category))
    budget, spent = (int(result.output) for result in results[-2:])
    if spent > budget:
        return reply(f"You have spent ${spent} of your ${budget} {category} budget: ${spent - budget} over.")
    return reply(
        f"You have spent ${spent} of your ${budget} {category} budget this month, so ${budget - spent} is left."
    )


def _investing(request: ModelRequest) -> ScriptedTurn:
    advice = "Put the money into a low-cost broad index fund and add to it monthly."
    if "emergency fund" in (request.instructions or ""):
        advice = "First keep three months of expenses as an emergency fund. Then " + advice[0].lower() + advice[1:]
    return reply(advice)


def _agents(model: Model | None, investing_instructions: str) -> LlmAgent[None]:
    budgeting: LlmAgent[None] = LlmAgent(
        name="budgeting specialist",
        description="Answers questions about monthly budgets and spending.",
        model=model or FunctionModel(_budgeting, name="budgeting-sim"),
        instructions="You are a budgeting specialist. Look up the budget and the spending before answering.",
        tools=[get_budget, get_spending],
    )
    investing: LlmAgent[None] = LlmAgent(
        name="investing specialist",
        description="Answers questions about investing, portfolios, and retirement.",
        model=model or FunctionModel(_investing, name="investing-sim"),
        instructions=investing_instructions,
    )
    return LlmAgent(
        name="triage",
        model=model or FunctionModel(_triage, name="triage-sim"),
        instructions="Classify the user's personal-finance question and transfer to the right specialist.",
        handoffs=[Handoff.to(budgeting), Handoff.to(investing)],
    )


def build(model: Model | None = None) -> LlmAgent[None]:
    """This week's agents (on `model`, or on the simulator when `None`)."""
    return _agents(model, INVESTING_NOW)


def build_before(model: Model | None = None) -> LlmAgent[None]:
    """Last week's agents, whose report is ``baseline.json``."""
    return _agents(model, INVESTING_BEFORE)
