"""Bad definitions fail where they are built: `TypeError`/`ValueError` naming the argument, what it got
and what is allowed (issue 9, section 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from helikon_fc import (
    AgentAsTool,
    AgentInput,
    GraphAgent,
    Handoff,
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    RunConfig,
    RunContext,
    Runner,
    SequentialAgent,
    SwarmAgent,
)
from helikon_fc.testing import ScriptedModel, reply, simulate


def _model() -> ScriptedModel:
    return ScriptedModel([reply("ok")])


def _agent(name: str = "a") -> LlmAgent[None]:
    return LlmAgent(name=name, model=_model())


def plain_function(x: int) -> int:
    """Not a tool: no @function_tool."""
    return x


def bad(value: object) -> Any:
    """`value`, typed `Any`: the cases below pass values a type checker would reject, on purpose."""
    return value


CASES: list[tuple[str, Callable[[], object], type[Exception], tuple[str, ...]]] = [
    ("model None", lambda: LlmAgent(name="a", model=bad(None)), TypeError, ("model", "None", "Model")),
    (
        "model as a string",
        lambda: LlmAgent(name="a", model=bad("gpt-5-mini")),
        TypeError,
        ("model", "'gpt-5-mini'", "OpenAIModel.chat('gpt-5-mini')"),
    ),
    (
        "a plain function as a tool",
        lambda: LlmAgent(name="a", model=_model(), tools=bad([plain_function])),
        TypeError,
        ("tools[0]", "plain_function", "decorate it with @function_tool"),
    ),
    (
        "a string as a tool",
        lambda: LlmAgent(name="a", model=_model(), tools=bad(["lookup"])),
        TypeError,
        ("tools[0]", "'lookup'", "a Tool"),
    ),
    (
        "a string as a handoff",
        lambda: LlmAgent(name="a", model=_model(), handoffs=bad(["b"])),
        TypeError,
        ("handoffs[0]", "'b'", "Handoff"),
    ),
    ("Handoff.to a string", lambda: Handoff.to(bad("billing")), TypeError, ("agent", "'billing'", "an Agent")),
    ("AgentAsTool of a string", lambda: AgentAsTool(bad("billing")), TypeError, ("agent", "'billing'", "an Agent")),
    (
        "instructions 42",
        lambda: LlmAgent(name="a", model=_model(), instructions=bad(42)),
        TypeError,
        ("instructions", "42", "a string"),
    ),
    (
        "run_config 'x'",
        lambda: LlmAgent(name="a", model=_model(), run_config=bad("x")),
        TypeError,
        ("run_config", "'x'", "RunConfig"),
    ),
    ("RunConfig timeout '5'", lambda: RunConfig(timeout=bad("5")), TypeError, ("timeout", "'5'", "seconds")),
    ("RunConfig timeout 0", lambda: RunConfig(timeout=0), ValueError, ("timeout", "0", "positive")),
    ("RunConfig max_turns '5'", lambda: RunConfig(max_turns=bad("5")), TypeError, ("max_turns", "'5'", "an int")),
    ("RunConfig max_turns True", lambda: RunConfig(max_turns=True), TypeError, ("max_turns", "True", "an int")),
    (
        "RunConfig max_agent_depth 1.5",
        lambda: RunConfig(max_agent_depth=bad(1.5)),
        TypeError,
        ("max_agent_depth", "1.5", "an int"),
    ),
    (
        "RunConfig parallel_tool_call_limit 0",
        lambda: RunConfig(parallel_tool_call_limit=0),
        ValueError,
        ("parallel_tool_call_limit", "0", ">= 1 or None"),
    ),
    ("Runner('fast')", lambda: Runner(bad("fast")), TypeError, ("config", "'fast'", "RunConfig")),
    ("LlmAgent name 123", lambda: LlmAgent(name=bad(123), model=_model()), TypeError, ("name", "123", "string")),
    ("LlmAgent empty name", lambda: LlmAgent(name="", model=_model()), ValueError, ("name", "''", "non-empty")),
    ("SequentialAgent empty name", lambda: SequentialAgent(""), ValueError, ("SequentialAgent", "name", "non-empty")),
    ("ParallelAgent empty name", lambda: ParallelAgent(""), ValueError, ("ParallelAgent", "name", "non-empty")),
    ("LoopAgent empty name", lambda: LoopAgent(""), ValueError, ("LoopAgent", "name", "non-empty")),
    ("SequentialAgent name 7", lambda: SequentialAgent(bad(7)), TypeError, ("name", "7", "string")),
    (
        "GraphAgent empty name",
        lambda: GraphAgent.builder().name("").node("a", _agent()).build(),
        ValueError,
        ("name", "''", "non-empty"),
    ),
    (
        "SwarmAgent empty name",
        lambda: SwarmAgent.builder().name("").member(_agent()).build(),
        ValueError,
        ("name", "''", "non-empty"),
    ),
    (
        "AgentAsTool.with_name('')",
        lambda: AgentAsTool(_agent()).with_name(""),
        ValueError,
        ("tool_name", "''", "non-empty"),
    ),
    ("a string step", lambda: SequentialAgent("s").then(bad("x")), TypeError, ("agent", "'x'", "an Agent")),
    ("an int loop step", lambda: LoopAgent("s").then(bad(3)), TypeError, ("agent", "3", "an Agent")),
    ("a string branch", lambda: ParallelAgent("p").add(bad("x")), TypeError, ("agent", "'x'", "an Agent")),
    (
        "a string graph node",
        lambda: GraphAgent.builder().node("n", bad("x")).build(),
        TypeError,
        ("agent", "'x'", "an Agent"),
    ),
    (
        "an empty step key",
        lambda: SequentialAgent("s").then_keyed("", _agent()),
        ValueError,
        ("key", "''", "non-empty"),
    ),
    (
        "a duplicate graph edge",
        lambda: GraphAgent.builder().node("a", _agent()).node("b", _agent("b")).edge("a", "b").edge("a", "b").build(),
        ValueError,
        ("'a' -> 'b'", "twice"),
    ),
    ("from_user_text(42)", lambda: AgentInput.from_user_text(bad(42)), TypeError, ("text", "42", "a string")),
    ("simulate(agent, 42)", lambda: simulate(_agent(), bad(42)), TypeError, ("input", "42", "AgentInput")),
    ("simulate('agent', ...)", lambda: simulate(bad("a"), "hi"), TypeError, ("agent", "'a'", "an Agent")),
    ("simulate config 'x'", lambda: simulate(_agent(), "hi", None, bad("x")), TypeError, ("config", "RunConfig")),
]


@pytest.mark.parametrize(("build", "kind", "parts"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_bad_definition_fails_when_built_naming_the_argument_the_value_and_what_is_allowed(
    build: Callable[[], object], kind: type[Exception], parts: tuple[str, ...]
) -> None:
    """Each bad argument raises `TypeError`/`ValueError` at construction whose message names the argument,
    shows what it got and says what is allowed."""
    with pytest.raises(kind) as info:
        build()
    text = str(info.value)
    for part in parts:
        assert part in text, f"{part!r} not in {text!r}"


def test_good_definitions_still_build() -> None:
    """The checks let every ordinary definition through (a number timeout, an int timeout, optional caps)."""
    assert RunConfig(timeout=5, max_turns=3, parallel_tool_call_limit=None).timeout == 5
    assert RunConfig(timeout=0.5).timeout == 0.5
    assert Runner().config == RunConfig()
    agent = _agent()
    assert AgentAsTool(agent).with_name("ask").name == "ask"
    assert SequentialAgent("s").then(agent).steps[0][0] == "a"
    assert LlmAgent(name="a", model=_model(), instructions=lambda ctx: "hi").instructions is not None


@pytest.mark.parametrize(
    ("workflow", "what"),
    [
        (SequentialAgent[None]("pipeline"), "SequentialAgent 'pipeline' has no steps"),
        (ParallelAgent[None]("fan-out"), "ParallelAgent 'fan-out' has no branches"),
        (LoopAgent[None]("refine"), "LoopAgent 'refine' has no steps"),
    ],
    ids=["sequential", "parallel", "loop"],
)
def test_an_empty_workflow_fails_its_run_at_the_start_saying_so(
    workflow: SequentialAgent[None] | ParallelAgent[None] | LoopAgent[None], what: str
) -> None:
    """An empty `SequentialAgent`/`ParallelAgent`/`LoopAgent` fails its run at once with an error saying it
    has nothing to run, instead of completing with an empty answer."""
    sim = simulate(workflow, "hi")
    assert sim.result is None and sim.error is not None
    assert what in str(sim.error)
    assert [type(event).__name__ for event in sim.events] == ["RunStarted", "RunFailed"]


def test_a_cancelled_context_reused_for_a_new_run_says_it_was_cancelled() -> None:
    """A run started on a context cancelled earlier fails at once, and its error says the context was
    already cancelled (and that a fresh one is needed)."""
    ctx = RunContext.ephemeral(None)
    ctx.cancel("user pressed stop")
    sim = simulate(_agent(), "hi", ctx)
    assert sim.error is not None
    text = str(sim.error)
    assert "already cancelled" in text and "user pressed stop" in text and "fresh RunContext" in text
