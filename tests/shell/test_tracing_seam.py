"""The tracing seam with a tracer of our own: every span ends once, with its parent passed explicitly."""

from __future__ import annotations

from typing import Any

import attrs

from helikon_fc import LlmAgent, RunContext, Tracer, function_tool
from helikon_fc.core import ModelRequest, ToolCall
from helikon_fc.models.protocol import Model
from helikon_fc.shell.telemetry.tracing import Span
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate


@attrs.define(eq=False)
class Recorded:
    name: str
    parent: Recorded | None
    log: list[str]
    ended: int = 0

    def interrupt(self, error_type: str) -> None:
        self.ended += 1
        self.log.append(f"interrupt {self.name} {error_type}")

    def finish(self, outcome: Any, error_type: str | None = None) -> None:
        self.ended += 1
        kind = type(outcome).__name__
        self.log.append(f"finish {self.name} {kind}" + (f" {error_type}" if error_type else ""))


@attrs.define
class RecordingTracer:
    log: list[str] = attrs.field(factory=list)
    spans: list[Recorded] = attrs.field(factory=list)

    def _open(self, name: str, parent: Span | None) -> Recorded:
        assert parent is None or isinstance(parent, Recorded)
        span = Recorded(name, parent, self.log)
        self.spans.append(span)
        self.log.append(f"start {name} under {parent.name if parent else '-'}")
        return span

    def start_agent_run(self, agent_name: str, parent: Span | None) -> Recorded:
        return self._open(f"agent:{agent_name}", parent)

    def start_model_call(self, model: Model, request: ModelRequest, parent: Span | None) -> Recorded:
        return self._open(f"model:{model.name}", parent)

    def start_tool_call(self, call: ToolCall, parent: Span | None) -> Recorded:
        return self._open(f"tool:{call.name}", parent)


@function_tool
def echo(text: str) -> str:
    """Echo.

    Args:
        text: What to echo.
    """
    return text


def test_a_tracer_of_our_own_sees_every_start_and_end_in_order() -> None:
    tracer = RecordingTracer()
    _: Tracer = tracer  # the protocol is structural: no base class, no OpenTelemetry
    agent = LlmAgent(
        name="a", model=ScriptedModel([call_tools(call("echo", text="x")), reply("x")], name="m"), tools=[echo]
    )
    sim = simulate(agent, "go", RunContext(None, tracer=tracer))
    assert sim.error is None
    assert tracer.log == [
        "start agent:a under -",
        "start model:m under agent:a",
        "finish model:m ModelResponse",
        "start tool:echo under agent:a",
        "finish tool:echo ToolResult",
        "start model:m under agent:a",
        "finish model:m ModelResponse",
        "finish agent:a RunCompleted",
    ]
    assert all(span.ended == 1 for span in tracer.spans)


def test_a_call_that_cannot_run_is_an_error_tool_span_and_its_tool_never_runs() -> None:
    """Off-schema arguments and an unknown tool reach the invoke step (original-notes sections 3.2 and 11: the
    tool span is an error on an invoke error or an unknown tool), where their problem answers them."""
    ran: list[str] = []

    @function_tool
    def count(n: int) -> int:
        """Count.

        Args:
            n: How many.
        """
        ran.append("count")
        return n

    tracer = RecordingTracer()
    model = ScriptedModel([call_tools(call("count", n="one"), call("teleport")), reply("x")], name="m")
    sim = simulate(LlmAgent(name="a", model=model, tools=[count]), "go", RunContext(None, tracer=tracer))
    assert sim.error is None and ran == []
    assert sorted(line for line in tracer.log if "tool:" in line) == [
        "finish tool:count ToolResult tool_error",
        "finish tool:teleport ToolResult unknown_tool",
        "start tool:count under agent:a",
        "start tool:teleport under agent:a",
    ]
    assert tracer.log.count("start model:m under agent:a") == 2


def test_no_tracer_means_no_calls_and_the_same_run() -> None:
    def agent() -> LlmAgent[None]:
        return LlmAgent(name="a", model=ScriptedModel([call_tools(call("echo", text="x")), reply("x")]), tools=[echo])

    plain = simulate(agent(), "go", RunContext(None))
    traced = simulate(agent(), "go", RunContext(None, tracer=RecordingTracer()))
    assert plain.events == traced.events
