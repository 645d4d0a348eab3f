"""A model call's deltas reach `RunHandle.events()` while it runs, batched, in the trio runner's order."""

from __future__ import annotations

import threading

from helikon_fc import LlmAgent, function_tool
from helikon_fc.core import (
    TokenDelta,
    ToolCallDelta,
)
from helikon_fc.temporal._deltas import joined
from helikon_fc.testing import ScriptedModel, ScriptedTurn, call, call_tools, reply, simulate

from .gated import GatedModel, release_on_first_delta
from .harness import on_temporal


@function_tool
def shout(word: str) -> str:
    """Shout a word."""
    return word.upper()


def _shouter() -> LlmAgent[None]:
    turns: list[ScriptedTurn] = [call_tools(call("shout", word="hey"), text="let me shout"), reply("I shouted HEY")]
    return LlmAgent(name="shouter", model=ScriptedModel(turns), tools=[shout])


def test_the_deltas_stream_in_the_trio_runners_order_with_fragments_joined(temporal_address: str) -> None:
    outcome = on_temporal(temporal_address, [_shouter()], "shouter", "shout")
    expected = simulate(_shouter(), "shout").events
    assert any(isinstance(e, TokenDelta) for e in outcome.streamed)
    assert any(isinstance(e, ToolCallDelta) for e in outcome.streamed)
    assert joined(list(outcome.streamed)) == joined(list(expected))
    assert len(outcome.streamed) <= len(expected)  # batched: never more deltas than fragments


def test_a_watcher_sees_a_delta_before_the_model_call_ends(temporal_address: str) -> None:
    gate = threading.Event()
    agent = LlmAgent[None](name="gated", model=GatedModel(gate))
    outcome = on_temporal(temporal_address, [agent], "gated", "hi", during=release_on_first_delta(gate))
    assert outcome.result.output == "Hello"
    assert [e.text for e in outcome.streamed if isinstance(e, TokenDelta)] == ["Hel", "lo"]
