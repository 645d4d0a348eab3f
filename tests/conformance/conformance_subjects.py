"""The models the conformance suite runs: OpenAI chat and responses over the wire server, and `ScriptedModel`.

A subject turns a `Scenario` into a model, a request and (for cancel scenarios) a `CancelPlan`.
Scenarios a subject cannot express are *declined*, each with its reason; the suite pins the
table of declines so a subject cannot quietly stop covering a scenario.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Protocol

import attrs
import trio
from tests.conformance.stream_rules import CancelPlan, Scenario
from tests.openai.openai_wire import Api, Exchange, WireServer, wait_for

from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelRequest,
    ModelTextDelta,
    ModelUsage,
    Usage,
    UserMessage,
)
from helikon_fc.core.conversation import Conversation
from helikon_fc.models import Model
from helikon_fc.openai import OpenAIModel
from helikon_fc.testing import ScriptedModel, ScriptedTurn, broken, call, call_tools, pause, raw, reply

REQUEST = ModelRequest(instructions="Answer briefly.", items=Conversation([UserMessage("What's the weather?")]))


@attrs.frozen
class Run:
    """One scenario, ready to record: the model, the request, when to cancel, and the server's view."""

    model: Model
    request: ModelRequest
    cancel: CancelPlan | None = None
    exchange: Exchange | None = None


class Subject(Protocol):
    """Something the conformance suite can run scenarios on."""

    @property
    def name(self) -> str:
        """How the subject is named in test ids and the declines table."""
        ...

    def declines(self) -> Mapping[Scenario, str]:
        """The scenarios the subject cannot express, with why."""
        ...

    def run(self, scenario: Scenario, wire: WireServer) -> contextlib.AbstractAsyncContextManager[Run]:
        """Prepare `scenario`."""
        ...


def _ready(scenario: Scenario, events: Sequence[ModelEvent]) -> bool:
    if scenario is Scenario.CANCEL_AFTER_STOP_REASON:
        return any(isinstance(event, ModelUsage) for event in events)
    return any(isinstance(event, ModelTextDelta) for event in events)


_OPENAI_FIXTURES: dict[Scenario, str] = {
    Scenario.CLEAN_STOP: "text_stream",
    Scenario.TRUNCATED_AFTER_STOP_REASON: "truncated_after_stop",
    Scenario.TRUNCATED_MID_GENERATION: "truncated_before_stop",
    Scenario.ERROR_MID_GENERATION: "error_mid_stream",
    Scenario.ERROR_AFTER_STOP_REASON: "error_after_stop",
    Scenario.CANCEL_MID_GENERATION: "held_open",
    Scenario.CANCEL_AFTER_STOP_REASON: "held_open_after_stop",
    Scenario.FRAGMENTED_TOOL_NAME: "tool_call_fragmented",
    Scenario.TOOL_CALL_CLEAN_STOP: "parallel_tool_calls",
    Scenario.NO_USAGE_REPORTED: "no_usage",
}

_WHOLE_FIXTURES: dict[Scenario, str] = {
    Scenario.CLEAN_STOP: "whole_text",
    Scenario.TOOL_CALL_CLEAN_STOP: "whole_tool_calls",
    Scenario.NO_USAGE_REPORTED: "whole_no_usage",
}
_NOT_STREAMED = "a whole (stream: false) body has no stream to cut, fail, cancel or fragment part-way"


@attrs.frozen
class OpenAISubject:
    """`OpenAIModel.chat` or `OpenAIModel.responses`, replaying the wire fixtures."""

    api: Api

    @property
    def name(self) -> str:
        """``openai.chat`` or ``openai.responses``."""
        return f"openai.{self.api}"

    def declines(self) -> Mapping[Scenario, str]:
        """The Responses API sends a function call's name whole, so it has no fragmented-name case."""
        if self.api == "responses":
            return {Scenario.FRAGMENTED_TOOL_NAME: "the Responses API sends a call's name whole in output_item.added"}
        return {}

    @contextlib.asynccontextmanager
    async def run(self, scenario: Scenario, wire: WireServer) -> AsyncIterator[Run]:
        """Queue the scenario's fixture and point a fresh model at the server."""
        exchange = wire.enqueue(self.api, _OPENAI_FIXTURES[scenario])
        builder = OpenAIModel.chat if self.api == "chat" else OpenAIModel.responses
        model = builder("gpt-5-mini", base_url=wire.base_url)
        cancel = None
        if scenario.ending.value == "cancelled":
            cancel = CancelPlan(
                parked=lambda: wait_for(exchange.parked),
                still_parked=lambda: exchange.parked.is_set() and not exchange.disconnected.is_set(),
                ready=lambda events: _ready(scenario, events),
            )
        yield Run(model, REQUEST, cancel, exchange)


@attrs.frozen
class OpenAIWholeSubject:
    """`OpenAIModel.chat(stream=False)`: one whole completion per call, for servers that cannot stream tool calls."""

    @property
    def name(self) -> str:
        """``openai.chat.whole``."""
        return "openai.chat.whole"

    def declines(self) -> Mapping[Scenario, str]:
        """Every scenario about what happens part-way through a stream."""
        return {scenario: _NOT_STREAMED for scenario in Scenario if scenario not in _WHOLE_FIXTURES}

    @contextlib.asynccontextmanager
    async def run(self, scenario: Scenario, wire: WireServer) -> AsyncIterator[Run]:
        """Queue the scenario's whole-body fixture and point a fresh non-streaming model at the server."""
        exchange = wire.enqueue("chat", _WHOLE_FIXTURES[scenario])
        yield Run(OpenAIModel.chat("gpt-5-mini", base_url=wire.base_url, stream=False), REQUEST, None, exchange)


_HELD = Usage(input_tokens=7, output_tokens=2)

_SCRIPTS: dict[Scenario, ScriptedTurn] = {
    Scenario.CLEAN_STOP: reply("Hello, world!"),
    Scenario.TRUNCATED_MID_GENERATION: raw(ModelTextDelta("The answer is"), ModelTextDelta(" forty")),
    Scenario.ERROR_MID_GENERATION: broken(ModelTextDelta("Partial"), error=ModelFailureKind.UNAVAILABLE),
    Scenario.CANCEL_MID_GENERATION: raw(
        ModelTextDelta("Thinking"), pause(math.inf), ModelTextDelta(" more"), ModelFinish(FinishReason.STOP)
    ),
    Scenario.CANCEL_AFTER_STOP_REASON: raw(
        ModelTextDelta("All done"), ModelUsage(_HELD), pause(math.inf), ModelFinish(FinishReason.STOP)
    ),
    Scenario.TOOL_CALL_CLEAN_STOP: call_tools(call("get_weather", city="Paris"), call("get_time")),
    Scenario.NO_USAGE_REPORTED: raw(
        ModelTextDelta("Hello"), ModelUsage(Usage(requests=1, unreported_requests=1)), ModelFinish(FinishReason.STOP)
    ),
}


@attrs.frozen
class ScriptedSubject:
    """`helikon_fc.testing.ScriptedModel`: each scenario is a one-turn script."""

    @property
    def name(self) -> str:
        """``scripted``."""
        return "scripted"

    def declines(self) -> Mapping[Scenario, str]:
        """Scenarios that only exist on a wire: a stop reason seen apart from its finish, name fragments."""
        return {
            Scenario.TRUNCATED_AFTER_STOP_REASON: "a scripted turn has no stop reason apart from its finish",
            Scenario.ERROR_AFTER_STOP_REASON: "a scripted turn has no stop reason apart from its finish",
            Scenario.FRAGMENTED_TOOL_NAME: "scripted calls stream their name whole",
        }

    @contextlib.asynccontextmanager
    async def run(self, scenario: Scenario, wire: WireServer) -> AsyncIterator[Run]:
        """A `ScriptedModel` whose one turn plays the scenario; cancel plans fire during its endless pause."""
        model = ScriptedModel([_SCRIPTS[scenario]])
        cancel = None
        if scenario.ending.value == "cancelled":
            cancel = CancelPlan(
                parked=trio.lowlevel.checkpoint,
                still_parked=lambda: True,
                ready=lambda events: _ready(scenario, events),
            )
        yield Run(model, REQUEST, cancel)


def _gemini() -> Subject:
    from tests.conformance.gemini_subject import GeminiSubject  # it imports `Run` from here, so it loads last

    return GeminiSubject()


def _provider_subjects() -> tuple[Subject, ...]:
    """The subjects of the other providers, each in its own test folder (imported here, after `Run`)."""
    from tests.anthropic.anthropic_subject import AnthropicSubject

    return (AnthropicSubject(),)


SUBJECTS: tuple[Subject, ...] = (
    OpenAISubject("chat"),
    OpenAISubject("responses"),
    OpenAIWholeSubject(),
    ScriptedSubject(),
    _gemini(),
    *_provider_subjects(),
)
