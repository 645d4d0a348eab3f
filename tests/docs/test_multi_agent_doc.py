"""Every Python snippet in ``docs/multi-agent.md`` runs, and prints what its comments say it prints."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "multi-agent.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
PRINTED = re.compile(r"print\(.*\)\s*# (.+)$")
CONTINUED = re.compile(r"^# (.+)$")


def test_the_page_has_a_snippet_per_pattern_and_the_choosing_table() -> None:
    """The page shows runnable code for each of the seven patterns, and the choosing table."""
    text = DOC.read_text()
    for name in ("Handoff", "AgentAsTool", "SequentialAgent", "ParallelAgent", "LoopAgent", "SwarmAgent", "GraphAgent"):
        assert any(name in snippet for snippet in SNIPPETS), name
    assert "| You want to… | Use | What crosses the boundary |" in text


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_snippet_runs_and_prints_what_it_says(index: int) -> None:
    """The snippet runs in a fresh namespace, and each ``print(...)  # text`` comment (or a comment line right after
    a bare ``print(...)``) appears in its output."""
    code = SNIPPETS[index]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{DOC.name}[{index}]", "exec"), {"__name__": f"snippet_{index}"})
    printed = out.getvalue()
    lines = code.splitlines()
    for number, line in enumerate(lines):
        match = PRINTED.search(line)
        if match:
            assert match.group(1).strip() in printed, (match.group(1), printed)
        elif line.startswith("print(") and number + 1 < len(lines):
            follow = CONTINUED.match(lines[number + 1])
            if follow:
                assert follow.group(1).strip() in printed, (follow.group(1), printed)
