"""A model that reports impossible usage ends the run with a `ModelFailed` naming the field, not an internal error.

Usage counts come from outside (a provider's JSON, a user's `Model`): a negative count, a float or a string
would otherwise be added into the run's usage (a `TypeError` deep in the transition, or a total that is wrong
from then on and is recorded, billed against and resumed with).
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.shell.loop_fakes import drain, ephemeral

from helikon_fc import AgentInput, LlmAgent, ModelFailed, RunCompleted, RunFailed
from helikon_fc.core import FinishReason, ModelFailureKind, ModelFinish, ModelTextDelta, ModelUsage, Usage
from helikon_fc.testing import ScriptedModel, raw

QUESTION = AgentInput.from_user_text("How much did I spend?")


def _usage_turn(usage: Any) -> ScriptedModel:
    return ScriptedModel([raw(ModelTextDelta("About $40."), ModelUsage(usage), ModelFinish(FinishReason.STOP))])


@pytest.mark.parametrize(
    ("usage", "field", "got"),
    [
        # Each kind of bad count is `usage_problem`'s, in tests/core/test_usage_problem.py; here, that the driver asks.
        (Usage(input_tokens=-1), "input_tokens", "-1"),
        (Usage(cached_input_tokens="7"), "cached_input_tokens", "'7'"),  # type: ignore[arg-type]
        ("12 tokens", "usage", "'12 tokens'"),
    ],
)
async def test_impossible_usage_fails_the_turn_naming_what_was_reported(usage: Any, field: str, got: str) -> None:
    agent = LlmAgent(name="counter", model=_usage_turn(usage))
    events = await drain(agent.run(ephemeral(), QUESTION))
    terminal = events[-1]
    assert isinstance(terminal, RunFailed) and isinstance(terminal.error, ModelFailed), terminal
    assert terminal.error.kind is ModelFailureKind.OTHER
    message = terminal.error.message
    assert "'scripted'" in message and field in message and got in message, message


async def test_a_well_formed_usage_is_counted() -> None:
    agent = LlmAgent(name="counter", model=_usage_turn(Usage(input_tokens=12, output_tokens=3, cached_input_tokens=4)))
    events = await drain(agent.run(ephemeral(), QUESTION))
    terminal = events[-1]
    assert isinstance(terminal, RunCompleted), terminal
    assert (terminal.usage.input_tokens, terminal.usage.output_tokens, terminal.usage.requests) == (12, 3, 1)
