"""Redaction in real runs: a tool's JSON output reaches the model, the events, the durable records and the session
as JSON, redacted leaf by leaf, with secret-named keys masked at every depth."""

from __future__ import annotations

import json
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from helikon_fc import (
    AgentAsTool,
    AgentInput,
    LlmAgent,
    Permissions,
    RunContext,
    Runner,
    RunResultStreaming,
    function_tool,
)
from helikon_fc.core import JsonValue, RedactionConfig, ToolResult, to_json
from helikon_fc.otel import OpenTelemetryTracer
from helikon_fc.stores import SQLiteStore
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate

from .leaky import CONFIGURED, HIDDEN, OUTPUT, REDACTED, ReturningTool


def _agent() -> LlmAgent[None]:
    model = ScriptedModel([call_tools(call("inspect")), reply("done")])
    return LlmAgent(name="ops", model=model, tools=[ReturningTool("inspect", OUTPUT)])


def _read(agent: LlmAgent[None]) -> list[JsonValue]:
    """The tool results `agent`'s model was shown, decoded."""
    assert isinstance(agent.model, ScriptedModel)
    requests = agent.model.requests
    return [json.loads(item.output) for request in requests for item in request.items if isinstance(item, ToolResult)]


async def _run(store: SQLiteStore, agent: LlmAgent[None]) -> tuple[str, ...]:
    """Run `agent` recorded as ``r`` with session ``s``: every event, every record of every run in the store
    and every session item, as JSON text."""
    permissions = Permissions(redaction=RedactionConfig(secrets=(CONFIGURED,)))
    ctx = RunContext(None, session=store.session("s")).with_permissions(permissions)
    stream = Runner(store=store).run(agent, ctx, AgentInput.from_user_text("go"), run_id="r")
    result = await RunResultStreaming(stream).collect()
    assert result.final_output == "done"
    records = [record for run in await store.runs() for record in await store.read_run_records(run.run_id)]
    items = await store.session("s").items()
    return (*(to_json(event) for event in result.events), *(r.body for r in records), *map(to_json, items))


async def test_json_output_stays_json_with_every_secret_masked_in_every_copy(tmp_path: Path) -> None:
    """The tool's result is JSON of the same shape for the model and in the session; no secret is in any event,
    record or session item."""
    agent = _agent()
    async with SQLiteStore(tmp_path / "runs.db") as store:
        texts = await _run(store, agent)
        items = await store.session("s").items()
    assert _read(agent) == [REDACTED]
    assert [json.loads(item.output) for item in items if isinstance(item, ToolResult)] == [REDACTED]
    for text in texts:
        assert not any(secret in text for secret in HIDDEN), text


async def test_an_agent_as_tool_sub_run_redacts_its_tool_output_the_same_way(tmp_path: Path) -> None:
    """A sub-run's tool output reaches its model, and its records, redacted by the same rules."""
    inner = _agent()
    outer = LlmAgent(
        name="outer",
        model=ScriptedModel([call_tools(call("ops", input="go")), reply("done")]),
        tools=[AgentAsTool(inner)],
    )
    async with SQLiteStore(tmp_path / "runs.db") as store:
        texts = await _run(store, outer)
        assert len(await store.runs()) == 2  # the sub-run's records were read too
    assert _read(inner) == [REDACTED]
    for text in texts:
        assert not any(secret in text for secret in HIDDEN), text


@function_tool
def failing() -> str:
    """Fails, naming a secret."""
    raise ValueError(f"cannot connect with {CONFIGURED}")


def test_tool_spans_record_the_redacted_output_and_error() -> None:
    """A tracer records a tool call's result (with content capture) and a failed call's error text (always) as
    the run redacts them: no secret reaches a span."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = ScriptedModel([call_tools(call("inspect"), call("failing")), reply("done")])
    agent = LlmAgent(name="ops", model=model, tools=[ReturningTool("inspect", OUTPUT), failing])
    permissions = Permissions(redaction=RedactionConfig(secrets=(CONFIGURED,)))
    ctx = RunContext(None, tracer=OpenTelemetryTracer(provider, capture_content=True)).with_permissions(permissions)
    simulate(agent, "go", ctx)
    spans = exporter.get_finished_spans()
    recorded = [json.dumps(dict(span.attributes or {})) + str(span.status.description) for span in spans]
    assert len(recorded) == 5  # the run, two model calls, two tool calls
    assert not any(secret in text for text in recorded for secret in HIDDEN), recorded
    [inspect] = [span.attributes or {} for span in spans if span.name == "execute_tool inspect"]
    assert json.loads(str(inspect["gen_ai.tool.call.result"])) == REDACTED
