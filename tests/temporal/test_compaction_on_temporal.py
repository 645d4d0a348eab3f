"""Compaction on Temporal: the summary is a model activity, and the run matches the trio runner's."""

from __future__ import annotations

from tests.compaction.fakes import STEPS, step, worker_turn

from helikon_fc import Compaction, ConversationCompacted, LlmAgent, RunConfig
from helikon_fc.core import ModelRequest
from helikon_fc.testing import FunctionModel, reply
from helikon_fc.testing.script import ScriptedTurn

from .harness import on_temporal, trio_events


def _turn(request: ModelRequest) -> ScriptedTurn:
    if request.instructions and request.instructions.startswith("You compress"):
        return reply("the steps so far are done")
    return worker_turn(request)


def _agent() -> LlmAgent[None]:
    config = RunConfig(max_turns=20, compaction=Compaction(max_tokens=200))
    return LlmAgent(name="worker", model=FunctionModel(_turn), tools=[step], run_config=config)


def test_a_compacting_run_on_temporal_runs_as_on_trio(temporal_address: str) -> None:
    """The same events (compactions included), answer and usage as on trio; the agent's model summarises."""
    agent = _agent()
    outcome = on_temporal(temporal_address, [agent], "worker", "do the job")
    assert outcome.events == trio_events(agent, "do the job")
    assert outcome.result.output == f"finished {STEPS} steps"
    assert sum(isinstance(event, ConversationCompacted) for event in outcome.events) >= 2
