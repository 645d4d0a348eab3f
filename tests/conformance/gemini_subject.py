"""The Gemini subject of the conformance suite: `GeminiModel` against the local Gemini API server.

The subject runs its own server (``tests/gemini/gemini_wire.py``) for each scenario, so the shared
OpenAI wire server it is handed goes unused; for the cancel scenarios it also checks, before the
server stops, that the server saw the client's connection go.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence

import attrs
from tests.conformance.conformance_subjects import REQUEST, Run
from tests.conformance.stream_rules import CancelPlan, Ending, Scenario
from tests.gemini.gemini_wire import running_server, wait_for
from tests.openai.openai_wire import WireServer

from helikon_fc.core import ModelEvent, ModelTextDelta, ModelUsage
from helikon_fc.gemini import GeminiModel

_FIXTURES: dict[Scenario, str] = {
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
    """Cancel after the usage (a cancel after the stop reason), else after the first text."""
    if scenario is Scenario.CANCEL_AFTER_STOP_REASON:
        return any(isinstance(event, ModelUsage) for event in events)
    return any(isinstance(event, ModelTextDelta) for event in events)


@attrs.frozen
class GeminiSubject:
    """`GeminiModel` (streaming), replaying the Gemini fixtures."""

    @property
    def name(self) -> str:
        """``gemini``."""
        return "gemini"

    def declines(self) -> Mapping[Scenario, str]:
        """Gemini sends each function call whole (name and args in one part), so no name comes in fragments."""
        return {Scenario.FRAGMENTED_TOOL_NAME: "Gemini sends a functionCall whole, its name and args in one part"}

    @contextlib.asynccontextmanager
    async def run(self, scenario: Scenario, wire: WireServer) -> AsyncIterator[Run]:
        """Start a Gemini server with the scenario's fixture queued and point a fresh model at it."""
        with running_server() as server:
            exchange = server.enqueue(_FIXTURES[scenario])
            model = GeminiModel("gemini-2.5-flash", base_url=server.base_url)
            cancel = None
            if scenario.ending is Ending.CANCELLED:
                cancel = CancelPlan(
                    parked=lambda: wait_for(exchange.parked),
                    still_parked=lambda: exchange.parked.is_set() and not exchange.disconnected.is_set(),
                    ready=lambda events: _ready(scenario, events),
                )
            yield Run(model, REQUEST, cancel)
            if cancel is not None:
                await wait_for(exchange.disconnected)
