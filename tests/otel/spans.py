"""Helpers for the tracing tests: a tracer over an in-memory exporter, and the span tree as text."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from helikon_fc.otel import OpenTelemetryTracer


def traced(*, capture_content: bool = False) -> tuple[OpenTelemetryTracer, InMemorySpanExporter]:
    """A tracer whose spans land in the returned exporter."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return OpenTelemetryTracer(provider, capture_content=capture_content), exporter


def tree(spans: Sequence[ReadableSpan]) -> list[str]:
    """One line per span, indented two spaces per level, children in start order; ``!type`` marks ``error.type``."""
    by_parent: dict[int | None, list[ReadableSpan]] = {}
    ids = {span.context.span_id for span in spans if span.context is not None}
    for span in spans:
        parent = span.parent.span_id if span.parent is not None and span.parent.span_id in ids else None
        by_parent.setdefault(parent, []).append(span)
    lines: list[str] = []

    def walk(parent: int | None, depth: int) -> None:
        for span in sorted(by_parent.get(parent, []), key=lambda s: (s.start_time or 0, s.name)):
            error = (span.attributes or {}).get("error.type")
            lines.append("  " * depth + span.name + (f" !{error}" if error is not None else ""))
            assert span.context is not None
            walk(span.context.span_id, depth + 1)

    walk(None, 0)
    return lines


def named(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    """The spans called `name`."""
    return [span for span in spans if span.name == name]
