"""Content only on opt-in; no OpenTelemetry import without a tracer; nesting under the application's spans."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from tests.otel.spans import named, traced

from helikon_fc import LlmAgent, RunContext, ToolContext, function_tool
from helikon_fc.otel import OpenTelemetryTracer
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate

SECRET = "my card is 4111"
SEEN: list[str] = []


@function_tool
def lookup(ctx: ToolContext[Any], query: str) -> str:
    """Look something up.

    Args:
        query: What to look up.
    """
    SEEN.append(getattr(trace.get_current_span(), "name", "?"))
    return f"found {query}"


def assistant() -> LlmAgent[None]:
    model = ScriptedModel([call_tools(call("lookup", query=SECRET)), reply("answer: " + SECRET)], name="m")
    return LlmAgent(name="assistant", model=model, instructions="Be brief.", tools=[lookup])


def all_attribute_text(spans: Any) -> str:
    return json.dumps([dict(span.attributes or {}) for span in spans], default=str)


def test_no_prompt_or_tool_content_by_default() -> None:
    tracer, exporter = traced()
    simulate(assistant(), SECRET, RunContext(None, tracer=tracer))
    spans = exporter.get_finished_spans()
    assert len(spans) == 4
    assert SECRET not in all_attribute_text(spans)
    assert "Be brief." not in all_attribute_text(spans)


def test_content_is_recorded_when_opted_in() -> None:
    tracer, exporter = traced(capture_content=True)
    simulate(assistant(), "question", RunContext(None, tracer=tracer))
    spans = exporter.get_finished_spans()
    first_chat = named(spans, "chat m")[0]
    assert first_chat.attributes is not None
    assert first_chat.attributes["gen_ai.system_instructions"] == "Be brief."
    assert "question" in str(first_chat.attributes["gen_ai.input.messages"])
    assert "lookup" in str(first_chat.attributes["gen_ai.output.messages"])
    tool = named(spans, "execute_tool lookup")[0]
    assert tool.attributes is not None
    assert json.loads(str(tool.attributes["gen_ai.tool.call.arguments"])) == {"query": SECRET}
    assert SECRET in str(tool.attributes["gen_ai.tool.call.result"])


def test_capture_content_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="capture_content must be a bool, got 'yes'"):
        OpenTelemetryTracer(capture_content="yes")  # type: ignore[arg-type]


def test_a_tool_sees_its_span_as_current_and_a_run_nests_under_the_applications_span() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    SEEN.clear()
    with provider.get_tracer("app").start_as_current_span("request"):
        simulate(assistant(), "q", RunContext(None, tracer=OpenTelemetryTracer(provider)))
    assert SEEN == ["execute_tool lookup"]
    spans = exporter.get_finished_spans()
    request = named(spans, "request")[0]
    run = named(spans, "invoke_agent assistant")[0]
    assert request.context is not None and run.parent is not None
    assert run.parent.span_id == request.context.span_id
    assert trace.get_current_span() is trace.INVALID_SPAN  # every span the run made current was detached


SCRIPT = """
import sys
from helikon_fc import LlmAgent, RunContext
from helikon_fc.testing import ScriptedModel, reply, simulate
sim = simulate(LlmAgent(name="a", model=ScriptedModel([reply("hi")])), "q", RunContext(None))
assert sim.error is None, sim.error
print(sorted(name for name in sys.modules if name.startswith("opentelemetry")))
"""


def test_a_run_without_a_tracer_never_imports_opentelemetry() -> None:
    """With no tracer the shell has no tracing library to load: the package may be absent."""
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_without_the_package_helikon_fc_otel_says_what_to_install() -> None:
    script = "import sys; sys.modules['opentelemetry'] = None\nimport helikon_fc.otel"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "helikon_fc.otel needs the OpenTelemetry API: pip install 'helikon_fc[otel]'" in done.stderr
