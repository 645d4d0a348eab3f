"""A model request as readable lines, and the unified diff of two requests (what a diverged replay shows)."""

from __future__ import annotations

import difflib
import json

from ..core import ModelRequest, ModelSettings, to_json


def request_lines(request: ModelRequest) -> list[str]:
    """`request` as lines: its instructions, its tools with their schemas, its output schema and
    settings when set, then its conversation, one item per line in the wire format."""
    lines = ["instructions:"]
    lines.extend(f"  {line}" for line in (request.instructions or "(none)").splitlines() or [""])
    lines.append("tools:" if request.tools else "tools: (none)")
    for tool in request.tools:
        lines.append(f"  {tool.name}{' (strict)' if tool.strict else ''}: {tool.description}")
        lines.extend(f"    {line}" for line in _json_lines(tool.parameters))
    schema = request.output_schema
    if schema is not None:
        lines.append(f"output schema: {schema.name}{' (strict)' if schema.strict else ''}")
        lines.extend(f"  {line}" for line in _json_lines(schema.schema))
    if request.settings != ModelSettings():
        lines.append(f"settings: {to_json(request.settings)}")
    lines.append("conversation:")
    lines.extend(f"  [{index}] {to_json(item)}" for index, item in enumerate(request.items))
    return lines


def request_diff(recorded: ModelRequest, replayed: ModelRequest, recorded_label: str, replayed_label: str) -> str:
    """The unified diff from `recorded` to `replayed` (as `request_lines`), two lines of context."""
    diff = difflib.unified_diff(
        request_lines(recorded), request_lines(replayed), fromfile=recorded_label, tofile=replayed_label, n=2
    )
    return "\n".join(line.rstrip("\n") for line in diff)


def _json_lines(value: object) -> list[str]:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()
