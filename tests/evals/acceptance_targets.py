"""What the acceptance tests of `helikon eval` point --agent at: flaky, slow, raising and echoing agents."""

from __future__ import annotations

import itertools

from tests.evals.agents import question

from helikon_fc import LlmAgent, Model, ModelRequest
from helikon_fc.testing import FunctionModel, ScriptedTurn, reply


def flaky(model: Model | None) -> LlmAgent[None]:
    """Right on every repetition but the second of each case (counted per eval: a factory per eval)."""
    counts: dict[str, itertools.count[int]] = {}

    def answer(request: ModelRequest) -> ScriptedTurn:
        seen = next(counts.setdefault(question(request), itertools.count()))
        return reply("wrong" if seen == 1 else "The budget is $300.")

    return LlmAgent(name="flaky", model=FunctionModel(answer, name="flaky-sim"), instructions="Answer.")


def slow(model: Model | None) -> LlmAgent[None]:
    """Answers after 30 (virtual) seconds when the question says 'slow', at once otherwise."""

    def answer(request: ModelRequest) -> ScriptedTurn:
        return reply("The budget is $300.", latency=30.0 if "slow" in question(request) else 0.5)

    return LlmAgent(name="slow", model=FunctionModel(answer, name="slow-sim"), instructions="Answer.")


def raising(model: Model | None) -> LlmAgent[None]:
    """Its model's code raises a plain Python exception when the question says 'boom'."""

    def answer(request: ModelRequest) -> ScriptedTurn:
        if "boom" in question(request):
            raise RuntimeError("boom in the model code")
        return reply("The budget is $300.")

    return LlmAgent(name="raising", model=FunctionModel(answer, name="raising-sim"), instructions="Answer.")


def echo(model: Model | None) -> LlmAgent[None]:
    """Repeats the question (HTML in it included), with a latency depending on its length."""

    def answer(request: ModelRequest) -> ScriptedTurn:
        text = question(request)
        return reply(f"You said: {text}", latency=float(len(text) % 7))

    return LlmAgent(name="echo", model=FunctionModel(answer, name="echo-sim"), instructions="Answer.")


def broken(model: Model | None) -> LlmAgent[None]:
    """Its model fails every request (a recorded run that failed)."""
    from helikon_fc.testing import fail

    return LlmAgent(name="broken", model=FunctionModel(lambda _: fail("the model is down")), instructions="Answer.")
