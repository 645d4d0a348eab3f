"""OpenTelemetry tracing of runs, per the OpenTelemetry GenAI semantic conventions (``pip install helikon_fc[otel]``).

``RunContext(user, tracer=OpenTelemetryTracer())`` traces every run on that context:

- ``invoke_agent {agent}`` per agent run — model loops, workflows, graphs, swarms, handoff
  targets and agent-as-tool sub-runs (``gen_ai.operation.name``, ``gen_ai.agent.name``, the
  run's ``gen_ai.usage.input_tokens`` / ``output_tokens``);
- ``chat {model}`` per model call, kind CLIENT (``gen_ai.provider.name``,
  ``gen_ai.request.model``, ``gen_ai.usage.*``, ``gen_ai.response.finish_reasons``);
- ``execute_tool {tool}`` per tool call (``gen_ai.tool.name``, ``gen_ai.tool.call.id``).

A failure, a cancellation or a timeout sets ``error.type`` and the span status to ERROR. Prompts,
answers, tool arguments and tool results are recorded only with ``capture_content=True``.
Needs only ``opentelemetry-api``; spans go wherever the tracer provider sends them (the SDK and an
exporter are the application's choice: see ``docs/observability.md``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any, assert_never

try:
    from opentelemetry import context as otel_context, trace
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    raise ImportError(
        "helikon_fc.otel needs the OpenTelemetry API: pip install 'helikon_fc[otel]' (or opentelemetry-api)"
    ) from exc

from .core import (
    AgentError,
    ModelFailed,
    ModelRequest,
    ModelResponse,
    RunCompleted,
    RunFailed,
    RunPaused,
    TerminalEvent,
    TimedOut,
    ToolCall,
    ToolResult,
    to_json,
)
from .models.protocol import Model
from .shell.telemetry.tracing import AgentRunSpan, ModelCallSpan, Span, ToolCallSpan

__all__ = ["OpenTelemetryTracer"]

try:
    _VERSION = version("helikon_fc")
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    _VERSION = "0"


class OpenTelemetryTracer:
    """A `helikon_fc.shell.telemetry.tracing.Tracer` that records OpenTelemetry spans.

    Args:
        tracer_provider: where spans go; `None` uses the global provider
            (``opentelemetry.trace.set_tracer_provider``), a no-op until the application sets one.
        capture_content: also record the instructions and messages of each model call
            (``gen_ai.system_instructions``, ``gen_ai.input.messages``, ``gen_ai.output.messages``,
            as helikon_fc's JSON wire format) and each tool call's arguments and result
            (``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``). Off by default: they
            may hold personal data.

    A run's top span is a child of whatever OpenTelemetry span is current where the run starts,
    so a run inside an application's own span nests under it; code inside a tool sees the tool's
    span as current.
    """

    __slots__ = ("_capture", "_tracer")

    def __init__(self, tracer_provider: trace.TracerProvider | None = None, *, capture_content: bool = False) -> None:
        if not isinstance(capture_content, bool):
            raise TypeError(f"OpenTelemetryTracer: capture_content must be a bool, got {capture_content!r}")
        self._tracer = trace.get_tracer("helikon_fc", _VERSION, tracer_provider=tracer_provider)
        self._capture = capture_content

    @property
    def capture_content(self) -> bool:
        """Whether prompts, answers and tool content are recorded."""
        return self._capture

    def start_agent_run(self, agent_name: str, parent: Span | None) -> AgentRunSpan:
        """Open ``invoke_agent {agent_name}``."""
        attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent_name}
        return _AgentRun(self._start(f"invoke_agent {agent_name}", SpanKind.INTERNAL, attributes, parent), False)

    def start_model_call(self, model: Model, request: ModelRequest, parent: Span | None) -> ModelCallSpan:
        """Open ``chat {model.name}``."""
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": _provider(model),
            "gen_ai.request.model": model.name,
        }
        settings = request.settings
        if settings.temperature is not None:
            attributes["gen_ai.request.temperature"] = settings.temperature
        if settings.max_output_tokens is not None:
            attributes["gen_ai.request.max_tokens"] = settings.max_output_tokens
        if self._capture:
            if request.instructions is not None:
                attributes["gen_ai.system_instructions"] = request.instructions
            attributes["gen_ai.input.messages"] = to_json(request.items)
        return _ModelCall(self._start(f"chat {model.name}", SpanKind.CLIENT, attributes, parent), self._capture)

    def start_tool_call(self, call: ToolCall, parent: Span | None) -> ToolCallSpan:
        """Open ``execute_tool {call.name}``."""
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": call.call_id,
            "gen_ai.tool.type": "function",
        }
        if self._capture:
            attributes["gen_ai.tool.call.arguments"] = call.arguments
        return _ToolCall(self._start(f"execute_tool {call.name}", SpanKind.INTERNAL, attributes, parent), self._capture)

    def _start(self, name: str, kind: SpanKind, attributes: dict[str, Any], parent: Span | None) -> trace.Span:
        context = trace.set_span_in_context(parent.span) if isinstance(parent, _Open) else None
        return self._tracer.start_span(name, context=context, kind=kind, attributes=attributes)


class _Open:
    """An open OpenTelemetry span, current in OpenTelemetry's context (for the application's own
    spans) until it ends; ended once, whatever is called after."""

    __slots__ = ("_capture", "_token", "span")

    def __init__(self, span: trace.Span, capture: bool) -> None:
        self.span = span
        self._capture = capture
        self._token: Any = otel_context.attach(trace.set_span_in_context(span))

    def _end(self, error_type: str | None, description: str | None = None) -> None:
        if self._token is None:
            return
        otel_context.detach(self._token)
        self._token = None
        if error_type is not None:
            self.span.set_attribute("error.type", error_type)
            self.span.set_status(Status(StatusCode.ERROR, description or error_type))
        self.span.end()

    def interrupt(self, error_type: str) -> None:
        """End as stopped by trio cancellation."""
        self._end(error_type, "run timed out" if error_type == "timeout" else "run cancelled")

    def add_event(self, name: str, attributes: Mapping[str, str | int | float | bool]) -> None:
        """Add an event to the span while it is open (`helikon_fc.shell.telemetry.tracing.span_event`)."""
        if self._token is not None:
            self.span.add_event(name, dict(attributes))


class _AgentRun(_Open):
    __slots__ = ()

    def finish(self, terminal: TerminalEvent) -> None:
        match terminal:
            case RunCompleted(usage=usage):
                self.span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
                self.span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
                self._end(None)
            case RunFailed(error=error):
                self._end(agent_error_type(error), str(error))
            case RunPaused():
                self._end(None)  # not an error: the run waits for approval
            case _:
                assert_never(terminal)


class _ModelCall(_Open):
    __slots__ = ()

    def finish(self, outcome: ModelResponse | RunFailed) -> None:
        if isinstance(outcome, RunFailed):
            error = outcome.error
            kind = error.kind.value if isinstance(error, ModelFailed) else agent_error_type(error)
            self._end(kind, str(error))
            return
        span = self.span
        span.set_attribute("gen_ai.response.finish_reasons", (outcome.finish_reason.value,))
        span.set_attribute("gen_ai.usage.input_tokens", outcome.usage.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", outcome.usage.output_tokens)
        if self._capture:
            span.set_attribute("gen_ai.output.messages", to_json(outcome))
        self._end(None)


class _ToolCall(_Open):
    __slots__ = ()

    def finish(self, result: ToolResult, error_type: str | None) -> None:
        if self._capture:
            self.span.set_attribute("gen_ai.tool.call.result", result.output)
        self._end(error_type, result.output if error_type is not None else None)


def agent_error_type(error: AgentError) -> str:
    """``error.type`` of a failed run: ``timeout``, else its snake_case name (``cancelled``, ``max_turns_exceeded``)."""
    if isinstance(error, TimedOut):
        return "timeout"
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(error).__name__).lower()


def _provider(model: Model) -> str:
    """``gen_ai.provider.name``: the model's ``provider_name`` if it has one, ``openai`` for helikon_fc's
    OpenAI provider, else the model class's package (``helikon_fc.testing`` for the simulator's models)."""
    named = getattr(model, "provider_name", None)
    if isinstance(named, str):
        return named
    module = type(model).__module__
    if module.startswith("helikon_fc.openai"):
        return "openai"
    return ".".join(module.split(".")[:2])
