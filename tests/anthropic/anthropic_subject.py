"""`AnthropicModel` as a subject of the provider conformance suite (``tests/conformance``).

The subject runs its own Messages API server (the suite's ``wire`` is an OpenAI server), and for the
cancel scenarios waits, when the run ends, until that server saw the client go away.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence

import attrs
from tests.anthropic.anthropic_wire import running_wire, wait_for
from tests.conformance.conformance_subjects import REQUEST, Run
from tests.conformance.stream_rules import CancelPlan, Ending, Scenario
from tests.openai.openai_wire import WireServer

from helikon_fc.anthropic import AnthropicModel
from helikon_fc.core import ModelEvent, ModelTextDelta, ModelUsage

FIXTURES: dict[Scenario, str] = {
    Scenario.CLEAN_STOP: "text_stream",
    Scenario.TRUNCATED_AFTER_STOP_REASON: "truncated_after_stop",
    Scenario.TRUNCATED_MID_GENERATION: "truncated_before_stop",
    Scenario.ERROR_MID_GENERATION: "error_mid_stream",
    Scenario.ERROR_AFTER_STOP_REASON: "error_after_stop",
    Scenario.CANCEL_MID_GENERATION: "held_open",
    Scenario.CANCEL_AFTER_STOP_REASON: "held_open_after_stop",
    Scenario.TOOL_CALL_CLEAN_STOP: "parallel_tool_calls",
    Scenario.NO_USAGE_REPORTED: "no_usage",
}


def _ready(scenario: Scenario, events: Sequence[ModelEvent]) -> bool:
    wanted = ModelUsage if scenario is Scenario.CANCEL_AFTER_STOP_REASON else ModelTextDelta
    return any(isinstance(event, wanted) for event in events)


@attrs.frozen
class AnthropicSubject:
    """`AnthropicModel` against the local Messages API server, replaying one fixture per scenario."""

    @property
    def name(self) -> str:
        """``anthropic``."""
        return "anthropic"

    def declines(self) -> Mapping[Scenario, str]:
        """The Messages API sends a tool's name whole in ``content_block_start``: no fragmented names."""
        return {Scenario.FRAGMENTED_TOOL_NAME: "the Messages API sends a tool's name whole in content_block_start"}

    @contextlib.asynccontextmanager
    async def run(self, scenario: Scenario, wire: WireServer) -> AsyncIterator[Run]:
        """Queue the scenario's fixture on a fresh Messages API server and point a fresh model at it."""
        with running_wire() as messages:
            exchange = messages.enqueue(FIXTURES[scenario])
            cancel = None
            if scenario.ending is Ending.CANCELLED:
                cancel = CancelPlan(
                    parked=lambda: wait_for(exchange.parked),
                    still_parked=lambda: exchange.parked.is_set() and not exchange.disconnected.is_set(),
                    ready=lambda events: _ready(scenario, events),
                )
            yield Run(AnthropicModel("claude-sonnet-4-5", base_url=messages.base_url), REQUEST, cancel)
            if cancel is not None:
                await wait_for(exchange.disconnected)
