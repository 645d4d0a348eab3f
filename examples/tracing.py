"""Tracing: every agent run, model call and tool call as an OpenTelemetry span, printed as a tree.

python examples/tracing.py              # offline, on the scripted simulator
HELIKON_TRACE_CONTENT=1 python examples/tracing.py   # also record prompts, answers and tool content

Needs ``pip install 'helikon_fc[otel]' opentelemetry-sdk``. A real application sends the spans to a
collector instead of printing them (see docs/observability.md).
"""

from __future__ import annotations

import os

from _support import needs, pick_model, run_example

from helikon_fc import AgentAsTool, AgentInput, LlmAgent, RunContext, RunResultStreaming, function_tool
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

with needs("pip install 'helikon_fc[otel]' opentelemetry-sdk"):
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from helikon_fc.otel import OpenTelemetryTracer

SPENDING = {"dining": 412, "groceries": 388}


@function_tool
def get_spending(category: str) -> int:
    """What was spent this month in a category, in dollars.

    Args:
        category: A spending category, e.g. "dining".
    """
    return SPENDING.get(category, 0)


summarizer: LlmAgent[None] = LlmAgent(
    name="summarizer",
    description="Condenses a block of text to one line.",
    model=pick_model(ScriptedModel([reply("Dining (412) outspends groceries (388).")], name="summarizer-model")),
    instructions="Summarize the input in one line.",
)

advisor: LlmAgent[None] = LlmAgent(
    name="advisor",
    model=pick_model(
        ScriptedModel(
            [
                call_tools(call("get_spending", category="dining"), call("get_spending", category="groceries")),
                call_tools(call("summarizer", input="dining 412, groceries 388")),
                reply("Dining outspends groceries this month: try cooking twice more a week."),
            ],
            name="advisor-model",
        )
    ),
    instructions="Answer money questions. Look up spending, then have it summarized.",
    tools=[get_spending, AgentAsTool(summarizer)],
)

SHOWN = ("gen_ai.request.model", "gen_ai.tool.call.id", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")
CONTENT = ("gen_ai.tool.call.arguments", "gen_ai.tool.call.result")


def print_tree(spans: tuple[ReadableSpan, ...]) -> None:
    """Each span under its parent, children in the order they started, with a few attributes."""
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in spans:
        children.setdefault(span.parent.span_id if span.parent else None, []).append(span)

    def show(parent: int | None, depth: int) -> None:
        for span in in_order(children.get(parent, [])):
            attributes = dict(span.attributes or {})
            details = [f"{key.rsplit('.', 1)[-1]}={attributes[key]}" for key in SHOWN + CONTENT if key in attributes]
            if "error.type" in attributes:
                details.append(f"error.type={attributes['error.type']}")
            print("  " * depth + span.name + (f"  [{', '.join(details)}]" if details else ""))
            assert span.context is not None
            show(span.context.span_id, depth + 1)

    show(None, 0)


def in_order(spans: list[ReadableSpan]) -> list[ReadableSpan]:
    """Spans in the order they started; the calls of one tool round (which start together, in the
    order trio happens to schedule them) by call id, so the tree reads the same on every run."""
    ordered: list[ReadableSpan] = []
    for span in sorted(spans, key=lambda s: s.start_time or 0):
        if ordered and _is_tool(span) and _is_tool(ordered[-1]):
            round_start = len(ordered)
            while round_start > 0 and _is_tool(ordered[round_start - 1]):
                round_start -= 1
            ordered[round_start:] = sorted([*ordered[round_start:], span], key=_call_id)
        else:
            ordered.append(span)
    return ordered


def _is_tool(span: ReadableSpan) -> bool:
    return span.name.startswith("execute_tool ")


def _call_id(span: ReadableSpan) -> str:
    return str((span.attributes or {}).get("gen_ai.tool.call.id", ""))


async def main() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = OpenTelemetryTracer(provider, capture_content=os.environ.get("HELIKON_TRACE_CONTENT") == "1")
    ctx = RunContext(None, tracer=tracer)
    input = AgentInput.from_user_text("Where is my money going?")
    result = await RunResultStreaming(advisor.run(ctx, input)).collect()
    print(result.final_output)
    print()
    print_tree(exporter.get_finished_spans())


if __name__ == "__main__":
    run_example(main)
