"""``docs/multi-agent.md`` shows each pattern (tests/docs/test_pages.py runs its snippets)."""

from __future__ import annotations

import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "multi-agent.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_page_has_a_snippet_per_pattern_and_the_choosing_table() -> None:
    """The page shows runnable code for each of the seven patterns, and the choosing table."""
    text = DOC.read_text()
    for name in ("Handoff", "AgentAsTool", "SequentialAgent", "ParallelAgent", "LoopAgent", "SwarmAgent", "GraphAgent"):
        assert any(name in snippet for snippet in SNIPPETS), name
    assert "| You want to… | Use | What crosses the boundary |" in text
