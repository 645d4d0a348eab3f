"""Personal-finance agent systems as offline scenarios: every model is a scripted fake, so the
demo needs no key and no network, and runs the same every time."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import trio

from ..agents.agent_as_tool import AgentAsTool
from ..agents.graph import GraphAgent
from ..agents.handoff import Handoff
from ..agents.llm_agent import LlmAgent
from ..agents.parallel import ParallelAgent
from ..agents.protocol import Agent
from ..agents.sequential import SequentialAgent
from ..agents.swarm import SwarmAgent
from ..core import ModelRequest, ToolResult, UserMessage
from ..models.protocol import Model
from ..shell.context.run_context import RunContext
from ..shell.tools.function_tool import function_tool
from ..shell.tools.tool import Tool
from ..testing import FunctionModel, ScriptedModel, ScriptedTurn, call, call_tools, reply
from .pacing import PacedModel


@attrs.frozen
class Scenario:
    """One demo: a title, what it shows, the agent system and the user's question."""

    key: str
    title: str
    shows: str
    agent: Agent[None]
    question: str
    cancel_after: float | None = None
    """Seconds after which the user cancels the run (``ctx.cancel``); the scenario then ends cancelled."""
    interrupt_after_tool: bool = False
    """Record the run in a store, stop it once its first tool call has answered, show what the store kept, and
    resume it from there (``cli/resumed.py``); the scenario succeeds when the resumed run completes."""


def _model(real: Model | None, name: str, *turns: ScriptedTurn) -> Model:
    """`real` when the demo runs on a real model; else the scripted `turns`, paced like a live stream."""
    return real if real is not None else PacedModel(ScriptedModel(turns, name=name))


def _agent(
    real: Model | None,
    name: str,
    instructions: str | Callable[[RunContext[None]], str] | None,
    *turns: ScriptedTurn,
    script: str | None = None,
    description: str = "",
    tools: tuple[Tool[None], ...] = (),
) -> LlmAgent[None]:
    """The agent `name` on `real`, or on its scripted `turns` (a script called `script`, by default `name`)."""
    model = _model(real, script or name, *turns)
    return LlmAgent[None](name=name, model=model, instructions=instructions, description=description, tools=tools)


# Tools: deterministic stand-ins for a ledger. Async on purpose: a sync tool runs in a worker thread, and
# while a thread runs, MockClock's autojump sees every task blocked and jumps virtual time ahead.


@function_tool
async def get_spending(category: str) -> dict[str, float]:  # noqa: ASYNC124, ASYNC910 - async on purpose (see above): it runs in the run's own task
    """This month's spending in one budget category, against its budget.

    Args:
        category: A budget category, such as "dining".
    """
    ledger = {"dining": (412.40, 250.0), "groceries": (388.15, 400.0)}
    spent, budget = ledger.get(category, (0.0, 0.0))
    return {"spent": spent, "budget": budget}  # noqa: ASYNC910


@function_tool
async def list_transactions(month: str) -> list[dict[str, object]]:  # noqa: ASYNC124, ASYNC910 - async on purpose (see above): it runs in the run's own task
    """Card transactions of a month.

    Args:
        month: The month, as YYYY-MM.
    """
    return [  # noqa: ASYNC910
        {"merchant": "Bistro 21", "category": "dining", "amount": 86.0},
        {"merchant": "FreshMart", "category": "groceries", "amount": 142.3},
        {"merchant": "Streamly", "category": "subscriptions", "amount": 17.99},
    ]


@function_tool
async def list_deposits(month: str) -> list[dict[str, object]]:  # noqa: ASYNC124, ASYNC910 - async on purpose (see above): it runs in the run's own task
    """Deposits into the checking account in a month.

    Args:
        month: The month, as YYYY-MM.
    """
    return [{"source": "Acme Corp payroll", "amount": 2450.0}, {"source": "Acme Corp payroll", "amount": 2450.0}]  # noqa: ASYNC910


@function_tool
async def lookup_rates(product: str) -> dict[str, float]:  # noqa: ASYNC124, ASYNC910 - async on purpose (see above): it runs in the run's own task
    """Current annual rates for a savings product.

    Args:
        product: "high-yield savings", "cd-12m" or "treasury-6m".
    """
    rates = {"high-yield savings": 4.1, "cd-12m": 4.4, "treasury-6m": 4.9}
    return {"apy_percent": rates.get(product, 0.0)}  # noqa: ASYNC910


# 1. Triage with handoffs.


def _route(request_text: str) -> str:
    return "investing specialist" if "invest" in request_text.lower() else "budgeting specialist"


def triage_handoff(model: Model | None = None) -> Scenario:
    """A triage agent that always hands off to the budgeting or the investing specialist."""
    budgeting = _agent(
        model,
        "budgeting specialist",
        "You are a budgeting specialist. Give concrete, friendly advice.",
        reply("Track every expense for a month, then cap your top two categories."),
        script="budgeting",
        description="Answers questions about monthly budgets and cutting spending.",
    )
    investing = _agent(
        model,
        "investing specialist",
        "You are an investing specialist. Give concrete, prudent advice.",
        reply(
            "Keep three months of expenses as an emergency fund first. Then put the $5,000 into a low-cost, "
            "broad index fund, ideally inside a tax-advantaged account, and add to it every month.",
            latency=0.4,
        ),
        script="investing",
        description="Answers questions about investing, portfolios, and retirement.",
    )

    def triage_turn(request: ModelRequest) -> ScriptedTurn:
        text = " ".join(item.text for item in request.items if isinstance(item, UserMessage))
        target = _route(text).replace(" ", "_")
        return call_tools(call(f"transfer_to_{target}"), latency=0.3)

    triage = LlmAgent[None](
        name="triage",
        model=model or PacedModel(FunctionModel(triage_turn, name="triage")),
        instructions="Classify the user's personal-finance question and transfer to the right specialist. "
        "Do not answer yourself - always hand off.",
        handoffs=(Handoff.to(budgeting), Handoff.to(investing)),
    )
    return Scenario(
        "triage",
        "Triage with handoffs",
        "Handoff: the triage agent routes to a specialist, who owns the rest of the run.",
        triage,
        "How should I start investing $5,000?",
    )


# 2. The support swarm.


def support_swarm(model: Model | None = None) -> Scenario:
    """Three members with full-mesh handoffs: triage -> budgeting -> investing, who answers."""
    triage = _agent(
        model,
        "triage",
        "Route the customer to the member who can help.",
        call_tools(call("transfer_to_budgeting"), latency=0.3),
        script="swarm-triage",
        description="Works out what the customer needs and routes them.",
    )
    budgeting = _agent(
        model,
        "budgeting",
        "Find where the money goes; hand investing questions on.",
        call_tools(call("get_spending", category="dining"), latency=0.3),
        call_tools(
            call("transfer_to_investing"),
            text="Dining is $162 over budget; cutting that frees about $160 a month. ",
            latency=0.3,
        ),
        script="swarm-budgeting",
        description="Monthly budgets, overspending and savings targets.",
        tools=(get_spending,),
    )
    investing = _agent(
        model,
        "investing",
        "Give prudent investing advice.",
        reply(
            "Automate a $160 monthly transfer into a broad index fund on payday, so the saving happens "
            "before you can spend it.",
            latency=0.3,
        ),
        script="swarm-investing",
        description="Investing the money the customer saves.",
    )
    swarm = (
        SwarmAgent[None]
        .builder()
        .name("support_swarm")
        .description("A personal-finance support swarm covering budgeting and investing.")
        .member(triage)
        .member(budgeting)
        .member(investing)
        .entry("triage")
        .max_handoffs(6)
        .build()
    )
    return Scenario(
        "swarm",
        "The support swarm",
        "SwarmAgent: members hand off among themselves until one answers.",
        swarm,
        "I overspend on dining every month. Can I invest what I save instead?",
    )


# 3. The spending/income graph.


def finance_graph(model: Model | None = None) -> Scenario:
    """spending and income run concurrently; summary starts the moment both are done."""
    spending = _agent(
        model,
        "spending",
        "Summarize the month's spending by category.",
        call_tools(call("list_transactions", month="2026-10"), latency=0.2),
        reply("Spending: $246.29, mostly groceries ($142.30) and dining ($86.00).", latency=0.2),
        tools=(list_transactions,),
    )
    income = _agent(
        model,
        "income",
        "Summarize the month's income.",
        call_tools(call("list_deposits", month="2026-10"), latency=0.1),
        reply("Income: $4,900 from two payroll deposits.", latency=0.3),
        tools=(list_deposits,),
    )
    summary = _agent(
        model,
        "summary",
        "Combine the spending and income notes into a two-line summary.",
        reply("October: $4,900 in, $246.29 out on the card. You kept about 95% of your income.", latency=0.3),
    )
    graph = (
        GraphAgent[None]
        .builder()
        .name("finance_report")
        .description("Fans spending and income analysis into a combined summary.")
        .node("spending", spending)
        .node("income", income)
        .node("summary", summary)
        .edge("spending", "summary")
        .edge("income", "summary")
        .build()
    )
    return Scenario(
        "graph",
        "The spending/income graph",
        "GraphAgent: a DAG; summary waits for both of its predecessors and reads their outputs.",
        graph,
        "How did October go?",
    )


# 4. Research, then write.


def _brief_instructions(ctx: RunContext[None]) -> str:
    notes = ctx.state.get("researcher")
    return f"Write a short brief from these notes:\n{notes if isinstance(notes, str) else ''}"


def research_pipeline(model: Model | None = None) -> Scenario:
    """A researcher with a rates tool, then a writer whose instructions read the researcher's notes from state."""
    researcher = _agent(
        model,
        "researcher",
        "Research current savings rates with the tool.",
        call_tools(call("lookup_rates", product="high-yield savings"), call("lookup_rates", product="cd-12m")),
        reply("High-yield savings pays 4.1% APY, a 12-month CD 4.4%.", latency=0.2),
        tools=(lookup_rates,),
    )
    writer = _agent(
        model,
        "writer",
        _brief_instructions,
        reply(
            "Keep your emergency fund in high-yield savings (4.1%, no lock-up); move money you will not "
            "need for a year into a 12-month CD for 4.4%.",
            latency=0.3,
        ),
    )
    pipeline = SequentialAgent[None]("research-then-write", "Research, then draft.").then(researcher).then(writer)
    return Scenario(
        "pipeline",
        "Research, then write",
        "SequentialAgent: the writer's instructions read the researcher's notes from state.",
        pipeline,
        "Where should I keep my savings?",
    )


# 5. Two checks at once.


def parallel_checks(model: Model | None = None) -> Scenario:
    """Two branches stream their answers at the same time; the merged output does not depend on who finished first."""
    rates = _agent(
        model,
        "rates",
        "Compare the user's savings rate with the market.",
        reply("Your savings earn 0.5%; high-yield accounts pay 4.1% today.", latency=0.1),
    )
    subscriptions = _agent(
        model,
        "subscriptions",
        "List the subscriptions renewing this month.",
        reply("Three subscriptions renew this month: $17.99, $9.99, $6.49.", latency=0.1),
    )
    checks = ParallelAgent[None]("monthly-checks", "Two independent checks, run at once.").add(rates).add(subscriptions)
    return Scenario(
        "parallel",
        "Two checks at once",
        "ParallelAgent: both branches stream at once, each answer kept on its own line; one merged JSON answer.",
        checks,
        "Anything I should look at this month?",
    )


# 6. A typed plan, with a calculator sub-agent and one repair.


@attrs.frozen
class SavingsPlan:
    """The planner's structured answer."""

    monthly_savings: int
    months_to_goal: int


def typed_plan(model: Model | None = None) -> Scenario:
    """The planner asks a calculator agent (an AgentAsTool), then answers as a `SavingsPlan`; its first JSON
    misses a field, so it gets one repair turn."""
    calculator = _agent(
        model,
        "calculator",
        None,
        reply("$5,000 at $400 a month takes 13 months (12.5, rounded up).", latency=0.2),
        description="Does savings arithmetic and answers with the number.",
    )
    planner = LlmAgent[None](
        name="planner",
        model=_model(
            model,
            "planner",
            call_tools(call("calculator", input="How long to save $5,000 at $400 a month?"), latency=0.2),
            reply("Put $400 a month aside and you reach $5,000 in about 13 months.", latency=0.2),
            reply('{"monthly_savings": 400}', latency=0.2),
            reply('{"monthly_savings": 400, "months_to_goal": 13}', latency=0.2),
        ),
        instructions="Plan the user's savings; use the calculator for arithmetic.",
        tools=(AgentAsTool(calculator),),
        output_type=SavingsPlan,
    )
    return Scenario(
        "typed",
        "A typed plan",
        "AgentAsTool + output_type: a sub-agent does the arithmetic; a JSON answer missing a field is repaired once.",
        planner,
        "I want $5,000 saved. How?",
    )


# 7. Saved and resumed.


def _balances_turn(request: ModelRequest) -> ScriptedTurn:
    """Ask for both balances; once they are in the conversation, answer from them (so a resumed run continues)."""
    results = [item.output for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(call("get_balance", account="checking"), call("get_balance", account="savings"), latency=0.2)
    return reply(
        "Checking holds $1,840 and savings $6,200: move $1,000 of checking into savings to earn 4.1% on it.",
        latency=0.3,
    )


def saved_and_resumed(model: Model | None = None) -> Scenario:
    """A run recorded in a store is stopped after its tool calls answered, and resumed to the end from its records."""
    balances = {"checking": 1840.0, "savings": 6200.0}

    @function_tool
    async def get_balance(account: str) -> float:  # noqa: ASYNC124, ASYNC910 - async on purpose (see the tools above)
        """The current balance of an account.

        Args:
            account: "checking" or "savings".
        """
        return balances.get(account, 0.0)  # noqa: ASYNC910

    advisor = LlmAgent[None](
        name="advisor",
        model=model or PacedModel(FunctionModel(_balances_turn, name="advisor")),
        instructions="Look up the user's balances, then advise where idle money should sit.",
        tools=(get_balance,),
    )
    return Scenario(
        "resume",
        "Saved and resumed",
        "Runner(store=...) records every step; stopped after its tool calls, the run is resumed without them.",
        advisor,
        "Is my money in the right accounts?",
        interrupt_after_tool=True,
    )


# 8. Stop!


@function_tool
async def fetch_statements(years: int) -> str:
    """Download and read the account's statements (slow).

    Args:
        years: How many years of statements.
    """
    await trio.sleep(30.0)
    return f"{years} years of statements"


def cancelled_run(model: Model | None = None) -> Scenario:
    """A slow tool is running when the user presses stop: the run ends with its own `Cancelled` event, at once."""
    auditor = _agent(
        model,
        "auditor",
        "Audit the account's history.",
        call_tools(call("fetch_statements", years=5), latency=0.2),
        reply("never"),
        tools=(fetch_statements,),
    )
    return Scenario(
        "cancel",
        "Stop!",
        "ctx.cancel(): the user stops a run mid-tool; the tool is cancelled, the run ends with RunFailed(Cancelled).",
        auditor,
        "Audit my last five years.",
        cancel_after=1.5,
    )


SCENARIOS: tuple[Callable[[Model | None], Scenario], ...] = (
    triage_handoff,
    support_swarm,
    finance_graph,
    research_pipeline,
    parallel_checks,
    typed_plan,
    saved_and_resumed,
    cancelled_run,
)
"""Builders of the demo's scenarios, in the order it runs them; each takes the real model to run on, or `None`
for its scripted ones."""
